package mcp_test

import (
	"fmt"
	"testing"
)

// Rename-propagating edits through file_edit with a real language server:
// the first call (server start, workspace load, rename, diagnostics before
// and after) and warm calls. Seed 000's budget: < 3 s typical.
//
//	go test ./mcp -run '^$' -bench LSP -benchtime 5x

type lspCase struct {
	name  string
	files []string
	file  string
	code  func(name string) string // the declaration renamed to name
	names [2]string
}

var lspCases = []lspCase{
	{"go", goWorkspace(), "lib/lib.go",
		func(n string) string {
			return fmt.Sprintf("// %s says hello.\nfunc %s(name string) string {\n\treturn \"hello \" + name\n}", n, n)
		}, [2]string{"Greet", "Welcome"}},
	{"typescript", []string{
		"tsconfig.json", `{"compilerOptions":{"strict":true,"target":"es2020","module":"commonjs","noEmit":true},"include":["src"]}`,
		"src/user.ts", "export class UserService {\n  find(id: number): string {\n    return `user ${id}`;\n  }\n}\n",
		"src/app.ts", "import { UserService } from \"./user\";\n\nexport const svc = new UserService();\n",
		"src/admin.ts", "import { UserService } from \"./user\";\n\nexport function admin(s: UserService): string {\n  return s.find(0);\n}\n"},
		"src/user.ts",
		func(n string) string {
			return fmt.Sprintf("export class %s {\n  find(id: number): string {\n    return `user ${id}`;\n  }\n}", n)
		}, [2]string{"UserService", "AuthService"}},
	{"python", []string{
		"pkg/__init__.py", "",
		"pkg/util.py", "def compute(x):\n    return x * 2\n",
		"main.py", "from pkg.util import compute\n\nprint(compute(3))\n",
		"other.py", "import pkg.util\n\nvalue = pkg.util.compute(1)\n"},
		"pkg/util.py",
		func(n string) string { return fmt.Sprintf("def %s(x):\n    return x * 2", n) },
		[2]string{"compute", "double"}},
}

func BenchmarkLSP_RenameEdit_FirstCall(b *testing.B) {
	for _, lc := range lspCases {
		b.Run(lc.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				e := lspEnv(b, lc.files...)
				b.StartTimer()
				renameOnce(b, e, lc, 0)
			}
		})
	}
}

func BenchmarkLSP_RenameEdit_Warm(b *testing.B) {
	for _, lc := range lspCases {
		b.Run(lc.name, func(b *testing.B) {
			e := lspEnv(b, lc.files...)
			renameOnce(b, e, lc, 0)
			b.ResetTimer()
			for i := 1; i <= b.N; i++ {
				renameOnce(b, e, lc, i)
			}
		})
	}
}

// renameOnce renames the symbol from names[i%2] to names[(i+1)%2], checking
// that the rename reached the other files.
func renameOnce(b *testing.B, e *env, lc lspCase, i int) {
	from, to := lc.names[i%2], lc.names[(i+1)%2]
	var out struct {
		Propagated []struct {
			FilesAffected []string `json:"filesAffected"`
		} `json:"propagated"`
	}
	e.ok("file_edit", map[string]any{"file": lc.file, "target": from, "code": lc.code(to)}, &out)
	if len(out.Propagated) != 1 || len(out.Propagated[0].FilesAffected) < 2 {
		b.Fatalf("%s: rename %s → %s not propagated: %+v", lc.name, from, to, out)
	}
}
