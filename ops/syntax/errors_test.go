package syntax_test

import (
	"testing"

	"github.com/journalfs/journal/ops/syntax"
)

func TestSyntaxErrors(t *testing.T) {
	tests := []struct {
		name     string
		src      string
		wantLine int
		wantOK   bool
	}{
		{"a.go", "package x\n\nfunc f() {\n\treturn 1 +\n}\n", 4, true},
		{"a.py", "def f(:\n    pass\n", 1, true},
		{"a.rs", "fn main() {\n    let x = ;\n}\n", 2, true},
		{"a.clj", "(defn f [x]\n  (inc x)\n", 1, true},
		{"a.json", "{\n  \"a\": 1,\n  \"b\": \n}\n", 4, true},
		{"a.js", "const a = 1;\r\nfunction f( {\r\n}\r\n", 2, true},
		{"a.go", "package x\n", 0, true},
		{"a.json", "{\"ok\": true}", 0, true},
		{"notes.txt", "whatever", 0, false},
	}
	for _, tt := range tests {
		errs, ok, err := syntax.SyntaxErrors(tt.name, []byte(tt.src))
		if err != nil || ok != tt.wantOK {
			t.Errorf("%s: ok=%v err=%v", tt.name, ok, err)
			continue
		}
		if tt.wantLine == 0 {
			if len(errs) != 0 {
				t.Errorf("%s: unexpected errors %+v", tt.name, errs)
			}
			continue
		}
		if len(errs) == 0 || errs[0].Line != tt.wantLine || errs[0].Message == "" {
			t.Errorf("%s: errors %+v, want first on line %d", tt.name, errs, tt.wantLine)
		}
	}
}

func TestSyntaxErrors_Fixture(t *testing.T) {
	name, src := fixture(t, "errors/broken.go")
	errs, _, _ := syntax.SyntaxErrors(name, src)
	if len(errs) == 0 {
		t.Fatal("no errors in errors/broken.go")
	}
	o, _ := syntax.Outline(name, src)
	if !o.HasErrors {
		t.Error("outline of a broken file should say HasErrors")
	}
	if errs[0].Line != 4 || errs[0].Column < 0 || errs[0].Message == "" {
		t.Errorf("bad error %+v", errs[0])
	}
}
