package mcp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	jmcp "github.com/journalfs/journal/mcp"
)

// TestReadOnlyFiles drives issue 59 §4 over MCP: a file a person made
// read-only (chmod 444) is refused PERMISSION_DENIED by every tool that
// would write it — nothing written, the mode kept, whoever runs the server
// (root too: the mode bits decide) — unless the call says
// allow_read_only: true, which writes it and keeps it read-only.
func TestReadOnlyFiles(t *testing.T) {
	const src = "package p\n\nfunc A() int {\n\treturn 1\n}\n"
	e := newEnv(t, jmcp.Options{}, "p.go", src, "w.txt", "one\ntwo\n", "undo.txt", "a\nb\n")
	// an edit of the agent's own, before the person protects the file
	e.ok("file_replace", map[string]any{"ops": []map[string]any{{"path": "undo.txt", "content": "A", "start_line": 1}}}, nil)
	for _, f := range []string{"p.go", "undo.txt"} {
		if err := os.Chmod(filepath.Join(e.dir, f), 0o444); err != nil {
			t.Fatal(err)
		}
	}
	before := e.snapshot()
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"edit_content", map[string]any{"absolute_file_path": "p.go", "search_text": "return 1", "replace_text": "return 2", "preview": false}},
		{"edit_content", map[string]any{"absolute_file_path": "p.go", "search_text": "return 1", "replace_text": "return 2"}}, // a preview says so too
		{"file_replace", map[string]any{"ops": []map[string]any{{"path": "p.go", "content": "\treturn 3", "start_line": 4}}}},
		{"file_insert_text", map[string]any{"ops": []map[string]any{{"path": "p.go", "content": "// x", "at": "eof"}}}},
		// a batch with one writable file writes neither
		{"file_replace", map[string]any{"ops": []map[string]any{{"path": "w.txt", "content": "ONE", "start_line": 1}, {"path": "p.go", "content": "\treturn 3", "start_line": 4}}}},
		// moving text out of a read-only file, or into one
		{"edit_move_text", map[string]any{"ops": []map[string]any{{"source_path": "p.go", "source_start_line": 1, "source_end_line": 1, "target_path": "w.txt", "target_line": -1}}}},
		{"edit_move_text", map[string]any{"ops": []map[string]any{{"source_path": "w.txt", "source_start_line": 1, "source_end_line": 1, "target_path": "p.go", "target_line": -1}}}},
		{"file_edit", map[string]any{"file": "p.go", "target": "A", "code": "func A() int {\n\treturn 4\n}"}},
		{"ai_code_editing.edit_file", map[string]any{"target_file": "p.go", "edit_instruction": "x", "start_line": 4, "end_line": 4, "code_block": "\treturn 5", "edit_type": "replace"}},
		{"replace_top_level_form", map[string]any{"filePath": "p.go", "line": 3, "newForm": "func A() int {\n\treturn 6\n}"}},
		{"insert_comment_at_line", map[string]any{"filePath": "p.go", "lineNumber": 3, "commentText": "A is one", "insertMode": "before"}},
		// the agent's own earlier edit, protected since
		{"undo", map[string]any{}},
		{"revert_edit", map[string]any{"absolute_file_path": "undo.txt"}},
	}
	for _, c := range calls {
		te := e.fail(c.tool, c.args, jmcp.CodePermissionDenied)
		if !strings.Contains(te.Message, "read-only (mode 0444)") || !strings.Contains(te.Hint, "allow_read_only") {
			t.Fatalf("%s: %+v", c.tool, te)
		}
		if !sameFiles(before, e.snapshot()) {
			t.Fatalf("%s: a refusal changed files", c.tool)
		}
	}
	// said so: written, and still read-only
	var out jmcp.EditOut
	e.ok("edit_content", map[string]any{"absolute_file_path": "p.go", "search_text": "return 1", "replace_text": "return 2", "preview": false, "allow_read_only": true}, &out)
	if got := e.read("p.go"); got != strings.Replace(src, "return 1", "return 2", 1) || out.Event == 0 {
		t.Fatalf("allow_read_only wrote %q (%+v)", got, out)
	}
	e.ok("undo", map[string]any{"allow_read_only": true}, nil) // takes back the edit just made
	e.ok("undo", map[string]any{"allow_read_only": true}, nil) // and the agent's own first edit
	if got := e.read("undo.txt"); got != "a\nb\n" {
		t.Fatalf("undo wrote %q", got)
	}
	for _, f := range []string{"p.go", "undo.txt"} {
		if fi, err := os.Stat(filepath.Join(e.dir, f)); err != nil || fi.Mode().Perm() != 0o444 {
			t.Fatalf("%s: mode %v, %v: a forced write must keep it read-only", f, fi.Mode(), err)
		}
	}
}
