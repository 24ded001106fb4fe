package mcp_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	jmcp "github.com/journalfs/journal/mcp"
	"github.com/journalfs/journal/replay/lsp"
)

// These tests drive real language servers (gopls, pyright,
// typescript-language-server) through the MCP tools. scripts/setup-lsp.sh
// installs them; a missing server fails the test, it is never skipped.

// lspEnv is newEnv with a language-server manager over the workspace. A
// consultation may take two minutes, not serve's 15 s: on a loaded machine a
// slow server must not turn into an edit made without it.
func lspEnv(t testing.TB, files ...string) *env {
	t.Helper()
	lsptest(t)
	e := newEnvWith(t, func(dir string) jmcp.Options {
		m := lsp.NewManager(lsp.DefaultConfig(), []string{dir})
		t.Cleanup(func() { m.Close() })
		return jmcp.Options{LSP: m, LSPTimeout: 2 * time.Minute}
	}, files...)
	return e
}

// lsptest puts the language servers on PATH, failing loudly when one is missing.
func lsptest(t testing.TB) {
	t.Helper()
	_, here, _, _ := runtime.Caller(0)
	repo := filepath.Dir(filepath.Dir(here))
	dirs := []string{filepath.Join(repo, "testdata", "lsp", "node_modules", ".bin")}
	if p := os.Getenv("JOURNAL_LSP_PATH"); p != "" {
		dirs = append(filepath.SplitList(p), dirs...)
	}
	if gobin, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		dirs = append(dirs, filepath.Join(strings.TrimSpace(string(gobin)), "bin"))
	}
	t.Setenv("PATH", strings.Join(append(dirs, os.Getenv("PATH")), string(os.PathListSeparator)))
	for _, bin := range []string{"gopls", "pyright-langserver", "typescript-language-server"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Fatalf("%s is not installed: run scripts/setup-lsp.sh (%v)", bin, err)
		}
	}
}

const goMod = "module example.com/w\n\ngo 1.22\n"

// goWorkspace is a module with lib.Greet called from three packages.
func goWorkspace() []string {
	files := []string{"go.mod", goMod,
		"lib/lib.go", "package lib\n\n// Greet says hello.\nfunc Greet(name string) string {\n\treturn \"hello \" + name\n}\n\nfunc twice(name string) string { return Greet(name) + Greet(name) }\n"}
	for _, p := range []string{"a", "b", "c"} {
		files = append(files, p+"/"+p+".go", fmt.Sprintf("package %s\n\nimport \"example.com/w/lib\"\n\n// Run greets.\nfunc Run() string { return lib.Greet(%q) }\n", p, p))
	}
	return files
}

func goBuild(t *testing.T, dir string) error {
	t.Helper()
	cmd := exec.Command("go", "build", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("go build: %v\n%s", err, out)
	}
	return nil
}

func TestLSP_GoRenamePropagatesInOneEvent(t *testing.T) {
	e := lspEnv(t, goWorkspace()...)
	before := e.snapshot()
	var out jmcp.FileEditResult
	txt := e.ok("file_edit", map[string]any{"file": "lib/lib.go", "target": "Greet",
		"code": "// Welcome says hello.\nfunc Welcome(name string) string {\n\treturn \"welcome \" + name\n}"}, &out)
	if len(out.Propagated) != 1 {
		t.Fatalf("want one propagation, got %+v\n%s", out.Propagated, txt)
	}
	pr := out.Propagated[0]
	if strings.Join(pr.FilesAffected, ",") != "a/a.go,b/b.go,c/c.go" || pr.Symbol != "Greet" || pr.NewName != "Welcome" {
		t.Fatalf("propagation: %+v", pr)
	}
	for _, p := range []string{"a/a.go", "b/b.go", "c/c.go"} {
		if got := e.read(p); !strings.Contains(got, "lib.Welcome(") || strings.Contains(got, "Greet") {
			t.Fatalf("%s not renamed:\n%s", p, got)
		}
	}
	lib := e.read("lib/lib.go")
	if !strings.Contains(lib, "return Welcome(name) + Welcome(name)") || !strings.Contains(lib, `"welcome "`) {
		t.Fatalf("lib.go: the agent's code and the call sites outside it:\n%s", lib)
	}
	if len(out.RemainingErrors) != 0 {
		t.Fatalf("remaining errors: %+v", out.RemainingErrors)
	}
	if err := goBuild(t, e.dir); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(txt, "Auto-Propagated") {
		t.Fatalf("text does not report the propagation:\n%s", txt)
	}
	// One event holds all four files, and one revert restores them all.
	var log jmcp.LogOut
	e.ok("journal_log", map[string]any{"limit": 5}, &log)
	if len(log.Events) != 1 || len(log.Events[0].Files) != 4 || log.Events[0].Seq != out.Event {
		t.Fatalf("want one event with 4 files, got %+v", log.Events)
	}
	e.ok("revert_edit", map[string]any{"absolute_file_path": "lib/lib.go", "backup_id": fmt.Sprint(out.Event)}, nil)
	if !sameFiles(before, e.snapshot()) {
		t.Fatalf("revert did not restore every file")
	}
	if err := goBuild(t, e.dir); err != nil {
		t.Fatal(err)
	}
}

func TestLSP_GoBreakingEditReportsExactlyTheNewErrors(t *testing.T) {
	files := append(goWorkspace(),
		// A pre-existing error the edit has nothing to do with: not reported.
		"d/d.go", "package d\n\nfunc Broken() int { return \"x\" }\n")
	e := lspEnv(t, files...)
	var out jmcp.FileEditResult
	txt := e.ok("file_edit", map[string]any{"file": "lib/lib.go", "target": "Greet",
		"code": "// Greet says hello.\nfunc Greet(name, greeting string) string {\n\treturn greeting + \" \" + name\n}"}, &out)
	var fresh []jmcp.Diagnostic
	for _, d := range out.RemainingErrors {
		if d.New && d.Source != "tree-sitter" {
			fresh = append(fresh, d)
		}
	}
	got := map[string]int{}
	for _, d := range fresh {
		got[d.File]++
		if d.Severity != "error" || !strings.Contains(d.Message, "not enough arguments") {
			t.Errorf("unexpected diagnostic %+v", d)
		}
	}
	// The three callers and twice() in lib.go (two calls on one line).
	if got["a/a.go"] != 1 || got["b/b.go"] != 1 || got["c/c.go"] != 1 || got["lib/lib.go"] != 2 || got["d/d.go"] != 0 || len(fresh) != 5 {
		t.Fatalf("new errors by file %v:\n%s", got, txt)
	}
	if !strings.Contains(txt, "Partial Success") {
		t.Fatalf("text should say errors remain:\n%s", txt)
	}
}

func TestLSP_GoAutoFixAddsMissingImport(t *testing.T) {
	e := lspEnv(t, goWorkspace()...)
	var out jmcp.FileEditResult
	txt := e.ok("file_edit", map[string]any{"file": "lib/lib.go", "target": "Greet", "autoFix": true,
		"code": "// Greet says hello.\nfunc Greet(name string) string {\n\treturn \"hello \" + strings.ToUpper(name)\n}"}, &out)
	if len(out.AutoFixed) == 0 {
		t.Fatalf("no quick fix applied:\n%s", txt)
	}
	if lib := e.read("lib/lib.go"); !strings.Contains(lib, `import "strings"`) && !strings.Contains(lib, "\"strings\"\n") {
		t.Fatalf("import not added:\n%s", lib)
	}
	for _, d := range out.RemainingErrors {
		if d.New {
			t.Fatalf("an error remains after the fix: %+v", d)
		}
	}
	if err := goBuild(t, e.dir); err != nil {
		t.Fatal(err)
	}
	var log jmcp.LogOut
	e.ok("journal_log", map[string]any{"limit": 5}, &log)
	if len(log.Events) != 1 {
		t.Fatalf("the fix is not in the edit's event: %+v", log.Events)
	}
}

func TestLSP_TypeScriptClassRenameAcrossImports(t *testing.T) {
	e := lspEnv(t,
		"tsconfig.json", `{"compilerOptions":{"strict":true,"target":"es2020","module":"commonjs","noEmit":true},"include":["src"]}`,
		"src/user.ts", "export class UserService {\n  find(id: number): string {\n    return `user ${id}`;\n  }\n}\n",
		"src/app.ts", "import { UserService } from \"./user\";\n\nexport const svc = new UserService();\nconsole.log(svc.find(1));\n",
		"src/admin.ts", "import { UserService } from \"./user\";\n\nexport function admin(s: UserService): string {\n  return s.find(0);\n}\n")
	before := e.snapshot()
	var out jmcp.FileEditResult
	txt := e.ok("file_edit", map[string]any{"file": "src/user.ts", "target": "UserService",
		"code": "export class AuthService {\n  find(id: number): string {\n    return `auth ${id}`;\n  }\n}"}, &out)
	if len(out.Propagated) != 1 || strings.Join(out.Propagated[0].FilesAffected, ",") != "src/admin.ts,src/app.ts" {
		t.Fatalf("propagation %+v\n%s", out.Propagated, txt)
	}
	for _, p := range []string{"src/app.ts", "src/admin.ts"} {
		got := e.read(p)
		if strings.Contains(got, "UserService") || !strings.Contains(got, "import { AuthService } from \"./user\"") {
			t.Fatalf("%s:\n%s", p, got)
		}
	}
	if len(newOnlyLSP(out.RemainingErrors)) != 0 {
		t.Fatalf("new errors: %+v", out.RemainingErrors)
	}
	run(t, e.dir, "tsc", "--noEmit", "-p", ".")
	oneEvent(t, e, out.Event, 3)
	e.ok("revert_edit", map[string]any{"absolute_file_path": "src/user.ts", "backup_id": fmt.Sprint(out.Event)}, nil)
	if !sameFiles(before, e.snapshot()) {
		t.Fatal("revert did not restore every file")
	}
}

func TestLSP_PythonFunctionRename(t *testing.T) {
	e := lspEnv(t,
		"pkg/__init__.py", "",
		"pkg/util.py", "def compute(x):\n    return x * 2\n\n\ndef twice(x):\n    return compute(compute(x))\n",
		"main.py", "from pkg.util import compute\n\nprint(compute(3))\n",
		"other.py", "import pkg.util\n\nvalue = pkg.util.compute(1)\n")
	var out jmcp.FileEditResult
	txt := e.ok("file_edit", map[string]any{"file": "pkg/util.py", "target": "compute",
		"code": "def double(x):\n    return x + x"}, &out)
	if len(out.Propagated) != 1 || strings.Join(out.Propagated[0].FilesAffected, ",") != "main.py,other.py" {
		t.Fatalf("propagation %+v\n%s", out.Propagated, txt)
	}
	if got := e.read("main.py"); got != "from pkg.util import double\n\nprint(double(3))\n" {
		t.Fatalf("main.py:\n%s", got)
	}
	if got := e.read("other.py"); got != "import pkg.util\n\nvalue = pkg.util.double(1)\n" {
		t.Fatalf("other.py:\n%s", got)
	}
	if got := e.read("pkg/util.py"); !strings.Contains(got, "return double(double(x))") {
		t.Fatalf("util.py:\n%s", got)
	}
	if got := run(t, e.dir, "python3", "main.py"); got != "6\n" {
		t.Fatalf("python3 main.py: %q", got)
	}
	oneEvent(t, e, out.Event, 3)
	before := e.snapshot()
	e.ok("revert_edit", map[string]any{"absolute_file_path": "pkg/util.py", "backup_id": fmt.Sprint(out.Event)}, nil)
	if got := e.read("main.py"); got != "from pkg.util import compute\n\nprint(compute(3))\n" || sameFiles(before, e.snapshot()) {
		t.Fatalf("revert: main.py:\n%s", got)
	}
}

// run runs a command in dir, failing the test on an error; it returns stdout.
func run(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("%s %s: %v\n%s%s", name, strings.Join(args, " "), err, out, stderr)
	}
	return string(out)
}

// oneEvent checks that the journal's newest event is seq and touched n files.
func oneEvent(t *testing.T, e *env, seq uint64, n int) {
	t.Helper()
	var log jmcp.LogOut
	e.ok("journal_log", map[string]any{"limit": 5}, &log)
	if len(log.Events) == 0 || log.Events[0].Seq != seq || len(log.Events[0].Files) != n {
		t.Fatalf("want event %d with %d files, got %+v", seq, n, log.Events)
	}
}

func TestLSP_RenameSymbolTool(t *testing.T) {
	e := lspEnv(t, goWorkspace()...)
	before := e.snapshot()
	var dry jmcp.RenameSymbolResult
	txt := e.ok("rename_symbol", map[string]any{"file": "lib/lib.go", "target": "Greet", "newName": "Hello", "dryRun": true}, &dry)
	if !dry.DryRun || len(dry.FilesChanged) != 4 || !strings.Contains(dry.Diff, "+func Hello(") || !sameFiles(before, e.snapshot()) {
		t.Fatalf("dry run: %+v\n%s", dry, txt)
	}
	// 7 edits: the declaration, its doc comment, two calls in twice, three callers.
	var out jmcp.RenameSymbolResult
	e.ok("rename_symbol", map[string]any{"file": "lib/lib.go", "target": "Greet", "newName": "Hello"}, &out)
	if len(out.FilesChanged) != 4 || out.TotalEdits != 7 || out.Event == 0 || len(out.Versions) != 4 {
		t.Fatalf("rename: %+v", out)
	}
	if err := goBuild(t, e.dir); err != nil {
		t.Fatal(err)
	}
	e.fail("rename_symbol", map[string]any{"file": "lib/lib.go", "target": "Nope", "newName": "X"}, jmcp.CodeNoMatch)
	e.fail("rename_symbol", map[string]any{"file": "lib/lib.go", "target": "Hello", "newName": "a b"}, jmcp.CodeInvalidInput)
	// undo takes back the whole rename.
	e.ok("undo", map[string]any{}, nil)
	if !sameFiles(before, e.snapshot()) {
		t.Fatal("undo did not restore every file")
	}
}

func TestLSP_DiagnosticsTool(t *testing.T) {
	e := lspEnv(t, append(goWorkspace(), "d/d.go", "package d\n\nfunc Broken() int { return \"x\" }\n", "notes.txt", "hello\n")...)
	var one jmcp.DiagnosticsResult
	e.ok("diagnostics", map[string]any{"file": "d/d.go"}, &one)
	if one.Source != "language server" || len(one.Diagnostics) != 1 || one.Diagnostics[0].Line != 3 || one.Version == "" {
		t.Fatalf("file diagnostics: %+v", one)
	}
	var ws jmcp.DiagnosticsResult
	e.ok("diagnostics", map[string]any{}, &ws)
	if ws.FilesOpened != 5 || len(ws.Diagnostics) != 1 || ws.Diagnostics[0].File != "d/d.go" {
		t.Fatalf("workspace diagnostics: %+v", ws)
	}
	var plain jmcp.DiagnosticsResult
	e.ok("diagnostics", map[string]any{"file": "notes.txt"}, &plain)
	if plain.Source != "tree-sitter" || len(plain.Notes) == 0 {
		t.Fatalf("no-server diagnostics: %+v", plain)
	}
	e.fail("diagnostics", map[string]any{"severity": "fatal"}, jmcp.CodeInvalidInput)
}

func TestLSP_WithoutServerTheEditStillWorks(t *testing.T) {
	e := newEnv(t, jmcp.Options{}, goWorkspace()...)
	var out jmcp.FileEditResult
	e.ok("file_edit", map[string]any{"file": "lib/lib.go", "target": "Greet",
		"code": "// Welcome says hello.\nfunc Welcome(name string) string {\n\treturn \"welcome \" + name\n}"}, &out)
	if len(out.Propagated) != 0 || len(out.ImpactScope) != 1 || len(out.ImpactScope[0].Files) != 4 {
		t.Fatalf("want the tree-sitter impact scope: %+v", out)
	}
	if !strings.Contains(strings.Join(out.Notes, " "), "no language server is configured") {
		t.Fatalf("notes do not say why: %v", out.Notes)
	}
	e.fail("rename_symbol", map[string]any{"file": "lib/lib.go", "target": "twice", "newName": "thrice"}, jmcp.CodeNoLanguageServer)
}

func newOnlyLSP(ds []jmcp.Diagnostic) []jmcp.Diagnostic {
	var out []jmcp.Diagnostic
	for _, d := range ds {
		if d.New {
			out = append(out, d)
		}
	}
	return out
}

func TestLSP_TypeScriptAutoFixAppliesThePreferredImport(t *testing.T) {
	e := lspEnv(t,
		"tsconfig.json", `{"compilerOptions":{"strict":true,"target":"es2020","module":"commonjs","noEmit":true},"include":["src"]}`,
		"src/circle.ts", "export class Circle {\n  constructor(public r: number) {}\n}\n",
		"src/main.ts", "export function area(r: number): number {\n  return 3.14 * r * r;\n}\n")
	var out jmcp.FileEditResult
	txt := e.ok("file_edit", map[string]any{"file": "src/main.ts", "target": "area", "autoFix": true,
		"code": "export function area(r: number): number {\n  const c = new Circle(r);\n  return 3.14 * c.r * c.r;\n}"}, &out)
	if len(out.AutoFixed) != 1 || out.AutoFixed[0].File != "src/main.ts" || !strings.Contains(out.AutoFixed[0].Fix, "import") {
		t.Fatalf("autoFixed %+v\n%s", out.AutoFixed, txt)
	}
	if got := e.read("src/main.ts"); !strings.HasPrefix(got, "import { Circle } from \"./circle\";\n") {
		t.Fatalf("main.ts:\n%s", got)
	}
	if n := len(newOnlyLSP(out.RemainingErrors)); n != 0 {
		t.Fatalf("errors remain: %+v", out.RemainingErrors)
	}
	// Without autoFix the same edit reports the error and fixes nothing.
	e2 := lspEnv(t,
		"tsconfig.json", `{"compilerOptions":{"strict":true,"target":"es2020","module":"commonjs","noEmit":true},"include":["src"]}`,
		"src/circle.ts", "export class Circle {\n  constructor(public r: number) {}\n}\n",
		"src/main.ts", "export function area(r: number): number {\n  return 3.14 * r * r;\n}\n")
	var plain jmcp.FileEditResult
	e2.ok("file_edit", map[string]any{"file": "src/main.ts", "target": "area",
		"code": "export function area(r: number): number {\n  const c = new Circle(r);\n  return 3.14 * c.r * c.r;\n}"}, &plain)
	if fresh := newOnlyLSP(plain.RemainingErrors); len(plain.AutoFixed) != 0 || len(fresh) != 1 || !strings.Contains(fresh[0].Message, "Cannot find name 'Circle'") {
		t.Fatalf("without autoFix: %+v", plain)
	}
}

func TestLSP_DeleteReportsReferences(t *testing.T) {
	e := lspEnv(t, goWorkspace()...)
	var out jmcp.FileEditResult
	txt := e.ok("file_edit", map[string]any{"file": "lib/lib.go", "target": "twice", "code": ""}, &out)
	if len(out.ImpactScope) != 1 || out.ImpactScope[0].Intent != "delete" || len(out.ImpactScope[0].Files) != 0 {
		t.Fatalf("an unreferenced delete: %+v\n%s", out.ImpactScope, txt)
	}
	txt = e.ok("file_edit", map[string]any{"file": "lib/lib.go", "target": "Greet", "code": ""}, &out)
	if len(out.ImpactScope) != 1 {
		t.Fatalf("impact scope %+v\n%s", out.ImpactScope, txt)
	}
	var files []string
	for _, f := range out.ImpactScope[0].Files {
		files = append(files, fmt.Sprintf("%s:%v", f.File, f.Lines))
	}
	if strings.Join(files, " ") != "a/a.go:[6] b/b.go:[6] c/c.go:[6]" {
		t.Fatalf("references %v\n%s", files, txt)
	}
	// The callers now fail to compile, and the result says so.
	if n := len(newOnlyLSP(out.RemainingErrors)); n != 3 {
		t.Fatalf("want 3 new errors, got %+v", out.RemainingErrors)
	}
}

func TestLSP_FormToolPropagatesRename(t *testing.T) {
	e := lspEnv(t, goWorkspace()...)
	var out jmcp.FormResult
	txt := e.ok("replace_top_level_form", map[string]any{"filePath": "lib/lib.go", "line": 4, "targetLine": "func Greet(name string) string {",
		"newForm": "// Salute says hello.\nfunc Salute(name string) string {\n\treturn \"hello \" + name\n}"}, &out)
	if len(out.Propagated) != 1 || len(out.Propagated[0].FilesAffected) != 3 || out.NewDiagnostics != 0 {
		t.Fatalf("form edit: %+v\n%s", out, txt)
	}
	if err := goBuild(t, e.dir); err != nil {
		t.Fatal(err)
	}
}

func TestLSP_DryRunWritesNothingAndResetsTheServer(t *testing.T) {
	e := lspEnv(t, goWorkspace()...)
	before := e.snapshot()
	var out jmcp.FileEditResult
	e.ok("file_edit", map[string]any{"file": "lib/lib.go", "target": "Greet", "dryRun": true,
		"code": "// Welcome says hello.\nfunc Welcome(name string) string {\n\treturn \"welcome \" + name\n}"}, &out)
	if !out.DryRun || len(out.Propagated) != 1 || !strings.Contains(out.Diff, "+func Run() string { return lib.Welcome(\"a\") }") || !sameFiles(before, e.snapshot()) {
		t.Fatalf("dry run: %+v", out)
	}
	// The server saw the planned contents only as overlays: put back, its
	// diagnostics are those of the disk again.
	var d jmcp.DiagnosticsResult
	e.ok("diagnostics", map[string]any{}, &d)
	if len(d.Diagnostics) != 0 {
		t.Fatalf("diagnostics after a dry run: %+v", d.Diagnostics)
	}
}

func TestLSP_OutsideChangeIsSeenBeforeTheEdit(t *testing.T) {
	e := lspEnv(t, goWorkspace()...)
	e.ok("diagnostics", map[string]any{}, nil) // the server has every file open
	// A caller changes behind the server's back; the rename must still reach it.
	write(t, e.dir, "a/a.go", "package a\n\nimport \"example.com/w/lib\"\n\n// Run greets twice.\nfunc Run() string { return lib.Greet(\"a\") + lib.Greet(\"aa\") }\n")
	var out jmcp.FileEditResult
	e.ok("file_edit", map[string]any{"file": "lib/lib.go", "target": "Greet",
		"code": "// Welcome says hello.\nfunc Welcome(name string) string {\n\treturn \"welcome \" + name\n}"}, &out)
	if got := e.read("a/a.go"); strings.Count(got, "lib.Welcome(") != 2 {
		t.Fatalf("a.go:\n%s", got)
	}
	if err := goBuild(t, e.dir); err != nil {
		t.Fatal(err)
	}
}

// TestLSP_HungServerDoesNotBlockTheEdit: a "language server" that never
// answers costs the edit LSPTimeout, after which it is written without the
// server and the result says why.
func TestLSP_HungServerDoesNotBlockTheEdit(t *testing.T) {
	e := newEnvWith(t, func(dir string) jmcp.Options {
		m := lsp.NewManager(lsp.Config{Servers: []lsp.ServerConfig{{Language: "go", Extensions: []string{".go"},
			Command: []string{"sleep", "60"}}}}, []string{dir})
		t.Cleanup(func() { m.Close() })
		return jmcp.Options{LSP: m, LSPTimeout: time.Second}
	}, goWorkspace()...)
	var out jmcp.FileEditResult
	e.ok("file_edit", map[string]any{"file": "lib/lib.go", "target": "Greet",
		"code": "// Welcome says hello.\nfunc Welcome(name string) string {\n\treturn \"welcome \" + name\n}"}, &out)
	if out.Event == 0 || !strings.Contains(strings.Join(out.Notes, " "), "did not answer within 1s") || len(out.ImpactScope) != 1 {
		t.Fatalf("edit with a hung server: %+v", out)
	}
	if !strings.Contains(e.read("lib/lib.go"), "func Welcome(") {
		t.Fatal("the edit was not written")
	}
}

func TestLSP_StatusListsTheServers(t *testing.T) {
	e := lspEnv(t, goWorkspace()...)
	var before jmcp.StatusOut
	e.ok("journal_status", map[string]any{}, &before)
	if len(before.LanguageServers) != 5 || before.LanguageServers[0].Language != "go" || !before.LanguageServers[0].Found || len(before.LanguageServers[0].Running) != 0 {
		t.Fatalf("before any call: %+v", before.LanguageServers)
	}
	e.ok("diagnostics", map[string]any{"file": "lib/lib.go"}, nil)
	var after jmcp.StatusOut
	txt := e.ok("journal_status", map[string]any{}, &after)
	if len(after.LanguageServers[0].Running) != 1 || !strings.Contains(txt, "language server go (.go): gopls — gopls") {
		t.Fatalf("after a call: %+v\n%s", after.LanguageServers, txt)
	}
	var off jmcp.StatusOut
	txt = newEnv(t, jmcp.Options{}).ok("journal_status", map[string]any{}, &off)
	if len(off.LanguageServers) != 0 || !strings.Contains(txt, "language servers: off") {
		t.Fatalf("without servers: %+v\n%s", off, txt)
	}
}

// TestLSP_RenameReportsTheWait: a rename with a progressToken on a cold
// gopls (seconds to load the workspace) reports the wait: progress every
// ~100 ms, increasing, naming the language server.
func TestLSP_RenameReportsTheWait(t *testing.T) {
	e := lspEnv(t, goWorkspace()...)
	pl := listen(e)
	res, err := callWith(ctx, e, "rename", "rename_symbol", map[string]any{"file": "lib/lib.go", "target": "Greet", "newName": "Hello"})
	if err != nil || res.IsError {
		t.Fatalf("rename: %v %s", err, text(res))
	}
	got := pl.all()
	prev := -1.0
	waits := 0
	for _, n := range got {
		if p := num(n["progress"]); p <= prev {
			t.Fatalf("progress %v after %v", n, prev)
		} else {
			prev = p
		}
		if strings.Contains(fmt.Sprint(n["message"]), "waiting for the language server") {
			waits++
		}
	}
	t.Logf("%d notifications, %d of the wait", len(got), waits)
	if waits < 3 {
		t.Fatalf("the wait on a cold gopls was not reported: %v", got)
	}
}
