package corpus_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/journalfs/journal/bench/corpus"
)

// TestLoad_Repository: the corpus in testdata/robustness loads and is as
// large as issue #16 asks (≥ 150 cases over ≥ 10 families).
func TestLoad_Repository(t *testing.T) {
	cases, err := corpus.Load("../../testdata/robustness")
	if err != nil {
		t.Fatal(err)
	}
	fams := map[string]bool{}
	for _, c := range cases {
		fams[c.Family] = true
	}
	if len(cases) < 150 || len(fams) < 10 {
		t.Fatalf("%d cases in %d families", len(cases), len(fams))
	}
}

func TestLoad_Refuses(t *testing.T) {
	ok := `{"name":"a","files":{"f":"x"},"call":{"tool":"edit_content","args":{}},"expect":{"outcome":"refused"}}`
	for name, body := range map[string]string{
		"unknown field":   `[{"name":"a","bogus":1,"files":{"f":"x"},"call":{"tool":"t","args":{}},"expect":{"outcome":"refused"}}]`,
		"duplicate name":  "[" + ok + "," + ok + "]",
		"bad outcome":     strings.Replace("["+ok+"]", `"refused"`, `"maybe"`, 1),
		"applied no file": strings.Replace("["+ok+"]", `"refused"`, `"applied"`, 1),
		"no call":         strings.Replace("["+ok+"]", `"tool":"edit_content"`, `"tool":""`, 1),
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "fam.json"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := corpus.Load(dir); err == nil {
			t.Errorf("%s: loaded", name)
		}
	}
	if _, err := corpus.Load(t.TempDir()); err == nil {
		t.Error("an empty directory loaded")
	}
}

func TestRooted(t *testing.T) {
	got := corpus.Rooted(map[string]any{"p": "$ROOT/a", "l": []any{"$ROOT"}, "n": 3, "s": "x$ROOT"}, "/w").(map[string]any)
	if got["p"] != "/w/a" || got["l"].([]any)[0] != "/w" || got["n"] != 3 || got["s"] != "x$ROOT" {
		t.Fatalf("%v", got)
	}
}

func TestUnparsed(t *testing.T) {
	before := map[string]string{
		"a.py":     "def f():\n    return 1\n",
		"b.go":     "package b\n\nfunc f() {}\n",
		"c.txt":    "anything\n",
		"d.py":     "def f(:\n",
		"Makefile": "build:\n\tgo build\n",
	}
	after := map[string]string{
		"a.py":     "def f():\n    if x:\n    return 1\n", // broken by the layout
		"b.go":     "package b\n\nfunc f() {\n",           // broken
		"c.txt":    "{{{\n",                               // no parser: not judged
		"d.py":     "def g(:\n",                           // did not parse before: not judged
		"Makefile": "build:\n    go build\n",              // a recipe without its tab
	}
	got := corpus.Unparsed(before, after)
	for _, want := range []string{"a.py", "b.go", "Makefile"} {
		if !strings.Contains(got, want) {
			t.Errorf("Unparsed = %q, want %s in it", got, want)
		}
	}
	for _, not := range []string{"c.txt", "d.py"} {
		if strings.Contains(got, not) {
			t.Errorf("Unparsed = %q, %s should not be judged", got, not)
		}
	}
	if u := corpus.Unparsed(before, before); u != "" {
		t.Errorf("unchanged files: %q", u)
	}
}
