package ops

import (
	"fmt"
	"strconv"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
)

// Unified returns the unified diff from old to new (labelled oldLabel and
// newLabel), or "" when they are equal: go-udiff's, with every hunk's
// new-side line number computed from its old-side one and the lines the
// hunks before it added and removed. go-udiff v0.4.1 (the newest) leaves
// the unchanged lines inside a hunk that joins several changes out of the
// new-side numbering of the next hunk, so every hunk after such a one
// named wrong lines of the new text (TestUnified_HunkNumbers). Everything
// that shows a diff goes through here.
func Unified(oldLabel, newLabel, old, new string) string {
	text := udiff.Unified(oldLabel, newLabel, old, new)
	if strings.Count(text, "\n@@ ") < 2 {
		return text // one hunk: go-udiff numbers it right
	}
	var b strings.Builder
	b.Grow(len(text))
	delta := 0 // lines added minus lines removed by the hunks so far
	for _, l := range strings.SplitAfter(text, "\n") {
		switch {
		case strings.HasPrefix(l, "@@ "):
			b.WriteString(hunkHeader(l, delta))
			continue
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
		case strings.HasPrefix(l, "+"):
			delta++
		case strings.HasPrefix(l, "-"):
			delta--
		}
		b.WriteString(l)
	}
	return b.String()
}

// hunkHeader rewrites "@@ -a[,b] +c[,d] @@" with c computed from a and delta.
func hunkHeader(l string, delta int) string {
	a, oc, _, nc, ok := ParseHunk(l)
	if !ok {
		return l
	}
	first := a // the first old line the hunk shows, or the one before an empty side
	if oc == 0 {
		first = a + 1
	}
	c := first + delta
	if nc == 0 {
		c--
	}
	return fmt.Sprintf("@@ %s %s @@\n", HunkSide('-', a, oc), HunkSide('+', c, nc))
}

// ParseHunk reads a unified diff's hunk header "@@ -a[,b] +c[,d] @@": the
// old side's start and count, the new side's (a count left out is 1).
func ParseHunk(l string) (oldStart, oldCount, newStart, newCount int, ok bool) {
	f := strings.Fields(l)
	if len(f) < 4 || f[0] != "@@" || !strings.HasPrefix(f[1], "-") || !strings.HasPrefix(f[2], "+") {
		return 0, 0, 0, 0, false
	}
	side := func(s string) (start, count int, ok bool) {
		n, c, has := strings.Cut(s[1:], ",")
		start, err := strconv.Atoi(n)
		count = 1
		if has {
			count, err = strconv.Atoi(c)
		}
		return start, count, err == nil
	}
	oldStart, oldCount, ok1 := side(f[1])
	newStart, newCount, ok2 := side(f[2])
	return oldStart, oldCount, newStart, newCount, ok1 && ok2
}

// HunkSide writes one side of a hunk header: sign, start, and the count
// unless it is 1.
func HunkSide(sign byte, start, count int) string {
	if count == 1 {
		return fmt.Sprintf("%c%d", sign, start)
	}
	return fmt.Sprintf("%c%d,%d", sign, start, count)
}

// Hunks returns the hunks of Unified(old, new), without its file header,
// numbered as if old started at line oldFirst of its file and new at line
// newFirst: the minimal diff of a region read out of a larger file, the
// same as Unified gives for the whole file (edit results, which do not read
// the whole file). "" when old and new are equal.
func Hunks(old, new string, oldFirst, newFirst int) string {
	text := Unified("a", "b", old, new)
	var b strings.Builder
	b.Grow(len(text))
	for _, l := range strings.SplitAfter(text, "\n") {
		switch {
		case strings.HasPrefix(l, "--- "), strings.HasPrefix(l, "+++ "):
			continue
		case strings.HasPrefix(l, "@@ "):
			if a, oc, c, nc, ok := ParseHunk(l); ok {
				l = fmt.Sprintf("@@ %s %s @@\n", HunkSide('-', a+oldFirst-1, oc), HunkSide('+', c+newFirst-1, nc))
			}
		}
		b.WriteString(l)
	}
	return b.String()
}
