package match_test

import (
	"strings"
	"testing"

	"github.com/journalfs/journal/ops/match"
)

// TestApply_OpenWindow: a match that does not end at a line end (the search
// has no final line ending, or the file's last line has none) keeps what
// follows it after the replacement, whatever the replacement adds, removes
// or re-indents after its last line — at every level that carries the
// change (issue 47: a new line was glued to the line before it).
func TestApply_OpenWindow(t *testing.T) {
	const goFile = "func f(args []string, n int) error {\n\tif len(args) < n {\n\t\treturn fmt.Errorf(\"requires %d, got %d\", n, len(args))\n\t}\n\treturn nil\n}\n"
	tests := []struct {
		name, content, search, replace, want string
	}{
		{"whitespace level, a line added after the last",
			goFile,
			"if len(args) < n {\n    return fmt.Errorf(\"requires %d, got %d\", n, len(args))",
			"if len(args) < n {\n    return fmt.Errorf(\"requires %d, got %d\", n, len(args))\n    panic(\"x\")",
			"func f(args []string, n int) error {\n\tif len(args) < n {\n\t\treturn fmt.Errorf(\"requires %d, got %d\", n, len(args))\n\t\tpanic(\"x\")\n\t}\n\treturn nil\n}\n"},
		{"whitespace level, two lines added after the last",
			goFile,
			"    if len(args) < n {\n        return fmt.Errorf(\"requires %d, got %d\", n, len(args))",
			"    if len(args) < n {\n        return fmt.Errorf(\"requires %d, got %d\", n, len(args))\n        log(1)\n    }\n    log(2)",
			"func f(args []string, n int) error {\n\tif len(args) < n {\n\t\treturn fmt.Errorf(\"requires %d, got %d\", n, len(args))\n\t\tlog(1)\n\t}\n\tlog(2)\n\t}\n\treturn nil\n}\n"},
		{"whitespace level, the last line taken out",
			goFile,
			"    if len(args) < n {\n        return fmt.Errorf(\"requires %d, got %d\", n, len(args))\n    }",
			"    if len(args) < n {\n        return fmt.Errorf(\"requires %d, got %d\", n, len(args))",
			"func f(args []string, n int) error {\n\tif len(args) < n {\n\t\treturn fmt.Errorf(\"requires %d, got %d\", n, len(args))\n\treturn nil\n}\n"},
		{"whitespace level, the last line re-indented",
			goFile,
			"    if len(args) < n {\n        return fmt.Errorf(\"requires %d, got %d\", n, len(args))",
			"    if len(args) < n {\n            return fmt.Errorf(\"requires %d, got %d\", n, len(args))",
			"func f(args []string, n int) error {\n\tif len(args) < n {\n\t\t\treturn fmt.Errorf(\"requires %d, got %d\", n, len(args))\n\t}\n\treturn nil\n}\n"},
		{"whitespace level, the last line changed and a line added",
			goFile,
			"  return nil\n}",
			"  return nil // ok\n}\n// end",
			"func f(args []string, n int) error {\n\tif len(args) < n {\n\t\treturn fmt.Errorf(\"requires %d, got %d\", n, len(args))\n\t}\n\treturn nil // ok\n}\n// end\n"},
		{"CRLF file, one-line window, a line added",
			"a {\r\n\tb()\r\n}\r\n",
			"    b()",
			"    b()\n    c()",
			"a {\r\n\tb()\r\n\tc()\r\n}\r\n"},
		{"file without a final line ending, search with one, a line added",
			"x {\n\ty()\n}",
			"    y()\n}\n",
			"    y()\n    z()\n}\n",
			"x {\n\ty()\n\tz()\n}"},
		{"file without a final line ending, search without, a line added",
			"x {\n\ty()\n}",
			"    y()\n}",
			"    y()\n}\nw()",
			"x {\n\ty()\n}\nw()"},
		{"exact match after the indentation, cut before the line end, lines added",
			"func g() {\n\tcall(1); other()\n}\n",
			"call(1)",
			"call(1)\ncall(2)",
			"func g() {\n\tcall(1)\n\tcall(2); other()\n}\n"},
		{"line-ending level, a line added after the last",
			"if a {\r\n\tb()\r\n}\r\n",
			"if a {\n\tb()",
			"if a {\n\tb()\n\tc()",
			"if a {\r\n\tb()\r\n\tc()\r\n}\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := match.Apply(tt.content, []match.Change{{Search: tt.search, Replace: tt.replace}})
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			if got != tt.want {
				t.Fatalf("got\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

// TestApply_OpenWindowNeverGlues drives the class: for every file style,
// every window that ends before a line end and every replacement that adds,
// removes or re-indents lines after its last, the result is either refused
// or has exactly the lines an exact match of the file's own text would give.
func TestApply_OpenWindowNeverGlues(t *testing.T) {
	styles := []struct{ name, unit, eol string }{{"tabs", "\t", "\n"}, {"4 spaces", "    ", "\n"}, {"2 spaces CRLF", "  ", "\r\n"}}
	callerUnits := []string{"  ", "    ", "\t"}
	body := []string{"if ok {", "@call(1)", "@call(2)", "}", "done()"} // @ = one level deeper
	applied := 0
	for _, st := range styles {
		var file []string
		for _, l := range body {
			ind := st.unit
			if strings.HasPrefix(l, "@") {
				ind, l = st.unit+st.unit, l[1:]
			}
			file = append(file, ind+l)
		}
		content := "func f() {" + st.eol + strings.Join(file, st.eol) + st.eol + "}" + st.eol
		for _, cu := range callerUnits {
			if cu == st.unit {
				continue // that is the exact level
			}
			caller := func(i int) string {
				l := body[i]
				if strings.HasPrefix(l, "@") {
					return cu + l[1:]
				}
				return l
			}
			for from := 0; from < len(body); from++ {
				for to := from + 1; to <= len(body); to++ {
					var sl []string
					for i := from; i < to; i++ {
						sl = append(sl, caller(i))
					}
					search := strings.Join(sl, "\n")
					for _, edit := range []struct {
						name    string
						replace string
						lines   func(fileLines []string) []string // the file's window lines → the wanted ones
					}{
						{"add", search + "\n" + caller(to - 1)[:indentLen(caller(to-1))] + "extra()", func(w []string) []string {
							last := w[len(w)-1]
							return append(append([]string(nil), w...), last[:indentLen(last)]+"extra()")
						}},
						{"remove the last", strings.Join(sl[:len(sl)-1], "\n"), func(w []string) []string {
							return append([]string(nil), w[:len(w)-1]...)
						}},
					} {
						if edit.name == "remove the last" && len(sl) < 2 {
							continue
						}
						got, _, err := match.Apply(content, []match.Change{{Search: search, Replace: edit.replace}})
						if err != nil {
							continue // a refusal is never wrong
						}
						var want []string
						want = append(append(append(append(want, "func f() {"), file[:from]...), edit.lines(file[from:to])...), file[to:]...)
						wantText := strings.Join(want, st.eol) + st.eol + "}" + st.eol
						applied++
						if got != wantText {
							t.Errorf("%s file, caller unit %q, lines %d-%d, %s:\ngot  %q\nwant %q", st.name, cu, from, to, edit.name, got, wantText)
						}
					}
				}
			}
		}
	}
	if applied < 50 {
		t.Fatalf("only %d of the generated edits were applied: the family tests refusals, not the class", applied)
	}
	t.Logf("%d open-window edits applied, each with the expected lines", applied)
}

func indentLen(s string) int { return len(s) - len(strings.TrimLeft(s, " \t")) }
