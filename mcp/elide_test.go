package mcp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	jmcp "github.com/journalfs/journal/mcp"
)

// An elision marker in the new text ("// ... existing code ...") is
// expanded to the lines it stands for, or refused — by every tool that
// takes new text for an existing file, through one protocol
// (ops.ExpandMarkers). Each case replaces a file's whole text (old) with
// text; every tool sends it its own way.

type elideCase struct {
	name, file, old, text string
	want                  string // the file after; "" when refused
	says                  string // the refusal's message names this
	symbol                string // a symbol whose range is the whole file (file_edit target), if any
	form                  bool   // the file is one top-level form (replace_top_level_form)
}

const (
	elidePy = "class A:\n    def f(self):\n        x = 1\n        y = 2\n        return x + y\n\n    def g(self):\n        return 3\n"
	elideGo = "func A() int {\n\ta := 1\n\tb := 2\n\tuse(a, b)\n\tc := 3\n\td := 4\n\treturn c + d\n}\n"
	elideJS = "class A {\n  m1() {\n    a();\n  }\n  m2() {\n    b();\n  }\n}\n"
	elideC  = "int f(void) {\r\n\tint a = 1;\r\n\tint b = 2;\r\n\treturn a + b;\r\n}\r\n"
)

// loadUser is the example (testdata/elide/loaduser.*.ts): the
// file before, the lazy text sent, the file intended.
func loadUser(t testing.TB) (old, lazy, want string) {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join("..", "testdata", "elide", "loaduser.*.ts"))
	texts := map[string]string{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		texts[strings.Split(filepath.Base(p), ".")[1]] = string(b)
	}
	if len(texts) != 3 {
		t.Fatalf("testdata/elide holds %d of the 3 texts of the example", len(texts))
	}
	return texts["old"], texts["lazy"], texts["want"]
}

func elideCases(t *testing.T) []elideCase {
	loadUserOld, loadUserLazy, loadUserWant := loadUser(t)
	return []elideCase{
		{name: "issue example", file: "src/user.ts", old: loadUserOld, text: loadUserLazy, want: loadUserWant, symbol: "loadUser", form: true},
		{name: "python rest unchanged", file: "a.py", old: elidePy,
			text: "class A:\n    def f(self, z):\n        # ... rest of the method unchanged ...\n\n    def g(self):\n        return 3\n",
			want: strings.Replace(elidePy, "f(self)", "f(self, z)", 1), symbol: "A", form: true},
		{name: "marker at the start", file: "a.go", old: "package a\n\nimport \"fmt\"\n\nfunc A() {\n\tfmt.Println(1)\n}\n",
			text: "// ... existing code ...\nfunc A() {\n\tfmt.Println(2)\n}\n",
			want: "package a\n\nimport \"fmt\"\n\nfunc A() {\n\tfmt.Println(2)\n}\n"},
		{name: "marker at the end", file: "b.go", old: "package b\n\nfunc A() int {\n\treturn 1\n}\n\nfunc B() {}\n",
			text: "package b\n\nfunc A() int {\n\treturn 2\n}\n// ... rest of the file ...\n",
			want: "package b\n\nfunc A() int {\n\treturn 2\n}\n\nfunc B() {}\n"},
		{name: "two markers", file: "c.go", old: elideGo,
			text: "func A() int {\n\t// ... existing code ...\n\tuse(a, b, nil)\n\t// ... existing code ...\n\treturn c * d\n}\n",
			want: strings.NewReplacer("use(a, b)", "use(a, b, nil)", "c + d", "c * d").Replace(elideGo), symbol: "A", form: true},
		{name: "crlf and tabs", file: "f.c", old: elideC, text: "int f(void) {\n\t/* ... */\n\treturn a * b;\n}\n",
			want: strings.Replace(elideC, "a + b", "a * b", 1), symbol: "f", form: true},
		{name: "ambiguous anchor", file: "a.js", old: elideJS,
			text: "class A {\n  m0() {\n    z();\n  }\n  // ... existing code ...\n}\n",
			says: `line 5 of the new text, "// ... existing code ..."`, symbol: "A", form: true},
		{name: "no old lines for the marker", file: "d.go", old: "func D() int {\n\treturn 1\n}\n",
			text: "func D() int {\n\t// ... existing code ...\n\treturn 1\n}\n",
			says: `line 2 of the new text, "// ... existing code ...", is an elision marker`, symbol: "D", form: true},
		{name: "python ellipsis body", file: "p.py", old: "def f():\n    pass\n",
			text: "def f():\n    ...\n\n\ndef g(x):\n    ...\n", symbol: "f", form: true},
		{name: "js spread", file: "s.js", old: "function f(a) {\n  return g(a);\n}\n",
			text: "function f(...args) {\n  return g(\n    ...args,\n  );\n}\n", symbol: "f", form: true},
		{name: "rust range and rest pattern", file: "r.rs", old: "fn f(p: P) -> i32 {\n    p.a\n}\n",
			text: "fn f(p: P) -> i32 {\n    let P {\n        a,\n        ..\n    } = p;\n    (0..=a).sum()\n}\n", symbol: "f", form: true},
		{name: "prose", file: "n.md", old: "# Title\n\nText.\n", text: "# Title\n\nwait...\n\n...\n\nText.\n"},
		{name: "the file's own marker", file: "o.go", old: "func O() int {\n\t// ... existing code ...\n\treturn 1\n}\n",
			text: "func O() int {\n\t// ... existing code ...\n\treturn 2\n}\n", symbol: "O", form: true},
	}
}

// elideTool sends a case to one tool.
type elideTool struct {
	name string
	fits func(c elideCase) bool
	call func(e *env, c elideCase) *mcpgo.CallToolResult
}

func lineCountOf(s string) int { return strings.Count(strings.TrimSuffix(s, "\n"), "\n") + 1 }

var elideTools = []elideTool{
	{"edit_content", nil, func(e *env, c elideCase) *mcpgo.CallToolResult {
		return e.call(nil, "edit_content", map[string]any{"absolute_file_path": c.file, "search_text": c.old, "replace_text": c.text, "preview": false})
	}},
	{"edit_content changes", nil, func(e *env, c elideCase) *mcpgo.CallToolResult {
		return e.call(nil, "edit_content", map[string]any{"absolute_file_path": c.file, "preview": false,
			"changes": []map[string]any{{"search_text": c.old, "replace_text": c.text}}})
	}},
	{"edit_content streamed", nil, func(e *env, c elideCase) *mcpgo.CallToolResult {
		defer jmcp.SetLargefileMmapLimit(1)()
		return e.call(nil, "edit_content", map[string]any{"absolute_file_path": c.file, "search_text": c.old, "replace_text": c.text, "preview": false})
	}},
	{"ai_code_editing.edit_file", nil, func(e *env, c elideCase) *mcpgo.CallToolResult {
		return e.call(nil, "ai_code_editing.edit_file", map[string]any{"target_file": c.file, "edit_instruction": "lazy edit",
			"start_line": 1, "end_line": lineCountOf(c.old), "code_block": c.text})
	}},
	{"file_replace lines", nil, func(e *env, c elideCase) *mcpgo.CallToolResult {
		return e.call(nil, "file_replace", map[string]any{"ops": []map[string]any{{"path": c.file, "start_line": 1, "end_line": lineCountOf(c.old), "content": c.text}}})
	}},
	{"file_replace whole", nil, func(e *env, c elideCase) *mcpgo.CallToolResult {
		return e.call(nil, "file_replace", map[string]any{"ops": []map[string]any{{"path": c.file, "content": c.text}}})
	}},
	{"file_edit lines", nil, func(e *env, c elideCase) *mcpgo.CallToolResult {
		return e.call(nil, "file_edit", map[string]any{"file": c.file, "startLine": 1, "endLine": lineCountOf(c.old), "code": c.text})
	}},
	{"file_edit whole", nil, func(e *env, c elideCase) *mcpgo.CallToolResult {
		return e.call(nil, "file_edit", map[string]any{"file": c.file, "code": c.text})
	}},
	{"file_edit symbol", func(c elideCase) bool { return c.symbol != "" }, func(e *env, c elideCase) *mcpgo.CallToolResult {
		return e.call(nil, "file_edit", map[string]any{"file": c.file, "target": c.symbol, "code": c.text})
	}},
	{"replace_top_level_form", func(c elideCase) bool { return c.form }, func(e *env, c elideCase) *mcpgo.CallToolResult {
		return e.call(nil, "replace_top_level_form", map[string]any{"filePath": c.file, "line": 1, "newForm": c.text})
	}},
}

func TestElide_EveryTool(t *testing.T) {
	for _, tool := range elideTools {
		t.Run(tool.name, func(t *testing.T) {
			for _, c := range elideCases(t) {
				if tool.fits != nil && !tool.fits(c) {
					continue
				}
				t.Run(c.name, func(t *testing.T) {
					e := newEnv(t, jmcp.Options{}, c.file, c.old)
					before := e.snapshot()
					res := tool.call(e, c)
					txt := text(res)
					switch {
					case c.says != "":
						te, _ := jmcp.ParseToolError(txt)
						if !res.IsError || te.Code != jmcp.CodeInvalidInput || !strings.Contains(te.Message, c.says) || te.Hint == "" {
							t.Fatalf("want INVALID_INPUT naming %q, got isError=%v %s", c.says, res.IsError, txt)
						}
						if !sameFiles(before, e.snapshot()) {
							t.Fatalf("a refused edit changed the workspace: %q", e.read(c.file))
						}
					case res.IsError:
						t.Fatalf("failed: %s", txt)
					default:
						want := c.want
						if want == "" { // literal: the text as sent
							want = c.text
						}
						if got := e.read(c.file); got != want {
							t.Fatalf("file\n%q\nwant\n%q\n%s", got, want, txt)
						}
						if expands := c.want != ""; expands != strings.Contains(txt, "stood for") {
							t.Fatalf("the result should say what a marker stood for iff one was expanded:\n%s", txt)
						}
					}
				})
			}
		})
	}
}

// The note names the file's lines, where the search text sits in the file.
func TestElide_NoteNamesFileLines(t *testing.T) {
	loadUserOld, loadUserLazy, loadUserWant := loadUser(t)
	file := "// header\n\n" + loadUserOld
	e := newEnv(t, jmcp.Options{}, "src/user.ts", file)
	out, txt := e.apply(map[string]any{"absolute_file_path": "src/user.ts", "search_text": loadUserOld, "replace_text": loadUserLazy})
	if got := e.read("src/user.ts"); got != "// header\n\n"+loadUserWant {
		t.Fatalf("file %q", got)
	}
	if n := out.Changes[0].Note; !strings.Contains(n, `"// ... existing code ..." (line 3 of the new text) stood for lines 5-8 of the file`) || !strings.Contains(txt, n) {
		t.Fatalf("note %q\n%s", n, txt)
	}
}

// The search text sent with spaces for a tab-indented file (the whitespace
// level): the kept lines are the file's, tabs and all.
func TestElide_WhitespaceLevelKeepsFileBytes(t *testing.T) {
	file := "func A() {\n\tif x {\n\t\ta()  \n\t\tb()\n\t}\n\treturn\n}\n"
	e := newEnv(t, jmcp.Options{}, "t.go", file)
	e.apply(map[string]any{"absolute_file_path": "t.go",
		"search_text":  "func A() {\n    if x {\n        a()\n        b()\n    }\n    return\n}\n",
		"replace_text": "func A() {\n    if x {\n        // ... existing code ...\n    }\n    return nil\n}\n"})
	if got, want := e.read("t.go"), "func A() {\n\tif x {\n\t\ta()  \n\t\tb()\n\t}\n\treturn nil\n}\n"; got != want {
		t.Fatalf("file %q, want %q", got, want)
	}
}

// A batch is all-or-nothing: one change's unanchored marker refuses the
// whole batch.
func TestElide_BatchRefusedWhole(t *testing.T) {
	e := newEnv(t, jmcp.Options{}, "c.go", elideGo+"\nfunc Z() {}\n")
	before := e.snapshot()
	te := e.fail("edit_content", map[string]any{"absolute_file_path": "c.go", "preview": false, "changes": []map[string]any{
		{"search_text": "func Z() {}", "replace_text": "func Z() { z() }"},
		{"search_text": "\ta := 1\n\tb := 2\n", "replace_text": "\t// ...\n\ta := 1\n\tb := 3\n"},
	}}, jmcp.CodeInvalidInput)
	if !strings.Contains(te.Message, `line 1 of the new text, "// ..."`) || !sameFiles(before, e.snapshot()) {
		t.Fatalf("%+v", te)
	}
}
