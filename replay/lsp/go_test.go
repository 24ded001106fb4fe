package lsp_test

import (
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// goModule is a module whose function greet.Greet is used from three
// packages; a.go has multi-byte text before the call on the same line.
func goModule(tb testing.TB) string {
	return workspace(tb, map[string]string{
		"go.mod":         "module example.com/m\n\ngo 1.22\n",
		"greet/greet.go": "package greet\n\n// Greet returns a greeting.\nfunc Greet(name string) string { return \"hello \" + name }\n",
		"a/a.go":         "package a\n\nimport \"example.com/m/greet\"\n\n// A greets a.\nfunc A() string { s := \"😀é\"; return s + greet.Greet(\"a\") }\n",
		"b/b.go":         "package b\n\nimport \"example.com/m/greet\"\n\n// B greets b.\nfunc B() string { return greet.Greet(\"b\") }\n",
		"c/c.go":         "package c\n\nimport g \"example.com/m/greet\"\n\n// C greets twice.\nfunc C() string { return g.Greet(\"c\") + g.Greet(\"cc\") }\n",
	})
}

func TestManager_Rename_Go(t *testing.T) {
	need(t, "gopls")
	dir := goModule(t)
	m := manager(t, dir)
	ctx := testCtx(t)
	def := filepath.Join(dir, "greet/greet.go")
	line, col := pos(t, read(t, def), "func Greet", len("func "))
	edits, err := m.Rename(ctx, def, line, col, "Salute")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := paths(edits, dir), []string{"a/a.go", "b/b.go", "c/c.go", "greet/greet.go"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("renamed files %v, want %v", got, want)
	}
	after := apply(t, edits)
	if got := after[filepath.Join(dir, "a/a.go")]; !strings.Contains(got, `s := "😀é"; return s + greet.Salute("a")`) {
		t.Errorf("a.go after rename:\n%s", got)
	}
	if got := after[filepath.Join(dir, "c/c.go")]; !strings.Contains(got, `g.Salute("c") + g.Salute("cc")`) {
		t.Errorf("c.go after rename:\n%s", got)
	}
	cmd := exec.Command("go", "build", "./...")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build after rename: %v\n%s", err, out)
	}
}
