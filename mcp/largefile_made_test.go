package mcp_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	jmcp "github.com/journalfs/journal/mcp"
)

// TestLargefileEdit_AlreadyAppliedNeedsEvidence drives issue 59 §2 over
// MCP: a change whose replacement stands in another place is refused
// NO_MATCH naming that place, never reported applied and never hinted to
// be skipped; a true retry still answers already_applied, on the file's
// evidence or on the journal's event that made the change.
func TestLargefileEdit_AlreadyAppliedNeedsEvidence(t *testing.T) {
	const issue = "def f(rv):\n    return rv\n\n\ndef g(a):\n    value = a + 1\n    return value\n"
	refused := func(e *env, name, search, replace, where string) {
		t.Helper()
		before := e.snapshot()
		te := e.fail("edit_content", map[string]any{"absolute_file_path": name, "search_text": search, "replace_text": replace, "preview": false}, jmcp.CodeNoMatch)
		if !strings.Contains(te.Message, "replacement text is present at "+where) || strings.Contains(te.Hint, "skip") {
			t.Fatalf("refusal does not say where the replacement is, or hints to skip: %+v", te)
		}
		if !sameFiles(before, e.snapshot()) {
			t.Fatal("a refusal changed files")
		}
	}
	t.Run("issue example", func(t *testing.T) {
		e := newEnv(t, jmcp.Options{}, "m.py", issue)
		refused(e, "m.py", "    value = legacy(a)\n", "    return rv\n", "line 2")
	})
	t.Run("replacement twice", func(t *testing.T) {
		e := newEnv(t, jmcp.Options{}, "m.py", "def f(rv):\n    return rv\n\n\ndef h(rv):\n    return rv\n\n\ndef g(a):\n    value = a + 1\n")
		refused(e, "m.py", "    value = legacy(a)\n", "    return rv\n", "line 2 (2 places: lines 2, 6)")
	})
	retried := func(e *env, name, search, replace, want string) {
		t.Helper()
		args := map[string]any{"absolute_file_path": name, "search_text": search, "replace_text": replace}
		first, _ := e.apply(args)
		if first.Event == 0 || first.AlreadyApplied || e.read(name) != want {
			t.Fatalf("first call %+v wrote %q", first, e.read(name))
		}
		var again jmcp.EditOut
		txt := e.ok("edit_content", args, &again)
		if !again.Success || !again.AlreadyApplied || again.Status != "already_applied" || again.Event != 0 || e.read(name) != want {
			t.Fatalf("retry %+v\n%s\nfile %q", again, txt, e.read(name))
		}
	}
	t.Run("retry, replacement now twice", func(t *testing.T) {
		// the edit makes g's line equal to f's: only the journal tells
		// the retry from the issue's example
		e := newEnv(t, jmcp.Options{}, "m.py", issue)
		retried(e, "m.py", "    value = a + 1\n", "    return rv\n", strings.Replace(issue, "    value = a + 1\n", "    return rv\n", 1))
		// the same change sent by another session: the event's diff is the evidence
		c := connect(t, e.srv, nil)
		r := e.call(c, "edit_content", map[string]any{"absolute_file_path": "m.py", "search_text": "    value = a + 1\n", "replace_text": "    return rv\n", "preview": false})
		if r.IsError || !strings.HasPrefix(text(r), "ALREADY APPLIED") {
			t.Fatalf("other session's retry: %s", text(r))
		}
	})
	t.Run("retry of a batch, each change proved by the journal", func(t *testing.T) {
		src := "def f(rv, b):\n    return rv\n    return b\n\n\ndef g(a):\n    value = a + 1\n\n\ndef h(b):\n    other = b * 2\n"
		e := newEnv(t, jmcp.Options{}, "m.py", src)
		args := map[string]any{"absolute_file_path": "m.py", "changes": []map[string]any{
			{"search_text": "    value = a + 1\n", "replace_text": "    return rv\n"},
			{"search_text": "    other = b * 2\n", "replace_text": "    return b\n"}}}
		want := strings.Replace(strings.Replace(src, "    value = a + 1\n", "    return rv\n", 1), "    other = b * 2\n", "    return b\n", 1)
		if first, _ := e.apply(args); first.Event == 0 || e.read("m.py") != want {
			t.Fatalf("first call %+v", first)
		}
		var again jmcp.EditOut
		if txt := e.ok("edit_content", args, &again); !again.AlreadyApplied || e.read("m.py") != want {
			t.Fatalf("retry %+v\n%s", again, txt)
		}
	})
	t.Run("retry of a multi-line edit", func(t *testing.T) {
		src := "def load(path):\n    with open(path) as f:\n        return f.read()\n\n\ndef save(path, data):\n    with open(path, 'w') as f:\n        f.write(data)\n"
		search := "    with open(path) as f:\n        return f.read()\n"
		replace := "    with open(path, encoding='utf-8') as f:\n        text = f.read()\n    return text\n"
		e := newEnv(t, jmcp.Options{}, "io.py", src)
		retried(e, "io.py", search, replace, strings.Replace(src, search, replace, 1))
	})
	t.Run("retry of a short insertion", func(t *testing.T) {
		// "    pass" is too short for the file to tell a retry from a
		// second copy: the journal tells
		src := "if ok:\n    run()\n"
		e := newEnv(t, jmcp.Options{}, "p.py", src)
		retried(e, "p.py", "    run()\n", "    run()\n    pass\n", "if ok:\n    run()\n    pass\n")
		// written by hand, not by an event: neither claimed nor doubled
		e = newEnv(t, jmcp.Options{}, "q.py", "if ok:\n    run()\n    pass\n")
		te := e.fail("edit_content", map[string]any{"absolute_file_path": "q.py", "search_text": "    run()\n", "replace_text": "    run()\n    pass\n", "preview": false}, jmcp.CodeAmbiguousMatch)
		if !strings.Contains(te.Hint, "allow_repeat") {
			t.Fatalf("refusal without allow_repeat: %+v", te)
		}
	})
	t.Run("the event's lines changed since", func(t *testing.T) {
		// the change was made, then its line edited again: the journal's
		// event is no evidence for the replacement standing elsewhere
		e := newEnv(t, jmcp.Options{}, "m.py", issue)
		e.apply(map[string]any{"absolute_file_path": "m.py", "search_text": "    value = a + 1\n", "replace_text": "    return rv\n"})
		e.apply(map[string]any{"absolute_file_path": "m.py", "search_text": "def g(a):\n    return rv\n", "replace_text": "def g(a):\n    return rv + 0\n"})
		refused(e, "m.py", "    value = a + 1\n", "    return rv\n", "line 2,")
	})
	t.Run("short insertion in a file read in place", func(t *testing.T) {
		// mapped and streamed files refuse it too, naming the file's lines
		var b strings.Builder
		for i := 1; i <= 300; i++ {
			fmt.Fprintf(&b, "row %06d %s\n", i, strings.Repeat("x", 40))
		}
		b.WriteString("if ok:\n    run()\n    pass\n")
		for _, access := range []string{"mmap", "stream"} {
			dir := t.TempDir()
			write(t, dir, "p.py", b.String())
			restore := func() {}
			if access == "stream" {
				restore = jmcp.SetLargefileMmapLimit(1)
			}
			e := newThresholdEnv(t, dir, 1)
			path := filepath.Join(dir, "p.py")
			te := e.fail("edit_content", map[string]any{"absolute_file_path": path, "search_text": "    run()\n", "replace_text": "    run()\n    pass\n", "preview": false}, jmcp.CodeAmbiguousMatch)
			restore()
			if len(te.Candidates) != 1 || te.Candidates[0].Line != 302 || !strings.Contains(te.Hint, "allow_repeat") || e.read("p.py") != b.String() {
				t.Fatalf("%s: %+v", access, te)
			}
		}
	})
}
