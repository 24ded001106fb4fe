package syntax_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/journalfs/journal/ops/syntax"
)

func formsString(forms []syntax.Form) string {
	var b strings.Builder
	for _, f := range forms {
		c := ""
		if f.InComment {
			c = "*"
		}
		fmt.Fprintf(&b, "%s%s:%s:%d-%d ", c, f.Kind, f.Name, f.StartLine, f.EndLine)
	}
	return strings.TrimSpace(b.String())
}

func TestTopLevelForms(t *testing.T) {
	tests := []struct {
		file string
		want string
	}{
		{"clojure/core.clj", "ns:demo.core:1-2 def:limit:5-5 defn:greet:7-10 defn-:helper:12-12 defmacro:unless:14-14 " +
			"defprotocol:Shape:16-17 defrecord:Circle:19-19 comment::21-24 *greet::22-22 *def:scratch:23-23 *defn:try-it:24-24"},
		{"go/service.go", "package_clause::1-1 import_declaration::3-3 const_declaration:MaxUsers:6-6 type_declaration:UserService:9-11 " +
			"type_declaration:Finder:14-16 method_declaration:findById:19-21 function_declaration:helper:23-23"},
		{"markdown/README.md", "heading:Title:1-16 heading:Appendix:18-18"},
	}
	for _, tt := range tests {
		name, src := fixture(t, tt.file)
		forms, ok, err := syntax.TopLevelForms(name, src)
		if err != nil || !ok {
			t.Fatalf("%s: ok=%v err=%v", tt.file, ok, err)
		}
		if got := formsString(forms); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.file, got, tt.want)
		}
	}
}

func TestFormAt_RichComment(t *testing.T) {
	name, src := fixture(t, "clojure/core.clj")
	forms, _, _ := syntax.TopLevelForms(name, src)
	tests := []struct {
		line      int
		want      string
		inComment bool
	}{
		{23, "scratch", true}, // inside (comment ...): its own form is top level
		{21, "", false},       // the (comment line itself
		{8, "greet", false},
	}
	for _, tt := range tests {
		f := syntax.FormAt(forms, tt.line)
		if f == nil || f.Name != tt.want || f.InComment != tt.inComment {
			t.Errorf("FormAt(%d) = %+v, want %q in comment %v", tt.line, f, tt.want, tt.inComment)
		}
	}
	if f := syntax.FormAt(forms, 3); f != nil {
		t.Errorf("FormAt(3) on a blank line = %+v, want nil", f)
	}
}
