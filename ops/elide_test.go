package ops_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/journalfs/journal/ops"
)

// The example (testdata/elide): a lazy replacement of a whole
// function; old, lazy and want are the file before, the text sent, the file
// intended.
func loadUser(t testing.TB) (old, lazy, want string) {
	t.Helper()
	read := func(k string) string {
		b, err := os.ReadFile(filepath.Join("..", "testdata", "elide", "loaduser."+k+".ts"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	return read("old"), read("lazy"), read("want")
}

func TestExpandMarkers_Expands(t *testing.T) {
	loadUserOld, loadUserLazy, loadUserWant := loadUser(t)
	pyOld := "class A:\n    def f(self):\n        x = 1\n        y = 2\n        return x + y\n\n    def g(self):\n        return 3\n"
	tests := []struct {
		name, path, old, text, want string
		from, to                    int
	}{
		{"issue example", "src/user.ts", loadUserOld, loadUserLazy, loadUserWant, 3, 6},
		{"python rest unchanged", "a.py", pyOld,
			"class A:\n    def f(self, z):\n        # ... rest of the method unchanged ...\n\n    def g(self):\n        return 3\n",
			"class A:\n    def f(self, z):\n        x = 1\n        y = 2\n        return x + y\n\n    def g(self):\n        return 3\n", 3, 6},
		{"marker at the start", "a.go", "package a\n\nimport \"fmt\"\n\nfunc A() {\n\tfmt.Println(1)\n}\n",
			"// ... existing code ...\nfunc A() {\n\tfmt.Println(2)\n}\n",
			"package a\n\nimport \"fmt\"\n\nfunc A() {\n\tfmt.Println(2)\n}\n", 1, 4},
		{"marker at the end", "a.go", "func A() {\n\tfmt.Println(1)\n}\n\nfunc B() {}\n\nfunc C() {}\n",
			"func A() {\n\tfmt.Println(2)\n}\n// ... rest of the file ...\n",
			"func A() {\n\tfmt.Println(2)\n}\n\nfunc B() {}\n\nfunc C() {}\n", 4, 7},
		{"bare ellipsis between unique lines", "a.rs", "fn a() {\n    let x = 1;\n    let y = 2;\n    x + y\n}\n",
			"fn a() {\n    let x = 10;\n    ...\n    x + y\n}\n",
			"fn a() {\n    let x = 10;\n    let y = 2;\n    x + y\n}\n", 3, 3},
		{"inserted line beside unchanged ones", "a.go", "type U struct {\n\tname string\n\tage  int\n}\n",
			"type U struct {\n\temail string\n\tname string\n\t// ... existing fields ...\n}\n",
			"type U struct {\n\temail string\n\tname string\n\tage  int\n}\n", 3, 3},
		{"crlf, tabs", "a.c", "int f(void) {\r\n\tint a = 1;\r\n\tint b = 2;\r\n\treturn a + b;\r\n}\r\n",
			"int f(void) {\r\n\t/* ... */\r\n\treturn a * b;\r\n}\r\n",
			"int f(void) {\r\n\tint a = 1;\r\n\tint b = 2;\r\n\treturn a * b;\r\n}\r\n", 2, 3},
		{"blank lines around the marker", "a.go", "func a() {}\n\nfunc b() {}\n\nfunc c() {}\n\nfunc z() {}\n",
			"func a() {}\n\n// ... existing code ...\n\nfunc z() { z() }\n",
			"func a() {}\n\nfunc b() {}\n\nfunc c() {}\n\nfunc z() { z() }\n", 2, 6},
		{"blank lines the caller adds", "a.go", "a()\nb()\nc()\n", "a()\n\n// ...\n\nc()\n", "a()\n\nb()\n\nc()\n", 2, 2},
		{"markdown html comment", "a.md", "# A\n\none\n\ntwo\n\n# B\n", "# A\n\n<!-- ... -->\n\n# B\n\nthree\n", "# A\n\none\n\ntwo\n\n# B\n\nthree\n", 2, 6},
		{"markdown bare ellipsis", "a.md", "# A\n\none\ntwo\nthree\nfour\n", "# A\n\none\n...\nfour\nfive\n",
			"# A\n\none\ntwo\nthree\nfour\nfive\n", 4, 5},
		{"markdown table row edited", "a.md", "| a | 1 |\n| b | 2 |\n| c | 3 |\n", "| a | 10 |\n...\n",
			"| a | 10 |\n| b | 2 |\n| c | 3 |\n", 2, 3},
		{"a prose line edited in a word", "a.md", "The hook answers in about 9 ms per call, beyond the spawn.\nSecond line.\nThird line.\n",
			"The hook answers in about 7 ms per call, beyond the spawn.\n...\n",
			"The hook answers in about 7 ms per call, beyond the spawn.\nSecond line.\nThird line.\n", 2, 3},
		{"yaml indented ellipsis", "ci.yml", "    with: {go: '1.24'}\n    - uses: cache\n      with:\n        key: k\n",
			"    with: {go: '1.26'}\n    ...\n        key: k\n", "    with: {go: '1.26'}\n    - uses: cache\n      with:\n        key: k\n", 2, 3},
		{"markdown marker for a fence's end", "a.md", "```sh\nclaude mcp add\n```\n\nVS Code:\n", "```sh\nclaude mcp add\n...\nVS Code:\nmore\n",
			"```sh\nclaude mcp add\n```\n\nVS Code:\nmore\n", 3, 4},
		{"python ellipsis as an if's body", "a.py", "    if x:\n        return 1\n    y = 2\n", "    if x:\n        ...\n    y = 3\n",
			"    if x:\n        return 1\n    y = 3\n", 2, 2},
		{"marker for a docstring's end", "a.py", "def f():\n    \"\"\"\n    Returns the name.\n    \"\"\"\n    name = g()\n    return name\n",
			"def f():\n    \"\"\"\n    Returns the name.\n    # ... rest unchanged ...\n    return name\n",
			"def f():\n    \"\"\"\n    Returns the name.\n    \"\"\"\n    name = g()\n    return name\n", 4, 5},
		{"html comment", "a.html", "<ul>\n  <li>a</li>\n  <li>b</li>\n</ul>\n<p>x</p>\n",
			"<!-- ... -->\n<p>x</p>\n<p>y</p>\n", "<ul>\n  <li>a</li>\n  <li>b</li>\n</ul>\n<p>x</p>\n<p>y</p>\n", 1, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, es, err := ops.ExpandMarkers(tt.old, tt.text, tt.path)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Fatalf("got\n%s\nwant\n%s", got, tt.want)
			}
			if len(es) != 1 || es[0].From != tt.from || es[0].To != tt.to {
				t.Fatalf("elisions %+v, want lines %d-%d", es, tt.from, tt.to)
			}
		})
	}
}

func TestExpandMarkers_TwoMarkers(t *testing.T) {
	old := "func A() {\n\ta := 1\n\tb := 2\n\tuse(a, b)\n\tc := 3\n\td := 4\n\treturn c + d\n}\n"
	text := "func A() {\n\t// ... existing code ...\n\tuse(a, b, nil)\n\t// ... existing code ...\n\treturn c + d\n}\n"
	got, es, err := ops.ExpandMarkers(old, text, "a.go")
	if err != nil {
		t.Fatal(err)
	}
	want := "func A() {\n\ta := 1\n\tb := 2\n\tuse(a, b, nil)\n\tc := 3\n\td := 4\n\treturn c + d\n}\n"
	if got != want || len(es) != 2 {
		t.Fatalf("got %d elisions\n%s", len(es), got)
	}
	note := ops.ElisionNote(es, 10, "")
	if !strings.Contains(note, "line 2 of the new text) stood for lines 11-12 of the file") || !strings.Contains(note, "lines 14-15 of the file") {
		t.Fatalf("note %q", note)
	}
}

func TestExpandMarkers_Refuses(t *testing.T) {
	tests := []struct {
		name, path, old, text, says string
		line                        int
	}{
		{"ambiguous anchor", "a.js", "class A {\n  m1() {\n    a();\n  }\n  m2() {\n    b();\n  }\n}\n",
			"class A {\n  m0() {\n    z();\n  }\n  // ... existing code ...\n}\n", "occurs", 5},
		{"no lines for it", "a.go", "func A() {\n\treturn 1\n}\n",
			"func A() {\n\t// ... existing code ...\n\treturn 1\n}\n", "no lines for it", 2},
		{"no anchor at all", "a.go", "func A() {\n\treturn 1\n}\n",
			"// ... existing code ...\nfunc B() {}\n", "no line around it", 1},
		{"an edited line like two old lines", "a.html", "<ul>\n  <li>a</li>\n  <li>b</li>\n</ul>\n",
			"<ul>\n  <!-- ... -->\n  <li>c</li>\n</ul>\n", "may edit line 2 or line 3", 2},
		{"an added line that may replace the kept one", "main.go", "package main\n\nimport \"fmt\"\n\nfunc main() {}\n",
			"package main\n\nimport (\n\t\"fmt\"\n\t\"os\"\n)\n\n// ... existing code ...\n", "may replace line 3 of the old text", 8},
		// the fuzzer's elide-replace (seed 31): the import after the marker
		// is added, not an edit of the import it resembles; both
		// neighbours changed lines, so the marker would have dropped it
		{"changed lines on both sides", "a_test.go", "package journal_test\n\nimport (\n\t\"bytes\"\n\t\"errors\"\n\n\t\"github.com/journalfs/journal/journal\"\n",
			"package audit_test\n...\n\t\"github.com/journalfs/journal/journal/audit\"\n", "no unchanged line", 2},
		// the same kind of statement (`a, a := a.a(`) as the first line
		// the marker would keep: its edit as likely as a line added
		{"an added line of the kept line's shape", "h.go", "\t\tout, err := r.git(ctx, \"rev-list\", \"HEAD\")\n\t\tif err != nil {\n\t\t\treturn err\n\t\t}\n\t\tuse(out)\n",
			"\t\tcf, err := r.cat()\n\t\t...\n\t\tuse(out)\n", "may replace line 1 of the old text", 2},
		// the fuzzer's elide-replace: real edits replaced the lines next to
		// the marker as often as they added beside them
		{"a new line next to a marker keeping lines", "a.go", "type U struct {\n\tname string\n\tage  int\n}\n",
			"type U struct {\n\temail string\n\t// ... existing fields ...\n}\n", "may be added before the lines the marker keeps or replace the first", 3},
		{"a new line after a marker keeping lines", "a.go", "\tfmt.Fprintf(w, \"dry run\")\n\tfor _, f := range res.Files {\n\t\tprint(f)\n\t}\n\treturn\n",
			"\tfmt.Fprintf(w, \"dry run\")\n\ta.printPlanned(w, res)\n\t...\n", "replace the first", 3},
		{"an edited line that may be added", "a.html", "<ul>\n  <li>a</li>\n  <li>b</li>\n</ul>\n<p>x</p>\n",
			"<!-- ... -->\n<p>y</p>\n", "may be an edit of line 5 of the old text", 1},
		{"an import like the one it follows", "a.go", "\t\"github.com/journalfs/journal/replay/watch\"\n\t\"github.com/spf13/cobra\"\n",
			"\t\"github.com/journalfs/journal/journal/audit\"\n\t...\n", "may be an edit of line 1", 2},
		{"brackets left open", "a.go", "func f() {\n\tif a {\n\t\tx()\n\t}\n\ty()\n}\n",
			"func f() {\n\t...\n\ty()\n\tz(\n}\n", "brackets do not balance", 2},
		{"a new line next to a marker keeping one line", "a.go", "func main() {\n\ta()\n\tb()\n}\n",
			"func main() {\n\ta()\n\t// ... existing code ...\n\tc()\n}\n", "replace the last of them", 3},
		{"a moved line", "a.go", "\t\"strconv\"\n\t\"regexp\"\n\t\"strings\"\n\t\"sync\"\n",
			"\t\"regexp\"\n\t\"strconv\"\n\t...\n", "the line moved", 3},
		{"two markers in one region", "a.go", "func A() {\n\ta()\n\tb()\n\tc()\n}\n",
			"func A() {\n\t// ...\n\tz()\n\t// ...\n}\n", "markers at lines 2 and 4", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := ops.ExpandMarkers(tt.old, tt.text, tt.path)
			var oe *ops.Error
			if !errors.As(err, &oe) || !errors.Is(err, ops.ErrInvalidInput) {
				t.Fatalf("err %v, want an ops.Error with ErrInvalidInput", err)
			}
			if !strings.Contains(oe.Msg, tt.says) || !strings.Contains(oe.Msg, "is an elision marker") || oe.Hint == "" {
				t.Fatalf("message %q (hint %q) does not say %q", oe.Msg, oe.Hint, tt.says)
			}
			if want := "line " + string(rune('0'+tt.line)) + " of the new text"; !strings.HasPrefix(oe.Msg, want) {
				t.Fatalf("message %q does not start with %q", oe.Msg, want)
			}
		})
	}
}

func TestExpandMarkers_Literal(t *testing.T) {
	tests := []struct{ name, path, old, text string }{
		{"python ellipsis body", "a.py", "def f():\n    pass\n", "def f():\n    ...\n\n\ndef g(x):\n    ...\n"},
		{"python docstring line", "a.py", "def f():\n    pass\n", "def f():\n    \"\"\"Sum.\n\n    ...\n    \"\"\"\n    pass\n"},
		{"js spread", "a.js", "f(a)\n", "f(\n  ...args,\n  ...rest\n)\n"},
		{"rust range and rest pattern", "a.rs", "let a = 1;\n", "let Foo {\n    a,\n    ..\n} = foo;\nfor i in 0..=n {}\n"},
		{"go variadic", "a.go", "func f() {}\n", "func f(xs ...int) {}\n"},
		{"c variadic", "a.c", "int f(int a);\n", "int f(int a,\n      ...\n);\n"},
		{"prose ellipsis that stands for no lines", "a.md", "# T\n\none\ntwo\n", "# T\n\none\n...\ntwo\n"},
		{"prose", "a.md", "# T\n", "# T\n\nwait...\n\n...\n\n```\n$ journal log\n// ... existing code ...\n```\n"},
		{"a comment's sentence going on", "a.go", "// a\n// b\n", "// then keeps the old line (markers with no\n// unchanged line on either side, or\n"},
		{"comment prose", "a.ts", "x();\n", "// TODO: handle errors...\n// existing users keep their roles\n// the API stays the same for v1 clients\nx();\n"},
		{"doc comment example", "a.go", "func F() {}\n", "// F does it:\n//\n//\tx := F()\n//\t...\n//\tuse(x)\nfunc F() {}\n"},
		{"a log's ellipsis", "run.log", "start\n", "start\n...\ndone\n"},
		{"markdown heading and text", "a.md", "# A\n", "# A\n\n# ...\n\n// ...\n"},
		{"yaml document end", "a.yaml", "a: 1\n", "a: 2\n...\n"},
		{"the file's own marker", "a.go", "func A() {\n\t// ... existing code ...\n}\n", "func A() {\n\t// ... existing code ...\n\tb()\n}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, es, err := ops.ExpandMarkers(tt.old, tt.text, tt.path)
			if err != nil || got != tt.text || es != nil {
				t.Fatalf("got %q, %v, %v; want the text as it is", got, es, err)
			}
		})
	}
}

func TestExpandMarkers_Phrasings(t *testing.T) {
	old := "func A() {\n\ta := 1\n\tb := 2\n\treturn a + b\n}\n"
	for _, m := range []string{"// ... existing code ...", "// ...existing code...", "// … rest of the code …", "// rest of the code remains the same",
		"// ... (unchanged) ...", "// keep existing code", "// [...]", "/* ... */", "// …", "...", "// ... 2 lines omitted ...",
		"# ...", "// existing code here", "// rest of the function unchanged", "// ... other code ...", "// (unchanged)"} {
		t.Run(m, func(t *testing.T) {
			got, es, err := ops.ExpandMarkers(old, "func A() {\n\t"+m+"\n\treturn a * b\n}\n", "a.go")
			if err != nil {
				t.Fatal(err)
			}
			if want := "func A() {\n\ta := 1\n\tb := 2\n\treturn a * b\n}\n"; got != want || len(es) != 1 {
				t.Fatalf("got %q", got)
			}
		})
	}
}

// benchFile is a Go-like file of n lines, a comment every fifth line.
func benchFile(n int) []string {
	ls := make([]string, n)
	for i := range ls {
		if i%5 == 0 {
			ls[i] = fmt.Sprintf("\t// step %d: keep the running total\n", i)
		} else {
			ls[i] = fmt.Sprintf("\ttotal%d := add(total%d, %d)\n", i, i-1, i)
		}
	}
	return ls
}

// BenchmarkExpandMarkers: a whole-file write of 20,000 lines without a
// marker (but with an ellipsis, so the lines are scanned), and with one
// marker standing for 100 lines (the lines are diffed).
func BenchmarkExpandMarkers(b *testing.B) {
	ls := benchFile(20000)
	old := strings.Join(ls, "")
	plain := strings.Replace(old, "keep the running total\n", "keep the running total...\n", 1)
	lazy := strings.Join(ls[:10000], "") + "\t// ... existing code ...\n" + strings.Join(ls[10100:], "")
	for _, c := range []struct{ name, text string }{{"no marker", plain}, {"one marker", lazy}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(old)))
			for b.Loop() {
				if _, _, err := ops.ExpandMarkers(old, c.text, "a.go"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Morph-style edits of a whole file: a marker for everything before and
// after the changed function, and one inside a body.
func TestExpandMarkers_WholeFile(t *testing.T) {
	old := "package main\n\nimport \"fmt\"\n\nfunc a() {\n\tfmt.Println(\"a\")\n}\n\nfunc b() {\n\tfmt.Println(\"b\")\n}\n\nfunc main() {\n\ta()\n\tb()\n}\n"
	tests := []struct{ name, text, want string }{
		{"around a function", "// ... existing code ...\n\nfunc b() {\n\tfmt.Println(\"B\")\n}\n\n// ... existing code ...\n",
			strings.Replace(old, `"b"`, `"B"`, 1)},
		{"inside a body", "// ... existing code ...\nfunc main() {\n\t// ... existing code ...\n\tb()\n\tc()\n}\n",
			strings.Replace(old, "\tb()\n}", "\tb()\n\tc()\n}", 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, es, err := ops.ExpandMarkers(old, tt.text, "main.go")
			if err != nil || got != tt.want || len(es) != 2 {
				t.Fatalf("%v %+v\n%s", err, es, got)
			}
		})
	}
}

// BenchmarkExpandMarkers_WholeWrite: what a whole-file write pays for
// markers it does not hold: source-like text of 10 KB, 100 KB and 1 MB
// (mcpbench's write_* contents: a comment every 64 lines, "line" in a
// string every 8, non-ASCII text), a new version of the old.
func BenchmarkExpandMarkers_WholeWrite(b *testing.B) {
	for _, kb := range []int{10, 100, 1000} {
		old, text := wholeWrite(kb)
		b.Run(fmt.Sprintf("%dKB", kb), func(b *testing.B) {
			b.SetBytes(int64(text.Len()))
			for b.Loop() {
				if got, _, err := ops.ExpandMarkers(old.String(), text.String(), "gen.go"); err != nil || got != text.String() {
					b.Fatal(err)
				}
			}
		})
	}
}

// wholeWrite returns a file of about kb kilobytes like mcpbench's write_*
// contents and a new version of it (every line changed).
func wholeWrite(kb int) (old, text *strings.Builder) {
	old, text = new(strings.Builder), new(strings.Builder)
	for i := 0; text.Len() < kb*1000; i++ {
		for v, w := range []*strings.Builder{old, text} {
			switch {
			case i%64 == 0:
				fmt.Fprintf(w, "\t// file 0 version %d: naïve ünïcode, a \\ backslash %08x\n", v, i*2654435761)
			case i%8 == 0:
				fmt.Fprintf(w, "    fmt.Println(\"line %06d of file 0, version %d\", v%08x)\n", i, v, i)
			default:
				fmt.Fprintf(w, "    x%06d := compute(x%06d, %d, 0x%08x) + offset\n", i, i/2, v, i)
			}
		}
	}
	return old, text
}

// BenchmarkApplyBatch_WholeWrite: a whole-file write's plan (file_replace
// {path, content}, no lines) on mcpbench's write_* contents, a new version of
// the old: what the engine's lock is held for before the commit.
func BenchmarkApplyBatch_WholeWrite(b *testing.B) {
	for _, kb := range []int{10, 100, 1000} {
		old, text := wholeWrite(kb)
		oldB := []byte(old.String())
		load := func(string) ([]byte, bool, error) { return oldB, true, nil }
		b.Run(fmt.Sprintf("%dKB", kb), func(b *testing.B) {
			b.SetBytes(int64(text.Len()))
			for b.Loop() {
				out, err := ops.ApplyBatch([]ops.Op{ops.ReplaceOp{Path: "gen.go", Content: text.String()}}, load)
				if err != nil || string(out.Files["gen.go"].New) != text.String() {
					b.Fatal(err)
				}
			}
		})
	}
}
