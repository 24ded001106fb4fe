package main_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/chromedp/chromedp"
	"github.com/journalfs/journal/cmd/journal/web/webtest"
	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/remote/s3test"
	"github.com/journalfs/journal/replay"
)

// teamWebRemote is three machines' workspaces pushed to one remote (its
// S3 requests counted by meter): on alpha claude-code writes a parser for
// a prompt (+3, then +2 −1) and alice writes notes holding a key (+2); on
// beta codex writes a test for a prompt holding a key (+5) and bob the
// README (+1); on gamma cursor writes c.go (+4). A and B are checkouts of
// one git repository (B cloned from A: their root commit is one), C of
// another.
type teamWebRemote struct {
	srv                    *s3test.Server
	meter                  *s3Meter
	wa, wb, wc             string
	pA, a1, a2, a3         uint64
	pB, b1, b2, c1         uint64
	names                  map[string]string // workspace → A, B or C
	dirA, dirB, dirC, base string
	rootAB, rootC          string // the repositories' root commits
}

func newTeamWebRemote(t *testing.T) *teamWebRemote {
	t.Helper()
	r := &teamWebRemote{srv: s3test.Start(t)}
	r.meter = newS3Meter(t, r.srv.Endpoint())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	ctx := context.Background()
	record := func(e *replay.Engine, actor journal.Actor, p replay.PromptArgs) uint64 {
		t.Helper()
		res, err := e.RecordPrompt(ctx, actor, p)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	r.dirA = committedRepo(t, map[string]string{".gitignore": ".journal/\n", "seed.txt": "x\n"})
	r.dirB = filepath.Join(t.TempDir(), "b")
	gitEnvInAllow(t, t.TempDir(), "clone", "-q", r.dirA, r.dirB)
	r.dirC = committedRepo(t, map[string]string{".gitignore": ".journal/\n", "other.txt": "y\n"})
	r.rootAB = strings.TrimSpace(gitEnvInAllow(t, r.dirA, "rev-list", "--max-parents=0", "HEAD"))
	r.rootC = strings.TrimSpace(gitEnvInAllow(t, r.dirC, "rev-list", "--max-parents=0", "HEAD"))
	ea := engine(t, r.dirA)
	r.pA = record(ea, journal.Actor{Kind: "agent", Name: "claude-code", Session: "sess-a", Origin: "hook", Host: "alpha"}, replay.PromptArgs{ID: "p-1", Text: "write the parser", Model: "claude-opus-4"})
	mcpA := journal.Actor{Kind: "mcp", Name: "claude-code", Session: "mcp-a", Origin: "stdio", Host: "alpha"}
	call := `{"call":{"session":"sess-a","prompt":"p-1"}}`
	r.a1 = teamEdit(t, ea, mcpA, "write_file", call, "parser.go", "l1\nl2\nl3\n")
	r.a2 = teamEdit(t, ea, mcpA, "edit_file", call, "parser.go", "l1\nL2\nl3\nl4\n")
	r.a3 = teamEdit(t, ea, journal.Actor{Kind: "cli", User: "alice", Origin: "cli", Host: "alpha"}, "write_file", `{"note":"by hand"}`, "notes.md", "key "+promptKey+"\ny\n")
	ea.Close()
	eb := engine(t, r.dirB)
	r.pB = record(eb, journal.Actor{Kind: "agent", Name: "codex", Session: "sess-b", Origin: "hook", Host: "beta"}, replay.PromptArgs{ID: "p-2", Text: "fix the tests with " + promptKey, Model: "gpt-5"})
	r.b1 = teamEdit(t, eb, journal.Actor{Kind: "mcp", Name: "codex", Session: "mcp-b", Origin: "stdio", Host: "beta"}, "write_file", `{"call":{"session":"sess-b","prompt":"p-2"}}`, "t_test.go", "1\n2\n3\n4\n5\n")
	r.b2 = teamEdit(t, eb, journal.Actor{Kind: "cli", User: "bob", Origin: "cli", Host: "beta"}, "write_file", `{"note":"by hand"}`, "README.md", "hello\n")
	eb.Close()
	ec := engine(t, r.dirC)
	r.c1 = teamEdit(t, ec, journal.Actor{Kind: "mcp", Name: "cursor", Session: "mcp-c", Origin: "stdio", Host: "gamma"}, "write_file", `{"path":"c.go"}`, "c.go", "a\nb\nc\nd\n")
	ec.Close()
	ok(t, r.dirA, "remote", "add", "team", "s3://"+s3test.Bucket+"/w", "--endpoint", r.meter.url)
	r.wa, r.wb, r.wc = teamPush(t, r.dirA), teamPush(t, r.dirB), teamPush(t, r.dirC)
	r.names = map[string]string{r.wa: "A", r.wb: "B", r.wc: "C"}
	_, u := startWeb(t, t.TempDir(), "team", "web", "--remote", "team")
	r.base = strings.TrimSuffix(u, "/")
	return r
}

// tamperC overwrites workspace C's index page and its segment with other
// bytes through the S3 API: its one event can no longer be verified.
func (r *teamWebRemote) tamperC(t *testing.T) []string {
	t.Helper()
	var keys []string
	for k := range r.srv.Objects(s3test.Bucket, "w/workspaces/"+r.wc) {
		if strings.Contains(k, "/index/") || strings.Contains(k, "/segments/") {
			keys = append(keys, strings.TrimPrefix(k, s3test.Bucket+"/"))
		}
	}
	sort.Strings(keys)
	if len(keys) != 2 {
		t.Fatalf("C's page and segment: %v", keys)
	}
	for _, k := range keys {
		if _, err := r.srv.Client().PutObject(context.Background(), &s3.PutObjectInput{Bucket: aws.String(s3test.Bucket), Key: aws.String(k),
			Body: bytes.NewReader([]byte("not what was pushed"))}); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// rowIDs is the team page's timeline rows as "W:seq".
func (r *teamWebRemote) rowIDs(t *testing.T, ctx context.Context) string {
	t.Helper()
	ids := webtest.Eval[string](t, ctx, `Array.from(document.querySelectorAll("#team-events li.tev")).map(li => li.dataset.ws + ":" + li.dataset.seq).join(" ")`)
	for ws, n := range r.names {
		ids = strings.ReplaceAll(ids, ws, n)
	}
	return ids
}

// plotSums is the lines plot's bars summed per author ("author=lines",
// sorted), each bar's day checked against the share plot's.
func plotSums(t *testing.T, ctx context.Context) string {
	t.Helper()
	var bars []struct{ Day, Author, Lines, Share string }
	js := `Array.from(document.querySelectorAll("figure.plot:not(.share) rect.bar")).map(r => ({Day: r.dataset.day, Author: r.dataset.author, Lines: r.dataset.lines, Share: r.dataset.share}))`
	if err := json.Unmarshal([]byte(webtest.Eval[string](t, ctx, "JSON.stringify("+js+")")), &bars); err != nil {
		t.Fatal(err)
	}
	shares := webtest.Eval[string](t, ctx, `JSON.stringify(Array.from(document.querySelectorAll("figure.plot.share rect.bar")).map(r => r.dataset.day + " " + r.dataset.author + " " + r.dataset.share))`)
	sum := map[string]int{}
	perDay := map[string]float64{}
	for _, b := range bars {
		n, _ := strconv.Atoi(b.Lines)
		sum[b.Author] += n
		s, _ := strconv.ParseFloat(b.Share, 64)
		perDay[b.Day] += s
		if !strings.Contains(shares, b.Day+" "+b.Author+" "+b.Share) {
			t.Errorf("the share plot has no bar %s %s %s%%: %s", b.Day, b.Author, b.Share, shares)
		}
	}
	for d, s := range perDay {
		if s < 99.8 || s > 100.2 {
			t.Errorf("the shares of day %s add up to %.1f%%", d, s)
		}
	}
	var out []string
	for a, n := range sum {
		out = append(out, fmt.Sprintf("%s=%d", a, n))
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

// legendOf is the plots' legend: "author:added:share%" in its order.
func legendOf(t *testing.T, ctx context.Context) string {
	t.Helper()
	return webtest.Eval[string](t, ctx, `Array.from(document.querySelectorAll("ul.legend li")).map(li => li.dataset.author + ":" + li.dataset.added + ":" + li.dataset.share).join(" ")`)
}

// TestWebTeam_Browser drives `journal team web` in headless Chromium over
// a real S3 server that three workspaces pushed to: the merged timeline,
// newest first, a page at a time ("Older events" appends the next); the
// plots' bars and legend (lines per author, each day's shares); the
// filters; an event's diff read from the remote, and the S3 requests it
// took; the keys in a prompt and a file masked; then C's page and segment
// altered on the remote: both named on the page, C's event neither listed
// nor counted.
func TestWebTeam_Browser(t *testing.T) {
	r := newTeamWebRemote(t)
	ctx := webtest.Browser(t)
	webtest.Do(t, ctx, chromedp.EmulateViewport(1280, 1000), chromedp.Navigate(r.base+"/"), chromedp.WaitVisible(chromedp.CSS("#team-events li.tev")))
	all := fmt.Sprintf("C:%d B:%d B:%d B:%d A:%d A:%d A:%d A:%d", r.c1, r.b2, r.b1, r.pB, r.a3, r.a2, r.a1, r.pA)
	if got := r.rowIDs(t, ctx); got != all {
		t.Errorf("team page rows: %s, want %s", got, all)
	}
	wantSums := "claude-code=5 cli:alice=2 cli:bob=1 codex=5 cursor=4"
	if got := plotSums(t, ctx); got != wantSums {
		t.Errorf("lines plot: %s, want %s", got, wantSums)
	}
	wantLegend := "claude-code:5:29.4 codex:5:29.4 cursor:4:23.5 cli:alice:2:11.8 cli:bob:1:5.9"
	if got := legendOf(t, ctx); got != wantLegend {
		t.Errorf("legend: %s, want %s", got, wantLegend)
	}
	if h := webtest.Text(t, ctx, "h1"); !strings.Contains(h, "8 events, 17 lines added") {
		t.Errorf("heading: %q", h)
	}
	if html := webtest.Eval[string](t, ctx, "document.documentElement.outerHTML"); strings.Contains(html, promptKey) || !strings.Contains(html, "fix the tests with AKIA…[secret: aws-access-token]") {
		t.Errorf("the team page shows the prompt's key, or not its mask")
	}
	webtest.Shot(t, ctx, "team")

	// a page of 3 at a time: "Older events" appends the next pages
	webtest.Do(t, ctx, chromedp.Navigate(r.base+"/team?n=3"), chromedp.WaitVisible(chromedp.CSS("a.team-more")))
	if got := r.rowIDs(t, ctx); got != strings.Join(strings.Fields(all)[:3], " ") {
		t.Errorf("first page of 3: %s", got)
	}
	webtest.Do(t, ctx, chromedp.Click(chromedp.CSS("a.team-more")), chromedp.WaitVisible(chromedp.CSS("#team-events li.tev:nth-child(6)")))
	webtest.Do(t, ctx, chromedp.Click(chromedp.CSS("a.team-more")), chromedp.WaitVisible(chromedp.CSS("#team-events li.tev:nth-child(8)")), chromedp.WaitNotPresent(chromedp.CSS("a.team-more")))
	if got := r.rowIDs(t, ctx); got != all {
		t.Errorf("after two more pages: %s, want %s", got, all)
	}
	if got := webtest.Text(t, ctx, fmt.Sprintf(`li.tev[data-ws="%s"][data-seq="%d"]`, r.wa, r.a2)); !strings.Contains(got, "claude-code@alpha") || !strings.Contains(got, "parser.go") ||
		!strings.Contains(got, "+2") || !strings.Contains(got, "claude-opus-4") || !strings.Contains(got, "write the parser") {
		t.Errorf("A's event %d, appended: %q", r.a2, got)
	}

	// the filters, through the form
	webtest.Do(t, ctx, chromedp.SetValue(chromedp.CSS(`input[name="agent"]`), "codex"), chromedp.Click(chromedp.CSS("form.filters button")),
		chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`#team-events li.tev:first-child[data-ws="%s"][data-seq="%d"]`, r.wb, r.b1))))
	if got, legend := r.rowIDs(t, ctx), legendOf(t, ctx); got != fmt.Sprintf("B:%d B:%d", r.b1, r.pB) || legend != "codex:5:100.0" {
		t.Errorf("agent codex: rows %s, legend %s", got, legend)
	}
	for _, c := range []struct{ query, rows, sums string }{
		{"actor=cli:alice", fmt.Sprintf("A:%d", r.a3), "cli:alice=2"},
		{"workspace=" + r.wa[:6], fmt.Sprintf("A:%d A:%d A:%d A:%d", r.a3, r.a2, r.a1, r.pA), "claude-code=5 cli:alice=2"},
	} {
		webtest.Do(t, ctx, chromedp.Navigate(r.base+"/team?"+c.query), chromedp.WaitVisible(chromedp.CSS("#team-events li.tev")))
		if got, sums := r.rowIDs(t, ctx), plotSums(t, ctx); got != c.rows || sums != c.sums {
			t.Errorf("%s: rows %s, plot %s; want %s, %s", c.query, got, sums, c.rows, c.sums)
		}
	}
	// the repository filter, through the form: A's and B's checkouts by
	// their root commit's prefix, each row naming its repository
	webtest.Do(t, ctx, chromedp.Navigate(r.base+"/team"), chromedp.WaitVisible(chromedp.CSS("#team-events li.tev")),
		chromedp.SetValue(chromedp.CSS(`input[name="repo"]`), r.rootAB[:10]), chromedp.Click(chromedp.CSS("form.filters button")),
		chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`#team-events li.tev:first-child[data-ws="%s"][data-seq="%d"]`, r.wb, r.b2))))
	if got, want := r.rowIDs(t, ctx), strings.Join(strings.Fields(all)[1:], " "); got != want {
		t.Errorf("repo %s: rows %s, want %s", r.rootAB[:10], got, want)
	}
	abName := webtest.Text(t, ctx, "#team-events li.tev:first-child span.repo")
	if n := webtest.Eval[int](t, ctx, `Array.from(document.querySelectorAll("#team-events li.tev span.repo")).filter(s => s.textContent === `+strconv.Quote(abName)+`).length`); abName == "" || n != 7 {
		t.Errorf("repo %s: %d of 7 rows name the repository %q", r.rootAB[:10], n, abName)
	}
	if v := webtest.Eval[string](t, ctx, `document.querySelector('input[name="repo"]').value`); v != r.rootAB[:10] {
		t.Errorf("the repository filter's field after filtering: %q", v)
	}
	webtest.Do(t, ctx, chromedp.Navigate(r.base+"/team?n=1&repo="+r.rootC[:10]), chromedp.WaitVisible(chromedp.CSS("#team-events li.tev")))
	if got, repo := r.rowIDs(t, ctx), webtest.Text(t, ctx, "#team-events li.tev span.repo"); got != fmt.Sprintf("C:%d", r.c1) || repo != r.rootC[:12] {
		t.Errorf("repo %s: rows %s naming %q, want C:%d naming %s", r.rootC[:10], got, repo, r.c1, r.rootC[:12])
	}
	webtest.Do(t, ctx, chromedp.Navigate(r.base+"/team?n=2&repo="+r.rootAB[:10]), chromedp.WaitVisible(chromedp.CSS("a.team-more")),
		chromedp.Click(chromedp.CSS("a.team-more")), chromedp.WaitVisible(chromedp.CSS("#team-events li.tev:nth-child(4)")))
	if got := webtest.Text(t, ctx, "#team-events li.tev:nth-child(4) span.repo"); got != abName {
		t.Errorf("a row appended from /team/events names the repository %q, want %q", got, abName)
	}
	webtest.Do(t, ctx, chromedp.Navigate(r.base+"/team?since=2099-01-01"), chromedp.WaitVisible(chromedp.CSS("#team-events li.empty")))
	if n := webtest.Eval[int](t, ctx, `document.querySelectorAll("rect.bar").length`); n != 0 {
		t.Errorf("since 2099: %d bars", n)
	}

	// drill-down: A's edit, its diff read from the remote
	webtest.Do(t, ctx, chromedp.Navigate(r.base+"/team"), chromedp.WaitVisible(chromedp.CSS("#team-events li.tev")))
	r.meter.reset()
	webtest.Do(t, ctx, chromedp.Click(chromedp.CSS(fmt.Sprintf(`a[href="/team/event/%s/%d"]`, r.wa, r.a2))), chromedp.WaitVisible(chromedp.CSS("table.diff tr.add")))
	requests, _ := r.meter.reset()
	diff := webtest.Text(t, ctx, "table.diff")
	meta := webtest.Text(t, ctx, "dl.meta")
	if !strings.Contains(diff, "-l2") || !strings.Contains(diff, "+L2") || !strings.Contains(diff, "+l4") ||
		!strings.Contains(meta, "claude-code on alpha") || !strings.Contains(meta, "claude-opus-4") || !strings.Contains(meta, "write the parser") {
		t.Errorf("A's event %d:\n%s\n%s", r.a2, meta, diff)
	}
	webtest.Shot(t, ctx, "team-event")
	// the page (team page: every workspace's head, index, page) aside,
	// the event: its head, index, page, and per side a manifest (none: 404)
	// and a chunk
	t.Logf("S3 requests of the team page and A's event %d's: %d", r.a2, requests)
	webtest.Do(t, ctx, chromedp.Navigate("about:blank"))
	r.meter.reset()
	webtest.Do(t, ctx, chromedp.Navigate(fmt.Sprintf("%s/team/event/%s/%d", r.base, r.wa, r.a2)), chromedp.WaitVisible(chromedp.CSS("table.diff tr.add")))
	if n, b := r.meter.reset(); n > 7 {
		t.Errorf("an event's page took %d S3 requests (%d bytes), want at most 7: head, index, page, and two per side", n, b)
	} else {
		t.Logf("S3 requests of an event's page: %d (%d bytes)", n, b)
	}
	webtest.Do(t, ctx, chromedp.Navigate(fmt.Sprintf("%s/team/event/%s/%d", r.base, r.wa, r.a3)), chromedp.WaitVisible(chromedp.CSS("table.diff tr.add")))
	if d := webtest.Text(t, ctx, "table.diff"); strings.Contains(d, promptKey) || !strings.Contains(d, "AKIA…[secret: aws-access-token]") {
		t.Errorf("alice's notes, diffed from the remote, show the key or not its mask:\n%s", d)
	}

	// C altered on the remote: named, not counted
	keys := r.tamperC(t)
	webtest.Do(t, ctx, chromedp.Navigate(r.base+"/team"), chromedp.WaitVisible(chromedp.CSS("section.damage li.problem")))
	damage := webtest.Text(t, ctx, "section.damage")
	for _, k := range keys {
		if !strings.Contains(damage, strings.TrimPrefix(k, "w/")) {
			t.Errorf("the damage section does not name %s:\n%s", k, damage)
		}
	}
	if got := r.rowIDs(t, ctx); got != strings.Join(strings.Fields(all)[1:], " ") {
		t.Errorf("rows with C altered: %s", got)
	}
	if got, legend := plotSums(t, ctx), legendOf(t, ctx); got != "claude-code=5 cli:alice=2 cli:bob=1 codex=5" || strings.Contains(legend, "cursor") {
		t.Errorf("plot with C altered: %s; legend %s", got, legend)
	}
	webtest.Shot(t, ctx, "team-damaged")
	webtest.Do(t, ctx, chromedp.Navigate(fmt.Sprintf("%s/team/event/%s/%d", r.base, r.wc, r.c1)), chromedp.WaitVisible(chromedp.CSS("section.damage li.problem")))
	if e := webtest.Text(t, ctx, "p.error"); !strings.Contains(e, "no verified event") {
		t.Errorf("C's event page once altered: %q", e)
	}
}

// TestWebTeam_EventsJSON reads the timeline's pages as the page's script
// does (GET /team/events?from=N&n=K): each page's rows in order, the next
// page's address until the last; filters apply; a bad from, n or since is
// a 400 with the reason; a workspace ID that is not one is refused; an
// event whose content was altered on the remote names the chunk instead
// of its diff; C's page and segment altered leave C's event off the pages,
// named in their problems.
func TestWebTeam_EventsJSON(t *testing.T) {
	r := newTeamWebRemote(t)
	type page struct {
		Rows []struct {
			Workspace, Who, What, Model, Prompt, Href string
			Seq                                       uint64
			Added, Removed                            int
			Paths                                     []string
		}
		Next, Error string
		Problems    []string
	}
	get := func(path string) (int, page, string) {
		t.Helper()
		resp, err := http.Get(r.base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		var p page
		if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
			if err := json.Unmarshal(b, &p); err != nil {
				t.Fatalf("GET %s: %v\n%s", path, err, b)
			}
		}
		return resp.StatusCode, p, string(b)
	}
	var seen []string
	next := "/team/events?from=0&n=3"
	for pages := 0; next != ""; pages++ {
		if pages > 3 {
			t.Fatal("more than 3 pages of 3 for 8 events")
		}
		code, p, body := get(next)
		if code != 200 || len(p.Rows) == 0 || len(p.Rows) > 3 {
			t.Fatalf("GET %s: %d\n%s", next, code, body)
		}
		for _, row := range p.Rows {
			seen = append(seen, fmt.Sprintf("%s:%d", r.names[row.Workspace], row.Seq))
			if row.Href != fmt.Sprintf("/team/event/%s/%d", row.Workspace, row.Seq) {
				t.Errorf("row %s:%d links %s", row.Workspace, row.Seq, row.Href)
			}
			if row.Workspace == r.wb && row.Seq == r.b1 && (row.Who != "codex" || row.Model != "gpt-5" || row.Added != 5 || row.Paths[0] != "t_test.go" ||
				row.Prompt != "fix the tests with AKIA…[secret: aws-access-token]") {
				t.Errorf("B's event %d: %+v", r.b1, row)
			}
		}
		next = p.Next
	}
	want := fmt.Sprintf("C:%d B:%d B:%d B:%d A:%d A:%d A:%d A:%d", r.c1, r.b2, r.b1, r.pB, r.a3, r.a2, r.a1, r.pA)
	if got := strings.Join(seen, " "); got != want {
		t.Errorf("pages of 3: %s, want %s", got, want)
	}
	if code, p, body := get("/team/events?from=0&actor=cli:bob"); code != 200 || len(p.Rows) != 1 || p.Rows[0].Seq != r.b2 || p.Next != "" {
		t.Errorf("actor cli:bob: %d\n%s", code, body)
	}
	for _, q := range []string{"from=-1", "from=x", "from=0&n=0", "from=0&n=501", "from=0&since=garbage"} {
		if code, p, body := get("/team/events?" + q); code != 400 || p.Error == "" {
			t.Errorf("GET /team/events?%s: %d\n%s", q, code, body)
		}
	}
	_, _, html := get("/team")
	_, _, first := get("/team/events?from=0&n=50")
	t.Logf("GET /team: %d bytes (8 events, 5 authors); /team/events?n=50: %d bytes", len(html), len(first))
	if _, p, body := get("/team/events?from=0&since=garbage"); !strings.Contains(p.Error, `"garbage"`) {
		t.Errorf("a bad since: %s", body)
	} else {
		t.Logf("a bad since: %s", body)
	}
	if code, _, body := get("/team?since=garbage"); code != 400 || !strings.Contains(body, "garbage") {
		t.Errorf("GET /team?since=garbage: %d\n%s", code, body)
	}
	if code, _, body := get("/team/event/nothex/1"); code != 400 || !strings.Contains(body, "not a workspace ID") {
		t.Errorf("GET /team/event/nothex/1: %d\n%s", code, body)
	}
	if code, _, _ := get(fmt.Sprintf("/team/event/%s/%d", r.wa, r.a2+100)); code != 404 {
		t.Errorf("an event the workspace does not have: %d", code)
	}
	// a content A's edit names, altered on the remote: its diff is not
	// shown, the chunk is named
	var after string
	for _, l := range strings.Split(ok(t, t.TempDir(), "team", "log", "--json", "--workspace", r.wa), "\n") {
		var e struct {
			Seq   uint64
			Files []struct{ After string }
		}
		if json.Unmarshal([]byte(l), &e) == nil && e.Seq == r.a2 {
			after = e.Files[0].After
		}
	}
	if len(after) != 64 {
		t.Fatalf("A's event %d names no content after: %q", r.a2, after)
	}
	chunk := "chunks/" + after[:2] + "/" + after
	if _, err := r.srv.Client().PutObject(context.Background(), &s3.PutObjectInput{Bucket: aws.String(s3test.Bucket), Key: aws.String("w/" + chunk),
		Body: bytes.NewReader([]byte("not what was pushed"))}); err != nil {
		t.Fatal(err)
	}
	if code, _, body := get(fmt.Sprintf("/team/event/%s/%d", r.wa, r.a2)); code != 200 || !strings.Contains(body, chunk+" does not hold chunk") || strings.Contains(body, `<tr class="add">`) {
		t.Errorf("A's event %d, its content altered: %d\n%s", r.a2, code, body)
	}

	// C altered: its event is not on any page, the damage is named
	r.tamperC(t)
	code, p, body := get("/team/events?from=0&n=20")
	if code != 200 || len(p.Rows) != 7 || len(p.Problems) == 0 || !strings.Contains(strings.Join(p.Problems, "\n"), r.wc) {
		t.Errorf("with C altered: %d\n%s", code, body)
	}
	for _, row := range p.Rows {
		if row.Workspace == r.wc {
			t.Errorf("C's event %d listed though altered", row.Seq)
		}
	}
}

// The team page's weight is bounded by its page size, not by the events
// on the remote: over two workspaces of 300 edits each, GET /team lists
// 50 rows (and plots all 600), /team/events a page of 50; their sizes and
// S3 requests are logged.
func TestWebTeam_PageWeight(t *testing.T) {
	srv := s3test.Start(t)
	meter := newS3Meter(t, srv.Endpoint())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	for k, name := range []string{"claude-code", "codex"} {
		dir := t.TempDir()
		e := engine(t, dir)
		mcp := journal.Actor{Kind: "mcp", Name: name, Session: "s", Origin: "stdio"}
		for i := range 300 {
			teamEdit(t, e, mcp, "write_file", `{"path":"f.txt"}`, fmt.Sprintf("f%d.txt", i%9), fmt.Sprintf("%d %d\n", k, i))
		}
		e.Close()
		if k == 0 {
			ok(t, dir, "remote", "add", "team", "s3://"+s3test.Bucket+"/pw", "--endpoint", meter.url)
		}
		teamPush(t, dir)
	}
	_, u := startWeb(t, t.TempDir(), "team", "web")
	get := func(path string) string { t.Helper(); return webGet(t, strings.TrimSuffix(u, "/")+path) }
	meter.reset()
	page := get("/team")
	pageReqs, _ := meter.reset()
	more := get("/team/events?from=0&n=50")
	moreReqs, _ := meter.reset()
	if rows := strings.Count(page, `<li class="ev tev`); rows != 50 || !strings.Contains(page, "600 events") || !strings.Contains(page, `data-author="codex" data-kind="agent" data-added="300"`) {
		t.Errorf("GET /team: %d rows\n%.2000s", rows, page)
	}
	var p struct{ Rows []json.RawMessage }
	if err := json.Unmarshal([]byte(more), &p); err != nil || len(p.Rows) != 50 {
		t.Errorf("GET /team/events?n=50: %v, %d rows", err, len(p.Rows))
	}
	t.Logf("600 events in 2 workspaces: GET /team %d bytes, %d S3 requests; GET /team/events?n=50 %d bytes, %d S3 requests", len(page), pageReqs, len(more), moreReqs)
	if len(page) > 64<<10 || len(more) > 32<<10 {
		t.Errorf("page weight: /team %d bytes, /team/events %d bytes", len(page), len(more))
	}
}
