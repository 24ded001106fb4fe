package mcp_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	jmcp "github.com/journalfs/journal/mcp"
)

// pathNames are the six names the seeds give a path argument.
var pathNames = []string{"absolute_file_path", "file", "file_path", "target_file", "filePath", "path"}

const aliasSrc = "def f():\n    return 1\n\n\ndef g():\n    return 2\n"

// aliasCalls are the tools with a path argument: its own name, whether it
// sits in each of ops' items, and the rest of a call that succeeds on a
// file holding aliasSrc.
var aliasCalls = []struct {
	tool, own string
	inOps     bool
	rest      map[string]any
	prepare   bool // an edit first, for the call to take back
}{
	{tool: "ai_code_editing.edit_file", own: "target_file", rest: map[string]any{"edit_instruction": "add a comment", "start_line": 1, "code_block": "# top", "edit_type": "insert"}},
	{tool: "ai_get_code_context", own: "file_path", rest: map[string]any{}},
	{tool: "replace_top_level_form", own: "filePath", rest: map[string]any{"line": 5, "newForm": "def g():\n    return 3"}},
	{tool: "insert_top_level_form", own: "filePath", rest: map[string]any{"line": 5, "newForm": "def h():\n    return 4", "insertMode": "after"}},
	{tool: "insert_comment_at_line", own: "filePath", rest: map[string]any{"lineNumber": 2, "commentText": "one", "insertMode": "before"}},
	{tool: "revert_edit", own: "absolute_file_path", rest: map[string]any{}, prepare: true},
	{tool: "journal_log", own: "path", rest: map[string]any{}},
	{tool: "get_overview", own: "absolute_file_path", rest: map[string]any{}},
	{tool: "search_content", own: "absolute_file_path", rest: map[string]any{"pattern": "return 2"}},
	{tool: "read_content", own: "absolute_file_path", rest: map[string]any{"target": 2}},
	{tool: "edit_content", own: "absolute_file_path", rest: map[string]any{"search_text": "return 2", "replace_text": "return 7", "preview": false}},
	{tool: "file_read", own: "file", rest: map[string]any{"target": "g"}},
	{tool: "file_edit", own: "file", rest: map[string]any{"target": "g", "code": "def g():\n    return 5"}},
	{tool: "diagnostics", own: "file", rest: map[string]any{}},
	{tool: "file_create_new", own: "path", inOps: true, rest: map[string]any{"content": aliasSrc}},
	{tool: "file_replace", own: "path", inOps: true, rest: map[string]any{"content": "x = 1\n"}},
	{tool: "file_insert_text", own: "path", inOps: true, rest: map[string]any{"content": "# end", "at": "eof"}},
}

// args is a call of c on file p, its path argument named name.
func aliasArgs(rest map[string]any, inOps bool, name, p string) map[string]any {
	m := map[string]any{}
	for k, v := range rest {
		m[k] = v
	}
	if !inOps {
		m[name] = p
		return m
	}
	m[name] = p
	return map[string]any{"ops": []any{m}}
}

// TestPathAliases: every tool with a path argument takes any seed's name
// for it: the call with an alias does what the call with the tool's own
// name does (the same file content after it, the same text for a read,
// the file name aside), each on a file of its own holding the same text.
func TestPathAliases(t *testing.T) {
	e := newEnv(t, jmcp.Options{LSP: nil})
	for _, c := range aliasCalls {
		t.Run(c.tool, func(t *testing.T) {
			var wantFile, wantText string
			names := append([]string{c.own}, without(pathNames, c.own)...)
			for i, name := range names {
				rel := fmt.Sprintf("%s_%d.py", strings.ReplaceAll(c.tool, ".", "_"), i)
				p := filepath.Join(e.dir, rel)
				if c.tool != "file_create_new" {
					write(t, e.dir, rel, aliasSrc)
				}
				if c.prepare {
					e.ok("file_replace", map[string]any{"ops": []any{map[string]any{"path": p, "content": "changed\n"}}}, nil)
				}
				res := e.call(nil, c.tool, aliasArgs(c.rest, c.inOps, name, p))
				got := strings.ReplaceAll(text(res), rel, "F")
				if res.IsError {
					t.Fatalf("%s with %s: %s", c.tool, name, got)
				}
				content := e.read(rel)
				if i == 0 {
					wantFile, wantText = content, got
					continue
				}
				if content != wantFile {
					t.Errorf("%s with %s left\n%s\nwant (with %s)\n%s", c.tool, name, content, c.own, wantFile)
				}
				if readOnly(c.tool) && got != wantText {
					t.Errorf("%s with %s said\n%s\nwant (with %s)\n%s", c.tool, name, got, c.own, wantText)
				}
			}
		})
	}
}

func readOnly(tool string) bool {
	switch tool {
	case "ai_get_code_context", "get_overview", "search_content", "read_content", "file_read", "diagnostics":
		return true
	}
	return false
}

func without(list []string, s string) []string {
	var out []string
	for _, x := range list {
		if x != s {
			out = append(out, x)
		}
	}
	return out
}

// TestPathAliases_Clash: two names of the path argument in one call — the
// tool's own and an alias, or two aliases, even naming the same file — are
// refused with INVALID_INPUT naming them and the one to send, and nothing
// is written; a name the tool does not know as a path is still refused as
// an unknown parameter.
func TestPathAliases_Clash(t *testing.T) {
	e := newEnv(t, jmcp.Options{}, "a.py", aliasSrc, "b.py", aliasSrc)
	a, b := filepath.Join(e.dir, "a.py"), filepath.Join(e.dir, "b.py")
	before := e.snapshot()
	for _, args := range []map[string]any{
		{"absolute_file_path": a, "file_path": b, "search_text": "return 2", "replace_text": "return 9", "preview": false},
		{"file": a, "filePath": a, "search_text": "return 2", "replace_text": "return 9", "preview": false},
	} {
		te := e.fail("edit_content", args, "INVALID_INPUT")
		if !strings.Contains(te.Message, "name the same path argument") || !strings.Contains(te.Hint, "absolute_file_path") {
			t.Errorf("clash: %+v", te)
		}
	}
	te := e.fail("file_create_new", map[string]any{"ops": []any{
		map[string]any{"path": filepath.Join(e.dir, "n.py"), "content": "x"},
		map[string]any{"file": filepath.Join(e.dir, "m.py"), "target_file": filepath.Join(e.dir, "k.py"), "content": "y"},
	}}, "INVALID_INPUT")
	if !strings.Contains(te.Message, "ops[1].file, ops[1].target_file") || !strings.Contains(te.Hint, "ops[1].path") {
		t.Errorf("clash in ops: %+v", te)
	}
	e.fail("file_read", map[string]any{"filename": a}, "INVALID_INPUT")
	if !sameFiles(before, e.snapshot()) {
		t.Errorf("a refused call wrote: %v", e.snapshot())
	}
}
