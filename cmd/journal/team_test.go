package main_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/remote/s3test"
	"github.com/journalfs/journal/replay"
	"github.com/journalfs/journal/snapshot"
	"github.com/klauspost/compress/zstd"
)

// teamEdit applies one change to path as actor, its arguments args.
func teamEdit(t *testing.T, e *replay.Engine, actor journal.Actor, tool, args, path, content string) uint64 {
	t.Helper()
	res, err := e.Apply(context.Background(), &replay.Batch{Tool: tool, Actor: &actor, Args: []byte(args),
		Changes: []replay.Change{{Path: path, Data: []byte(content)}}})
	if err != nil {
		t.Fatal(err)
	}
	return res.Seq
}

// teamPush pushes dir's journal to remote team and returns its workspace.
func teamPush(t *testing.T, dir string) string {
	t.Helper()
	m := regexp.MustCompile(`\(workspace ([0-9a-f]{32})\)`).FindStringSubmatch(ok(t, dir, "push", "team"))
	if m == nil {
		t.Fatal("push named no workspace")
	}
	return m[1]
}

// teamLogLine is what the tests read of a team log --json line.
type teamLogLine struct {
	Workspace string
	Seq       uint64
	Kind      string
	Agent     string
	Person    string
	Model     string
	Prompt    *struct{ ID, Excerpt string }
}

func teamLog(t *testing.T, dir string, args ...string) []teamLogLine {
	t.Helper()
	var out []teamLogLine
	for _, l := range strings.Split(strings.TrimSpace(ok(t, dir, append([]string{"team", "log", "--json"}, args...)...)), "\n") {
		if l == "" {
			continue
		}
		var x teamLogLine
		if err := json.Unmarshal([]byte(l), &x); err != nil {
			t.Fatalf("team log --json: %q: %v", l, err)
		}
		out = append(out, x)
	}
	return out
}

// ids is each line as "W:seq", W the workspace's letter in names.
func ids(lines []teamLogLine, names map[string]string) string {
	var s []string
	for _, l := range lines {
		s = append(s, fmt.Sprintf("%s:%d", names[l.Workspace], l.Seq))
	}
	return strings.Join(s, " ")
}

// Two machines push their workspaces to one remote: on alpha an agent
// (claude-code, its hook recording the prompt and model, its MCP calls
// naming them) writes a parser, alice edits notes and reverts one of the
// agent's edits; on beta codex writes a test (its prompt holds a key), bob
// undoes it and writes the README. `journal team log` merges both
// timelines newest first, each filter keeps what it says, the prompt's key
// is masked; `team stats` gives the exact lines per author and model, and
// the revert and the undo on the agents' rows, in JSON and CSV.
func TestTeam_MergedTimelineAndStats(t *testing.T) {
	srv := s3test.Start(t)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	ctx := context.Background()

	// machine alpha
	a := t.TempDir()
	ea := engine(t, a)
	hookA := journal.Actor{Kind: "agent", Name: "claude-code", Session: "sess-a", Origin: "hook", Host: "alpha"}
	mcpA := journal.Actor{Kind: "mcp", Name: "claude-code", Session: "mcp-a", Origin: "stdio", Host: "alpha"}
	alice := journal.Actor{Kind: "cli", User: "alice", Origin: "cli", Host: "alpha"}
	pA, err := ea.RecordPrompt(ctx, hookA, replay.PromptArgs{ID: "p-1", Text: "write the parser", Model: "claude-opus-4"})
	if err != nil {
		t.Fatal(err)
	}
	call := `{"call":{"session":"sess-a","prompt":"p-1"}}`
	a1 := teamEdit(t, ea, mcpA, "write_file", call, "parser.go", "l1\nl2\nl3\n")           // +3
	a2 := teamEdit(t, ea, mcpA, "edit_file", call, "parser.go", "l1\nL2\nl3\nl4\n")        // +2 -1
	a3 := teamEdit(t, ea, alice, "write_file", `{"note":"by hand"}`, "notes.md", "x\ny\n") // +2
	ra, err := ea.Revert(ctx, a2, replay.RevertOptions{Actor: &alice})
	if err != nil {
		t.Fatal(err)
	}
	ea.Close()
	mid := time.Now().UTC()

	// machine beta
	b := t.TempDir()
	eb := engine(t, b)
	hookB := journal.Actor{Kind: "agent", Name: "codex", Session: "sess-b", Origin: "hook", Host: "beta"}
	mcpB := journal.Actor{Kind: "mcp", Name: "codex", Session: "mcp-b", Origin: "stdio", Host: "beta"}
	bob := journal.Actor{Kind: "cli", User: "bob", Origin: "cli", Host: "beta"}
	pB, err := eb.RecordPrompt(ctx, hookB, replay.PromptArgs{ID: "p-2", Text: "fix the tests with " + promptKey, Model: "gpt-5"})
	if err != nil {
		t.Fatal(err)
	}
	b1 := teamEdit(t, eb, mcpB, "write_file", `{"call":{"session":"sess-b","prompt":"p-2"}}`, "t_test.go", "1\n2\n3\n4\n5\n") // +5
	ub, err := eb.Undo(ctx, replay.RevertOptions{Session: "mcp-b", Actor: &bob})
	if err != nil {
		t.Fatal(err)
	}
	b2 := teamEdit(t, eb, bob, "write_file", `{"note":"by hand"}`, "README.md", "hello\n") // +1
	eb.Close()

	ok(t, a, "remote", "add", "team", "s3://"+s3test.Bucket+"/t", "--endpoint", srv.Endpoint())
	wa, wb := teamPush(t, a), teamPush(t, b)
	names := map[string]string{wa: "A", wb: "B"}

	// the merged timeline, newest first
	all := teamLog(t, t.TempDir())
	want := fmt.Sprintf("B:%d B:%d B:%d B:%d A:%d A:%d A:%d A:%d A:%d", b2, ub.Seq, b1, pB, ra.Seq, a3, a2, a1, pA)
	if got := ids(all, names); got != want {
		t.Fatalf("team log: %s, want %s", got, want)
	}
	for _, l := range all {
		if names[l.Workspace] == "A" && l.Seq == a2 && (l.Agent != "claude-code" || l.Model != "claude-opus-4" || l.Prompt == nil || l.Prompt.ID != "p-1") {
			t.Errorf("team log, A's event %d: %+v, want claude-code, claude-opus-4, prompt p-1", a2, l)
		}
		if names[l.Workspace] == "B" && l.Seq == b2 && (l.Person != "cli:bob" || l.Agent != "") {
			t.Errorf("team log, B's event %d: %+v, want cli:bob", b2, l)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--workspace", wa[:6]}, fmt.Sprintf("A:%d A:%d A:%d A:%d A:%d", ra.Seq, a3, a2, a1, pA)},
		{[]string{"--host", "beta", "-n", "2"}, fmt.Sprintf("B:%d B:%d", b2, ub.Seq)},
		{[]string{"--agent", "codex"}, fmt.Sprintf("B:%d B:%d", b1, pB)},
		{[]string{"--actor", "cli:alice"}, fmt.Sprintf("A:%d A:%d", ra.Seq, a3)},
		{[]string{"--model", "opus"}, fmt.Sprintf("A:%d A:%d A:%d", a2, a1, pA)},
		{[]string{"--prompt", "PARSER"}, fmt.Sprintf("A:%d A:%d A:%d", a2, a1, pA)},
		{[]string{"parser.go"}, fmt.Sprintf("A:%d A:%d A:%d", ra.Seq, a2, a1)},
		{[]string{"--since", mid.Format(time.RFC3339Nano)}, fmt.Sprintf("B:%d B:%d B:%d B:%d", b2, ub.Seq, b1, pB)},
		{[]string{"--until", mid.Format(time.RFC3339Nano), "-n", "1"}, fmt.Sprintf("A:%d", ra.Seq)},
	} {
		if got := ids(teamLog(t, t.TempDir(), c.args...), names); got != c.want {
			t.Errorf("team log %s: %s, want %s", strings.Join(c.args, " "), got, c.want)
		}
	}

	// bad input: a clear error, exit status 2
	for _, args := range [][]string{{"--remote", "nope"}, {"--json", "--csv"}, {"-n", "-1"}, {"--since", "garbage"}} {
		if r := run(t, t.TempDir(), append([]string{"team", "log"}, args...)...); r.code != 2 || r.stdout != "" || !strings.HasPrefix(r.stderr, "journal: ") {
			t.Errorf("team log %s: exit %d\n%s%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
		}
	}

	// the text, JSON and CSV: the prompt's key masked
	if out := ok(t, t.TempDir(), "team", "log", "--json"); strings.Contains(out, promptKey) || !strings.Contains(out, "AKIA…[secret: aws-access-token]") {
		t.Errorf("team log --json shows the prompt's key, or not its mask:\n%s", out)
	}
	text := ok(t, t.TempDir(), "team", "log")
	if strings.Contains(text, promptKey) || !strings.Contains(text, `prompt p-2: "fix the tests with AKIA…[secret: aws-access-token]"`) ||
		!strings.Contains(text, "parser.go (+2 -1) [claude-opus-4]") || !strings.Contains(text, "cli:bob@beta write_file README.md (+1 -0)") {
		t.Errorf("team log:\n%s", text)
	}
	if out := ok(t, t.TempDir(), "team", "log", "--csv", "--agent", "codex"); strings.Contains(out, promptKey) ||
		!strings.HasPrefix(out, "workspace,seq,time,actor,agent,person,host,kind,tool,paths,added,removed,model,prompt_id,prompt,repository\n") ||
		!strings.Contains(out, fmt.Sprintf("%s,%d,", wb, b1)) || !strings.Contains(out, ",beta,apply,write_file,t_test.go,5,0,gpt-5,p-2,fix the tests with AKIA…[secret: aws-access-token],\n") {
		t.Errorf("team log --csv:\n%s", out)
	}

	// the figures
	wantTotals := jsonCompact(`[{"author":"claude-code","kind":"agent","model":"claude-opus-4","events":2,"added":5,"removed":1,"reverted":1,"undone":0},` +
		`{"author":"cli:alice","kind":"person","events":1,"added":2,"removed":0,"reverted":0,"undone":0},` +
		`{"author":"cli:bob","kind":"person","events":1,"added":1,"removed":0,"reverted":0,"undone":0},` +
		`{"author":"codex","kind":"agent","model":"gpt-5","events":1,"added":5,"removed":0,"reverted":0,"undone":1}]`)
	stats := func(dir string, args ...string) (rows, totals string, r result) {
		r = run(t, dir, append([]string{"team", "stats", "--json"}, args...)...)
		var s struct{ Rows, Totals json.RawMessage }
		if err := json.Unmarshal([]byte(r.stdout), &s); err != nil {
			t.Fatalf("team stats --json: %v\n%s%s", err, r.stdout, r.stderr)
		}
		return jsonCompact(string(s.Rows)), jsonCompact(string(s.Totals)), r
	}
	rows, totals, r := stats(t.TempDir())
	if r.code != 0 || totals != wantTotals {
		t.Errorf("team stats --json totals (exit %d):\n%s\nwant\n%s\n%s", r.code, totals, wantTotals, r.stderr)
	}
	day := mid.Format("2006-01-02")
	if !strings.Contains(rows, jsonCompact(`{"day":"`+day+`","workspace":"`+wa+`","author":"claude-code","kind":"agent","model":"claude-opus-4","events":2,"added":5,"removed":1,"reverted":1,"undone":0}`)) {
		t.Errorf("team stats --json rows:\n%s", rows)
	}
	if _, totals, _ := stats(t.TempDir(), "--agent", "codex"); totals != jsonCompact(`[{"author":"codex","kind":"agent","model":"gpt-5","events":1,"added":5,"removed":0,"reverted":0,"undone":1}]`) {
		t.Errorf("team stats --agent codex: %s", totals)
	}
	recs, err := csv.NewReader(strings.NewReader(ok(t, t.TempDir(), "team", "stats", "--csv"))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	wantCSV := [][]string{{"day", "workspace", "repository", "author", "kind", "model", "events", "added", "removed", "reverted", "undone"},
		{day, wa, "", "claude-code", "agent", "claude-opus-4", "2", "5", "1", "1", "0"},
		{day, wa, "", "cli:alice", "person", "", "1", "2", "0", "0", "0"},
		{day, wb, "", "cli:bob", "person", "", "1", "1", "0", "0", "0"},
		{day, wb, "", "codex", "agent", "gpt-5", "1", "5", "0", "0", "1"}}
	if wa > wb { // rows by day, then workspace
		wantCSV = append(wantCSV[:1], wantCSV[3], wantCSV[4], wantCSV[1], wantCSV[2])
	}
	if fmt.Sprint(recs) != fmt.Sprint(wantCSV) {
		t.Errorf("team stats --csv:\n%v\nwant\n%v", recs, wantCSV)
	}

	// an index altered through the S3 API (its checksums right) is named,
	// and the figures still come from verified events (its segments)
	put := func(key string, b []byte) {
		t.Helper()
		if _, err := srv.Client().PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(s3test.Bucket), Key: aws.String("t/" + key), Body: bytes.NewReader(b)}); err != nil {
			t.Fatal(err)
		}
	}
	ix := srv.Object("t/workspaces/" + wa + "/index.json")
	ib, err := os.ReadFile(ix)
	if err != nil {
		t.Fatal(err)
	}
	put("workspaces/"+wa+"/index.json", []byte(strings.Replace(string(ib), `"last": `, `"last": 1`, 1)))
	_, totals, r = stats(t.TempDir())
	if r.code != 1 || !strings.Contains(r.stderr, "workspaces/"+wa+"/index.json: it names event 1") || totals != wantTotals {
		t.Errorf("team stats over a tampered index: exit %d, totals %s\n%s", r.code, totals, r.stderr)
	}
	if r := run(t, t.TempDir(), "verify", "--remote", "team"); r.code != 1 || !strings.Contains(r.stdout, "bad: workspaces/"+wa+"/index.json: it names event 1") {
		t.Errorf("verify --remote over a tampered index: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// a remote without it (as an older journal pushed): read from the
	// segments, said so; a push writes it
	if err := os.Remove(ix); err != nil {
		t.Fatal(err)
	}
	if r := run(t, t.TempDir(), "team", "log", "-n", "1"); r.code != 0 || !strings.Contains(r.stderr, "workspace "+wa+" has no index on the remote") {
		t.Errorf("team log without A's index: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	teamPush(t, a)
	if _, err := os.Stat(ix); err != nil {
		t.Errorf("a push to a remote without the workspace's index did not write it: %v", err)
	}

	// a page whose event is altered, and the index naming its new sum
	// (every object's own checksum right): the event is named, not counted
	ib, err = os.ReadFile(srv.Object("t/workspaces/" + wb + "/index.json"))
	if err != nil {
		t.Fatal(err)
	}
	var bix struct{ Pages []struct{ Key, Sum string } }
	if err := json.Unmarshal(ib, &bix); err != nil || len(bix.Pages) != 1 {
		t.Fatalf("B's index: %v %s", err, ib)
	}
	page := bix.Pages[0].Key
	zb, err := os.ReadFile(srv.Object("t/" + page))
	if err != nil {
		t.Fatal(err)
	}
	dec, _ := zstd.NewReader(nil)
	raw, err := dec.DecodeAll(zb, nil)
	if err != nil || !strings.Contains(string(raw), `"added":5`) {
		t.Fatalf("B's page: %v\n%s", err, raw)
	}
	enc, _ := zstd.NewWriter(nil)
	i := strings.LastIndex(string(raw), `"added":5`) // in the hashed event, not its readable copy ("what")
	zb = enc.EncodeAll([]byte(string(raw[:i])+`"added":9`+string(raw[i+len(`"added":5`):])), nil)
	put(page, zb)
	put("workspaces/"+wb+"/index.json", []byte(strings.Replace(string(ib), bix.Pages[0].Sum, snapshot.Sum(zb).String(), 1)))
	_, totals, r = stats(t.TempDir())
	if r.code != 1 || !strings.Contains(r.stderr, fmt.Sprintf("%s: event %d is not the event its hash names (altered)", page, b1)) || totals != wantTotals {
		t.Errorf("team stats over a tampered page: exit %d, totals %s\n%s", r.code, totals, r.stderr)
	}

	// a push that stopped between A's head and its index: the index is
	// behind, which is said (not damage) and A read from its segments;
	// the next push, with nothing to send, brings the index up
	old, err := os.ReadFile(ix)
	if err != nil {
		t.Fatal(err)
	}
	ea = engine(t, a)
	a4 := teamEdit(t, ea, alice, "write_file", `{"note":"by hand"}`, "notes.md", "x\ny\nz\n")
	ea.Close()
	teamPush(t, a)
	put("workspaces/"+wa+"/index.json", old)
	behind := fmt.Sprintf("workspace %s's index ends at event %d, its head at %d", wa, ra.Seq, a4)
	if r := run(t, t.TempDir(), "team", "log", "-n", "1", "--workspace", wa); r.code != 0 || !strings.Contains(r.stderr, behind) || !strings.Contains(r.stdout, fmt.Sprintf(" %d ", a4)) {
		t.Errorf("team log, A's index behind its head: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if out := ok(t, a, "push", "team"); !strings.Contains(out, "up to date") {
		t.Errorf("push: %s", out)
	}
	if r := run(t, t.TempDir(), "team", "log", "-n", "1", "--workspace", wa); r.code != 0 || r.stderr != "" || !strings.Contains(r.stdout, fmt.Sprintf(" %d ", a4)) {
		t.Errorf("team log once a push brought A's index up: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// Three workspaces push at once, each writing its own index; then
// `team log -n 20` reads the workspaces' heads, indexes and newest pages:
// measured through a proxy in front of versitygw, its S3 requests are the
// same when a workspace holds 40 events and when it holds 700, and its
// output is the newest 20 events.
func TestTeam_LogReadsIndexesNotEveryEvent(t *testing.T) {
	srv := s3test.Start(t)
	meter := newS3Meter(t, srv.Endpoint())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	hook := journal.Actor{Kind: "agent", Name: "claude-code", Session: "s", Origin: "hook", Host: "alpha"}
	mcp := journal.Actor{Kind: "mcp", Name: "claude-code", Session: "m", Origin: "stdio", Host: "alpha"}
	dirs := []string{t.TempDir(), t.TempDir(), t.TempDir()}
	engines := make([]*replay.Engine, len(dirs))
	edits := func(k, n int) { // a prompt, then the 9 edits it asked for
		for i := range n {
			if i%10 == 0 {
				if _, err := engines[k].RecordPrompt(context.Background(), hook, replay.PromptArgs{ID: fmt.Sprintf("p%d", i), Text: "edit", Model: "m1"}); err != nil {
					t.Fatal(err)
				}
				continue
			}
			call := fmt.Sprintf(`{"call":{"session":"s","prompt":"p%d"}}`, i-i%10)
			teamEdit(t, engines[k], mcp, "write_file", call, fmt.Sprintf("f%d.txt", i%7), fmt.Sprintf("%d %d\n", k, i))
		}
	}
	for k, d := range dirs {
		engines[k] = engine(t, d)
		edits(k, 40)
	}
	ok(t, dirs[0], "remote", "add", "team", "s3://"+s3test.Bucket+"/scale", "--endpoint", meter.url)
	// the three machines push at once: each writes its own index, no lock
	done := make(chan result)
	for _, d := range dirs {
		go func() { done <- run(t, d, "push", "team") }()
	}
	for range dirs {
		if r := <-done; r.code != 0 || !strings.Contains(r.stdout, "pushed events 1-40") {
			t.Fatalf("concurrent push: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
	}
	small, smallBytes := teamRequests(t, meter)
	edits(0, 660)
	teamPush(t, dirs[0])
	large, largeBytes := teamRequests(t, meter)
	t.Logf("S3 requests of team log -n 20 over 3 workspaces: %d (%d bytes) with 40 events each, %d (%d bytes) with 700 in one", small, smallBytes, large, largeBytes)
	if large != small || small > 3+3*3 {
		t.Errorf("team log -n 20: %d requests with 40 events per workspace, %d with 700 in one (want the same, at most %d)", small, large, 3+3*3)
	}
}

// teamRequests runs team log -n 20 and returns its S3 requests and the
// bytes of their answers.
func teamRequests(t *testing.T, meter *s3Meter) (int64, int64) {
	t.Helper()
	meter.reset()
	lines := strings.Split(strings.TrimSpace(ok(t, t.TempDir(), "team", "log", "-n", "20")), "\n")
	n, b := meter.reset()
	if len(lines) != 20 {
		t.Fatalf("team log -n 20: %d lines", len(lines))
	}
	for _, l := range lines {
		if !strings.Contains(l, "[m1]") {
			t.Errorf("team log -n 20: %q names no model", l)
		}
	}
	return n, b
}

// jsonCompact is JSON text with its objects' keys sorted, for comparing.
func jsonCompact(s string) string {
	var v any
	json.Unmarshal([]byte(s), &v)
	b, _ := json.Marshal(v)
	return string(b)
}

// The prompt the newest events served was recorded 260 events back, on
// the index's page before theirs: team log -n 3 reads that page too, and
// names the prompt and its text.
func TestTeam_LogFindsPromptOnOlderPage(t *testing.T) {
	srv := s3test.Start(t)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := t.TempDir()
	e := engine(t, dir)
	hook := journal.Actor{Kind: "agent", Name: "claude-code", Session: "s", Origin: "hook"}
	mcp := journal.Actor{Kind: "mcp", Name: "claude-code", Session: "m", Origin: "stdio"}
	if _, err := e.RecordPrompt(context.Background(), hook, replay.PromptArgs{ID: "p-long", Text: "the long task", Model: "m2"}); err != nil {
		t.Fatal(err)
	}
	for i := range 260 {
		teamEdit(t, e, mcp, "write_file", `{"call":{"session":"s","prompt":"p-long"}}`, "f.txt", fmt.Sprintf("%d\n", i))
	}
	e.Close()
	ok(t, dir, "remote", "add", "team", "s3://"+s3test.Bucket+"/p", "--endpoint", srv.Endpoint())
	teamPush(t, dir)
	for _, l := range teamLog(t, t.TempDir(), "-n", "3") {
		if l.Prompt == nil || l.Prompt.Excerpt != "the long task" || l.Model != "m2" {
			t.Errorf("team log -n 3, event %d: prompt %+v, model %q; want p-long's text and m2", l.Seq, l.Prompt, l.Model)
		}
	}
}
