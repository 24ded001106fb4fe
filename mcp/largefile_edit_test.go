package mcp_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	jmcp "github.com/journalfs/journal/mcp"
	"github.com/journalfs/journal/ops"
)

// apply runs edit_content with preview=false.
func (e *env) apply(args map[string]any) (jmcp.EditOut, string) {
	e.t.Helper()
	args["preview"] = false
	var out jmcp.EditOut
	txt := e.ok("edit_content", args, &out)
	return out, txt
}

func TestLargefileEdit_Levels(t *testing.T) {
	src := "func f() {\n\tif ok {\n\t\tcall(1)\n\t}\n\treturn\n}\n"
	cases := []struct {
		name, file, content, search, replace, level, want string
	}{
		{"exact", "a.go", src, "call(1)", "call(2)", "exact", strings.Replace(src, "call(1)", "call(2)", 1)},
		{"line_endings", "crlf.go", strings.ReplaceAll(src, "\n", "\r\n"), "if ok {\n\t\tcall(1)\n", "if ok {\n\t\tcall(3)\n", "line_endings",
			strings.ReplaceAll(strings.Replace(src, "call(1)", "call(3)", 1), "\n", "\r\n")},
		{"whitespace", "ws.go", src, "if ok {\n\tcall(1)\n}", "if ok {\n\tcall(4)\n}", "whitespace", strings.Replace(src, "call(1)", "call(4)", 1)},
		{"normalized", "fz.go", "func f() {\n\t// don’t panic\n\tif ok {\n\t\tcall(1)\n\t}\n}\n",
			"// don't panic\nif ok {\n    call(1)\n}", "// don't panic\nif ok {\n    call(5)\n    call(6)\n}", "normalized",
			"func f() {\n\t// don’t panic\n\tif ok {\n\t\tcall(5)\n\t\tcall(6)\n\t}\n}\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, jmcp.Options{}, c.file, c.content)
			out, txt := e.apply(map[string]any{"absolute_file_path": c.file, "search_text": c.search, "replace_text": c.replace})
			if got := e.read(c.file); got != c.want {
				t.Fatalf("content %q, want %q", got, c.want)
			}
			ch := out.Changes[0]
			if out.Status != "applied" || !out.Success || out.Event == 0 || ch.Level != c.level || out.ChangesMade != 1 || out.Version == out.PreviousVersion {
				t.Fatalf("out %+v", out)
			}
			if c.level == "normalized" && (ch.Similarity != 1 || !strings.Contains(ch.Matched, "call(1)") || !strings.Contains(txt, "only the lines you changed")) {
				t.Fatalf("normalized report %+v\n%s", ch, txt)
			}
			if len(out.Context) == 0 || !strings.Contains(strings.Join(out.Context, "\n"), "3: ") {
				t.Fatalf("context %v", out.Context)
			}
		})
	}
	e := newEnv(t, jmcp.Options{}, "a.go", src)
	te := e.fail("edit_content", map[string]any{"absolute_file_path": "a.go", "search_text": "if ok {\n\t\tcal(1)\n\t}", "replace_text": "x", "fuzzy": false, "preview": false}, jmcp.CodeNoMatch)
	if len(te.Candidates) == 0 || te.Candidates[0].Line != 2 || te.Retry != nil {
		t.Fatalf("fuzzy=false: %+v", te)
	}
}

func TestLargefileEdit_PreviewIsDefault(t *testing.T) {
	e := newEnv(t, jmcp.Options{}, "f.txt", "one\ntwo\nthree\n")
	before := e.snapshot()
	var out jmcp.EditOut
	txt := e.ok("edit_content", map[string]any{"absolute_file_path": "f.txt", "search_text": "two", "replace_text": "2"}, &out)
	if !sameFiles(before, e.snapshot()) {
		t.Fatal("a preview wrote the file")
	}
	if out.Status != "preview" || out.Event != 0 || !strings.HasPrefix(txt, "PREVIEW ONLY — nothing was written") ||
		!strings.Contains(out.Preview, "-two\n+2\n") || !strings.Contains(out.Preview, "@@ -1,3 +1,3 @@") {
		t.Fatalf("preview %+v\n%s", out, txt)
	}
	var log jmcp.LogOut
	e.ok("journal_log", map[string]any{}, &log)
	if len(log.Events) != 0 {
		t.Fatalf("a preview was journaled: %+v", log.Events)
	}
	// the structured result says it was not applied (issue 47: it read
	// like an applied edit, success and changes_made alone), in the
	// preview, for a change made already, and when the change was written
	applied := func(args map[string]any) (bool, bool) {
		r := e.call(nil, "edit_content", args)
		if r.IsError {
			t.Fatalf("edit_content: %s", text(r))
		}
		m, _ := r.StructuredContent.(map[string]any)
		a, ok := m["applied"].(bool)
		return a, ok
	}
	if a, ok := applied(map[string]any{"absolute_file_path": "f.txt", "search_text": "two", "replace_text": "2"}); a || !ok {
		t.Fatalf("preview: applied=%v (present %v), want false", a, ok)
	}
	if a, ok := applied(map[string]any{"absolute_file_path": "f.txt", "search_text": "two", "replace_text": "two and a half", "preview": false}); !a || !ok {
		t.Fatalf("written: applied=%v (present %v), want true", a, ok)
	}
	if a, ok := applied(map[string]any{"absolute_file_path": "f.txt", "search_text": "two", "replace_text": "two and a half", "preview": false}); a || !ok {
		t.Fatalf("already applied: applied=%v (present %v), want false", a, ok)
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(readme), "\n") {
		if strings.HasPrefix(l, "| `edit_content` |") && !strings.Contains(strings.ToLower(l), "preview by default") {
			t.Fatalf("README's tool table does not say edit_content previews by default: %s", l)
		}
	}
}

func TestLargefileEdit_Errors(t *testing.T) {
	e := newEnv(t, jmcp.Options{}, "f.txt", "alpha beta\nalpha gamma\ndone\n")
	before := e.snapshot()
	te := e.fail("edit_content", map[string]any{"absolute_file_path": "f.txt", "search_text": "alpha", "replace_text": "A", "preview": false}, jmcp.CodeAmbiguousMatch)
	if len(te.Candidates) != 2 || te.Candidates[0].Line != 1 || te.Candidates[1].Line != 2 {
		t.Fatalf("ambiguous %+v", te)
	}
	te = e.fail("edit_content", map[string]any{"absolute_file_path": "f.txt", "search_text": "zeta omega\n", "replace_text": "done\n", "preview": false}, jmcp.CodeNoMatch)
	if !strings.Contains(te.Message, "replacement text is present at line 3") || strings.Contains(te.Hint, "skip") || len(te.Candidates) > 3 {
		t.Fatalf("miss %+v", te)
	}
	te = e.fail("edit_content", map[string]any{"absolute_file_path": "f.txt", "search_text": "alpha betta gamma delta", "replace_text": "x", "preview": false}, jmcp.CodeNoMatch)
	if len(te.Candidates) == 0 || len(te.Candidates) > 3 || te.Candidates[0].Similarity == 0 {
		t.Fatalf("nearest %+v", te)
	}
	// a batch is all-or-nothing: the second change misses, the first is not applied
	te = e.fail("edit_content", map[string]any{"absolute_file_path": "f.txt", "preview": false, "changes": []map[string]any{
		{"search_text": "done", "replace_text": "DONE"}, {"search_text": "nowhere to be found", "replace_text": "x"}}}, jmcp.CodeNoMatch)
	if !strings.Contains(te.Message, "nowhere") && !strings.Contains(te.Message, "not found") {
		t.Fatalf("batch %+v", te)
	}
	e.fail("edit_content", map[string]any{"absolute_file_path": "f.txt", "search_text": "done", "replace_text": "x", "expected_version": "00000000", "preview": false}, jmcp.CodeEditConflict)
	e.fail("edit_content", map[string]any{"absolute_file_path": "f.txt", "search_text": "done"}, jmcp.CodeInvalidInput)
	e.fail("edit_content", map[string]any{"absolute_file_path": "f.txt"}, jmcp.CodeInvalidInput)
	e.fail("edit_content", map[string]any{"absolute_file_path": "f.txt", "search_text": "a", "replace_text": "b", "changes": []map[string]any{{"search_text": "a", "replace_text": "b"}}}, jmcp.CodeInvalidInput)
	e.fail("edit_content", map[string]any{"absolute_file_path": "f.txt", "preview": false, "changes": []map[string]any{
		{"search_text": "alpha beta", "replace_text": "1"}, {"search_text": "beta\nalpha", "replace_text": "2"}}}, jmcp.CodeInvalidInput)
	if !sameFiles(before, e.snapshot()) {
		t.Fatal("a failed edit changed files")
	}
	// occurrence and replace_all settle ambiguity
	out, _ := e.apply(map[string]any{"absolute_file_path": "f.txt", "changes": []map[string]any{{"search_text": "alpha", "replace_text": "A", "occurrence": 2}}})
	if e.read("f.txt") != "alpha beta\nA gamma\ndone\n" || out.Changes[0].LineNumber != 2 {
		t.Fatalf("occurrence: %q", e.read("f.txt"))
	}
	// substring: inside words, as replace_all of a letter means
	e.apply(map[string]any{"absolute_file_path": "f.txt", "substring": true, "changes": []map[string]any{{"search_text": "a", "replace_text": "4", "replace_all": true}}})
	if e.read("f.txt") != "4lph4 bet4\nA g4mm4\ndone\n" {
		t.Fatalf("replace_all: %q", e.read("f.txt"))
	}
}

func TestLargefileEdit_PreservesFormat(t *testing.T) {
	u16 := func(s string) string { // UTF-16LE with BOM
		b := []byte{0xff, 0xfe}
		for _, r := range s {
			b = append(b, byte(r), 0)
		}
		return string(b)
	}
	cases := []struct{ name, content, search, replace, want string }{
		{"crlf", "a\r\nb\r\nc\r\n", "b\n", "B\nB2\n", "a\r\nB\r\nB2\r\nc\r\n"},
		{"bom", "\xef\xbb\xbfx = 1\ny = 2\n", "y = 2", "y = 3", "\xef\xbb\xbfx = 1\ny = 3\n"},
		{"utf16", u16("hello\r\nworld\r\n"), "world", "there", u16("hello\r\nthere\r\n")},
		{"tabs", "\tif x {\n\t\ty()\n\t}\n", "if x {\n\ty()\n}", "if x {\n\tz()\n}", "\tif x {\n\t\tz()\n\t}\n"},
		{"no_final_newline", "first\nlast", "last", "final", "first\nfinal"},
		{"latin1", "caf\xe9 ok\n", "ok", "\u00e0 bient\u00f4t", "caf\xe9 \xe0 bient\xf4t\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, jmcp.Options{}, "f.txt", c.content)
			e.apply(map[string]any{"absolute_file_path": "f.txt", "search_text": c.search, "replace_text": c.replace})
			if got := e.read("f.txt"); got != c.want {
				t.Fatalf("got %q, want %q", got, c.want)
			}
		})
	}
	e := newEnv(t, jmcp.Options{}, "f.txt", "caf\xe9\n")
	e.fail("edit_content", map[string]any{"absolute_file_path": "f.txt", "search_text": "caf", "replace_text": "\u4e2d", "substring": true, "preview": false}, jmcp.CodeInvalidInput)
	e = newEnv(t, jmcp.Options{}, "empty.txt", "")
	e.fail("edit_content", map[string]any{"absolute_file_path": "empty.txt", "search_text": "x", "replace_text": "y", "preview": false}, jmcp.CodeNoMatch)
}

func TestLargefileEdit_JournalVersionsRevert(t *testing.T) {
	e := newEnv(t, jmcp.Options{}, "f.txt", "v = 1\nw = 2\n")
	var ov jmcp.OverviewOut
	e.ok("get_overview", map[string]any{"absolute_file_path": "f.txt"}, &ov)
	out, txt := e.apply(map[string]any{"absolute_file_path": "f.txt", "expected_version": ov.Version,
		"changes": []map[string]any{{"search_text": "v = 1", "replace_text": "v = 10"}, {"search_text": "w = 2", "replace_text": "w = 20"}}})
	if e.read("f.txt") != "v = 10\nw = 20\n" || out.ChangesMade != 2 || out.PreviousVersion != ov.Version || !strings.Contains(txt, "journal event") {
		t.Fatalf("batch: %q %+v", e.read("f.txt"), out)
	}
	var log jmcp.LogOut
	e.ok("journal_log", map[string]any{}, &log)
	if len(log.Events) != 1 || log.Events[0].Tool != "edit_content" || log.Events[0].Seq != out.Event {
		t.Fatalf("one event per edit: %+v", log.Events)
	}
	// the old version is refused now
	e.fail("edit_content", map[string]any{"absolute_file_path": "f.txt", "search_text": "v = 10", "replace_text": "v", "expected_version": ov.Version, "preview": false}, jmcp.CodeEditConflict)
	var ch jmcp.ChangeOut
	e.ok("revert_edit", map[string]any{"absolute_file_path": "f.txt"}, &ch)
	if e.read("f.txt") != "v = 1\nw = 2\n" || ch.Reverted != out.Event {
		t.Fatalf("revert: %q %+v", e.read("f.txt"), ch)
	}
	e.ok("revert_edit", map[string]any{"absolute_file_path": "f.txt", "backup_id": itoa64(ch.Event)}, &ch)
	if e.read("f.txt") != "v = 10\nw = 20\n" {
		t.Fatalf("revert of the revert: %q", e.read("f.txt"))
	}
	// the version a read returns is accepted by the next edit
	var sr jmcp.SearchOut
	e.ok("search_content", map[string]any{"absolute_file_path": "f.txt", "pattern": "w = 20"}, &sr)
	e.apply(map[string]any{"absolute_file_path": "f.txt", "search_text": "w = 20", "replace_text": "w = 3", "expected_version": sr.Version})
}

func itoa64(n uint64) string { return strconv.FormatUint(n, 10) }

// TestLargefileEdit_RetriesAndNearMisses drives issue #16's edit_content
// behaviours over MCP: a retried edit is already applied (no write, no
// event), allow_repeat applies it again, a near miss is refused with a retry
// that applies what was meant when sent as it is.
func TestLargefileEdit_RetriesAndNearMisses(t *testing.T) {
	src := "def load(userId):\n    row = db.get(userId)\n    return row\n"
	e := newEnv(t, jmcp.Options{}, "m.py", src)
	args := map[string]any{"absolute_file_path": "m.py", "search_text": "import os\n", "replace_text": "import os\nimport sys\n", "preview": false}
	e.fail("edit_content", args, jmcp.CodeNoMatch)
	args = map[string]any{"absolute_file_path": "m.py", "search_text": "def load(userId):\n", "replace_text": "import sys\n\ndef load(userId):\n", "preview": false}
	out, _ := e.apply(args)
	if out.Event == 0 || out.AlreadyApplied {
		t.Fatalf("first insertion %+v", out)
	}
	want := "import sys\n\n" + src
	var again jmcp.EditOut
	txt := e.ok("edit_content", args, &again)
	if !again.AlreadyApplied || again.Status != "already_applied" || again.Event != 0 || !strings.HasPrefix(txt, "ALREADY APPLIED") || e.read("m.py") != want {
		t.Fatalf("retry %+v\n%s", again, txt)
	}
	var log jmcp.LogOut
	e.ok("journal_log", map[string]any{}, &log)
	if len(log.Events) != 1 {
		t.Fatalf("a retry was journaled: %+v", log.Events)
	}
	args["allow_repeat"] = true
	if rep, _ := e.apply(args); rep.AlreadyApplied || e.read("m.py") != "import sys\n\nimport sys\n\n"+src {
		t.Fatalf("allow_repeat %+v", rep)
	}
	e.apply(map[string]any{"absolute_file_path": "m.py", "search_text": "import sys\n\nimport sys\n", "replace_text": "import sys\n", "preview": false})

	// a misremembered name on a line the change keeps: refused, with a retry
	te := e.fail("edit_content", map[string]any{"absolute_file_path": "m.py", "preview": false,
		"search_text":  "    row = db.get(UserId)\n    return row\n",
		"replace_text": "    row = db.get(UserId)\n    if row is None:\n        raise KeyError(UserId)\n    return row\n"}, jmcp.CodeNoMatch)
	if te.Retry == nil || te.Retry.Tool != "edit_content" || e.read("m.py") != want {
		t.Fatalf("near miss %+v", te)
	}
	var res jmcp.EditOut
	e.ok(te.Retry.Tool, te.Retry.Arguments, &res)
	if got := e.read("m.py"); got != "import sys\n\ndef load(userId):\n    row = db.get(userId)\n    if row is None:\n        raise KeyError(userId)\n    return row\n" {
		t.Fatalf("retry wrote %q", got)
	}
}

// TestLargefileEdit_CutTokenInPlace: a search text that occurs only inside a
// longer word or number is refused the same way whether the file is in
// memory or read in place (mapped, streamed: 16 MiB and more), and
// substring=true takes it in both (issue 47: the large file answered
// "search text not found" listing that very line at similarity 1.00).
func TestLargefileEdit_CutTokenInPlace(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 400; i++ {
		fmt.Fprintf(&b, "row %06d %s\n", i, strings.Repeat("x", 40))
	}
	b.WriteString("total = 1000\n")
	content := b.String()
	for _, tc := range []struct{ search, replace, kind string }{
		{"row 000200 x", "row 000200 y", "word"},
		{"total = 100", "total = 200", "number"},
	} {
		var memory jmcp.ToolError
		for _, access := range []string{"memory", "mmap", "stream"} {
			inPlace := access != "memory"
			dir := t.TempDir()
			write(t, dir, "rows.txt", content)
			path := filepath.Join(dir, "rows.txt")
			threshold := int64(1)
			if !inPlace {
				threshold = 1 << 30
			}
			restore := func() {}
			if access == "stream" {
				restore = jmcp.SetLargefileMmapLimit(1)
			}
			e := newThresholdEnv(t, dir, threshold)
			var ov jmcp.OverviewOut
			e.ok("get_overview", map[string]any{"absolute_file_path": path}, &ov)
			if ov.Access != access {
				t.Fatalf("access %s, want %s", ov.Access, access)
			}
			args := map[string]any{"absolute_file_path": path, "search_text": tc.search, "replace_text": tc.replace, "preview": false}
			te := e.fail("edit_content", args, jmcp.CodeNoMatch)
			if !strings.Contains(te.Message, "occurs only inside a longer "+tc.kind) || !strings.Contains(te.Hint, "substring=true") ||
				len(te.Candidates) != 1 || te.Candidates[0].Similarity != 1 {
				t.Fatalf("%s, access %s: %+v", tc.search, ov.Access, te)
			}
			if !inPlace {
				memory = te
			} else if te.Message != memory.Message || te.Candidates[0].Line != memory.Candidates[0].Line || te.Candidates[0].Text != memory.Candidates[0].Text {
				t.Fatalf("%s: in place\n%+v\nin memory\n%+v", tc.search, te, memory)
			}
			if e.read("rows.txt") != content {
				t.Fatal("a refusal wrote the file")
			}
			args["substring"] = true
			e.apply(args)
			if got := e.read("rows.txt"); got != strings.Replace(content, tc.search, tc.replace, 1) {
				t.Fatalf("substring=true, access %s: wrote %q", ov.Access, got[:200])
			}
			restore()
		}
	}
}

// TestLargefileEdit_MinimalDiff: the diff an edit returns marks only the
// lines that change, as journal show's diff (ops.Unified over the whole
// file) does — in memory and in place (issue 47: a search of three lines
// changing the middle one showed its neighbours as removed and added).
func TestLargefileEdit_MinimalDiff(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 60; i++ {
		fmt.Fprintf(&b, "\tline(%d)\n", i)
	}
	content := b.String()
	changes := []map[string]any{
		{"search_text": "\tline(10)\n\tline(11)\n\tline(12)\n", "replace_text": "\tline(10)\n\tline(11) // changed\n\tline(12)\n"},
		{"search_text": "    line(30)\n    line(31)\n    line(32)", "replace_text": "    line(30)\n    line(31)\n    added()\n    line(32)"},
		{"search_text": "\tline(50)\n\tline(51)\n", "replace_text": "\tline(51)\n"},
	}
	for _, threshold := range []int64{1 << 30, 1} {
		dir := t.TempDir()
		write(t, dir, "f.go", content)
		e := newThresholdEnv(t, dir, threshold)
		path := filepath.Join(dir, "f.go")
		var preview jmcp.EditOut
		e.ok("edit_content", map[string]any{"absolute_file_path": path, "changes": changes}, &preview)
		applied, _ := e.apply(map[string]any{"absolute_file_path": path, "changes": changes})
		after := e.read("f.go")
		want := ops.Unified("a/f.go", "b/f.go", content, after)
		for _, out := range []jmcp.EditOut{preview, applied} {
			if out.Preview != want {
				t.Fatalf("access %s, status %s: diff\n%s\nwant (journal show's)\n%s", out.Access, out.Status, out.Preview, want)
			}
		}
		if strings.Contains(want, "-\tline(10)") || strings.Count(want, "\n-\t") != 2 || strings.Count(want, "\n+\t") != 2 {
			t.Fatalf("not minimal:\n%s", want)
		}
	}
}
