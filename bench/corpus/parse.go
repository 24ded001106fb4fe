package corpus

import (
	"fmt"
	"sort"
	"strings"

	"github.com/journalfs/journal/ops/syntax"
)

// The parse check of the runners: a call reported as a success must not
// leave a file that parsed before it unparsable. The judgement is
// tree-sitter's for every language ops/syntax parses (and encoding/json's
// for JSON), plus syntax.LayoutParses for the files whose layout is syntax
// (Python, YAML, Makefiles). A file no parser knows is not judged.

// Parses reports whether src parses as the file name; known is false when
// no parser knows the file.
func Parses(name string, src []byte) (ok, known bool) {
	errs, known, err := syntax.SyntaxErrors(name, src)
	if err != nil {
		known = false
	}
	lok, lknown := syntax.LayoutParses(name, src)
	switch {
	case known && lknown:
		return len(errs) == 0 && lok, true
	case known:
		return len(errs) == 0, true
	case lknown:
		return lok, true
	}
	return false, false
}

// Unparsed names the files (slash paths) that parsed in before and do not
// in after, with the first error; "" when there are none.
func Unparsed(before, after map[string]string) string {
	var bad []string
	for p, a := range after {
		b, ok := before[p]
		if !ok || a == b {
			continue
		}
		if ok, known := Parses(p, []byte(b)); !known || !ok {
			continue
		}
		if ok, _ := Parses(p, []byte(a)); !ok {
			bad = append(bad, p+firstError(p, a))
		}
	}
	sort.Strings(bad)
	return strings.Join(bad, ", ")
}

// firstError describes the first syntax error of src, or "" (a layout
// error has no position).
func firstError(name, src string) string {
	if errs, _, _ := syntax.SyntaxErrors(name, []byte(src)); len(errs) > 0 {
		return fmt.Sprintf(" (line %d: %s)", errs[0].Line, errs[0].Message)
	}
	return " (layout)"
}
