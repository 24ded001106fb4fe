package syntax

import (
	"path/filepath"
	"slices"
	"strings"
)

// Layout-sensitive files: where indentation is syntax, so that an edit
// whose indentation was translated (ops/match) can leave a file that no
// longer parses while every character but the leading whitespace is right.

// LayoutParses reports whether src parses as a file whose layout is syntax:
// Python and YAML through their tree-sitter grammars (Python also for a
// compound statement's header with no deeper line after it, which the
// grammar lets through), Makefiles by the rule GNU make enforces on layout
// (a recipe line starts with a tab).
// known is false for other kinds of file, where nothing is said.
func LayoutParses(name string, src []byte) (ok, known bool) {
	if isMakefile(name) {
		return makeLayoutOK(string(src)), true
	}
	lang := Detect(name, src)
	switch lang {
	case "python", "yaml":
		errs, known, err := SyntaxErrors(name, src)
		if err != nil || !known {
			return false, false
		}
		return len(errs) == 0 && (lang != "python" || pyBlocksOK(string(src))), true
	}
	return false, false
}

// pyOpeners are the keywords of Python's compound statements.
var pyOpeners = []string{"if", "elif", "else", "for", "while", "def", "class", "try", "except", "finally", "with", "async", "match", "case"}

// pyBlocksOK checks what the tree-sitter grammar lets through: a compound
// statement's header (a line starting with one of pyOpeners and ending in
// ":") must be followed by a deeper line. Lines inside brackets or
// triple-quoted strings are not told apart, so only headers whose line
// holds no bracket left open and no triple quote are judged.
func pyBlocksOK(src string) bool {
	ls := strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n")
	if strings.Contains(src, `"""`) || strings.Contains(src, "'''") {
		return true
	}
	for i, l := range ls {
		t := strings.TrimSpace(l)
		if !strings.HasSuffix(t, ":") || strings.Count(t, "(") != strings.Count(t, ")") || strings.Count(t, "[") != strings.Count(t, "]") {
			continue
		}
		word := strings.FieldsFunc(t, func(r rune) bool { return r == ' ' || r == ':' || r == '(' })
		if len(word) == 0 || !slices.Contains(pyOpeners, word[0]) {
			continue
		}
		ind := len(l) - len(strings.TrimLeft(l, " \t"))
		for _, n := range ls[i+1:] {
			nt := strings.TrimSpace(n)
			if nt == "" || strings.HasPrefix(nt, "#") {
				continue
			}
			if len(n)-len(strings.TrimLeft(n, " \t")) <= ind {
				return false
			}
			break
		}
	}
	return true
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
