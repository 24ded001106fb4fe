package web_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/journalfs/journal/cmd/journal/web"
	"github.com/journalfs/journal/cmd/journal/web/webtest"
	"github.com/journalfs/journal/journal"
	jmcp "github.com/journalfs/journal/mcp"
	"github.com/journalfs/journal/replay"
	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

var agent = journal.Actor{Kind: "mcp", Name: "claude-code", Version: "2.0", Session: "s1", Origin: "stdio"}

// workspace makes a workspace with three events by an MCP agent and serves
// its web app; it returns the app's URL, the workspace and the agent's engine.
func workspace(t *testing.T) (string, string, *replay.Engine) {
	t.Helper()
	dir := t.TempDir()
	e, err := replay.Open(replay.Options{Roots: []string{dir}, Actor: agent})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	for _, c := range []replay.Change{
		{Path: "a.txt", Data: []byte("one\ntwo\nthree\n")},
		{Path: "a.txt", Data: []byte("one\nTWO\nthree\n")},
		{Path: "b.txt", Data: []byte("bee\n")},
	} {
		if _, err := e.Apply(context.Background(), &replay.Batch{Tool: "edit_content", Args: []byte(`{"path":"` + c.Path + `"}`), Changes: []replay.Change{c}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	s := app(t, dir)
	s.Poll = 100 * time.Millisecond
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return srv.URL, dir, e
}

// app is the web app over the journal of the workspace dir, on its own
// engine as `journal web` opens it: another process's view.
func app(tb testing.TB, dir string) *web.Server {
	tb.Helper()
	w, err := replay.Open(replay.Options{Roots: []string{dir}, Actor: replay.CLIActor()})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { w.Close() })
	actor := replay.CLIActor()
	actor.Origin = "web"
	s, err := web.New(w, actor)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// TestWeb_Browser drives the app in headless Chromium as a person would:
// the timeline of an agent's events, a filter, an event's diff, its revert
// (previewed, then confirmed: the file on disk and the new event), a new
// event appearing while the page is open, and a file's blame.
func TestWeb_Browser(t *testing.T) {
	base, dir, agentEngine := workspace(t)
	ctx := webtest.Browser(t)

	webtest.Do(t, ctx, chromedp.EmulateViewport(1280, 800), chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS("ol.events li.ev")))
	list := webtest.Text(t, ctx, "div.events")
	for _, want := range []string{"#3", "#2", "#1", "edit_content", "claude-code 2.0 /s1", "a.txt", "b.txt"} {
		if !strings.Contains(list, want) {
			t.Fatalf("timeline lacks %q:\n%s", want, list)
		}
	}
	if h := webtest.Text(t, ctx, "h2.session"); !strings.Contains(h, "claude-code 2.0 /s1") || !strings.Contains(h, "3 events in all (#1–#3), 20") {
		t.Fatalf("the session's heading: %q", h)
	}
	// time filters: events from a minute that has not come yet, and up to one long gone
	for _, f := range []string{"since=" + time.Now().Add(2*time.Minute).Format("2006-01-02T15:04"), "until=2020-01-01T00:00"} {
		webtest.Do(t, ctx, chromedp.Navigate(base+"/?"+f), chromedp.WaitVisible(chromedp.CSS("p.empty")))
		if msg := webtest.Text(t, ctx, "p.empty"); msg != "No events match these filters." {
			t.Fatalf("%s: %q", f, msg)
		}
	}
	webtest.Do(t, ctx, chromedp.Navigate(base+"/?since="+time.Now().Add(-time.Hour).Format("2006-01-02T15:04")), chromedp.WaitVisible(chromedp.CSS("ol.events li.ev")))
	if n := webtest.Eval[int](t, ctx, `document.querySelectorAll("ol.events li.ev").length`); n != 3 {
		t.Fatalf("the last hour shows %d events, want 3", n)
	}
	webtest.Do(t, ctx, chromedp.Navigate(base+"/?path=a.txt"), chromedp.WaitVisible(chromedp.CSS("ol.events li.ev")))
	if n := webtest.Eval[int](t, ctx, `document.querySelectorAll("ol.events li.ev").length`); n != 2 {
		t.Fatalf("the file filter shows %d events, want 2", n)
	}

	// event 2's diff, then its revert
	webtest.Do(t, ctx, chromedp.Click(chromedp.CSS(`a[href="/event/2"]`)), chromedp.WaitVisible(chromedp.CSS("table.diff tr.add td.code")))
	if added := webtest.Text(t, ctx, "table.diff tr.add td.code"); added != "+TWO" {
		t.Fatalf("added line %q", added)
	}
	webtest.Do(t, ctx, chromedp.Click(chromedp.CSS("#revert")), chromedp.WaitVisible(chromedp.CSS("#confirm")))
	if preview := webtest.Text(t, ctx, "table.diff"); !strings.Contains(preview, "-TWO") || !strings.Contains(preview, "+two") {
		t.Fatalf("revert preview:\n%s", preview)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(got) != "one\nTWO\nthree\n" {
		t.Fatalf("the preview changed the file: %q", got)
	}
	webtest.Do(t, ctx, chromedp.Click(chromedp.CSS("#confirm")), chromedp.WaitVisible(chromedp.CSS("dl.meta")))
	if h1 := webtest.Text(t, ctx, "h1"); !strings.Contains(h1, "#4") || !strings.Contains(h1, "revert") {
		t.Fatalf("after the revert: %q", h1)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(got) != "one\ntwo\nthree\n" {
		t.Fatalf("a.txt after the revert: %q", got)
	}

	// a new event by the agent shows on the open timeline without a reload
	webtest.Do(t, ctx, chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS("ol.events li.ev")))
	webtest.Eval[int](t, ctx, `window.marker = 1`)
	if _, err := agentEngine.Apply(context.Background(), &replay.Batch{Tool: "file_replace", Changes: []replay.Change{{Path: "b.txt", Data: []byte("bee, again\n")}}}); err != nil {
		t.Fatal(err)
	}
	webtest.Do(t, ctx, chromedp.WaitVisible(chromedp.CSS(`a[href="/event/5"]`)), chromedp.WaitVisible(chromedp.CSS("#live")))
	if webtest.Eval[int](t, ctx, `window.marker || 0`) != 1 {
		t.Fatal("the page reloaded to show the new event")
	}

	// blame by content: the revert put line 2 back as event 1 wrote it, so
	// every line is the first event's
	webtest.Do(t, ctx, chromedp.Navigate(base+"/blame?path=a.txt"), chromedp.WaitVisible(chromedp.CSS("table.blame")))
	seqs := webtest.Eval[[]string](t, ctx, `Array.from(document.querySelectorAll("table.blame tbody tr")).map(r => r.dataset.seq)`)
	if strings.Join(seqs, ",") != "1,1,1" {
		t.Fatalf("blame rows %v", seqs)
	}

	// the file at an event: restore a.txt to its state after event 2
	webtest.Do(t, ctx, chromedp.Navigate(base+"/event/2"), chromedp.Click(chromedp.CSS("a.restore")), chromedp.WaitVisible(chromedp.CSS("#confirm")))
	if preview := webtest.Text(t, ctx, "table.diff"); !strings.Contains(preview, "+TWO") {
		t.Fatalf("restore preview:\n%s", preview)
	}
	webtest.Do(t, ctx, chromedp.Click(chromedp.CSS("#confirm")), chromedp.WaitVisible(chromedp.CSS("dl.meta")))
	if h1 := webtest.Text(t, ctx, "h1"); !strings.Contains(h1, "#6") || !strings.Contains(h1, "restore") {
		t.Fatalf("after the restore: %q", h1)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(got) != "one\nTWO\nthree\n" {
		t.Fatalf("a.txt after the restore: %q", got)
	}

	// the agent's session: its events and everything it changed, as one diff per file
	webtest.Do(t, ctx, chromedp.Navigate(base+"/event/5"), chromedp.Click(chromedp.CSS(`a[href="/session/s1"]`)), chromedp.WaitVisible(chromedp.CSS("table.diff")))
	page := webtest.Text(t, ctx, "main")
	for _, want := range []string{"claude-code 2.0 /s1", "4 —", "+TWO", "+bee, again"} {
		if !strings.Contains(page, want) {
			t.Fatalf("session page lacks %q:\n%s", want, page)
		}
	}

	// Go code: highlighted diff lines, unified and side by side
	s2 := agent
	s2.Session = "s2"
	for _, b := range []*replay.Batch{
		{Tool: "file_create_new", Changes: []replay.Change{{Path: "main.go", Data: []byte("package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n")}}},
		{Tool: "file_edit", Actor: &s2, Args: []byte(`{"target_file":"main.go","edit_instruction":"Document main and greet with hello"}`), Changes: []replay.Change{{Path: "main.go", Data: []byte("package main\n\n// main greets.\nfunc main() {\n\tprintln(\"hello\")\n}\n")}}},
		{Tool: "file_replace", Actor: &s2, Changes: []replay.Change{{Path: "b.txt", Data: []byte("bee, by s2\n")}}},
	} {
		if _, err := agentEngine.Apply(context.Background(), b); err != nil {
			t.Fatal(err)
		}
	}
	webtest.Do(t, ctx, chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS(`a[href="/event/9"]`)))
	if instr := webtest.Text(t, ctx, "li.ev .instr"); instr != "Document main and greet with hello" {
		t.Fatalf("the edit instruction on the timeline: %q", instr)
	}
	// grouped by session: s2 (9, 8), s1 (7), the app (6), s1 (5), the app (4), s1 (3, 2, 1)
	groups := webtest.Eval[[]string](t, ctx, `Array.from(document.querySelectorAll("section.group")).map(g => Array.from(g.querySelectorAll("a.seq")).map(a => a.textContent).join(" "))`)
	if strings.Join(groups, ",") != "#9 #8,#7,#6,#5,#4,#3 #2 #1" {
		t.Fatalf("groups %q", groups)
	}
	if h := webtest.Text(t, ctx, "h2.session"); !strings.Contains(h, "/s2") || !strings.Contains(h, "2 events in all (#8–#9)") {
		t.Fatalf("s2's heading: %q", h)
	}
	webtest.Shot(t, ctx, "timeline")
	webtest.Do(t, ctx, chromedp.Navigate(base+"/event/8"), chromedp.WaitVisible(chromedp.CSS("table.diff tr.add")))
	if n := webtest.Eval[int](t, ctx, `document.querySelectorAll("table.diff.hl tr.add td.code span.c1, table.diff.hl tr.add td.code span.s").length`); n != 2 {
		t.Fatalf("the added comment and string are not highlighted (%d spans):\n%s", n, webtest.Eval[string](t, ctx, `document.querySelector("table.diff").outerHTML`))
	}
	if rows := webtest.Text(t, ctx, "table.diff"); !strings.Contains(rows, "+// main greets.") || !strings.Contains(rows, "-\tprintln(\"hi\")") {
		t.Fatalf("event 8's diff:\n%s", rows)
	}
	webtest.Shot(t, ctx, "event")
	webtest.Do(t, ctx, chromedp.Click(chromedp.CSS("#view")), chromedp.WaitVisible(chromedp.CSS("table.diff.split")))
	pairs := webtest.Eval[[]string](t, ctx, `Array.from(document.querySelectorAll("table.diff.split tr")).filter(r => r.querySelector("td.del")).map(r => r.querySelector("td.del").textContent + " | " + r.querySelector("td.add").textContent)`)
	if len(pairs) != 1 || pairs[0] != "\tprintln(\"hi\") | \tprintln(\"hello\")" {
		t.Fatalf("side by side, the changed line pairs: %q", pairs)
	}
	webtest.Shot(t, ctx, "event-split")
	webtest.Do(t, ctx, chromedp.Click(chromedp.CSS("#view")), chromedp.WaitVisible(chromedp.CSS("table.diff:not(.split)")))

	// undo of session s1 is blocked: main.go, which it created (event 7), changed since; nothing is offered
	webtest.Do(t, ctx, chromedp.Navigate(base+"/session/s1/undo"), chromedp.WaitVisible(chromedp.CSS("p.error")))
	if msg := webtest.Text(t, ctx, "p.error"); !strings.Contains(msg, "#7") || !strings.Contains(msg, "main.go") || !strings.Contains(msg, "created the file") {
		t.Fatalf("blocked session undo: %s", msg)
	}
	if n := webtest.Eval[int](t, ctx, `document.querySelectorAll("#confirm").length`); n != 0 {
		t.Fatal("a blocked undo offers to confirm")
	}
	// undo of session s2: previewed, then one new event; the files on disk are as before s2
	webtest.Do(t, ctx, chromedp.Navigate(base+"/session/s2"), chromedp.Click(chromedp.CSS("#undo")), chromedp.WaitVisible(chromedp.CSS("#confirm")))
	if preview := webtest.Text(t, ctx, "main"); !strings.Contains(preview, "-// main greets.") || !strings.Contains(preview, "+bee, again") {
		t.Fatalf("session undo preview:\n%s", preview)
	}
	webtest.Shot(t, ctx, "session-undo")
	webtest.Do(t, ctx, chromedp.Click(chromedp.CSS("#confirm")), chromedp.WaitVisible(chromedp.CSS("dl.meta")))
	if h1 := webtest.Text(t, ctx, "h1"); !strings.Contains(h1, "#10") || !strings.Contains(h1, "undo_session") {
		t.Fatalf("after the session undo: %q", h1)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "main.go")); string(got) != "package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n" {
		t.Fatalf("main.go after the undo of s2: %q", got)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "b.txt")); string(got) != "bee, again\n" {
		t.Fatalf("b.txt after the undo of s2: %q", got)
	}
	if page := webtest.Text(t, ctx, "main"); !strings.Contains(page, "#9") || !strings.Contains(page, "#8") {
		t.Fatalf("the undo event does not name what it took back:\n%s", page)
	}
	webtest.Do(t, ctx, chromedp.Navigate(base+"/blame?path=main.go"), chromedp.WaitVisible(chromedp.CSS("table.blame")))
	webtest.Shot(t, ctx, "blame")
	// an agent's Bash call recorded by its hooks: the command that ran and
	// the description the agent gave it, both on the timeline
	bashActor := journal.Actor{Kind: "agent", Name: "claude-code", Session: "s3", Origin: "hook"}
	if _, err := agentEngine.Apply(context.Background(), &replay.Batch{Tool: "Bash", Kind: journal.KindObserve, Actor: &bashActor,
		Args:    []byte(`{"command":"sed -i 's/bee/BEE/' b.txt && go test ./...","description":"Shout the bee, then run the tests","call":{"id":"toolu_1"}}`),
		Changes: []replay.Change{{Path: "b.txt", Data: []byte("BEE, again\n")}}}); err != nil {
		t.Fatal(err)
	}
	webtest.Do(t, ctx, chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS(`li.ev code.cmd`)))
	if c, d := webtest.Text(t, ctx, "li.ev code.cmd"), webtest.Text(t, ctx, "li.ev .instr"); c != "sed -i 's/bee/BEE/' b.txt && go test ./..." || d != "Shout the bee, then run the tests" {
		t.Fatalf("the Bash call on the timeline: command %q, description %q", c, d)
	}
	// a phone's screen: the timeline still reads
	webtest.Do(t, ctx, chromedp.EmulateViewport(390, 844), chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS("ol.events li.ev")))
	if w := webtest.Eval[int](t, ctx, `document.documentElement.scrollWidth`); w > 390 {
		t.Fatalf("the timeline is %d px wide on a 390 px screen", w)
	}
	webtest.Shot(t, ctx, "timeline-phone")
}

// TestWeb_RefusesForeignRequests: a POST without the form's token, a
// request from another origin and one through a non-loopback Host are
// refused, and change nothing.
func TestWeb_RefusesForeignRequests(t *testing.T) {
	base, dir, _ := workspace(t)
	for _, c := range []struct {
		name   string
		req    func() *http.Request
		status int
	}{
		{"no token", func() *http.Request {
			r, _ := http.NewRequest("POST", base+"/event/2/revert", strings.NewReader(url.Values{"token": {"00"}}.Encode()))
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			return r
		}, http.StatusForbidden},
		{"restore without the token", func() *http.Request {
			r, _ := http.NewRequest("POST", base+"/restore", strings.NewReader(url.Values{"path": {"a.txt"}, "at": {"1"}}.Encode()))
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			return r
		}, http.StatusForbidden},
		{"rewind without the token", func() *http.Request {
			r, _ := http.NewRequest("POST", base+"/event/1/rewind", strings.NewReader(url.Values{"through": {"3"}}.Encode()))
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			return r
		}, http.StatusForbidden},
		{"other origin", func() *http.Request {
			r, _ := http.NewRequest("POST", base+"/event/2/revert", nil)
			r.Header.Set("Origin", "http://evil.example")
			return r
		}, http.StatusForbidden},
		{"rebound host", func() *http.Request {
			r, _ := http.NewRequest("GET", base+"/", nil)
			r.Host = "evil.example"
			return r
		}, http.StatusForbidden},
	} {
		resp, err := http.DefaultClient.Do(c.req())
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.status {
			t.Errorf("%s: status %d, want %d", c.name, resp.StatusCode, c.status)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(got) != "one\nTWO\nthree\n" {
		t.Fatalf("a refused request changed a.txt: %q", got)
	}
	// a preview that would change nothing says why, and offers nothing to confirm
	resp, err := http.Get(base + "/restore?path=b.txt&at=3")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), "Restoring it would change nothing: b.txt is already as it was after event 3.") || strings.Contains(string(body), `id="confirm"`) {
		t.Fatalf("restore to the current state:\n%s", body)
	}
	// a page for what does not exist answers 404 with the reason in words
	for _, p := range []string{"/session/nobody", "/event/999"} {
		resp, err := http.Get(base + p)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(body), "999") && !strings.Contains(string(body), "nobody") {
			t.Errorf("GET %s: %d\n%s", p, resp.StatusCode, body)
		}
	}
}

// TestWeb_Token: with a token the app answers on any Host, to requests
// that carry it (once as ?token=, which becomes a cookie, or as a bearer
// token); without it, or with a wrong one, 401; the CSRF token and the
// Origin check still hold for the authorised.
func TestWeb_Token(t *testing.T) {
	dir := t.TempDir()
	e, err := replay.Open(replay.Options{Roots: []string{dir}, Actor: agent})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	if _, err := e.Apply(context.Background(), &replay.Batch{Tool: "file_replace", Changes: []replay.Change{{Path: "a.txt", Data: []byte("a\n")}}}); err != nil {
		t.Fatal(err)
	}
	s, err := web.New(e, replay.CLIActor())
	if err != nil {
		t.Fatal(err)
	}
	s.Token = "s3cret"
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	get := func(path string, h map[string]string, cookies []*http.Cookie) *http.Response {
		t.Helper()
		r, _ := http.NewRequest("GET", srv.URL+path, nil)
		r.Host = "build-box.example:8080" // not loopback: allowed with a token
		for k, v := range h {
			r.Header.Set(k, v)
		}
		for _, c := range cookies {
			r.AddCookie(c)
		}
		resp, err := http.DefaultTransport.RoundTrip(r)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	if c := get("/", nil, nil).StatusCode; c != http.StatusUnauthorized {
		t.Fatalf("no token: %d", c)
	}
	if c := get("/?token=wrong", nil, nil).StatusCode; c != http.StatusUnauthorized {
		t.Fatalf("a wrong token: %d", c)
	}
	resp := get("/event/1?token=s3cret", nil, nil)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/event/1" || len(resp.Cookies()) != 1 || !resp.Cookies()[0].HttpOnly {
		t.Fatalf("the token: %d %v %v", resp.StatusCode, resp.Header, resp.Cookies())
	}
	cookies := resp.Cookies()
	if c := get("/event/1", nil, cookies).StatusCode; c != 200 {
		t.Fatalf("the cookie: %d", c)
	}
	if c := get("/event/1", map[string]string{"Authorization": "Bearer s3cret"}, nil).StatusCode; c != 200 {
		t.Fatalf("a bearer token: %d", c)
	}
	if c := get("/", map[string]string{"Authorization": "Bearer nope"}, nil).StatusCode; c != http.StatusUnauthorized {
		t.Fatalf("a wrong bearer token: %d", c)
	}
	// authorised, but without the form's CSRF token, or from another origin
	for _, origin := range []string{"", "http://evil.example"} {
		r, _ := http.NewRequest("POST", srv.URL+"/event/1/revert", strings.NewReader("token=00"))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		r.Header.Set("Authorization", "Bearer s3cret")
		if origin != "" {
			r.Header.Set("Origin", origin)
		}
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Fatalf("POST (origin %q): %d", origin, resp.StatusCode)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(got) != "a\n" {
		t.Fatalf("a refused request changed a.txt: %q", got)
	}
}

// TestWeb_BrowserMCP: a real MCP session (mcp-go's in-process client, as
// an agent's client connects) creates a 600 KB file and edits one line of
// it while the timeline is open: both events appear without a reload under
// the client's name; the edit's page loads the large file's diff when it
// is opened; the session's undo, confirmed, removes the file it made.
func TestWeb_BrowserMCP(t *testing.T) {
	dir := t.TempDir()
	eng, err := replay.Open(replay.Options{Roots: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	mc, err := client.NewInProcessClient(jmcp.New(eng, jmcp.Options{}).MCP())
	if err != nil {
		t.Fatal(err)
	}
	if err := mc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	init := mcpgo.InitializeRequest{}
	init.Params.ProtocolVersion = mcpgo.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcpgo.Implementation{Name: "claude-code", Version: "2.1"}
	if _, err := mc.Initialize(context.Background(), init); err != nil {
		t.Fatal(err)
	}
	call := func(name string, args map[string]any) {
		t.Helper()
		req := mcpgo.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = name, args
		res, err := mc.CallTool(context.Background(), req)
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", name, err, res)
		}
	}

	// the app, on its own engine as `journal web` opens it
	w, err := replay.Open(replay.Options{Roots: []string{dir}, Actor: replay.CLIActor()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	s, err := web.New(w, replay.CLIActor())
	if err != nil {
		t.Fatal(err)
	}
	s.Poll = 100 * time.Millisecond
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	ctx := webtest.Browser(t)
	webtest.Do(t, ctx, chromedp.EmulateViewport(1280, 800), chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(chromedp.CSS("p.empty")))

	var big strings.Builder
	for i := 1; big.Len() < 600<<10; i++ {
		fmt.Fprintf(&big, "line %d of a large generated file\n", i)
	}
	call("file_create_new", map[string]any{"ops": []map[string]any{{"path": "big.txt", "content": big.String()}}})
	call("edit_content", map[string]any{"absolute_file_path": filepath.Join(dir, "big.txt"),
		"search_text": "line 5000 of a large generated file", "replace_text": "line 5000, edited by the agent", "preview": false})
	webtest.Do(t, ctx, chromedp.WaitVisible(chromedp.CSS(`a[href="/event/2"]`)))
	if h := webtest.Text(t, ctx, "h2.session"); !strings.Contains(h, "claude-code 2.1") || !strings.Contains(h, "2 events in all") {
		t.Fatalf("the MCP session's heading: %q", h)
	}

	webtest.Do(t, ctx, chromedp.Navigate(srv.URL+"/event/2"), chromedp.WaitVisible(chromedp.CSS("p.lazy")))
	webtest.Do(t, ctx, chromedp.Click(chromedp.CSS("details.file summary")), chromedp.WaitVisible(chromedp.CSS("table.diff tr.add")))
	if rows := webtest.Text(t, ctx, "table.diff"); !strings.Contains(rows, "+line 5000, edited by the agent") || !strings.Contains(rows, "-line 5000 of a large generated file") {
		t.Fatalf("the large file's diff:\n%s", rows)
	}
	if nums := webtest.Eval[[]string](t, ctx, `Array.from(document.querySelectorAll("table.diff tr.add td.num")).map(td => td.textContent)`); strings.Join(nums, ",") != ",5000" {
		t.Fatalf("the added line's numbers: %q", nums)
	}

	sess := webtest.Eval[string](t, ctx, `document.querySelector('dd a[href^="/session/"]').getAttribute("href")`)
	webtest.Do(t, ctx, chromedp.Navigate(srv.URL+sess), chromedp.WaitVisible(chromedp.CSS("#undo")))
	webtest.Do(t, ctx, chromedp.Click(chromedp.CSS("#undo")), chromedp.WaitVisible(chromedp.CSS("#confirm")))
	webtest.Do(t, ctx, chromedp.Click(chromedp.CSS("#confirm")), chromedp.WaitVisible(chromedp.CSS("dl.meta")))
	if h1 := webtest.Text(t, ctx, "h1"); !strings.Contains(h1, "#3") || !strings.Contains(h1, "undo_session") {
		t.Fatalf("after the session undo: %q", h1)
	}
	if _, err := os.Stat(filepath.Join(dir, "big.txt")); !os.IsNotExist(err) {
		t.Fatalf("big.txt, made by the session, is still there: %v", err)
	}
}

// TestWeb_Replication: the timeline says where each remote stands, as the
// replication recorded it: up to date, or behind with its error.
func TestWeb_Replication(t *testing.T) {
	base, _, e := workspace(t)
	get := func() string {
		t.Helper()
		resp, err := http.Get(base + "/")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return string(b)
	}
	if page := get(); strings.Contains(page, "replication") && strings.Contains(page, "Remote <strong>") {
		t.Fatal("a remote shown where there is none")
	}
	if err := e.Journal().WriteReplication(journal.Replication{Remote: "team", Workspace: "w", Pushed: 3}); err != nil {
		t.Fatal(err)
	}
	if page := get(); !strings.Contains(page, "Remote <strong>team</strong>: up to date (event 3)") {
		t.Fatalf("up to date:\n%s", page)
	}
	if err := e.Journal().WriteReplication(journal.Replication{Remote: "team", Workspace: "w", Pushed: 1, Error: "remote team: the storage does not answer"}); err != nil {
		t.Fatal(err)
	}
	if page := get(); !strings.Contains(page, "2 events behind, the oldest") || !strings.Contains(page, "failing: remote team: the storage does not answer") {
		t.Fatalf("behind:\n%s", page)
	}
}
