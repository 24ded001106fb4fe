package match_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/journalfs/journal/ops"
	"github.com/journalfs/journal/ops/match"
)

// TestApply_LineNumbersSettleAmbiguity: line-number prefixes copied from a
// read pick the occurrence they name when the text stands in several
// places — only when they give exactly that occurrence's lines (issue 47:
// they were ignored and the change refused as not found).
func TestApply_LineNumbersSettleAmbiguity(t *testing.T) {
	const content = "package cmd\n\n// prioritize the named flag\n// and causes your command to fail\nfunc a() {}\n\nfunc b() {}\n\n// prioritize the named flag\n// and causes your command to fail\nfunc c() {}\n"
	numbered := func(first int, sep string) (string, string) {
		s := strings.Join([]string{"// prioritize the named flag", "// and causes your command to fail"}, "\n")
		r := strings.Replace(s, "causes your command to fail", "makes your command fail", 1)
		pre := func(t string) string {
			ls := strings.Split(t, "\n")
			for i := range ls {
				ls[i] = strconv.Itoa(first+i) + sep + ls[i]
			}
			return strings.Join(ls, "\n") + "\n"
		}
		return pre(s), pre(r)
	}
	for _, tc := range []struct {
		first int
		sep   string
		want  int // line changed; 0: refused as ambiguous
	}{
		{3, ": ", 3}, {9, ": ", 9}, {9, ":", 9}, {9, "→", 9}, {9, "\t", 9},
		{6, ": ", 0}, {4, ": ", 0}, {8, ": ", 0}, {10, ": ", 0}, {1, ": ", 0},
	} {
		s, r := numbered(tc.first, tc.sep)
		out, applied, err := match.Apply(content, []match.Change{{Search: s, Replace: r, Options: match.Options{Fuzzy: true}}})
		if tc.want == 0 {
			if !errors.Is(err, ops.ErrAmbiguousMatch) {
				t.Errorf("prefixes %d-%d (%q): err %v, want an ambiguous match", tc.first, tc.first+1, tc.sep, err)
			} else if !strings.Contains(err.Error(), "not the lines of any") {
				t.Errorf("prefixes %d-%d: the refusal does not say the numbers point at none: %v", tc.first, tc.first+1, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("prefixes %d-%d (%q): %v", tc.first, tc.first+1, tc.sep, err)
			continue
		}
		lines := strings.Split(out, "\n")
		if lines[tc.want] != "// and makes your command fail" || strings.Count(out, "makes") != 1 || applied[0].Match.Line != tc.want {
			t.Errorf("prefixes %d-%d (%q): changed the wrong place:\n%s", tc.first, tc.first+1, tc.sep, out)
		}
	}
	// occurrence given: the caller's pick, as without prefixes
	s, r := numbered(6, ": ")
	out, _, err := match.Apply(content, []match.Change{{Search: s, Replace: r, Options: match.Options{Fuzzy: true, Occurrence: 2}}})
	if err != nil || strings.Index(out, "makes") < strings.Index(out, "func b") {
		t.Errorf("occurrence 2 with prefixes: %v\n%s", err, out)
	}
}
