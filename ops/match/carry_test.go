package match_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/journalfs/journal/ops"
	"github.com/journalfs/journal/ops/match"
)

// TestApply_CarriesTheChange: a non-exact match writes only the lines the
// caller changed, in the file's style; everything else keeps its bytes.
func TestApply_CarriesTheChange(t *testing.T) {
	tests := []struct {
		name, content, search, replace, want string
	}{
		{"tabs file, spaces copy, new deeper line",
			"func f() {\n\tif ok {\n\t\tcall(1)\n\t}\n}\n",
			"    if ok {\n        call(1)\n    }\n",
			"    if ok {\n        call(1)\n        if x {\n            more()\n        }\n    }\n",
			"func f() {\n\tif ok {\n\t\tcall(1)\n\t\tif x {\n\t\t\tmore()\n\t\t}\n\t}\n}\n"},
		{"4-space file, 2-space copy",
			"class A:\n    def f(self):\n        return 1\n",
			"def f(self):\n  return 1\n",
			"def f(self):\n  x = 1\n  return x\n",
			"class A:\n    def f(self):\n        x = 1\n        return x\n"},
		{"makefile recipe keeps its tab",
			"build:\n\tgo build ./...\n\tgo vet ./...\n",
			"build:\n    go build ./...\n    go vet ./...\n",
			"build:\n    go build ./...\n    go test ./...\n    go vet ./...\n",
			"build:\n\tgo build ./...\n\tgo test ./...\n\tgo vet ./...\n"},
		{"look-alikes on untouched lines stay",
			"# Notes\nDon\u2019t panic \u2013 it\u2019s fine.\nNext\u00a0step: run.\n",
			"Don't panic - it's fine.\nNext step: run.\n",
			"Don't panic - it's fine.\nNext step: test.\n",
			"# Notes\nDon\u2019t panic \u2013 it\u2019s fine.\nNext\u00a0step: test.\n"},
		{"look-alikes on the changed line outside the change stay",
			"msg = \"don\u2019t stop\"  # old\n",
			"msg = \"don't stop\"  # old\n",
			"msg = \"don't stop\"  # new\n",
			"msg = \"don\u2019t stop\"  # new\n"},
		{"markdown hard break and signature delimiter stay",
			"Line one  \nLine two\n-- \nBob\n",
			"Line one\nLine two\n--\nBob\n",
			"Line one\nLine 2\n--\nBob\n",
			"Line one  \nLine 2\n-- \nBob\n"},
		{"NFD in the file stays",
			"name = \"Jose\u0301\"\ncount = 1\n",
			"name = \"Jos\u00e9\"\ncount = 1\n",
			"name = \"Jos\u00e9\"\ncount = 2\n",
			"name = \"Jose\u0301\"\ncount = 2\n"},
		{"crlf file keeps crlf on new lines",
			"a:\r\n  b: 1\r\n  c: 2\r\n",
			"a:\n    b: 1\n",
			"a:\n    b: 1\n    d: 4\n",
			"a:\r\n  b: 1\r\n  d: 4\r\n  c: 2\r\n"},
		{"blank line count differs",
			"def a():\n    pass\n\n\ndef c():\n    pass\n",
			"def a():\n    pass\n\ndef c():\n    pass\n",
			"def a():\n    pass\n\ndef c():\n    return 3\n",
			"def a():\n    pass\n\n\ndef c():\n    return 3\n"},
		{"yaml 2-space file, 4-space copy",
			"server:\n  port: 8080\n  tls:\n    enabled: false\n",
			"server:\n    port: 8080\n    tls:\n        enabled: false\n",
			"server:\n    port: 8080\n    tls:\n        enabled: true\n        cert: /etc/cert.pem\n",
			"server:\n  port: 8080\n  tls:\n    enabled: true\n    cert: /etc/cert.pem\n"},
		{"dedented copy gets the offset back",
			"class A:\n    def f(self):\n        return 1\n",
			"def f(self):\n    return 1\n",
			"def f(self):\n    x = 2\n    return 1\n",
			"class A:\n    def f(self):\n        x = 2\n        return 1\n"},
		{"a line moved out of a block",
			"func f() {\n\tif x {\n\t\ty()\n\t}\n}\n",
			"    if x {\n        y()\n    }\n",
			"    if x {\n        z()\n    }\n    y()\n",
			"func f() {\n\tif x {\n\t\tz()\n\t}\n\ty()\n}\n"},
		{"spacing around operators",
			"total = price*qty + tax\nprint(total)\n",
			"total = price * qty + tax\nprint(total)\n",
			"total = price * qty + tax\nprint(round(total, 2))\n",
			"total = price*qty + tax\nprint(round(total, 2))\n"},
		{"line-number prefixes removed",
			"one\ntwo\nthree\n",
			"2: two\n3: three\n",
			"2: TWO\n3: three\n",
			"one\nTWO\nthree\n"},
		{"double escaped",
			"if x:\n    y()\n",
			`if x:\n    y()`,
			`if x:\n    z()`,
			"if x:\n    z()\n"},
		{"2-space copy of a 4-space file, the middle line wrapped in a new block (issue 47)",
			"function total(items) {\n    let sum = 0;\n    for (const it of items) {\n        sum += it.price;\n    }\n    return sum;\n}\n",
			"  for (const it of items) {\n    sum += it.price;\n  }\n",
			"  for (const it of items) {\n    if (it) {\n      sum += it.price;\n    }\n  }\n",
			"function total(items) {\n    let sum = 0;\n    for (const it of items) {\n        if (it) {\n            sum += it.price;\n        }\n    }\n    return sum;\n}\n"},
		{"the same, the replacement in the file's style",
			"function total(items) {\n    let sum = 0;\n    for (const it of items) {\n        sum += it.price;\n    }\n    return sum;\n}\n",
			"  for (const it of items) {\n    sum += it.price;\n  }\n",
			"    for (const it of items) {\n        if (it) {\n            sum += it.price;\n        }\n    }\n",
			"function total(items) {\n    let sum = 0;\n    for (const it of items) {\n        if (it) {\n            sum += it.price;\n        }\n    }\n    return sum;\n}\n"},
		{"cut marker keeps the middle",
			"def f():\n    a = 1\n    b = 2\n    c = 3\n    return a\n",
			"def f():\n    ...\n    return a\n",
			"def g():\n    ...\n    return a + 1\n",
			"def g():\n    a = 1\n    b = 2\n    c = 3\n    return a + 1\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := match.Apply(tt.content, []match.Change{{Search: tt.search, Replace: tt.replace, Options: match.Options{Fuzzy: true}}})
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Fatalf("got\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

// TestApply_AlreadyApplied: retries succeed without writing; allow_repeat
// applies again.
func TestApply_AlreadyApplied(t *testing.T) {
	content := "import os\nimport sys\n\ndef handle_create(x):\n    return save(x)\n\ndef handle_update(x):\n    return save(x)\n"
	tests := []struct{ name, search, replace string }{
		{"insertion retried", "import os\n", "import os\nimport sys\n"},
		{"change retried", "def handle_create(x):\n    return store(x)\n", "def handle_create(x):\n    return save(x)\n"},
		{"grown text", "import sy", "import sys"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, applied, err := match.Apply(content, []match.Change{{Search: tt.search, Replace: tt.replace, Options: match.Options{Fuzzy: true}}})
			if err != nil || got != content || len(applied) != 1 || !applied[0].AlreadyApplied {
				t.Fatalf("got %q %+v %v", got, applied, err)
			}
			got, _, err = match.Apply(content, []match.Change{{Search: tt.search, Replace: tt.replace, Options: match.Options{Fuzzy: true, AllowRepeat: true}}})
			if tt.name == "insertion retried" && (err != nil || !strings.Contains(got, "import sys\nimport sys\n")) {
				t.Fatalf("allow_repeat: %q %v", got, err)
			}
		})
	}
}

// TestApply_Refusals: different names are different places; refusals carry
// a retry only when it is sure.
func TestApply_Refusals(t *testing.T) {
	content := "def handle_create(x):\n    return save(x)\n\ndef handle_update(x):\n    return save(x)\n"
	refuse := func(search, replace string, sentinel error) *ops.Error {
		t.Helper()
		got, _, err := match.Apply(content, []match.Change{{Search: search, Replace: replace, Options: match.Options{Fuzzy: true}}})
		var e *ops.Error
		if got != content || !errors.As(err, &e) || !errors.Is(err, sentinel) {
			t.Fatalf("got %q, %v; want %v", got, err, sentinel)
		}
		return e
	}
	// a function that does not exist is not renamed into its sibling
	if e := refuse("def handle_delete(x):\n    return save(x)\n", "def handle_delete(x):\n    return drop(x)\n", ops.ErrNoMatch); e.Retry != nil {
		t.Fatalf("retry offered for another name: %v", e.Retry)
	}
	// the same body twice: ambiguous
	refuse("    return save(x)\n", "    return keep(x)\n", ops.ErrAmbiguousMatch)
	// a misremembered name on a kept line: refused with a retry that works
	e := refuse("def Handle_Create(x):\n    return save(x)\n", "def Handle_Create(x):\n    return store(x)\n", ops.ErrNoMatch)
	if e.Retry == nil {
		t.Fatalf("no retry: %+v", e)
	}
	got, _, err := match.Apply(content, []match.Change{{Search: e.Retry["search_text"].(string), Replace: e.Retry["replace_text"].(string)}})
	if want := strings.Replace(content, "save", "store", 1); err != nil || got != want {
		t.Fatalf("retry gave %q, %v", got, err)
	}
	// a clojure form whose closing parens the copy left off
	clj := "(defn f [x]\n  (inc x))\n\n(defn g [y] y)\n"
	_, _, err = match.Apply(clj, []match.Change{{Search: "(defn f [x]\n  (inc x)", Replace: "(defn f [x]\n  (dec x)", Options: match.Options{Fuzzy: true}}})
	if err != nil {
		t.Fatalf("prefix of a line: %v", err)
	}
	got, _, _ = match.Apply(clj, []match.Change{{Search: "(defn f [x]\n  (inc x)", Replace: "(defn f [x]\n  (dec x)", Options: match.Options{Fuzzy: true}}})
	if got != "(defn f [x]\n  (dec x))\n\n(defn g [y] y)\n" {
		t.Fatalf("clojure: %q", got)
	}
	// the search was copied with 3 spaces, the replacement is indented as
	// the file is (its kept line has the file's bytes): written as sent,
	// not translated a second time
	py := "def f():\n    a = 1\n    return a\n"
	if got, _, err := match.Apply(py, []match.Change{{Search: "   a = 1\n   return a\n", Replace: "    a = 1\n    return a + 1\n", Options: match.Options{Fuzzy: true}}}); err != nil || got != "def f():\n    a = 1\n    return a + 1\n" {
		t.Fatalf("replacement in the file's style: %q, %v", got, err)
	}
	// only the unit differs and nothing tells which style the new lines
	// are in: refused with both readings
	js := "function f() {\n    if (a) {\n        b();\n    }\n}\n"
	_, _, err = match.Apply(js, []match.Change{{Search: "    if (a) {\n      b();\n    }\n", Replace: "    while (x) {\n        c();\n        d();\n    }\n", Options: match.Options{Fuzzy: true}}})
	var oe *ops.Error
	if !errors.As(err, &oe) || !errors.Is(err, ops.ErrAmbiguousMatch) || len(oe.Candidates) != 2 || oe.Candidates[0].ReplaceText == oe.Candidates[1].ReplaceText {
		t.Fatalf("two readings: %v", err)
	}
	// a batch whose second change searches for the first one's result is
	// made in order, each search unique at its turn
	got, _, err = match.Apply(content, []match.Change{
		{Search: "return save(x)\n\ndef handle_update", Replace: "return keep(x)\n\ndef handle_update"},
		{Search: "return keep(x)", Replace: "return kept(x)"},
	})
	if err != nil || got != strings.Replace(content, "save", "kept", 1) {
		t.Fatalf("batch in order: %q, %v", got, err)
	}
	// the other order cannot be made in order: it says which change to
	// split out
	_, _, err = match.Apply(content, []match.Change{
		{Search: "return keep(x)", Replace: "return kept(x)"},
		{Search: "return save(x)\n\ndef handle_update", Replace: "return keep(x)\n\ndef handle_update"},
	})
	if !errors.As(err, &e) || !strings.Contains(e.Hint, "send change 1 alone first") {
		t.Fatalf("dependent batch: %v", err)
	}
}

// FuzzApply perturbs a copied window (indentation, trailing whitespace,
// look-alikes, line numbers) and changes one of its lines. Invariant: either
// the call is refused and the content is unchanged, or only the changed
// line differs, and it holds the new text.
func FuzzApply(f *testing.F) {
	f.Add(uint64(1), uint8(3), uint8(1), uint8(0))
	f.Add(uint64(7), uint8(5), uint8(2), uint8(3))
	f.Add(uint64(42), uint8(2), uint8(0), uint8(7))
	f.Fuzz(func(t *testing.T, seed uint64, n, at, perturb uint8) {
		r := rand.New(rand.NewPCG(seed, 1))
		words := []string{"alpha", "beta", "gamma", "it\u2019s", "x \u2013 y", "call(a, b)", "}", "{", "", "return nil", "\u00a0z"}
		lines := make([]string, 8+r.IntN(20))
		for i := range lines {
			ind := strings.Repeat("\t", r.IntN(3))
			lines[i] = ind + words[r.IntN(len(words))] + fmt.Sprint(r.IntN(4))
		}
		start := r.IntN(len(lines))
		w := min(int(n%6)+1, len(lines)-start)
		content := strings.Join(lines, "\n") + "\n"
		copyLines := make([]string, w)
		for i := range copyLines {
			l := lines[start+i]
			if perturb&1 != 0 {
				l = strings.ReplaceAll(l, "\t", "    ")
			}
			if perturb&2 != 0 {
				l = strings.NewReplacer("\u2019", "'", "\u2013", "-", "\u00a0", " ").Replace(l)
			}
			if perturb&4 != 0 {
				l += "  "
			}
			copyLines[i] = l
		}
		k := int(at) % w
		repl := append([]string(nil), copyLines...)
		repl[k] = leading(copyLines[k]) + "changed_line()"
		search, replace := strings.Join(copyLines, "\n")+"\n", strings.Join(repl, "\n")+"\n"
		got, _, err := match.Apply(content, []match.Change{{Search: search, Replace: replace, Options: match.Options{Fuzzy: true}}})
		if err != nil {
			if got != content {
				t.Fatalf("refused but changed the content")
			}
			return
		}
		gl := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
		if len(gl) != len(lines) {
			t.Fatalf("line count %d, want %d:\n%q\nfrom\n%q\nsearch %q", len(gl), len(lines), got, content, search)
		}
		changed := 0
		for i := range lines {
			if gl[i] == lines[i] {
				continue
			}
			changed++
			if strings.TrimSpace(gl[i]) != "changed_line()" {
				t.Fatalf("line %d became %q (was %q)\nsearch %q", i+1, gl[i], lines[i], search)
			}
		}
		if changed > 1 {
			t.Fatalf("%d lines changed:\n%q\nfrom\n%q", changed, got, content)
		}
	})
}

func leading(s string) string { return s[:len(s)-len(strings.TrimLeft(s, " \t"))] }

// TestApply_LeadAndTrailing: a match that starts after its line's
// indentation, replaced by several lines, puts them all at that
// indentation; a changed line's trailing whitespace is the caller's, an
// unchanged line keeps the file's.
func TestApply_LeadAndTrailing(t *testing.T) {
	tests := []struct{ name, content, search, replace, want string }{
		{"comment above", "class C {\n  get(id) {\n    return 1;\n  }\n}\n", "get(id) {\n", "// cached\nget(id) {\n",
			"class C {\n  // cached\n  get(id) {\n    return 1;\n  }\n}\n"},
		{"block around", "def f():\n\tgo()\n", "go()", "if ok:\n    go()", "def f():\n\tif ok:\n\t\tgo()\n"},
		{"one line stays", "  a(1)\n", "a(1)", "a(2)", "  a(2)\n"},
		{"trailing", "x = 1  \ny = 2 \n", "x = 1\ny = 2\n", "x = 5\ny = 2\n", "x = 5\ny = 2 \n"},
	}
	for _, tt := range tests {
		got, _, err := match.Apply(tt.content, []match.Change{{Search: tt.search, Replace: tt.replace, Options: match.Options{Fuzzy: true}}})
		if err != nil || got != tt.want {
			t.Errorf("%s: %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
}
