package match

import (
	"slices"
	"strings"
	"unicode"
)

// spacedAlike reports whether the non-blank lines of text (the lines a
// change adds, keyed alike by fold) and the n non-blank lines of the
// content from 0-based line j on (after==true) or before it (after==false)
// also agree in the whitespace inside them. fold lets inner whitespace
// differ, so a change that only realigns columns would otherwise look made
// already (issue 59 §5, trunc-search-lines).
func spacedAlike(li *lineIndex, j int, added []string, after bool) bool {
	var file []string
	for k := j; k >= 0 && k < li.n() && len(file) < len(added); {
		if t := li.text(k); !isBlank(t) {
			file = append(file, t)
		}
		if after {
			k++
		} else {
			k--
		}
	}
	if !after {
		slices.Reverse(file)
	}
	return sameSpacing(file, added)
}

// sameSpacing reports two lists of lines alike in the whitespace inside
// each line (the search's lines a replacement repeats must be repeated as
// they are, not realigned, for the rest to be lines it adds).
func sameSpacing(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !slices.Equal(innerSpaces(a[i]), innerSpaces(b[i])) {
			return false
		}
	}
	return true
}

// innerSpaces returns the lengths of the whitespace runs inside a line (its
// indentation and trailing whitespace left out).
func innerSpaces(s string) []int {
	var runs []int
	n := 0
	for _, r := range strings.TrimFunc(s, unicode.IsSpace) {
		if unicode.IsSpace(r) {
			n++
			continue
		}
		if n > 0 {
			runs = append(runs, n)
			n = 0
		}
	}
	return runs
}

// nonBlank returns the non-blank lines of s, in order (the lines keyLines
// keys).
func nonBlank(s string) []string {
	var out []string
	for _, l := range strings.Split(toLF(s), "\n") {
		if fold(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

// deletedStillThere reports a change that deletes lines at the ends of its
// search (the replacement is the search's middle lines) whose deleted lines
// still stand around m, where the replacement was found: the file is as it
// was before the change, not after it (issue 59 §5, trunc-search-mid: a
// search cut inside its last line, found nowhere, its replacement "present").
func deletedStillThere(li *lineIndex, search, replace string, m Match) bool {
	sk, rk := keyLines(search), keyLines(replace)
	if len(rk) == 0 || len(rk) >= len(sk) {
		return false
	}
	for i := 0; i+len(rk) <= len(sk); i++ {
		if !slices.Equal(sk[i:i+len(rk)], rk) {
			continue
		}
		before, after := sk[:i], sk[i+len(rk):]
		if len(before) > 0 && slices.Equal(linesBefore(li, m.Line, len(before)), before) {
			return true
		}
		if len(after) > 0 {
			got := linesAfter(li, m.EndLine, len(after))
			n := len(after) - 1
			// the search's last line may be cut short
			if len(got) == len(after) && slices.Equal(got[:n], after[:n]) && strings.HasPrefix(got[n], after[n]) {
				return true
			}
		}
	}
	return false
}
