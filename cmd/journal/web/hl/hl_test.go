package hl_test

import (
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/journalfs/journal/cmd/journal/web/hl"
)

// TestMatch_AsChroma: for the languages it keeps, a file is tokenised
// exactly as chroma's own lexers do (the same token types, the text given
// back whole), and a name it does not know has no lexer.
func TestMatch_AsChroma(t *testing.T) {
	samples := map[string]string{
		"a.py":       "def f(x):\n    return x + 1  # one\n",
		"a.ts":       "export const f = (x: number): number => x + 1; // one\n",
		"a.js":       "function f(x) { return `${x}` + 1 }\n",
		"a.rs":       "fn main() { let x: u32 = 1; println!(\"{}\", x); }\n",
		"a.java":     "class A { int f() { return 1; } }\n",
		"a.c":        "#include <stdio.h>\nint main(void) { return 0; }\n",
		"a.json":     "{\"a\": [1, true, null]}\n",
		"a.yaml":     "a: 1\nb: [x, y]\n",
		"a.sh":       "for f in *; do echo \"$f\"; done\n",
		"Dockerfile": "FROM golang:1.26\nRUN go build ./...\n",
		"a.html":     "<p class=\"x\">hi</p><script>var a = 1;</script>\n",
		"main.go":    "package main\n\nfunc main() {\n\tprintln(\"hi\", 1) // done\n}\n",
	}
	for name, text := range samples {
		l := hl.Match(name)
		if l == nil {
			t.Fatalf("%s: no lexer", name)
		}
		if got, want := tokens(t, l, text), tokens(t, chroma.Coalesce(lexers.Match(name)), text); got != want {
			t.Errorf("%s:\n got  %s\n want %s", name, got, want)
		}
	}
	// a raw string is a string here (chroma highlights templates in it)
	if got := tokens(t, hl.Match("main.go"), "var x = `raw {{.}}`\n"); !strings.Contains(got, "LiteralString") {
		t.Errorf("raw string: %s", got)
	}
	if hl.Match("notes.unknownext") != nil {
		t.Error("a lexer for an unknown extension")
	}
}

func tokens(t *testing.T, l chroma.Lexer, text string) string {
	t.Helper()
	it, err := l.Tokenise(nil, text)
	if err != nil {
		t.Fatal(err)
	}
	var b, all strings.Builder
	for tok := it(); tok != chroma.EOF; tok = it() {
		b.WriteString(tok.Type.String() + " ")
		all.WriteString(tok.Value)
	}
	if all.String() != text {
		t.Fatalf("the text did not come back whole: %q", all.String())
	}
	return b.String()
}

// TestMatch_TernaryIsNoTypeOrLabel: the operand after a conditional
// expression's ':' is a name, not a type (TypeScript's annotation rule) or
// the operand before it a label (C's, C++'s) — chroma's rules, narrowed
// here — while annotations, optional ones and labels keep their colours.
func TestMatch_TernaryIsNoTypeOrLabel(t *testing.T) {
	kinds := func(name, text string) map[string]string {
		it, err := hl.Match(name).Tokenise(nil, text)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]string{}
		for tok := it(); tok != chroma.EOF; tok = it() {
			m[strings.TrimSpace(tok.Value)] = tok.Type.String()
		}
		return m
	}
	for _, name := range []string{"a.ts", "a.tsx"} {
		k := kinds(name, "const v = ok ? alpha : beta;\nlet u: User = x;\nfunction f(a?: Opt) {}\n")
		if k["beta"] != "NameOther" || k["alpha"] != "NameOther" || k["User"] != "KeywordType" || k["Opt"] != "KeywordType" {
			t.Errorf("%s: %v", name, k)
		}
	}
	for _, name := range []string{"a.c", "a.cpp"} {
		k := kinds(name, "int f(int ok) {\n  int v = ok ? alpha : beta;\ndone:\n  return v;\n}\n")
		if k["alpha"] != "Name" || k["done"] != "NameLabel" {
			t.Errorf("%s: %v", name, k)
		}
	}
}
