package mcp_test

import (
	"strings"
	"testing"

	jmcp "github.com/journalfs/journal/mcp"
)

// TestLineTools_ContentArtefacts: a line tool's content carrying an agent
// artefact — the read's line-number prefixes, text escaped twice,
// look-alike characters where the file has ASCII — is written as meant and
// the result names what was undone; an artefact that is there but
// ambiguous is refused, writing nothing; text that legitimately looks like
// one (a file whose lines start with "1: ", a string with \n in it, curly
// quotes the file uses, or new prose with them) is written as sent.
func TestLineTools_ContentArtefacts(t *testing.T) {
	cases := []struct {
		name, file, before string
		start, end         int
		content            string
		want               string // "" when refused
		says               string // in the result's note (or the refusal)
	}{
		{name: "lineno prefixes read_content", file: "a.go", before: "package p\n\nimport (\n\t\"sort\"\n)\n",
			start: 4, end: 4, content: "4: \t\"slices\"\n5: \t\"sort\"\n",
			want: "package p\n\nimport (\n\t\"slices\"\n\t\"sort\"\n)\n", says: "line-number prefixes"},
		{name: "lineno prefixes cat -n", file: "a.go", before: "package p\n\nfunc f() {\n\treturn\n}\n",
			start: 3, end: 4, content: "     3\tfunc f() int {\n     4\t\treturn 1\n",
			want: "package p\n\nfunc f() int {\n\treturn 1\n}\n", says: "line-number prefixes"},
		{name: "lineno prefixes arrow", file: "a.py", before: "def f():\n    return 1\n",
			start: 2, end: 2, content: "2→    return 2\n",
			want: "def f():\n    return 2\n", says: "line-number prefixes"},
		{name: "lineno prefixes on some lines refused", file: "a.go", before: "package p\n\nvar a = 1\nvar b = 2\n",
			start: 3, end: 4, content: "3: var a = 10\nvar c = 3\n4: var b = 20\n", says: "line numbers"},
		{name: "file's own numbered lines kept", file: "list.md", before: "# List\n1: apples\n2: pears\n",
			start: 2, end: 3, content: "1: apples\n2: plums\n",
			want: "# List\n1: apples\n2: plums\n"},
		{name: "numbers that are not the range's kept", file: "list.md", before: "# List\n\nnone yet\n",
			start: 3, end: 3, content: "1: apples\n2: pears\n",
			want: "# List\n\n1: apples\n2: pears\n"},
		{name: "escaped twice", file: "a.go", before: "import (\n\t\"strconv\"\n)\n",
			start: 2, end: 2, content: `\t\"slices\"\n\t\"strconv\"\n`,
			want: "import (\n\t\"slices\"\n\t\"strconv\"\n)\n", says: "escaped twice"},
		{name: "a string with \\n kept", file: "a.go", before: "func f() {\n\tprintln(\"a\")\n}\n",
			start: 2, end: 2, content: `	fmt.Printf("a\nb\n")`,
			want: "func f() {\n\tfmt.Printf(\"a\\nb\\n\")\n}\n"},
		// the fuzzer's trunc-replace (seed 23): a Go test's line cut short
		// after a string's \n, where the lines replaced hold \n as text
		{name: "a line of strings with \\n cut short kept", file: "cases.txt", before: "\t\t\t\"<ul>\\n  <li>a</li>\\n\",\n\t\t\t\"x\\n\", 2},\n",
			start: 1, end: 2, content: `			"<p>y</p>\n", "<ul>\n`,
			want: "\t\t\t\"<p>y</p>\\n\", \"<ul>\\n\n"},
		{name: "a file whose lines end in \\n kept", file: "notes.txt", before: "escapes:\nnewline is \\n\ntab\n",
			start: 3, end: 3, content: `tab is \t, newline \n`,
			want: "escapes:\nnewline is \\n\ntab is \\t, newline \\n\n"},
		// the fuzzer's escape-twice (long mode, seed 59): a function sent
		// escaped twice over its old self, in a file with a comment that
		// ends in \n — its lines come back, so it was escaped
		{name: "escaped twice over its own lines, the file's comment ending in \\n", file: "a.go",
			before: "// the content no \\\\n, its \\n\nfunc f(s string) bool {\n\tif s == \"\" {\n\t\treturn false\n\t}\n\treturn true\n}\n",
			start:  2, end: 6, content: `func f(s string) bool {\n\tif s == \"\" || s == \"-\" {\n\t\treturn false\n\t}\n\treturn true\n`,
			want: "// the content no \\\\n, its \\n\nfunc f(s string) bool {\n\tif s == \"\" || s == \"-\" {\n\t\treturn false\n\t}\n\treturn true\n}\n", says: "escaped twice"},
		{name: "look-alikes where the file has ASCII", file: "a.js", before: "  verb(\"next\"), verb('x');\n  done();\n",
			start: 1, end: 1, content: "  verb(“next”), verb(‘x’, y);\n  more(“z”);\n",
			want: "  verb(\"next\"), verb('x', y);\n  more(\"z\");\n  done();\n", says: "look-alike"},
		{name: "curly quotes in new code refused", file: "a.go", before: "package p\n\nvar x = 1\n",
			start: 3, end: 3, content: "var x = 1 // don’t\n", says: "look-alike"},
		{name: "an em dash in new code kept", file: "a.go", before: "package p\n\nvar x = 1\n",
			start: 3, end: 3, content: "var x = 1 // one — not two\n",
			want: "package p\n\nvar x = 1 // one — not two\n"},
		{name: "curly quotes the file uses kept", file: "doc.md", before: "It’s “fine”.\nNext.\n",
			start: 2, end: 2, content: "Next, “better”.\n",
			want: "It’s “fine”.\nNext, “better”.\n"},
		{name: "curly quotes in new prose kept", file: "doc.md", before: "Title\n\nText.\n",
			start: 2, end: 2, content: "\nHe said “hi” — twice.\n",
			want: "Title\n\nHe said “hi” — twice.\nText.\n"},
	}
	for _, tool := range lineTools {
		for _, tc := range cases {
			t.Run(tool+"/"+tc.name, func(t *testing.T) {
				e, path := readEnv(t, tc.file, tc.before)
				args := lineToolCall(tool, path, tc.start, tc.end, tc.content, nil)
				if tc.want == "" {
					te := e.fail(tool, args, jmcp.CodeInvalidInput)
					if !strings.Contains(te.Message, tc.says) {
						t.Fatalf("refusal does not say %q: %+v", tc.says, te)
					}
					if got := e.read(tc.file); got != tc.before {
						t.Fatalf("refused but wrote:\n%q", got)
					}
					return
				}
				txt := e.ok(tool, args, nil)
				if got := e.read(tc.file); got != tc.want {
					t.Fatalf("file\n%q\nwant\n%q\n%s", got, tc.want, txt)
				}
				if tc.says != "" && !strings.Contains(txt, tc.says) {
					t.Fatalf("result does not say %q:\n%s", tc.says, txt)
				}
				if tc.says == "" && (strings.Contains(txt, "prefixes") || strings.Contains(txt, "escaped twice") || strings.Contains(txt, "look-alike")) {
					t.Fatalf("an artefact named where there is none:\n%s", txt)
				}
			})
		}
	}
}

// TestLineTools_LookalikesOnPurpose: look-alikes refused in a code file's
// new text (nothing shows whether they are meant) are written on purpose
// by a whole-file file_replace, as the refusal's hint says.
func TestLineTools_LookalikesOnPurpose(t *testing.T) {
	e, path := readEnv(t, "a.go", "package p\n\nvar x = 1\n")
	te := e.fail("file_replace", lineToolCall("file_replace", path, 3, 3, "var x = 1 // don’t\n", nil), jmcp.CodeInvalidInput)
	if !strings.Contains(te.Hint, "whole file") {
		t.Fatalf("hint: %+v", te)
	}
	e.ok("file_replace", map[string]any{"ops": []any{map[string]any{"path": path, "content": "package p\n\nvar x = 1 // don’t\n"}}}, nil)
	if got := e.read("a.go"); got != "package p\n\nvar x = 1 // don’t\n" {
		t.Fatalf("file %q", got)
	}
}
