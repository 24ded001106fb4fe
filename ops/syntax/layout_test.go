package syntax_test

import (
	"testing"

	"github.com/journalfs/journal/ops/syntax"
)

func TestLayoutParses(t *testing.T) {
	tests := []struct {
		name, src string
		ok, known bool
	}{
		{"a.py", "def f():\n    if x:\n        return 1\n    return 0\n", true, true},
		{"a.py", "def f():\n    if x:\n    return 1\n", false, true},
		{"a.py", "class A:\n    @cache\ndef f(self):\n        return 1\n", false, true},
		{"d.yaml", "spec:\n  replicas: 2\n  image: web\n", true, true},
		{"d.yaml", "spec:\n  replicas: 2\n image: web\n", false, true},
		{"Makefile", "CC = gcc\n\nbuild: dep\n\tgo build ./...\n\ttouch x\n\nclean:\n\trm -f x\n", true, true},
		{"Makefile", "build:\n    go build ./...\n", false, true},
		{"Makefile", "\tgo build\nbuild:\n", false, true},
		{"rules.mk", "X := 1\nifeq ($(X),1)\n  Y = 2\nendif\nall:\n\techo $(Y) \\\n    done\n", true, true},
		{"a.go", "package a\n", false, false},
	}
	for _, tt := range tests {
		ok, known := syntax.LayoutParses(tt.name, []byte(tt.src))
		if ok != tt.ok || known != tt.known {
			t.Errorf("%s %q: ok %v known %v, want %v %v", tt.name, tt.src, ok, known, tt.ok, tt.known)
		}
	}
}
