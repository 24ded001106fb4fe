package mcp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	jmcp "github.com/journalfs/journal/mcp"
)

// TestEditContent_StaleLinesRefused: someone else changed a line an
// edit_content change replaces after the session read the file. Whatever
// the matcher would make of the file now (the replacement standing there,
// the search text only in another change's replacement), only a refusal is
// right (issue 59 §5, the fuzzer's stale-changed class).
func TestEditContent_StaleLinesRefused(t *testing.T) {
	stale := func(t *testing.T, src, outside string, args map[string]any) {
		t.Helper()
		e := newEnv(t, jmcp.Options{}, "w.go", src)
		e.ok("read_content", map[string]any{"absolute_file_path": "w.go"}, nil)
		if err := os.WriteFile(filepath.Join(e.dir, "w.go"), []byte(outside), 0o644); err != nil {
			t.Fatal(err)
		}
		args["absolute_file_path"], args["preview"] = "w.go", false
		te := e.fail("edit_content", args, jmcp.CodeEditConflict)
		if !strings.Contains(te.Message, "someone else has changed those lines") || e.read("w.go") != outside {
			t.Fatalf("refusal %+v, file %q", te, e.read("w.go"))
		}
	}
	t.Run("deletion whose kept lines stand (was already_applied)", func(t *testing.T) {
		src := "\t\tw.cache.drop(f.Path)\n\t}\n}\n\n// keysOf is the keys of m.\nfunc keysOf(m map[string]bool) []string {\n\tkeys := make([]string, 0, len(m))\n\treturn keys\n}\n"
		stale(t, src, strings.Replace(src, "return keys\n", "return keyszz\n", 1), map[string]any{
			"search_text":  "\t}\n}\n\n// keysOf is the keys of m.\nfunc keysOf(m map[string]bool) []string {\n\tkeys := make([]string, 0, len(m))\n\treturn keys\n}\n",
			"replace_text": "\t}\n}\n"})
	})
	t.Run("batch made in order over the changed line (was applied)", func(t *testing.T) {
		src := "func events(t testing.TB) []string {\n\tt.Helper()\n\tj := open(t)\n\tvar out []string\n\tfor _, e := range j.all() {\n\t\tout = append(out, e.String())\n\t}\n\treturn out\n}\n"
		stale(t, src, strings.Replace(src, "\tvar out []string\n", "\tvar out []stringzz\n", 1), map[string]any{
			"changes": []map[string]any{
				{"search_text": "\tt.Helper()\n\tj := open(t)\n", "replace_text": "\tt.Helper()\n\tvar out []string\n\treturn out\n}\n\nfunc all(t testing.TB) []string {\n\tj := open(t)\n"},
				{"search_text": "\tvar out []string\n", "replace_text": "\tvar out []*Event\n"}}})
	})
	t.Run("lines moved by someone else still apply", func(t *testing.T) {
		src := "package p\n\nfunc f() int {\n\treturn 1\n}\n"
		e := newEnv(t, jmcp.Options{}, "w.go", src)
		e.ok("read_content", map[string]any{"absolute_file_path": "w.go"}, nil)
		moved := strings.Replace(src, "package p\n", "package p\n\n// added by someone else\n", 1)
		if err := os.WriteFile(filepath.Join(e.dir, "w.go"), []byte(moved), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, _ := e.apply(map[string]any{"absolute_file_path": "w.go", "search_text": "\treturn 1\n", "replace_text": "\treturn 2\n"}); out.Event == 0 ||
			e.read("w.go") != strings.Replace(moved, "return 1", "return 2", 1) {
			t.Fatalf("%+v: %q", out, e.read("w.go"))
		}
	})
}

// TestEditContent_RetryAroundItsSearch: a retried edit_content whose
// replacement holds its search text with lines added on both sides (the
// search still found, inside the replacement) answers already_applied on
// the journal's evidence, and a retried batch one of whose changes is
// whitespace-only answers already_applied too; neither writes (issue 59
// §5, the fuzzer's retry classes).
func TestEditContent_RetryAroundItsSearch(t *testing.T) {
	retried := func(t *testing.T, src string, args map[string]any, want string) {
		t.Helper()
		e := newEnv(t, jmcp.Options{}, "s.go", src)
		args["absolute_file_path"] = "s.go"
		if first, txt := e.apply(args); first.Event == 0 || e.read("s.go") != want {
			t.Fatalf("first call %+v\n%s\nfile %q", first, txt, e.read("s.go"))
		}
		var again jmcp.EditOut
		txt := e.ok("edit_content", args, &again)
		if !again.AlreadyApplied || again.Status != "already_applied" || again.Event != 0 || e.read("s.go") != want {
			t.Fatalf("retry %+v\n%s\nfile %q", again, txt, e.read("s.go"))
		}
	}
	t.Run("lines added on both sides", func(t *testing.T) {
		src := "package p\n\nfunc (s *signer) Name() string    { return s.principal }\n"
		search := "func (s *signer) Name() string    { return s.principal }\n"
		replace := "// Name implements note.Signer: the principal.\nfunc (s *signer) Name() string { return s.principal }\n\n// KeyHash implements note.Signer.\n"
		retried(t, src, map[string]any{"changes": []map[string]any{{"search_text": search, "replace_text": replace}}},
			strings.Replace(src, search, replace, 1))
	})
	t.Run("batch with a whitespace-only change", func(t *testing.T) {
		src := "function verb(n) { if (g[n]) i[n] = f; }\nfunction step(r) { settle(q[0][2], r);  }\n"
		c0s, c0r := "function verb(n) { if (g[n]) i[n] = f; }\n", "function verb(n, f) { if (g[n]) { i[n] = f; } }\n"
		c1s, c1r := "function step(r) { settle(q[0][2], r);  }\n", "function step(r) { settle(q[0][2], r); }\n"
		retried(t, src, map[string]any{"changes": []map[string]any{{"search_text": c0s, "replace_text": c0r}, {"search_text": c1s, "replace_text": c1r}}},
			c0r+c1r)
	})
}

// TestEditContent_RetryInsideAnotherChange: a retried batch one of whose
// changes adds text holding another change's search (a new function with
// the same `return true` the other change rewrote). Sent again, that search
// stands only inside what the batch made: the retry answers already_applied
// (the journal's event made both changes); a file read in place, whose
// retries the journal is not searched for, and the same state with no such
// event are refused AMBIGUOUS_MATCH — never made a second time (issue 59
// §5, the fuzzer's retry class, seed 31).
func TestEditContent_RetryInsideAnotherChange(t *testing.T) {
	src := "func f() bool {\n\tif ok {\n\t\treturn true\n\t}\n\treturn false\n}\n"
	changes := []map[string]any{
		{"search_text": "\t\treturn true\n", "replace_text": "\t\treturn checked(x)\n"},
		{"search_text": "\treturn false\n", "replace_text": "\treturn false\n}\n\nfunc g() bool {\n\tif x {\n\t\treturn true\n\t}\n\treturn g2()\n"},
	}
	want := "func f() bool {\n\tif ok {\n\t\treturn checked(x)\n\t}\n\treturn false\n}\n\nfunc g() bool {\n\tif x {\n\t\treturn true\n\t}\n\treturn g2()\n}\n"
	for _, access := range []string{"memory", "mmap", "stream"} {
		t.Run(access, func(t *testing.T) {
			e, path := accessEnv(t, "f.go", src, access)
			args := func() map[string]any {
				return map[string]any{"absolute_file_path": path, "changes": changes, "preview": false}
			}
			if first, txt := e.apply(args()); first.Event == 0 || e.read("f.go") != want {
				t.Fatalf("first call %+v\n%s\nfile %q", first, txt, e.read("f.go"))
			}
			if access != "memory" {
				if te := e.fail("edit_content", args(), jmcp.CodeAmbiguousMatch); len(te.Candidates) != 1 || te.Candidates[0].Line != 10 || e.read("f.go") != want {
					t.Fatalf("retry in place: %+v, file %q", te, e.read("f.go"))
				}
				return
			}
			var again jmcp.EditOut
			txt := e.ok("edit_content", args(), &again)
			if !again.AlreadyApplied || again.Event != 0 || e.read("f.go") != want {
				t.Fatalf("retry %+v\n%s\nfile %q", again, txt, e.read("f.go"))
			}
		})
		t.Run(access+"/no event", func(t *testing.T) {
			e, path := accessEnv(t, "f.go", want, access)
			te := e.fail("edit_content", map[string]any{"absolute_file_path": path, "changes": changes, "preview": false}, jmcp.CodeAmbiguousMatch)
			if te.Hint == "" || !strings.Contains(te.Hint, "allow_repeat") || e.read("f.go") != want {
				t.Fatalf("refusal %+v, file %q", te, e.read("f.go"))
			}
		})
	}
}

// TestEditContent_RetryFoundDeeper: a retried change whose search text,
// once made, stands only one indentation level deeper in another block
// (`return nil, err` in a loop) while its replacement stands as sent where
// the first call made it: already_applied on the journal's event, and
// AMBIGUOUS_MATCH without one — never made in the other block (issue 59
// §5, the fuzzer's long mode, seed 59).
func TestEditContent_RetryFoundDeeper(t *testing.T) {
	src := "func f() (*T, error) {\n\tif bad {\n\t\treturn nil, err\n\t}\n\tfor range xs {\n\t\tif worse {\n\t\t\treturn nil, err\n\t\t}\n\t}\n\treturn t, nil\n}\n"
	args := func() map[string]any {
		return map[string]any{"absolute_file_path": "f.go", "search_text": "\t\treturn nil, err\n\t}\n", "replace_text": "\t\treturn nil, wrapped(err)\n\t}\n", "preview": false}
	}
	want := strings.Replace(src, "\t\treturn nil, err\n\t}\n", "\t\treturn nil, wrapped(err)\n\t}\n", 1)
	retriedOnEvidence(t, "f.go", src, want, args)
}

// retriedOnEvidence sends args (edit_content) on a file name holding src,
// which must leave want; sent again, the call must answer already_applied
// on the journal's evidence, writing nothing; sent on a file already
// holding want with no such event, it must be refused AMBIGUOUS_MATCH.
func retriedOnEvidence(t *testing.T, name, src, want string, args func() map[string]any) {
	t.Helper()
	e := newEnv(t, jmcp.Options{}, name, src)
	if first, txt := e.apply(args()); first.Event == 0 || e.read(name) != want {
		t.Fatalf("first call %+v\n%s\nfile %q", first, txt, e.read(name))
	}
	var again jmcp.EditOut
	txt := e.ok("edit_content", args(), &again)
	if !again.AlreadyApplied || again.Event != 0 || e.read(name) != want {
		t.Fatalf("retry %+v\n%s\nfile %q", again, txt, e.read(name))
	}
	fresh := newEnv(t, jmcp.Options{}, name, want)
	if te := fresh.fail("edit_content", args(), jmcp.CodeAmbiguousMatch); te.Hint == "" || len(te.Candidates) == 0 || fresh.read(name) != want {
		t.Fatalf("no event: %+v, file %q", te, fresh.read(name))
	}
}

// TestEditContent_RetryBlankLineInsertion: a change adding only a blank
// line after its search (one of a batch, as the fuzzer's SDK long mode
// found in tslib.js) sent again: already_applied on the journal's event,
// AMBIGUOUS_MATCH where the blank line stands with no such event — never a
// second blank line.
func TestEditContent_RetryBlankLineInsertion(t *testing.T) {
	src := "function f(value) {\n    use(value);\n    return value;\n}\nfunction g() {}\n"
	args := func() map[string]any {
		return map[string]any{"absolute_file_path": "f.js", "preview": false, "changes": []map[string]any{
			{"search_text": "    use(value);\n", "replace_text": "    use(value, true);\n"},
			{"search_text": "    return value;\n}\n", "replace_text": "    return value;\n}\n\n"},
		}}
	}
	want := "function f(value) {\n    use(value, true);\n    return value;\n}\n\nfunction g() {}\n"
	retriedOnEvidence(t, "f.js", src, want, args)
}
