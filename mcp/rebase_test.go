package mcp_test

import (
	"fmt"
	"strings"
	"testing"

	jmcp "github.com/journalfs/journal/mcp"
)

// TestRebase_RetryKeepsLongArguments: the retry of an ambiguous line-based
// edit carries the call's arguments as sent, not as journaled (where long
// strings are shrunk to a hash).
func TestRebase_RetryKeepsLongArguments(t *testing.T) {
	e := newEnv(t, jmcp.Options{}, "f.txt", "a\nb\nc\nd\n")
	e.ok("read_content", map[string]any{"absolute_file_path": "f.txt"}, nil)
	e.ok("file_insert_text", map[string]any{"ops": []map[string]any{{"path": "f.txt", "content": "top", "at": "bof"}}}, nil)
	long := strings.Repeat("x", 400)
	te := e.fail("file_replace", map[string]any{"ops": []map[string]any{{"path": "f.txt", "content": long, "start_line": 3}}}, jmcp.CodeEditConflict)
	if te.Retry == nil {
		t.Fatalf("no retry: %+v", te)
	}
	e.ok(te.Retry.Tool, te.Retry.Arguments, nil)
	if got := e.read("f.txt"); got != "top\na\nb\n"+long+"\nd\n" {
		t.Fatalf("retry wrote %q", got)
	}
}

// TestRebase_TargetTextSettles: after the session's own write its numbers
// are ambiguous, but target_line_text that holds only at the lines it read
// settles them: applied there, the note naming the shift and the event
// that made it.
func TestRebase_TargetTextSettles(t *testing.T) {
	e := newEnv(t, jmcp.Options{}, "f.txt", "a\nb\nc\nd\n")
	e.ok("read_content", map[string]any{"absolute_file_path": "f.txt"}, nil)
	var ins jmcp.BatchOut
	e.ok("file_insert_text", map[string]any{"ops": []map[string]any{{"path": "f.txt", "content": "top", "at": "bof"}}}, &ins)
	var out jmcp.BatchOut
	e.ok("file_replace", map[string]any{"ops": []map[string]any{{"path": "f.txt", "content": "C", "start_line": 3, "target_line_text": "c"}}}, &out)
	if got := e.read("f.txt"); got != "top\na\nb\nC\nd\n" {
		t.Fatalf("wrote %q", got)
	}
	want := fmt.Sprintf("lines moved +1 since your read (event %d)", ins.Event)
	if len(out.Notes) != 1 || !strings.Contains(out.Notes[0], want) {
		t.Fatalf("notes %q, want one with %q", out.Notes, want)
	}
	// text that holds under both readings settles nothing
	e = newEnv(t, jmcp.Options{}, "g.txt", "a\na\nb\n")
	e.ok("read_content", map[string]any{"absolute_file_path": "g.txt"}, nil)
	e.ok("file_insert_text", map[string]any{"ops": []map[string]any{{"path": "g.txt", "content": "top", "at": "bof"}}}, nil)
	e.fail("file_replace", map[string]any{"ops": []map[string]any{{"path": "g.txt", "content": "x", "start_line": 2, "target_line_text": "a"}}}, jmcp.CodeEditConflict)
}

// TestRebase_OwnWriteIsRead: a session's own write shows it the lines it
// wrote, so a second edit of the same lines counts from that write (issue
// 59 §4): line 6 replaced twice is applied twice, not refused as "changed
// since your read"; another party's change of those lines still is.
func TestRebase_OwnWriteIsRead(t *testing.T) {
	src := "1\n2\n3\n4\n5\n6\n7\n8\n"
	e := newEnv(t, jmcp.Options{}, "f.txt", src)
	e.ok("read_content", map[string]any{"absolute_file_path": "f.txt"}, nil)
	e.ok("file_replace", map[string]any{"ops": []map[string]any{{"path": "f.txt", "content": "six", "start_line": 6}}}, nil)
	var out jmcp.BatchOut
	e.ok("file_replace", map[string]any{"ops": []map[string]any{{"path": "f.txt", "content": "SIX", "start_line": 6}}}, &out)
	if got := e.read("f.txt"); got != "1\n2\n3\n4\n5\nSIX\n7\n8\n" {
		t.Fatalf("wrote %q", got)
	}
	if len(out.Notes) != 1 || !strings.Contains(out.Notes[0], "your own edit") {
		t.Fatalf("notes %q", out.Notes)
	}
	// the other tools that count lines, the same way
	e.ok("file_insert_text", map[string]any{"ops": []map[string]any{{"path": "f.txt", "content": "after six", "at": "after_line", "line": 6}}}, nil)
	if got := e.read("f.txt"); got != "1\n2\n3\n4\n5\nSIX\nafter six\n7\n8\n" {
		t.Fatalf("insert wrote %q", got)
	}
	e.ok("ai_code_editing.edit_file", map[string]any{"target_file": "f.txt", "edit_instruction": "line 6", "start_line": 6, "end_line": 6, "code_block": "Six", "edit_type": "replace"}, nil)
	if got := e.read("f.txt"); got != "1\n2\n3\n4\n5\nSix\nafter six\n7\n8\n" {
		t.Fatalf("edit_file wrote %q", got)
	}
	// a line another party changed after the session's write is refused
	write(t, e.dir, "f.txt", "1\n2\n3\n4\n5\nsix by hand\nafter six\n7\n8\n")
	e.fail("file_replace", map[string]any{"ops": []map[string]any{{"path": "f.txt", "content": "x", "start_line": 6}}}, jmcp.CodeEditConflict)
}

// TestRebase_UndoShowsNoLines: an undo's reply names files, not lines:
// lines the session's edit showed it still count from that edit after an
// undo of another one, but lines only an undo changed since the read are
// refused as changed.
func TestRebase_UndoShowsNoLines(t *testing.T) {
	replace := func(e *env, line int, content string) {
		e.ok("file_replace", map[string]any{"ops": []map[string]any{{"path": "f.txt", "content": content, "start_line": line}}}, nil)
	}
	e := newEnv(t, jmcp.Options{}, "f.txt", "1\n2\n3\n4\n5\n6\n7\n8\n")
	e.ok("read_content", map[string]any{"absolute_file_path": "f.txt"}, nil)
	replace(e, 6, "six")
	replace(e, 2, "two")
	e.ok("undo", map[string]any{}, nil) // takes "two" back; line 6 is as the first edit showed it
	replace(e, 6, "SIX")
	if got := e.read("f.txt"); got != "1\n2\n3\n4\n5\nSIX\n7\n8\n" {
		t.Fatalf("wrote %q", got)
	}
	e = newEnv(t, jmcp.Options{}, "f.txt", "1\n2\n3\n4\n5\n6\n7\n8\n")
	replace(e, 6, "six")
	e.ok("read_content", map[string]any{"absolute_file_path": "f.txt"}, nil)
	e.ok("undo", map[string]any{}, nil) // line 6 back to "6": never shown since the read
	e.fail("file_replace", map[string]any{"ops": []map[string]any{{"path": "f.txt", "content": "x", "start_line": 6}}}, jmcp.CodeEditConflict)
}
