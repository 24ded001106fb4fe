package lsp_test

import (
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/journalfs/journal/replay/lsp"
)

// tsProject has a class Shape used across imports: a named import, an
// import that extends it, and a namespace import. main.ts has multi-byte
// text before a use on the same line.
func tsProject(tb testing.TB) string {
	return workspace(tb, map[string]string{
		"tsconfig.json": `{"compilerOptions": {"strict": true, "target": "ES2020", "module": "ESNext", "moduleResolution": "Bundler", "noEmit": true}, "include": ["src"]}` + "\n",
		"src/shape.ts":  "export class Shape {\n  constructor(public name: string) {}\n  area(): number {\n    return 0;\n  }\n}\n",
		"src/circle.ts": "import { Shape } from \"./shape\";\n\nexport class Circle extends Shape {\n  constructor(public r: number) {\n    super(\"circle\");\n  }\n}\n",
		"src/main.ts":   "import { Shape } from \"./shape\";\nimport { Circle } from \"./circle\";\n\nexport const all: Shape[] = [/* 😀é */ new Shape(\"x\"), new Circle(1)];\n",
		"src/util.ts":   "import * as shapes from \"./shape\";\n\nexport function make(): shapes.Shape {\n  return new shapes.Shape(\"x\");\n}\n",
	})
}

// tsc type-checks the project in dir.
func tsc(tb testing.TB, dir string) {
	tb.Helper()
	bin, err := lsp.LookPath("tsc")
	if err != nil {
		tb.Fatalf("tsc not found: run scripts/setup-lsp.sh: %v", err)
	}
	cmd := exec.Command(bin, "--noEmit", "-p", dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("tsc: %v\n%s", err, out)
	}
}

func TestManager_Rename_TypeScript(t *testing.T) {
	need(t, "typescript-language-server")
	dir := tsProject(t)
	after := renameAt(t, manager(t, dir), dir, "src/shape.ts", "class Shape", len("class "), "Figure",
		"src/circle.ts", "src/main.ts", "src/shape.ts", "src/util.ts")
	contains(t, after, map[string]string{
		"src/main.ts":   "import { Figure } from \"./shape\";\nimport { Circle } from \"./circle\";\n\nexport const all: Figure[] = [/* 😀é */ new Figure(\"x\"), new Circle(1)];\n",
		"src/circle.ts": "import { Figure } from \"./shape\";\n\nexport class Circle extends Figure {",
		"src/util.ts":   "export function make(): shapes.Figure {\n  return new shapes.Figure(\"x\");",
	})
	tsc(t, dir)
}

func TestManager_Diagnostics_TypeScriptOverlayBreaksCaller(t *testing.T) {
	need(t, "typescript-language-server")
	dir := tsProject(t)
	m := manager(t, dir)
	ctx := testCtx(t)
	def, caller := filepath.Join(dir, "src/shape.ts"), filepath.Join(dir, "src/main.ts")
	// typescript-language-server diagnoses open files only: asking for
	// main.ts opens it.
	before, err := m.Diagnostics(ctx, def, caller)
	if err != nil {
		t.Fatal(err)
	}
	if n := count(t, before); n != 0 {
		t.Fatalf("clean project has %d diagnostics: %v", n, before)
	}
	broken := strings.Replace(read(t, def), "constructor(public name: string)", "constructor(public name: string, public sides: number)", 1)
	if err := m.Overlay(ctx, def, []byte(broken)); err != nil {
		t.Fatal(err)
	}
	after, err := m.Diagnostics(ctx, def)
	if err != nil {
		t.Fatal(err)
	}
	// circle.ts and util.ts break too, but they are not open.
	want := map[string][]string{"src/main.ts": {"4:42 Expected 2 arguments, but got 1."}}
	if got := summary(t, dir, after); !reflect.DeepEqual(got, want) {
		t.Fatalf("diagnostics after breaking overlay:\n got %q\nwant %q", got, want)
	}
}

func TestManager_QuickFixes_TypeScriptMissingImport(t *testing.T) {
	need(t, "typescript-language-server")
	dir := tsProject(t)
	m := manager(t, dir)
	ctx := testCtx(t)
	file := filepath.Join(dir, "src/extra.ts")
	writeFile(t, file, "export const c = new Circle(2);\n")
	m.Changed(ctx, file)
	d := oneDiagnostic(t, m, file, "Cannot find name 'Circle'.")
	if d.Code != "2304" || d.Line != 1 || d.Col != 21 || d.EndCol != 27 {
		t.Fatalf("diagnostic %+v, want code 2304 at 1:21-27", d)
	}
	fixes, err := m.QuickFixes(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	if len(fixes) == 0 || !fixes[0].Preferred || fixes[0].Title != `Add import from "./circle"` || fixes[0].Kind != "quickfix" {
		t.Fatalf("fixes %+v, want the preferred Add import from \"./circle\" first", fixes)
	}
	after := apply(t, fixes[0].Edits)
	if got, want := after[file], "import { Circle } from \"./circle\";\n\nexport const c = new Circle(2);\n"; got != want {
		t.Fatalf("after the fix:\n%s\nwant:\n%s", got, want)
	}
	tsc(t, dir)
	cleanAfterChange(t, m, file)
}
