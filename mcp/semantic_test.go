package mcp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	jmcp "github.com/journalfs/journal/mcp"
)

// langCase drives the per-language file_read / file_edit tests over the
// fixtures in testdata/semantic/<dir>.
type langCase struct {
	dir, file string
	// nested symbol and its parent ("" when it has none)
	nested, nestedKind, parent string
	// a path several symbols match (overloads, duplicates)
	ambiguous string
	// a symbol with decorators/attributes/doc comments, the decoration, and
	// new code for it without the decoration (a body change)
	decorated, decoration, bodyCode string
	// a rename: target, new code, the old path and the file that mentions it
	renameTarget, renameCode, renamed, caller string
	// a delete and a syntax-breaking edit
	deleteTarget, brokenTarget, brokenCode string
}

var langCases = []langCase{
	{dir: "go", file: "service.go", nested: "UserService.name", nestedKind: "field", parent: "UserService", ambiguous: "init",
		decorated: "UserService.findById", decoration: "// findById looks a user up.", bodyCode: "func (s *UserService) findById(id string) error {\n\treturn nil\n}",
		renameTarget: "helper", renameCode: "func assist() int { return 1 }", renamed: "helper", caller: "caller.go",
		deleteTarget: "UserService.findById", brokenTarget: "helper", brokenCode: "func helper() int { return 1 "},
	{dir: "python", file: "service.py", nested: "UserService.Cache.get", nestedKind: "method", parent: "Cache", ambiguous: "UserService.save",
		decorated: "UserService.find_by_id", decoration: "@functools.lru_cache", bodyCode: "def find_by_id(self, user_id):\n    return None",
		renameTarget: "UserService.find_by_id", renameCode: "    # cached lookup\n    @functools.lru_cache\n    def find_user(self, user_id):\n        return user_id", renamed: "UserService.find_by_id", caller: "caller.py",
		deleteTarget: "helper", brokenTarget: "helper", brokenCode: "def helper(:\n    return 1"},
	{dir: "javascript", file: "app.js", nested: "Greeter.greet", nestedKind: "method", parent: "Greeter", ambiguous: "helper",
		decorated: "Greeter.greet", decoration: "* Says hi.", bodyCode: "greet() {\n  return 'yo';\n}",
		renameTarget: "Greeter.greet", renameCode: "salute() {\n  return 'yo';\n}", renamed: "Greeter.greet", caller: "caller.js",
		deleteTarget: "main", brokenTarget: "main", brokenCode: "function main() {\n  return (;\n}"},
	{dir: "typescript", file: "service.ts", nested: "Repo.get", nestedKind: "method", parent: "Repo", ambiguous: "UserService.findById",
		decorated: "UserService.findById@9", decoration: "@Log()", bodyCode: "async findById(id: string): Promise<User | null> {\n  return this.cache.get(id) ?? null;\n}",
		renameTarget: "helper", renameCode: "export function assist(): number {\n  return 1;\n}", renamed: "helper", caller: "caller.ts",
		deleteTarget: "Repo", brokenTarget: "helper", brokenCode: "export function helper(: number {\n  return 1;\n}"},
	{dir: "tsx", file: "app.tsx", nested: "Panel.render", nestedKind: "method", parent: "Panel", ambiguous: "Item",
		decorated: "App", decoration: "/** The app. */", bodyCode: "export function App(props: { name: string }) {\n  return <p>{props.name}</p>;\n}",
		renameTarget: "App", renameCode: "export function Main(props: { name: string }) {\n  return <div>{props.name}</div>;\n}", renamed: "App", caller: "main.tsx",
		deleteTarget: "Panel", brokenTarget: "App", brokenCode: "export function App( {\n  return <div>;\n}"},
	{dir: "rust", file: "lib.rs", nested: "Point.new", nestedKind: "method", parent: "Point", ambiguous: "run",
		decorated: "Point@5", decoration: "#[derive(Debug, Clone)]", bodyCode: "pub struct Point {\n    x: i32,\n    y: i32,\n}",
		renameTarget: "helper", renameCode: "pub fn assist() -> i32 {\n    1\n}", renamed: "helper", caller: "caller.rs",
		deleteTarget: "Point.norm", brokenTarget: "helper", brokenCode: "pub fn helper() -> i32 {\n    1\n"},
	{dir: "java", file: "UserService.java", nested: "UserService.Cache.clear", nestedKind: "method", parent: "Cache", ambiguous: "UserService.findById",
		decorated: "UserService.findById@12", decoration: "@Override", bodyCode: "public User findById(String id) {\n    return new User(id);\n}",
		renameTarget: "UserService.helper", renameCode: "public void assist() {}", renamed: "UserService.helper", caller: "Main.java",
		deleteTarget: "UserService.Cache", brokenTarget: "UserService.helper", brokenCode: "public void helper() {"},
	{dir: "c", file: "main.c", nested: "point.x", nestedKind: "field", parent: "point", ambiguous: "point",
		decorated: "add", decoration: "/** Adds two ints. */", bodyCode: "static int add(int a, int b) {\n    return b + a;\n}",
		renameTarget: "helper", renameCode: "int assist(void) {\n    return 1;\n}", renamed: "helper", caller: "util.c",
		deleteTarget: "point@21", brokenTarget: "helper", brokenCode: "int helper(void) {\n    return 1;\n"},
	{dir: "cpp", file: "shape.cpp", nested: "geo.Shape.name", nestedKind: "method", parent: "Shape", ambiguous: "Shape.area",
		decorated: "twice", decoration: "/// Twice x.", bodyCode: "[[nodiscard]] int twice(int x) { return x + x; }",
		renameTarget: "helper", renameCode: "int assist() { return 1; }", renamed: "helper", caller: "main.cpp",
		deleteTarget: "geo.Shape.name", brokenTarget: "helper", brokenCode: "int helper() { return 1; "},
	{dir: "csharp", file: "Service.cs", nested: "Demo.UserService.Count", nestedKind: "property", parent: "UserService", ambiguous: "FindById",
		decorated: "FindById@12", decoration: "[Obsolete]", bodyCode: "public User FindById(string id)\n{\n    return new User();\n}",
		renameTarget: "Helper", renameCode: "public void Assist() { }", renamed: "Demo.UserService.Helper", caller: "Program.cs",
		deleteTarget: "FindById@17", brokenTarget: "Helper", brokenCode: "public void Helper() {"},
	{dir: "ruby", file: "service.rb", nested: "Accounts.UserService.create", nestedKind: "method", parent: "UserService", ambiguous: "helper",
		decorated: "UserService", decoration: "# Finds users.", bodyCode: "class UserService\n  def find_by_id(id)\n    id\n  end\nend",
		renameTarget: "helper@14", renameCode: "def assist\n  1\nend", renamed: "helper", caller: "caller.rb",
		deleteTarget: "UserService.create", brokenTarget: "helper@18", brokenCode: "def helper\n  2 +\n"},
	{dir: "php", file: "service.php", nested: "UserService.save", nestedKind: "method", parent: "UserService", ambiguous: "helper",
		decorated: "UserService.findById", decoration: "#[Pure]", bodyCode: "public function findById($id)\n{\n    return $id;\n}",
		renameTarget: "UserService.findById", renameCode: "/** By id. */\n#[Pure]\npublic function find($id)\n{\n    return null;\n}", renamed: "UserService.findById", caller: "caller.php",
		deleteTarget: "UserService.save", brokenTarget: "UserService.save", brokenCode: "public function save($u)\n{\n"},
}

// fixtureFiles returns name, content pairs of testdata/<sub> for newEnv.
func fixtureFiles(t *testing.T, sub string) []string {
	t.Helper()
	var files []string
	dir := filepath.Join("..", "testdata", sub)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, e.Name(), string(b))
	}
	return files
}

func TestSemantic_Languages(t *testing.T) {
	for _, lc := range langCases {
		t.Run(lc.dir, func(t *testing.T) {
			t.Run("read_nested", func(t *testing.T) { testReadNested(t, lc) })
			t.Run("ambiguous", func(t *testing.T) {
				e := newEnv(t, jmcp.Options{}, fixtureFiles(t, "semantic/"+lc.dir)...)
				te := e.fail("file_read", map[string]any{"file": lc.file, "target": lc.ambiguous}, jmcp.CodeAmbiguousMatch)
				if len(te.Candidates) < 2 {
					t.Fatalf("candidates %+v", te.Candidates)
				}
				before := e.snapshot()
				e.fail("file_edit", map[string]any{"file": lc.file, "target": lc.ambiguous, "code": "x"}, jmcp.CodeAmbiguousMatch)
				if !sameFiles(before, e.snapshot()) {
					t.Fatal("an ambiguous edit changed files")
				}
			})
			t.Run("body_change_keeps_decoration", func(t *testing.T) { testBodyChange(t, lc, "\n") })
			t.Run("crlf", func(t *testing.T) { testBodyChange(t, lc, "\r\n") })
			t.Run("rename", func(t *testing.T) { testRename(t, lc) })
			t.Run("delete", func(t *testing.T) { testDelete(t, lc) })
			t.Run("syntax_refused", func(t *testing.T) { testBroken(t, lc) })
		})
	}
}

func testReadNested(t *testing.T, lc langCase) {
	e := newEnv(t, jmcp.Options{}, fixtureFiles(t, "semantic/"+lc.dir)...)
	var out jmcp.FileReadResult
	txt := e.ok("file_read", map[string]any{"file": lc.file, "target": lc.nested}, &out)
	if out.Symbol == nil || out.Symbol.Kind != lc.nestedKind || out.Version == "" || out.TotalLines == 0 {
		t.Fatalf("read %+v %+v\n%s", out, out.Symbol, txt)
	}
	if lc.parent != "" && (out.Symbol.Parent == nil || out.Symbol.Parent.Name != lc.parent) {
		t.Fatalf("parent %+v", out.Symbol.Parent)
	}
	if !strings.Contains(txt, "**Symbol:** `") || !strings.Contains(txt, "**Range:** lines") {
		t.Fatalf("text:\n%s", txt)
	}
	// The decorated symbol reads with its decorators/doc comments.
	txt = e.ok("file_read", map[string]any{"file": lc.file, "target": lc.decorated}, &out)
	if !strings.Contains(txt, lc.decoration) || out.Symbol.FullRange.StartLine >= out.Symbol.Range.StartLine {
		t.Fatalf("decoration %q missing:\n%s", lc.decoration, txt)
	}
}

func testBodyChange(t *testing.T, lc langCase, eol string) {
	files := fixtureFiles(t, "semantic/"+lc.dir)
	if eol != "\n" {
		for i := 1; i < len(files); i += 2 {
			files[i] = strings.ReplaceAll(files[i], "\n", eol)
		}
	}
	e := newEnv(t, jmcp.Options{}, files...)
	var rd jmcp.FileReadResult
	e.ok("file_read", map[string]any{"file": lc.file, "target": lc.decorated}, &rd)
	var out jmcp.FileEditResult
	txt := e.ok("file_edit", map[string]any{"file": lc.file, "target": lc.decorated, "code": lc.bodyCode, "expected_version": rd.Version}, &out)
	got := e.read(lc.file)
	if !strings.Contains(got, lc.decoration) {
		t.Fatalf("decoration lost:\n%s", got)
	}
	if !hasIntent(out, "body_change") || out.Event == 0 || out.Version == "" || len(out.Propagated) != 0 || len(out.AutoFixed) != 0 {
		t.Fatalf("result %+v\n%s", out, txt)
	}
	if !strings.Contains(txt, "✅ **Success**") || !strings.Contains(txt, "**Safety Check:** 0 new errors") {
		t.Fatalf("text:\n%s", txt)
	}
	if eol == "\r\n" && strings.Count(got, "\n") != strings.Count(got, "\r\n") {
		t.Fatalf("line endings mixed: %q", got)
	}
	// The old version is now stale.
	e.fail("file_edit", map[string]any{"file": lc.file, "target": lc.decorated, "code": lc.bodyCode, "expected_version": rd.Version}, jmcp.CodeEditConflict)
}

func testRename(t *testing.T, lc langCase) {
	e := newEnv(t, jmcp.Options{}, fixtureFiles(t, "semantic/"+lc.dir)...)
	var out jmcp.FileEditResult
	txt := e.ok("file_edit", map[string]any{"file": lc.file, "target": lc.renameTarget, "code": lc.renameCode}, &out)
	var found bool
	for _, it := range out.DetectedIntents {
		found = found || it.Type == "rename" && it.Symbol == lc.renamed
	}
	if !found || !strings.Contains(txt, "rename detected") {
		t.Fatalf("no rename of %s: %+v\n%s", lc.renamed, out.DetectedIntents, txt)
	}
	if len(out.ImpactScope) != 1 || !impactHas(out.ImpactScope[0], lc.caller) {
		t.Fatalf("impact scope %+v\n%s", out.ImpactScope, txt)
	}
}

func testDelete(t *testing.T, lc langCase) {
	e := newEnv(t, jmcp.Options{}, fixtureFiles(t, "semantic/"+lc.dir)...)
	var out jmcp.FileEditResult
	txt := e.ok("file_edit", map[string]any{"file": lc.file, "target": lc.deleteTarget, "code": ""}, &out)
	if !hasIntent(out, "delete") || !strings.Contains(txt, "delete detected") {
		t.Fatalf("no delete: %+v\n%s", out.DetectedIntents, txt)
	}
	e.fail("file_read", map[string]any{"file": lc.file, "target": lc.deleteTarget}, jmcp.CodeNoMatch)
}

func testBroken(t *testing.T, lc langCase) {
	e := newEnv(t, jmcp.Options{}, fixtureFiles(t, "semantic/"+lc.dir)...)
	before := e.snapshot()
	te := e.fail("file_edit", map[string]any{"file": lc.file, "target": lc.brokenTarget, "code": lc.brokenCode}, jmcp.CodeSyntaxError)
	if len(te.Candidates) == 0 || te.Candidates[0].Line == 0 || !strings.Contains(te.Message, "line ") {
		t.Fatalf("no error locations: %+v", te)
	}
	if !sameFiles(before, e.snapshot()) {
		t.Fatal("a refused edit changed the file")
	}
	// allowSyntaxErrors writes it and reports the errors.
	var out jmcp.FileEditResult
	txt := e.ok("file_edit", map[string]any{"file": lc.file, "target": lc.brokenTarget, "code": lc.brokenCode, "allowSyntaxErrors": true}, &out)
	if len(out.RemainingErrors) == 0 || !out.RemainingErrors[0].New || !strings.Contains(txt, "Partial Success") {
		t.Fatalf("errors not reported: %+v\n%s", out, txt)
	}
}

func hasIntent(out jmcp.FileEditResult, typ string) bool {
	for _, it := range out.DetectedIntents {
		if it.Type == typ {
			return true
		}
	}
	return false
}

func impactHas(imp jmcp.Impact, file string) bool {
	for _, f := range imp.Files {
		if f.File == file && len(f.Lines) > 0 {
			return true
		}
	}
	return false
}

func TestSemantic_LineRangesElsewhere(t *testing.T) {
	e := newEnv(t, jmcp.Options{}, "notes.txt", "one\ntwo\nthree\n")
	var rd jmcp.FileReadResult
	txt := e.ok("file_read", map[string]any{"file": "notes.txt", "startLine": 2, "endLine": 3}, &rd)
	if rd.Range.StartLine != 2 || rd.Range.EndLine != 3 || rd.TotalLines != 3 || !strings.Contains(txt, "two\nthree\n") {
		t.Fatalf("read %+v\n%s", rd, txt)
	}
	e.fail("file_read", map[string]any{"file": "notes.txt", "target": "x"}, jmcp.CodeInvalidInput)
	var out jmcp.FileEditResult
	e.ok("file_edit", map[string]any{"file": "notes.txt", "startLine": 2, "code": "TWO\n", "expected_version": rd.Version}, &out)
	if e.read("notes.txt") != "one\nTWO\nthree\n" || out.Event != 1 || len(out.Notes) < 2 {
		t.Fatalf("edit %+v %q", out, e.read("notes.txt"))
	}
	// Whole file; each edit is one journal event.
	e.ok("file_edit", map[string]any{"file": "notes.txt", "code": "all new"}, &out)
	if e.read("notes.txt") != "all new\n" || out.Event != 2 {
		t.Fatalf("whole file %+v %q", out, e.read("notes.txt"))
	}
	// A dry run writes nothing and shows the diff.
	e.ok("file_edit", map[string]any{"file": "notes.txt", "code": "other", "dryRun": true}, &out)
	if e.read("notes.txt") != "all new\n" || !strings.Contains(out.Diff, "+other") {
		t.Fatalf("dry run %+v", out)
	}
}

// unknownCase is one language of TestSemantic_UnknownSymbol: a file whose
// UserService has a method spelled differently from the path asked for.
type unknownCase struct {
	file, src string
	asked     string // the path the caller sends
	meant     string // the path that exists
	code      string // a new body for it, longer than the journal's argument audit keeps
}

var unknownCases = []unknownCase{
	{file: "svc.go", asked: "UserService.findById", meant: "UserService.findByID",
		src:  "package svc\n\ntype UserService struct{ db string }\n\nfunc (s *UserService) findByID(id string) string {\n\treturn id\n}\n\nfunc (s *UserService) save(u string) error {\n\treturn nil\n}\n\nfunc helper() {}\n",
		code: "func (s *UserService) findByID(id string) string {\n\t// " + strings.Repeat("edited ", 50) + "\n\treturn \"edited:\" + id\n}"},
	{file: "svc.py", asked: "UserService.findById", meant: "UserService.find_by_id",
		src:  "class UserService:\n    def find_by_id(self, id):\n        return id\n\n    def save(self, u):\n        return u\n\n\ndef helper():\n    pass\n",
		code: "    def find_by_id(self, id):\n        # " + strings.Repeat("edited ", 50) + "\n        return 'edited'\n"},
	{file: "svc.ts", asked: "UserService.find_by_id", meant: "UserService.findById",
		src:  "export class UserService {\n  findById(id: string): string {\n    return id;\n  }\n\n  save(u: string): void {}\n}\n\nexport function helper(): number {\n  return 1;\n}\n",
		code: "  findById(id: string): string {\n    // " + strings.Repeat("edited ", 50) + "\n    return 'edited';\n  }"},
}

// TestSemantic_UnknownSymbol (issue #16): an unknown symbol lists the
// symbols that exist, nearest first; the one plainly meant comes as a retry
// — the same call with the target corrected — that works when sent, and a
// near name is never read or edited without it.
func TestSemantic_UnknownSymbol(t *testing.T) {
	for _, uc := range unknownCases {
		t.Run(uc.file, func(t *testing.T) {
			e := newEnv(t, jmcp.Options{}, uc.file, uc.src)
			// Nothing near: the names under UserService first, no retry.
			te := e.fail("file_read", map[string]any{"file": uc.file, "target": "UserService.nope"}, jmcp.CodeNoMatch)
			if len(te.Candidates) < 3 || te.Retry != nil || !strings.Contains(te.Message, "nearest: UserService.") || !strings.Contains(te.Message, uc.file) {
				t.Fatalf("unknown: %+v", te)
			}
			for _, c := range te.Candidates[:2] {
				if !strings.Contains(c.Text, " UserService.") || c.Line == 0 || c.EndLine < c.Line || c.Similarity == 0 {
					t.Fatalf("same parent not first: %+v", te.Candidates)
				}
			}
			// A prefix is near but not sure: listed first, never taken.
			te = e.fail("file_edit", map[string]any{"file": uc.file, "target": "UserService.find", "code": uc.code}, jmcp.CodeNoMatch)
			if te.Retry != nil || te.Candidates[0].Text != "method "+uc.meant {
				t.Fatalf("prefix: %+v", te)
			}

			// The same name written differently: a read offers the retry.
			te = e.fail("file_read", map[string]any{"file": uc.file, "target": uc.asked}, jmcp.CodeNoMatch)
			if te.Candidates[0].Text != "method "+uc.meant || te.Candidates[0].Similarity != 1 || te.Retry == nil ||
				te.Retry.Tool != "file_read" || te.Retry.Arguments["target"] != uc.meant || te.Retry.Arguments["file"] != uc.file || te.Retry.Note == "" {
				t.Fatalf("read a near name: %+v %+v", te, te.Retry)
			}
			var rd jmcp.FileReadResult
			e.ok(te.Retry.Tool, te.Retry.Arguments, &rd)
			if rd.Symbol == nil || rd.Symbol.Path != uc.meant {
				t.Fatalf("read retry: %+v", rd)
			}

			// An edit of a near name is refused; its retry carries the whole code.
			te = e.fail("file_edit", map[string]any{"file": uc.file, "target": uc.asked, "code": uc.code, "expected_version": rd.Version}, jmcp.CodeNoMatch)
			if e.read(uc.file) != uc.src {
				t.Fatal("a near name was edited without the retry")
			}
			if te.Retry == nil || te.Retry.Tool != "file_edit" || te.Retry.Arguments["target"] != uc.meant ||
				te.Retry.Arguments["code"] != uc.code || te.Retry.Arguments["expected_version"] != rd.Version {
				t.Fatalf("edit retry: %+v", te.Retry)
			}
			var out jmcp.FileEditResult
			e.ok(te.Retry.Tool, te.Retry.Arguments, &out)
			got := e.read(uc.file)
			if !strings.Contains(got, "edited") || !strings.Contains(got, "save") || !strings.Contains(got, "helper") || out.Target != uc.meant {
				t.Fatalf("edit retry wrote %q (%+v)", got, out)
			}
		})
	}
}

// TestSemantic_UnknownSymbolElsewhere: read_content and ai_get_code_context
// name the nearest symbols and retry with their own arguments.
func TestSemantic_UnknownSymbolElsewhere(t *testing.T) {
	uc := unknownCases[1]
	e := newEnv(t, jmcp.Options{}, uc.file, uc.src)
	te := e.fail("read_content", map[string]any{"absolute_file_path": uc.file, "target": uc.asked, "mode": "semantic"}, jmcp.CodeNoMatch)
	if te.Retry == nil || te.Retry.Tool != "read_content" || te.Retry.Arguments["target"] != uc.meant || te.Retry.Arguments["mode"] != "semantic" ||
		len(te.Candidates) == 0 || te.Candidates[0].Text != "method "+uc.meant {
		t.Fatalf("read_content: %+v", te)
	}
	var rc jmcp.ReadOut
	e.ok(te.Retry.Tool, te.Retry.Arguments, &rc)
	if rc.StartLine != 2 || rc.EndLine != 3 {
		t.Fatalf("read_content retry: %+v", rc)
	}
	// Text that is no name keeps read_content's own text candidates.
	te = e.fail("read_content", map[string]any{"absolute_file_path": uc.file, "target": "return nothing at all"}, jmcp.CodeNoMatch)
	if te.Retry != nil || strings.Contains(te.Message, "as a symbol") {
		t.Fatalf("text: %+v", te)
	}
	te = e.fail("ai_get_code_context", map[string]any{"file_path": uc.file, "symbol": uc.asked}, jmcp.CodeNoMatch)
	if te.Retry == nil || te.Retry.Arguments["symbol"] != uc.meant || te.Retry.Arguments["target"] != nil {
		t.Fatalf("ai_get_code_context: %+v", te)
	}
	e.ok(te.Retry.Tool, te.Retry.Arguments, nil)
}

// TestSemantic_AmbiguousLineHint: several symbols of a name are listed as
// name@LINE; a line that falls inside one (target@LINE, or startLine next
// to target) offers it as a retry and edits nothing until it is sent.
func TestSemantic_AmbiguousLineHint(t *testing.T) {
	src := "class Repo:\n    def save(self, u):\n        return 1\n\n    def save(self, u):\n        return 2\n"
	e := newEnv(t, jmcp.Options{}, "repo.py", src)
	te := e.fail("file_read", map[string]any{"file": "repo.py", "target": "Repo.save"}, jmcp.CodeAmbiguousMatch)
	if len(te.Candidates) != 2 || te.Candidates[0].Text != "method Repo.save@2" || te.Candidates[1].Text != "method Repo.save@5" || te.Retry != nil {
		t.Fatalf("ambiguous: %+v", te)
	}
	te = e.fail("file_read", map[string]any{"file": "repo.py", "target": "Repo.save", "startLine": 6}, jmcp.CodeAmbiguousMatch)
	if te.Retry == nil || te.Retry.Arguments["target"] != "Repo.save@5" {
		t.Fatalf("startLine hint: %+v", te)
	}
	var rd jmcp.FileReadResult
	e.ok(te.Retry.Tool, te.Retry.Arguments, &rd)
	if rd.Range.StartLine != 5 {
		t.Fatalf("read retry: %+v", rd)
	}
	code := "    def save(self, u):\n        return 3\n"
	te = e.fail("file_edit", map[string]any{"file": "repo.py", "target": "Repo.save@6", "code": code}, jmcp.CodeAmbiguousMatch)
	if e.read("repo.py") != src || te.Retry == nil || te.Retry.Arguments["target"] != "Repo.save@5" || te.Candidates[0].Line != 5 {
		t.Fatalf("edit hint: %+v", te)
	}
	e.ok(te.Retry.Tool, te.Retry.Arguments, nil)
	if got := e.read("repo.py"); got != strings.Replace(src, "return 2", "return 3", 1) {
		t.Fatalf("edit retry wrote %q", got)
	}
}
