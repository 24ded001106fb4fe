package mcp_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	jmcp "github.com/journalfs/journal/mcp"
	"github.com/journalfs/journal/replay"
)

func TestHistory_RevertUndoRedoLogStatus(t *testing.T) {
	e := newEnv(t, jmcp.Options{}, "f.txt", "v0\n")
	for i := 1; i <= 3; i++ {
		e.ok("file_replace", map[string]any{"ops": []map[string]any{{"path": "f.txt", "content": fmt.Sprintf("v%d\n", i)}}}, nil)
	}
	var ch jmcp.ChangeOut
	e.ok("undo", map[string]any{}, &ch)
	if e.read("f.txt") != "v2\n" || ch.Reverted != 3 {
		t.Fatalf("undo: %q %+v", e.read("f.txt"), ch)
	}
	e.ok("redo", map[string]any{}, &ch)
	if e.read("f.txt") != "v3\n" {
		t.Fatal("redo")
	}
	e.fail("redo", map[string]any{}, jmcp.CodeNothingToDo)
	// revert_edit by backup_id: event 2 changed v1→v2 and the file is v3 now; both changed
	// its only line, so the revert is refused.
	e.fail("revert_edit", map[string]any{"absolute_file_path": "f.txt", "backup_id": "2"}, jmcp.CodeRevertConflict)
	var log jmcp.LogOut
	e.ok("journal_log", map[string]any{"limit": 3}, &log)
	if len(log.Events) != 3 || log.Events[0].Seq <= log.Events[2].Seq {
		t.Fatalf("log %+v", log.Events)
	}
	var st jmcp.StatusOut
	write(t, e.dir, "f.txt", "outside\n")
	txt := e.ok("journal_status", map[string]any{}, &st)
	if len(st.Changed) != 1 || !strings.Contains(txt, "changed outside: f.txt") || len(st.Roots) != 1 {
		t.Fatalf("status %+v %s", st, txt)
	}
	e.fail("revert_edit", map[string]any{"absolute_file_path": "f.txt", "backup_id": "999"}, jmcp.CodeInvalidInput)
	// a chmod is a change too: named with both modes
	if err := os.Chmod(filepath.Join(e.dir, "f.txt"), 0o700); err != nil {
		t.Fatal(err)
	}
	txt = e.ok("journal_status", map[string]any{}, &st)
	if len(st.Changed) != 1 || st.Changed[0].DiskMode != 0o700 || !strings.Contains(txt, ", mode 644 -> 700)") {
		t.Fatalf("status after a chmod %+v %s", st, txt)
	}
}

func TestHistory_RevertConflictNamesLines(t *testing.T) {
	e := newEnv(t, jmcp.Options{}, "f.txt", "a\nb\nc\nd\n")
	var b jmcp.BatchOut
	e.ok("file_replace", map[string]any{"ops": []map[string]any{{"path": "f.txt", "content": "B\n", "start_line": 2, "end_line": 2}}}, &b)
	e.ok("file_replace", map[string]any{"ops": []map[string]any{{"path": "f.txt", "content": "BB\n", "start_line": 2, "end_line": 2}}}, nil)
	te := e.fail("revert_edit", map[string]any{"absolute_file_path": "f.txt", "backup_id": fmt.Sprint(b.Event)}, jmcp.CodeRevertConflict)
	if len(te.Lines) == 0 || te.Lines[0][0] != 2 {
		t.Fatalf("conflict lines %+v", te)
	}
	if e.read("f.txt") != "a\nBB\nc\nd\n" {
		t.Fatal("a refused revert changed the file")
	}
	var ch jmcp.ChangeOut
	e.ok("revert_edit", map[string]any{"absolute_file_path": "f.txt", "backup_id": fmt.Sprint(b.Event), "force": true}, &ch)
	if e.read("f.txt") != "a\nb\nc\nd\n" {
		t.Fatal("force")
	}
}

func TestResources(t *testing.T) {
	e := newEnv(t, jmcp.Options{}, "f.txt", "old\n")
	e.ok("file_replace", map[string]any{"ops": []map[string]any{{"path": "f.txt", "content": "new\n"}}}, nil)
	req := mcpgo.ReadResourceRequest{}
	req.Params.URI = "journal://events/1"
	res, err := e.c.ReadResource(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	txt := res.Contents[0].(mcpgo.TextResourceContents).Text
	if !strings.Contains(txt, "-old") || !strings.Contains(txt, "+new") || !strings.Contains(txt, `"tool": "file_replace"`) {
		t.Fatalf("event resource:\n%s", txt)
	}
	req.Params.URI = "journal://events"
	res, err = e.c.ReadResource(ctx, req)
	if err != nil || !strings.Contains(res.Contents[0].(mcpgo.TextResourceContents).Text, `"event": 1`) {
		t.Fatalf("events: %v", err)
	}
	req.Params.URI = "journal://events/77"
	if _, err := e.c.ReadResource(ctx, req); err == nil {
		t.Fatal("missing event read")
	}
}

func TestAuditArgs_LargeTextHashed(t *testing.T) {
	e := newEnv(t, jmcp.Options{})
	big := strings.Repeat("x", 5000)
	e.ok("file_create_new", map[string]any{"ops": []map[string]any{{"path": "big.txt", "content": big}}}, nil)
	ev, err := e.eng.Event(1)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(ev.Args), big) || !strings.Contains(string(ev.Args), "blake3") || ev.Actor.Name != "test-client" || ev.Actor.Kind != "mcp" {
		t.Fatalf("args %s actor %+v", ev.Args, ev.Actor)
	}
}

// TestHistory_UndoAll: undo with all takes back everything this session
// did that still stands, as one event — another session's later change to
// the same file stays; redo brings it all back; an overlap refuses the
// whole undo with a retry (all and force) that works when sent as it is.
func TestHistory_UndoAll(t *testing.T) {
	e := newEnv(t, jmcp.Options{Origin: "http"}, "f.txt", "a\nb\nc\nd\n") // a session per client, as over HTTP
	other := connect(t, e.srv, nil)
	e.ok("file_replace", map[string]any{"ops": []map[string]any{{"path": "f.txt", "content": "B\n", "start_line": 2, "end_line": 2}}}, nil)
	e.ok("file_create_new", map[string]any{"ops": []map[string]any{{"path": "g.txt", "content": "made here\n"}}}, nil)
	if res := e.call(other, "file_replace", map[string]any{"ops": []map[string]any{{"path": "f.txt", "content": "D\n", "start_line": 4, "end_line": 4}}}); res.IsError {
		t.Fatal(text(res))
	}
	e.fail("undo", map[string]any{"force": true}, jmcp.CodeInvalidInput)
	var out jmcp.ChangeOut
	txt := e.ok("undo", map[string]any{"all": true}, &out)
	if !strings.Contains(txt, "undid this session's 2 change(s)") || e.read("f.txt") != "a\nb\nc\nD\n" || e.exists("g.txt") {
		t.Fatalf("undo all: %s / %q", txt, e.read("f.txt"))
	}
	var log jmcp.LogOut
	e.ok("journal_log", map[string]any{"limit": 1}, &log)
	if len(log.Events) != 1 || len(log.Events[0].Undone) != 2 || log.Events[0].Seq != out.Event {
		t.Fatalf("journal_log of the session undo: %+v", log.Events)
	}
	e.ok("redo", map[string]any{}, nil)
	if e.read("f.txt") != "a\nB\nc\nD\n" || e.read("g.txt") != "made here\n" {
		t.Fatalf("redo of the session undo: %q", e.read("f.txt"))
	}
	// the other session changes the line this one changed: refused, nothing written
	if res := e.call(other, "file_replace", map[string]any{"ops": []map[string]any{{"path": "f.txt", "content": "B, then other\n", "start_line": 2, "end_line": 2}}}); res.IsError {
		t.Fatal(text(res))
	}
	te := e.fail("undo", map[string]any{"all": true}, jmcp.CodeRevertConflict)
	if te.Retry == nil || te.Retry.Tool != "undo" || te.Retry.Arguments["force"] != true || e.read("f.txt") != "a\nB, then other\nc\nD\n" {
		t.Fatalf("conflict: %+v / %q", te, e.read("f.txt"))
	}
	e.ok(te.Retry.Tool, te.Retry.Arguments, nil)
	if e.read("f.txt") != "a\nb\nc\nd\n" || e.exists("g.txt") {
		t.Fatalf("forced undo all: %q", e.read("f.txt"))
	}
}

// TestHistory_EventResourceMasksSecrets: over the in-process client, the
// event resource shows an event whose file and arguments hold an AWS key
// and a GitHub token with both masked (arguments and both sides of the
// diff); the file the agent wrote is read back as written (live reads are
// not masked), and the journal keeps the exact bytes (undo, then redo).
func TestHistory_EventResourceMasksSecrets(t *testing.T) {
	e := newEnv(t, jmcp.Options{}, ".env", "REGION=eu-west-1\n")
	const key, tok = "AKIALALEMEL33243OLIB", "ghp_R4nd0mT0k3nV4lu3Xy9Zq8W7e6R5t4Y3u2I1" // gitleaks:allow (made up for the test)
	content := "REGION=eu-west-1\nAWS_ACCESS_KEY_ID=" + key + "\nGITHUB_TOKEN=" + tok + "\n"
	e.ok("file_replace", map[string]any{"ops": []map[string]any{{"path": ".env", "content": content}}}, nil)
	req := mcpgo.ReadResourceRequest{}
	req.Params.URI = "journal://events/1"
	res, err := e.c.ReadResource(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	got := res.Contents[0].(mcpgo.TextResourceContents).Text
	if strings.Contains(got, key) || strings.Contains(got, tok) ||
		!strings.Contains(got, "+AWS_ACCESS_KEY_ID=AKIA…[secret: aws-access-token]") || !strings.Contains(got, "+GITHUB_TOKEN=ghp_…[secret: github-pat]") ||
		!strings.Contains(got, `AKIA…[secret: aws-access-token]\n`) {
		t.Fatalf("event resource:\n%s", got)
	}
	if e.read(".env") != content {
		t.Fatalf("file on disk: %q", e.read(".env"))
	}
	e.ok("undo", map[string]any{}, nil)
	e.ok("redo", map[string]any{}, nil)
	if e.read(".env") != content {
		t.Fatalf("after undo and redo: %q", e.read(".env"))
	}
	// an edit inside the token alone masks alike on both sides: the
	// diff says where the change is, not nothing
	edited := strings.Replace(content, tok, tok[:len(tok)-1]+"Q", 1)
	var ev struct {
		Event uint64 `json:"event"`
	}
	if out := e.ok("file_replace", map[string]any{"ops": []map[string]any{{"path": ".env", "content": edited}}}, &ev); ev.Event == 0 {
		t.Fatalf("file_replace: no event: %s", out)
	}
	req.Params.URI = fmt.Sprintf("journal://events/%d", ev.Event)
	if res, err = e.c.ReadResource(ctx, req); err != nil {
		t.Fatal(err)
	}
	if got := res.Contents[0].(mcpgo.TextResourceContents).Text; !strings.Contains(got, ".env: the change is inside a masked secret") || strings.Contains(got, tok[:30]) {
		t.Fatalf("event resource of an edit inside a token:\n%s", got)
	}
}

// TestHistory_UndoCreateRemovesItsDirs: undoing file_create_new takes back the directories it made for the
// file when they are left empty — not one that holds another file, not one that was there before — and
// redo makes them again; undo all of a session does the same.
func TestHistory_UndoCreateRemovesItsDirs(t *testing.T) {
	e := newEnv(t, jmcp.Options{}, "pre/keep.txt", "k\n")
	isDir := func(rel string) bool {
		fi, err := os.Stat(filepath.Join(e.dir, rel))
		return err == nil && fi.IsDir()
	}
	e.ok("file_create_new", map[string]any{"ops": []map[string]any{{"path": "a/b/c/new.go", "content": "package c\n"}}}, nil)
	e.ok("undo", map[string]any{}, nil)
	if e.exists("a/b/c/new.go") || isDir("a") {
		t.Fatalf("undo left the directories the create made: a exists %v", isDir("a"))
	}
	e.ok("redo", map[string]any{}, nil)
	if e.read("a/b/c/new.go") != "package c\n" {
		t.Fatal("redo did not make the file again")
	}
	// a directory that holds another file stays, and so does one that was there before
	e.ok("file_create_new", map[string]any{"ops": []map[string]any{{"path": "x/y/one.txt", "content": "1\n"}, {"path": "pre/sub/two.txt", "content": "2\n"}}}, nil)
	write(t, e.dir, "x/other.txt", "mine\n")
	e.ok("undo", map[string]any{}, nil)
	if isDir("x/y") || !isDir("x") || e.read("x/other.txt") != "mine\n" || isDir("pre/sub") || !isDir("pre") {
		t.Fatalf("after undo: x/y %v, x %v, pre/sub %v, pre %v", isDir("x/y"), isDir("x"), isDir("pre/sub"), isDir("pre"))
	}
	// undo all of the session: a/b/c/new.go (redone) and nothing else of its goes back
	e.ok("undo", map[string]any{"all": true}, nil)
	if isDir("a") {
		t.Fatal("undo all left the directories of a/b/c/new.go")
	}
}

// TestHistory_OutsideMoveIsOneRename: a file moved outside the tools (mv, as the watcher records it through
// Observe) lists as one file in journal_log and reads as a rename in its event resource, not as the old
// path deleted and 115 lines added at the new one.
func TestHistory_OutsideMoveIsOneRename(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 115; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	e := newEnv(t, jmcp.Options{}, "a.md", b.String())
	if _, err := e.eng.Observe(ctx, replay.Observation{Paths: []string{"a.md"}, Baseline: true}); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(e.dir, "a.md"), filepath.Join(e.dir, "b.md")); err != nil {
		t.Fatal(err)
	}
	ob, err := e.eng.Observe(ctx, replay.Observation{Paths: []string{"a.md", "b.md"}, Tool: "watch"})
	if err != nil || len(ob.Events) != 1 {
		t.Fatalf("observe of the move: %+v %v", ob, err)
	}
	var log jmcp.LogOut
	e.ok("journal_log", map[string]any{"limit": 1}, &log)
	if len(log.Events) != 1 || fmt.Sprint(log.Events[0].Files) != "[b.md]" {
		t.Fatalf("journal_log of the move: %+v", log.Events)
	}
	req := mcpgo.ReadResourceRequest{}
	req.Params.URI = fmt.Sprintf("journal://events/%d", ob.Events[0])
	res, err := e.c.ReadResource(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	txt := res.Contents[0].(mcpgo.TextResourceContents).Text
	if !strings.Contains(txt, "rename from a.md\nrename to b.md\n") || strings.Contains(txt, "+line 1\n") || strings.Contains(txt, "-line 1\n") {
		t.Fatalf("event resource of the move:\n%s", txt)
	}
}
