package editfuzz

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

// fake is a server stand-in: journal_log answers its events, read_content
// succeeds, and the tool under test runs do (which may write the file and
// log events).
type fake struct {
	events []map[string]any
	do     func(f *fake, path string, n int) (Reply, error)
	calls  int
}

func (f *fake) log(kind string) {
	f.events = append([]map[string]any{{"event": len(f.events) + 1, "kind": kind}}, f.events...)
}

func (f *fake) Call(tool string, args map[string]any) (Reply, error) {
	switch tool {
	case "journal_log":
		b, _ := json.Marshal(map[string]any{"events": f.events})
		return Reply{Structured: b}, nil
	case "read_content":
		return Reply{}, nil
	}
	f.calls++
	path, _ := args["absolute_file_path"].(string)
	return f.do(f, path, f.calls)
}

func applied(f *fake, path, content string) (Reply, error) {
	f.log("apply")
	return Reply{Structured: json.RawMessage(`{"applied":true,"status":"applied"}`)}, os.WriteFile(path, []byte(content), 0o644)
}

const (
	before = "package a\n\nfunc f() int {\n\treturn 1\n}\n\nfunc g() {}\n"
	after  = "package a\n\nfunc f() int {\n\treturn 2\n}\n\nfunc g() {}\n"
)

func trial(t *testing.T, mutation string) Trial {
	t.Helper()
	m, _ := MutationByName(mutation)
	tr, ok := Generate(Pair{Source: "test", Path: "a.go", Before: before, After: after}, "edit_content/minimal", m, rand.New(rand.NewPCG(1, 1)))
	if !ok {
		t.Fatalf("%s does not apply", mutation)
	}
	return tr
}

// TestOracle: every way a server can be wrong is caught, and the right
// answers pass.
func TestOracle(t *testing.T) {
	already := Reply{Structured: json.RawMessage(`{"already_applied":true,"status":"already_applied"}`)}
	refused := Reply{IsError: true, Text: `{"code":"NO_MATCH"}`}
	for _, tc := range []struct {
		name, mutation, outcome, why string
		do                           func(f *fake, path string, n int) (Reply, error)
	}{
		{"intended", "none", Intended, "", func(f *fake, p string, _ int) (Reply, error) { return applied(f, p, after) }},
		{"other-bytes", "none", Wrong, whySuccessOther, func(f *fake, p string, _ int) (Reply, error) { return applied(f, p, after+"\n") }},
		{"refused", "none", Refused, "", func(f *fake, p string, _ int) (Reply, error) { return refused, nil }},
		{"refused-observe-ok", "none", Refused, "", func(f *fake, p string, _ int) (Reply, error) { f.log("observe"); return refused, nil }},
		{"refused-but-wrote", "none", Wrong, whyRefusedChanged, func(f *fake, p string, _ int) (Reply, error) {
			os.WriteFile(p, []byte(after), 0o644)
			return refused, nil
		}},
		{"refused-with-event", "none", Wrong, whyRefusedEvent, func(f *fake, p string, _ int) (Reply, error) { f.log("apply"); return refused, nil }},
		{"two-events", "none", Wrong, whyEvents, func(f *fake, p string, _ int) (Reply, error) { f.log("apply"); return applied(f, p, after) }},
		{"success-nothing-done", "none", Wrong, whySuccessNoChange, func(f *fake, p string, _ int) (Reply, error) {
			return Reply{Structured: json.RawMessage(`{"applied":true}`)}, nil
		}},
		{"already-but-not-there", "none", Wrong, whyAlreadyNotThere, func(f *fake, p string, _ int) (Reply, error) { return already, nil }},
		{"already-but-wrote", "none", Wrong, whyAlreadyWrote, func(f *fake, p string, _ int) (Reply, error) {
			os.WriteFile(p, []byte(after), 0o644)
			return already, nil
		}},
		{"retry-already", "retry", Intended, "", func(f *fake, p string, n int) (Reply, error) {
			if n == 2 {
				return already, nil
			}
			return applied(f, p, after)
		}},
		{"retry-refused", "retry", Intended, "", func(f *fake, p string, n int) (Reply, error) {
			if n == 2 {
				return refused, nil
			}
			return applied(f, p, after)
		}},
		{"retry-applied-twice", "retry", Wrong, whyRetryApplied, func(f *fake, p string, n int) (Reply, error) {
			if n == 2 {
				return applied(f, p, strings.Replace(after, "return 2", "return 2\n\treturn 2", 1))
			}
			return applied(f, p, after)
		}},
		{"retry-success-not-already", "retry", Wrong, whyRetryNotAlready, func(f *fake, p string, n int) (Reply, error) {
			if n == 2 {
				return Reply{Structured: json.RawMessage(`{"applied":false}`)}, nil
			}
			return applied(f, p, after)
		}},
		{"stale-changed-applied", "stale-changed", Wrong, whySuccessMustRefuse, func(f *fake, p string, _ int) (Reply, error) {
			return applied(f, p, after)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := trial(t, tc.mutation)
			r := NewRunner(&fake{do: tc.do}, t.TempDir())
			os.MkdirAll(r.Root+"/fz", 0o755)
			v, err := r.Run(tr)
			if err != nil {
				t.Fatal(err)
			}
			if v.Outcome != tc.outcome || (tc.why != "" && !strings.HasSuffix(v.Class, tc.why)) {
				t.Fatalf("verdict %+v, want %s %s", v, tc.outcome, tc.why)
			}
		})
	}
}

// TestLiteral: a mutation that allows the literal result accepts it, a
// strict one does not.
func TestLiteral(t *testing.T) {
	tr := trial(t, "nl-extra-replace")
	if len(tr.Literal) != 1 || tr.Literal[0] != strings.Replace(before, "\treturn 1\n", "\treturn 2\n\n", 1) {
		t.Fatalf("literal %q", tr.Literal)
	}
	if tr := trial(t, "lookalike"); len(tr.Literal) != 0 {
		t.Fatalf("a strict mutation allows %q", tr.Literal)
	}
	r := NewRunner(&fake{do: func(f *fake, p string, _ int) (Reply, error) { return applied(f, p, tr.Literal[0]) }}, t.TempDir())
	os.MkdirAll(r.Root+"/fz", 0o755)
	if v, err := r.Run(tr); err != nil || v.Outcome != Literal {
		t.Fatalf("%+v %v", v, err)
	}
}

// TestForms: each form's unmutated request, sent literally, gives the
// intended file.
func TestForms(t *testing.T) {
	for _, form := range Forms {
		d, ok := newDraft(Pair{Path: "a.go", Before: before, After: after}, form)
		if !ok {
			t.Fatalf("%s: no request", form)
		}
		if lit := d.literal(before); len(lit) == 0 || lit[0] != after {
			t.Errorf("%s: literal %q", form, lit)
		}
		c := d.call()
		if form == "edit_content/minimal" && (c.Args["search_text"] != "\treturn 1\n" || c.Args["replace_text"] != "\treturn 2\n") {
			t.Errorf("%s: %v", form, c.Args)
		}
		if form == "file_replace/lines" {
			op := c.Args["ops"].([]any)[0].(map[string]any)
			if op["start_line"] != 4 || op["end_line"] != 4 || op["content"] != "\treturn 2\n" {
				t.Errorf("%s: %v", form, op)
			}
		}
	}
}

// TestFromUnifiedDiff: a git diff's hunk becomes its before and after.
func TestFromUnifiedDiff(t *testing.T) {
	diff := "diff --git a/x/a.go b/x/a.go\n--- a/x/a.go\n+++ b/x/a.go\n@@ -1,5 +1,5 @@\n package a\n \n func f() int {\n-\treturn 1\n+\treturn 2\n }\n"
	ps := FromUnifiedDiff([]byte(diff), "git:1")
	if len(ps) != 1 || ps[0].Path != "x/a.go" || ps[0].Before != "package a\n\nfunc f() int {\n\treturn 1\n}\n" || ps[0].After != "package a\n\nfunc f() int {\n\treturn 2\n}\n" {
		t.Fatalf("%+v", ps)
	}
}
