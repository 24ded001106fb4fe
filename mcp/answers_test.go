package mcp_test

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

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

// TestLongLine_ReadOn: a 300 KB line. file_read shows its start and says
// how to read on (not "the structured result has the rest", which it does
// not have); read_content offers a column to read on from, and following
// it piece by piece gives the line whole, cut only between characters — in
// memory, mapped and streamed (issue 47).
func TestLongLine_ReadOn(t *testing.T) {
	var long strings.Builder
	for long.Len() < 300<<10 {
		long.WriteString("data-é€😀-")
	}
	content := "first\n" + long.String() + "\r\nthird\n"
	for _, access := range []string{"memory", "mmap", "stream"} {
		t.Run(access, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, "big.txt", content)
			path := filepath.Join(dir, "big.txt")
			threshold := int64(1)
			if access == "memory" {
				threshold = 1 << 30
			}
			if access == "stream" {
				defer jmcp.SetLargefileMmapLimit(1)()
			}
			e := newThresholdEnv(t, dir, threshold)
			if access == "memory" {
				var rd jmcp.FileReadResult
				txt := e.ok("file_read", map[string]any{"file": path}, &rd)
				if rd.More != "result cap reached: call again with startLine=2" {
					t.Fatalf("file_read: more %q", rd.More)
				}
				txt = e.ok("file_read", map[string]any{"file": path, "startLine": 2}, &rd)
				if strings.Contains(txt, "structured result has the rest") || !strings.Contains(rd.More, "read_content with target=2 and column=") ||
					!strings.Contains(txt, rd.More) || rd.Range.EndLine != 2 || !utf8.ValidString(txt) {
					t.Fatalf("file_read: more %q, range %+v\n%s", rd.More, rd.Range, txt[max(0, len(txt)-300):])
				}
			}
			var out jmcp.ReadOut
			txt := e.ok("read_content", map[string]any{"absolute_file_path": path, "target": 1, "max_lines": 3}, &out)
			if !strings.Contains(txt, "more bytes on this line: target=2 column=") || !strings.Contains(out.More, "target=2 and column=") {
				t.Fatalf("read_content offers no column: more %q\n%s", out.More, txt[max(0, len(txt)-200):])
			}
			var got strings.Builder
			col := -1
			for calls := 0; ; calls++ {
				if calls > 100 {
					t.Fatal("does not end")
				}
				m := regexp.MustCompile(`target=2 and column=(\d+)`).FindStringSubmatch(out.More)
				if m == nil {
					break
				}
				next, _ := strconv.Atoi(m[1])
				if next <= col {
					t.Fatalf("column %d does not advance from %d", next, col)
				}
				col = next
				if calls == 0 {
					// the first piece, from the plain read
					first := txt[strings.Index(txt, "\n2: ")+4:]
					got.WriteString(first[:strings.Index(first, " [… ")])
				}
				txt = e.ok("read_content", map[string]any{"absolute_file_path": path, "target": 2, "column": col}, &out)
				piece := txt[strings.Index(txt, "\n2: ")+4:]
				if i := strings.Index(piece, " [… "); i >= 0 {
					piece = piece[:i]
				} else {
					piece = piece[:strings.Index(piece, "\n")]
				}
				if out.Column != col || out.LineBytes != long.Len() || !utf8.ValidString(piece) {
					t.Fatalf("piece at %d: column %d, line bytes %d, valid %v", col, out.Column, out.LineBytes, utf8.ValidString(piece))
				}
				got.WriteString(piece)
			}
			if got.String() != long.String() {
				t.Fatalf("read on: %d bytes, want %d (equal prefix %v)", got.Len(), long.Len(), strings.HasPrefix(long.String(), got.String()))
			}
			if !strings.Contains(out.More, "target=3") {
				t.Fatalf("the last piece does not say where the next line is: %q", out.More)
			}
			// a column inside a character moves to its start
			e.ok("read_content", map[string]any{"absolute_file_path": path, "target": 2, "column": 6}, &out)
			if out.Column != 5 || !strings.Contains(out.Note, "inside a character") {
				t.Fatalf("column 6 (inside é): %+v", out)
			}
		})
	}
}

// TestResultCap_SaysWhereTheRestIs: a text result cut at the cap says the
// structured result has the rest only when it does.
func TestResultCap_SaysWhereTheRestIs(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&b, "line %03d %s\n", i, strings.Repeat("z", 40))
	}
	e := newEnv(t, jmcp.Options{ResultCap: 2000}, "f.txt", b.String(), "long.txt", strings.Repeat("y", 5000)+"\n")
	// edit_content's preview carries its diff in the structured result too
	var out jmcp.EditOut
	var changes []map[string]any
	for i := 5; i < 200; i += 20 {
		changes = append(changes, map[string]any{"search_text": fmt.Sprintf("line %03d ", i), "replace_text": fmt.Sprintf("LINE %03d ", i)})
	}
	txt := e.ok("edit_content", map[string]any{"absolute_file_path": "f.txt", "changes": changes}, &out)
	if !strings.Contains(txt, "more bytes not shown; the structured result has the rest") {
		t.Fatalf("edit_content preview cut:\n%s", txt[max(0, len(txt)-200):])
	}
	// read_content's lines are only in the text
	txt = e.ok("read_content", map[string]any{"absolute_file_path": "long.txt"}, nil)
	if strings.Contains(txt, "structured result has the rest") || !strings.Contains(txt, "more bytes not shown") {
		t.Fatalf("read_content cut:\n%s", txt[max(0, len(txt)-200):])
	}
}
