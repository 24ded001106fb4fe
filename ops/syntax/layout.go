package syntax

import (
	"path/filepath"
	"strings"
)

// Layout-sensitive files: where indentation is syntax, so that an edit
// whose indentation was translated (ops/match) can leave a file that no
// longer parses while every character but the leading whitespace is right.

// LayoutParses reports whether src parses as a file whose layout is syntax:
// Python and YAML through their tree-sitter grammars, Makefiles by the
// rule GNU make enforces on layout (a recipe line starts with a tab).
// known is false for other kinds of file, where nothing is said.
func LayoutParses(name string, src []byte) (ok, known bool) {
	if isMakefile(name) {
		return makeLayoutOK(string(src)), true
	}
	switch Detect(name, src) {
	case "python", "yaml":
		errs, known, err := SyntaxErrors(name, src)
		if err != nil || !known {
			return false, false
		}
		return len(errs) == 0, true
	}
	return false, false
}

// isMakefile reports a makefile by its name (Makefile, GNUmakefile,
// makefile, *.mk, *.make).
func isMakefile(name string) bool {
	base := strings.ToLower(filepath.Base(filepath.ToSlash(name)))
	switch base {
	case "makefile", "gnumakefile":
		return true
	}
	ext := filepath.Ext(base)
	return ext == ".mk" || ext == ".make"
}

// makeDirectives are the words that may start an indented non-recipe line.
var makeDirectives = []string{"ifeq", "ifneq", "ifdef", "ifndef", "else", "endif", "include", "-include", "sinclude",
	"export", "unexport", "override", "vpath", "define", "endef", "private", "undefine"}

// makeLayoutOK checks what GNU make refuses as "missing separator" or
// "recipe commences before first target": after a rule line, a line
// indented with spaces that is neither an assignment nor a directive; a
// tab-indented line before any rule. Continuation lines and define blocks
// are skipped.
func makeLayoutOK(src string) bool {
	sawRule, inRule, cont, inDefine := false, false, false, false
	for _, l := range strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n") {
		wasCont := cont
		cont = strings.HasSuffix(strings.TrimRight(l, " \t"), "\\")
		t := strings.TrimLeft(l, " \t")
		switch {
		case wasCont:
			continue
		case inDefine:
			inDefine = !strings.HasPrefix(t, "endef")
			continue
		case t == "" || strings.HasPrefix(t, "#"):
			continue
		case l[0] == '\t':
			if !sawRule {
				return false
			}
			continue
		}
		word := strings.Fields(t)[0]
		directive := false
		for _, d := range makeDirectives {
			if word == d {
				directive = true
			}
		}
		if word == "define" {
			inDefine = true
		}
		assign := isMakeAssignment(t)
		if l[0] == ' ' && inRule && !assign && !directive {
			return false
		}
		if !directive {
			inRule = !assign && strings.Contains(t, ":")
			sawRule = sawRule || inRule
		}
	}
	return true
}

// isMakeAssignment reports a variable assignment (=, :=, ::=, ?=, +=, !=)
// rather than a rule (target: prerequisites).
func isMakeAssignment(t string) bool {
	eq := strings.IndexByte(t, '=')
	if eq < 0 {
		return false
	}
	colon := strings.IndexByte(t, ':')
	return colon < 0 || eq < colon || strings.HasPrefix(t[colon:], ":=") || strings.HasPrefix(t[colon:], "::=")
}
