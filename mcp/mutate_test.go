package mcp_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	jmcp "github.com/journalfs/journal/mcp"
)

func TestFileCreateNew(t *testing.T) {
	e := newEnv(t, jmcp.Options{}, "exists.txt", "x\n")
	var out jmcp.BatchOut
	txt := e.ok("file_create_new", map[string]any{"ops": []map[string]any{
		{"path": "svc/new.py", "content": "# New service\n\ndef main():\n    pass\n"},
		{"path": filepath.Join(e.dir, "empty.txt")},
	}}, &out)
	if out.Status != "applied" || out.Event == 0 || len(out.Applied) != 2 || out.Applied[0].BytesWritten == 0 {
		t.Fatalf("result %+v", out)
	}
	if !strings.Contains(txt, "1: # New service") || out.Versions["svc/new.py"] == "" {
		t.Fatalf("text %q versions %v", txt, out.Versions)
	}
	if e.read("svc/new.py") != "# New service\n\ndef main():\n    pass\n" || e.read("empty.txt") != "" {
		t.Fatal("content")
	}
	// All-or-nothing: one existing file fails the whole batch.
	before := e.snapshot()
	te := e.fail("file_create_new", map[string]any{"ops": []map[string]any{
		{"path": "a.txt", "content": "a"}, {"path": "exists.txt", "content": "b"},
	}}, jmcp.CodeFileExists)
	if te.Status != "failed" || len(te.FailedOps) != 1 || te.FailedOps[0].Index != 1 {
		t.Fatalf("failed ops %+v", te)
	}
	if !sameFiles(before, e.snapshot()) {
		t.Fatal("a failed batch changed the workspace")
	}
}

func TestFileReplace(t *testing.T) {
	e := newEnv(t, jmcp.Options{}, "a.txt", "one\r\ntwo\r\nthree\r\nfour\r\nfive\r\n", "b.txt", "b\n")
	var out jmcp.BatchOut
	e.ok("file_replace", map[string]any{"ops": []map[string]any{
		{"path": "a.txt", "content": "TWO\nTHREE\n", "start_line": 2, "end_line": 3},
		{"path": "b.txt", "content": "1\n2\n3\n4\n5\n6\n"},
	}}, &out)
	if got := e.read("a.txt"); got != "one\r\nTWO\r\nTHREE\r\nfour\r\nfive\r\n" {
		t.Fatalf("CRLF not kept: %q", got)
	}
	if ctx := strings.Join(out.Applied[1].Context, "|"); out.Applied[1].LinesTotal != 6 || !strings.HasPrefix(ctx, "1: 1|2: 2|") || !strings.HasSuffix(ctx, "|5: 5|6: 6") {
		t.Fatalf("whole-file context %+v", out.Applied[1])
	}
	e.fail("file_replace", map[string]any{"ops": []map[string]any{{"path": "missing.txt", "content": "x"}}}, jmcp.CodeFileNotFound)
	e.fail("file_replace", map[string]any{"ops": []map[string]any{{"path": "a.txt", "content": "x", "start_line": 99}}}, jmcp.CodeInvalidInput)
}

func TestFileInsertText_OriginalCoordinates(t *testing.T) {
	e := newEnv(t, jmcp.Options{}, "f.go", "a\nb\nc\n")
	var out jmcp.BatchOut
	e.ok("file_insert_text", map[string]any{"ops": []map[string]any{
		{"path": "f.go", "content": "after-a", "at": "after_line", "line": 1},
		{"path": "f.go", "content": "before-c", "at": "before_line", "line": 3},
		{"path": "f.go", "content": "top", "at": "bof"},
		{"path": "f.go", "content": "end", "at": "eof"},
		{"path": "f.go", "content": "!", "at": "after_line", "line": 2, "col": -1},
	}}, &out)
	if got := e.read("f.go"); got != "top\na\nafter-a\nb!\nbefore-c\nc\nend\n" {
		t.Fatalf("got %q", got)
	}
}

func TestFileCopyPaste_Stamp50(t *testing.T) {
	files := []string{"deco.py", "@traced\n"}
	for i := 0; i < 10; i++ {
		var b strings.Builder
		for j := 0; j < 5; j++ {
			fmt.Fprintf(&b, "def f%d():\n    pass\n", j)
		}
		files = append(files, fmt.Sprintf("m%d.py", i), b.String())
	}
	e := newEnv(t, jmcp.Options{}, files...)
	var ops []map[string]any
	for i := 0; i < 10; i++ {
		for j := 0; j < 5; j++ {
			ops = append(ops, map[string]any{"source_path": "deco.py", "source_start_line": 1, "source_end_line": 1,
				"target_path": fmt.Sprintf("m%d.py", i), "target_line": 1 + 2*j})
		}
	}
	var out jmcp.BatchOut
	e.ok("file_copy_paste_text", map[string]any{"ops": ops}, &out)
	if len(out.Applied) != 50 || strings.Count(e.read("m7.py"), "@traced\ndef ") != 5 {
		t.Fatalf("stamped: %q", e.read("m7.py"))
	}
	// One journal event for the whole stamp; one revert takes all 50 back.
	var rv jmcp.ChangeOut
	e.ok("revert_edit", map[string]any{"absolute_file_path": filepath.Join(e.dir, "m3.py")}, &rv)
	if len(rv.Files) != 10 || strings.Contains(e.read("m7.py"), "@traced") {
		t.Fatalf("revert %+v", rv)
	}
}

func TestEditMoveText_CreatesTarget(t *testing.T) {
	e := newEnv(t, jmcp.Options{}, "main.py", "import os\n\ndef helper():\n    return 1\n\ndef main():\n    helper()\n")
	var out jmcp.BatchOut
	e.ok("edit_move_text", map[string]any{"ops": []map[string]any{
		{"source_path": "main.py", "source_start_line": 3, "source_end_line": 5, "target_path": "lib/utils.py", "target_line": 1},
	}}, &out)
	a := out.Applied[0]
	if !a.TargetCreated || len(a.Warnings) == 0 || e.read("lib/utils.py") != "def helper():\n    return 1\n\n" {
		t.Fatalf("move %+v %q", a, e.read("lib/utils.py"))
	}
	if strings.Contains(e.read("main.py"), "return 1") {
		t.Fatal("source not cut")
	}
}

func TestStaleSession_EditConflict(t *testing.T) {
	e := newEnv(t, jmcp.Options{}, "f.txt", "a\nc\n")
	e.ok("file_insert_text", map[string]any{"ops": []map[string]any{{"path": "f.txt", "content": "b", "at": "after_line", "line": 1}}}, nil) // the session sees a\nb\nc
	write(t, e.dir, "f.txt", "new first line\na\nb\nc\n")                                                                                    // someone else inserts a line
	// its "after line 2" (b) is line 3 now: rebased through the journal, and said
	var out jmcp.BatchOut
	txt := e.ok("file_insert_text", map[string]any{"ops": []map[string]any{{"path": "f.txt", "content": "x", "at": "after_line", "line": 2}}}, &out)
	if e.read("f.txt") != "new first line\na\nb\nx\nc\n" || len(out.Notes) != 1 || !strings.Contains(txt, "moved +1") {
		t.Fatalf("%q\n%s", e.read("f.txt"), txt)
	}
	// the session wrote since its first numbers: a line that moved is ambiguous
	te := e.fail("file_replace", map[string]any{"ops": []map[string]any{{"path": "f.txt", "content": "C", "start_line": 3}}}, jmcp.CodeEditConflict)
	if te.Retry == nil || !strings.Contains(te.Message, "ambiguous") {
		t.Fatalf("ambiguous: %+v", te)
	}
	var retried jmcp.BatchOut
	e.ok(te.Retry.Tool, te.Retry.Arguments, &retried) // the lines it read: c, now line 5
	if e.read("f.txt") != "new first line\na\nb\nx\nC\n" {
		t.Fatalf("retry wrote %q", e.read("f.txt"))
	}
	// after a read, someone changes the very line: refused, the lines as read and as now are shown
	e.ok("read_content", map[string]any{"absolute_file_path": "f.txt"}, nil)
	write(t, e.dir, "f.txt", "new first line\na\nB!\nx\nC\n")
	te = e.fail("file_replace", map[string]any{"ops": []map[string]any{{"path": "f.txt", "content": "bee", "start_line": 3}}}, jmcp.CodeEditConflict)
	if !strings.Contains(te.Message, "changed since your read") || !strings.Contains(te.Message, "3: b") || !strings.Contains(te.Message, "3: B!") {
		t.Fatalf("changed lines: %+v", te)
	}
	// Reading again makes the line numbers current.
	e.ok("ai_get_code_context", map[string]any{"file_path": "f.txt"}, nil)
	e.ok("file_insert_text", map[string]any{"ops": []map[string]any{{"path": "f.txt", "content": "y", "at": "after_line", "line": 2}}}, nil)
	if e.read("f.txt") != "new first line\na\ny\nB!\nx\nC\n" {
		t.Fatal(e.read("f.txt"))
	}
	// The outside changes were journaled before they were overwritten.
	var log jmcp.LogOut
	e.ok("journal_log", map[string]any{"path": "f.txt"}, &log)
	if len(log.Events) != 6 || log.Events[1].Kind != "observe" || log.Events[4].Kind != "observe" {
		t.Fatalf("log %+v", log.Events)
	}
	// expected_versions guards whole-file edits too.
	e.fail("file_replace", map[string]any{"ops": []map[string]any{{"path": "f.txt", "content": "y"}}, "expected_versions": map[string]string{"f.txt": "0123456789ab"}}, jmcp.CodeEditConflict)
}

func TestBadInputs(t *testing.T) {
	e := newEnv(t, jmcp.Options{}, "f.txt", "a\n", "bin.dat", "\x00\x01\x02\x00")
	outside := t.TempDir()
	e.fail("file_create_new", map[string]any{"ops": []map[string]any{{"path": "../escape.txt", "content": "x"}}}, jmcp.CodeOutsideRoot)
	e.fail("file_create_new", map[string]any{"ops": []map[string]any{{"path": filepath.Join(outside, "x.txt"), "content": "x"}}}, jmcp.CodeOutsideRoot)
	e.fail("file_create_new", map[string]any{"ops": []map[string]any{{"path": ".journal/x", "content": "x"}}}, jmcp.CodeOutsideRoot)
	e.fail("file_create_new", map[string]any{"ops": []map[string]any{{"path": "a\x00b", "content": "x"}}}, jmcp.CodeInvalidInput)
	e.fail("file_create_new", map[string]any{"ops": []map[string]any{}}, jmcp.CodeInvalidInput)
	e.fail("file_create_new", map[string]any{"opz": []map[string]any{}}, jmcp.CodeInvalidInput)
	e.fail("file_insert_text", map[string]any{"ops": []map[string]any{{"path": "bin.dat", "content": "x", "at": "bof"}}}, jmcp.CodeBinaryFile)
	e.fail("file_insert_text", map[string]any{"ops": []map[string]any{{"path": "f.txt", "content": "x", "at": "middle"}}}, jmcp.CodeInvalidInput)
	e.fail("revert_edit", map[string]any{"absolute_file_path": "f.txt", "backup_id": "abc"}, jmcp.CodeInvalidInput)
	e.fail("revert_edit", map[string]any{"absolute_file_path": "f.txt"}, jmcp.CodeNothingToDo)
	e.fail("undo", map[string]any{}, jmcp.CodeNothingToDo)
	if len(e.snapshot()) != 2 {
		t.Fatalf("bad inputs changed the workspace: %v", e.snapshot())
	}
}

// A batch that leaves every file as it was records no event and says so.
func TestMutate_NoChangeRecordsNoEvent(t *testing.T) {
	e := newEnv(t, jmcp.Options{}, "e.txt", "", "a.txt", "one\ntwo\n")
	txt := e.ok("file_replace", map[string]any{"ops": []any{map[string]any{"path": "e.txt", "content": ""}}}, nil)
	if !strings.Contains(txt, "no journal event was recorded") {
		t.Fatalf("file_replace: %s", txt)
	}
	txt = e.ok("edit_content", map[string]any{"absolute_file_path": "a.txt", "search_text": "two", "replace_text": "two", "preview": false}, nil)
	if !strings.Contains(txt, "no journal event was recorded") {
		t.Fatalf("edit_content: %s", txt)
	}
	var log jmcp.LogOut
	e.ok("journal_log", map[string]any{}, &log)
	if len(log.Events) != 0 {
		t.Fatalf("events: %+v", log.Events)
	}
}
