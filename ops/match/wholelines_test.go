package match_test

import (
	"errors"
	"testing"

	"github.com/journalfs/journal/ops"
	"github.com/journalfs/journal/ops/match"
)

// TestApply_WholeLines: search and replacement that disagree about whole
// lines are read as the lines meant, at every level; both readings
// plausible: refused, nothing written.
func TestApply_WholeLines(t *testing.T) {
	const f = "a\n\tfoo()\nb\n"
	cases := []struct{ name, content, search, replace, want string }{
		{"search without final newline", f, "\tfoo()", "\tbar()\n", "a\n\tbar()\nb\n"},
		{"replacement without final newline", f, "\tfoo()\n", "\tbar()", "a\n\tbar()\nb\n"},
		{"whitespace level, search without final newline", f, "  foo()", "  bar()\n", "a\n\tbar()\nb\n"},
		{"whitespace level, replacement without final newline", f, "  foo()\n", "  bar()", "a\n\tbar()\nb\n"},
		{"CRLF", "a\r\n\tfoo()\r\nb\r\n", "\tfoo()", "\tbar()\n", "a\r\n\tbar()\r\nb\r\n"},
		{"trailing whitespace after the search", "a\n\tfoo()  \nb\n", "\tfoo()", "\tbar()\n", "a\n\tbar()\nb\n"},
		{"last line without final newline", "a\n\tfoo()", "\tfoo()", "\tbar()\n", "a\n\tbar()"},
		{"replacement at the end of the file", "a\n\tfoo()\n", "\tfoo()\n", "\tbar()", "a\n\tbar()\n"},
		{"empty replacement deletes whole lines", f, "\tfoo()", "", "a\nb\n"},
		{"empty replacement of the text after the indentation", f, "foo()", "", "a\nb\n"},
		{"empty replacement of the line after the indentation", f, "foo()\n", "", "a\nb\n"},
		{"empty replacement inside a line", "a\n\tfoo() // x\nb\n", " // x", "", "a\n\tfoo()\nb\n"},
		{"search from inside the line", "a\n\tctx := foo()\nb\n", ":= foo()\n", "\tctx := bar()\n", "a\n\tctx := bar()\nb\n"},
		{"search cut inside the line", "a\n\tctx := foo()\nb\n", "\tctx := foo(", "\tctx := bar()\n", "a\n\tctx := bar()\nb\n"},
		{"search cut, the rest's trailing space left out", "a\n\tf(x) {  \nb\n", "\tf(x) ", "\tg(x) {\n", "a\n\tg(x) {\nb\n"},
		{"inline change", f, "foo()", "bar()", "a\n\tbar()\nb\n"},
		{"a blank line for the text after the indentation", "a\n\tfoo()\n\tb()\n", "foo()\n", "\n", "a\n\n\tb()\n"},
		{"the replacement continues the line", "(defn f [x]\n  (inc x))\n", "  (inc x)", "  (dec x)", "(defn f [x]\n  (dec x))\n"},
		{"line split on purpose, the rest in both", "x := 1; y := 2\n", "x := 1; y := 2", "x := 1\ny := 2\n", "x := 1\ny := 2\n"},
	}
	for _, c := range cases {
		got, _, err := match.Apply(c.content, []match.Change{{Search: c.search, Replace: c.replace, Options: match.Options{Fuzzy: true}}})
		if err != nil || got != c.want {
			t.Errorf("%s: got %q, %v; want %q", c.name, got, err, c.want)
		}
	}
	for _, c := range []struct{ name, search, replace string }{
		{"the rest of the line would stand on a line of its own", "\tctx := ", "\tctx := bar()\n"},
		{"the text before the search repeated without indentation", ":= foo()", "ctx := bar()"},
		{"an empty replacement of the line's start", "ctx :=", ""},
	} {
		content := "a\n\tctx := foo()\nb\n"
		got, _, err := match.Apply(content, []match.Change{{Search: c.search, Replace: c.replace, Options: match.Options{Fuzzy: true}}})
		var oe *ops.Error
		if got != content || !errors.As(err, &oe) || !errors.Is(err, ops.ErrInvalidInput) || oe.Hint == "" ||
			len(oe.Candidates) != 1 || oe.Candidates[0].SearchText != "\tctx := foo()\n" {
			t.Errorf("%s: got %q, %+v", c.name, got, err)
		}
	}
}
