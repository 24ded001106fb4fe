package mcp_test

import (
	"strings"
	"testing"

	jmcp "github.com/journalfs/journal/mcp"
)

// TestFileEdit_UnchangedSaysSo: a file_edit whose code is what the file
// has writes nothing and says so in its headline, status and summary — not
// "✅ Success — edit applied" beside "nothing was written" (issue 47).
func TestFileEdit_UnchangedSaysSo(t *testing.T) {
	const src = "package p\n\nfunc A() int {\n\treturn 1\n}\n"
	e := newEnv(t, jmcp.Options{}, "p.go", src)
	for _, args := range []map[string]any{
		{"file": "p.go", "target": "A", "code": "func A() int {\n\treturn 1\n}"},
		{"file": "p.go", "startLine": 4, "endLine": 4, "code": "\treturn 1"},
	} {
		var out jmcp.FileEditResult
		txt := e.ok("file_edit", args, &out)
		if e.read("p.go") != src || out.Event != 0 || !out.Unchanged {
			t.Fatalf("%v: event %d, unchanged %v, file %q", args, out.Event, out.Unchanged, e.read("p.go"))
		}
		if strings.Contains(txt, "edit applied") || strings.Contains(txt, "Applied edit") || strings.Contains(out.Summary, "applied") ||
			!strings.Contains(out.Summary, "nothing was written") {
			t.Fatalf("%v: reads like an applied edit:\n%s", args, txt)
		}
	}
	// a real change still says applied
	var out jmcp.FileEditResult
	txt := e.ok("file_edit", map[string]any{"file": "p.go", "startLine": 4, "endLine": 4, "code": "\treturn 2"}, &out)
	if out.Unchanged || out.Event == 0 || !strings.Contains(txt, "✅ **Success** — edit applied") {
		t.Fatalf("a change: %+v\n%s", out, txt)
	}
}

// TestEditMoveText_SummaryNamesTarget: a move's summary names the lines the
// text now has in the target with the target's version, and the source's
// line with the source's (issue 47: the target's lines stood beside the
// source's version).
func TestEditMoveText_SummaryNamesTarget(t *testing.T) {
	e := newEnv(t, jmcp.Options{}, "a.txt", "a1\na2\na3\na4\n", "b.txt", "b1\nb2\nb3\n")
	var out jmcp.BatchOut
	txt := e.ok("edit_move_text", map[string]any{"ops": []map[string]any{
		{"source_path": "a.txt", "source_start_line": 2, "source_end_line": 3, "target_path": "b.txt", "target_line": 2},
	}}, &out)
	if e.read("b.txt") != "b1\na2\na3\nb2\nb3\n" || e.read("a.txt") != "a1\na4\n" {
		t.Fatalf("moved wrong: %q %q", e.read("a.txt"), e.read("b.txt"))
	}
	va, vb := out.Versions["a.txt"], out.Versions["b.txt"]
	want := "[0] edit_move_text a.txt from line 2 (version " + va + ") → b.txt lines 2-3 (version " + vb + ")"
	if va == "" || vb == "" || va == vb || !strings.Contains(txt, want) {
		t.Fatalf("summary:\n%s\nwant a line %q", txt, want)
	}
	// within one file: one version, the file's
	txt = e.ok("edit_move_text", map[string]any{"ops": []map[string]any{
		{"source_path": "b.txt", "source_start_line": 1, "source_end_line": 1, "target_path": "b.txt", "target_line": -1},
	}}, &out)
	want = "[0] edit_move_text b.txt from line 1 → lines 5-5 (version " + out.Versions["b.txt"] + ")"
	if e.read("b.txt") != "a2\na3\nb2\nb3\nb1\n" || !strings.Contains(txt, want) {
		t.Fatalf("same-file move %q:\n%s\nwant a line %q", e.read("b.txt"), txt, want)
	}
}
