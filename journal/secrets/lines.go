package secrets

import (
	"regexp/syntax"
	"sort"
)

// unbounded stands for a regular expression whose matches may span any
// number of lines.
const unbounded = -1

// spanLines returns how many newlines a match of the regular expression can
// hold at most, or unbounded. A rule whose matches span at most n lines and
// hold one of its keywords (as every rule of the default set is written:
// its keywords are literal parts of its pattern) lies within n lines of a
// keyword, so it needs to run only there (regions).
func spanLines(expr string) int {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return unbounded
	}
	return newlines(re)
}

func newlines(re *syntax.Regexp) int {
	add := func(a, b int) int {
		if a == unbounded || b == unbounded {
			return unbounded
		}
		return a + b
	}
	switch re.Op {
	case syntax.OpLiteral:
		n := 0
		for _, r := range re.Rune {
			if r == '\n' {
				n++
			}
		}
		return n
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i] <= '\n' && '\n' <= re.Rune[i+1] {
				return 1
			}
		}
		return 0
	case syntax.OpAnyChar:
		return 1
	case syntax.OpCapture:
		return newlines(re.Sub[0])
	case syntax.OpConcat:
		n := 0
		for _, s := range re.Sub {
			n = add(n, newlines(s))
		}
		return n
	case syntax.OpAlternate:
		n := 0
		for _, s := range re.Sub {
			m := newlines(s)
			if m == unbounded {
				return unbounded
			}
			n = max(n, m)
		}
		return n
	case syntax.OpQuest:
		return newlines(re.Sub[0])
	case syntax.OpStar, syntax.OpPlus:
		if newlines(re.Sub[0]) == 0 {
			return 0
		}
		return unbounded
	case syntax.OpRepeat:
		m := newlines(re.Sub[0])
		if m == 0 {
			return 0
		}
		if m == unbounded || re.Max < 0 {
			return unbounded
		}
		return m * re.Max
	default: // empty, anchors, word boundaries, any char but newline
		return 0
	}
}

// lineIndex holds the offsets where the lines of a text start.
type lineIndex []int

func newLineIndex(b []byte, base int) lineIndex {
	l := lineIndex{base}
	for i, c := range b {
		if c == '\n' && i+1 < len(b) {
			l = append(l, base+i+1)
		}
	}
	return l
}

// line returns the index of the line holding offset i.
func (l lineIndex) line(i int) int { return sort.SearchInts(l, i+1) - 1 }

// regions returns the ranges [from, hi) of whole lines within n lines of an
// offset in at (sorted), merged, inside the text [l[0], end).
func (l lineIndex) regions(at []int, n, end int) [][2]int {
	var out [][2]int
	for _, i := range at {
		a, b := max(0, l.line(i)-n), l.line(i)+n+1
		from, hi := l[a], end
		if b < len(l) {
			hi = l[b]
		}
		if k := len(out); k > 0 && from <= out[k-1][1] {
			out[k-1][1] = max(out[k-1][1], hi)
			continue
		}
		out = append(out, [2]int{from, hi})
	}
	return out
}
