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
	if len(file) != len(added) {
		return false
	}
	for i := range file {
		if !slices.Equal(innerSpaces(file[i]), innerSpaces(added[i])) {
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
