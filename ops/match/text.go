package match

import (
	"sort"
	"strings"
)

// lineIndex records where each line of a content starts. A final line without
// terminator counts as a line; a trailing "\n" does not start an empty one.
type lineIndex struct {
	s     string
	start []int
}

func indexLines(s string) *lineIndex {
	li := &lineIndex{s: s}
	for off := 0; off < len(s); {
		li.start = append(li.start, off)
		i := strings.IndexByte(s[off:], '\n')
		if i < 0 {
			break
		}
		off += i + 1
	}
	return li
}

// n is the number of lines.
func (li *lineIndex) n() int { return len(li.start) }

// bounds returns line i's (0-based) start, the end of its text (before "\r\n"
// or "\n") and its end including the terminator.
func (li *lineIndex) bounds(i int) (start, textEnd, end int) {
	start = li.start[i]
	end = len(li.s)
	if i+1 < len(li.start) {
		end = li.start[i+1]
	}
	textEnd = end
	if textEnd > start && li.s[textEnd-1] == '\n' {
		textEnd--
		if textEnd > start && li.s[textEnd-1] == '\r' {
			textEnd--
		}
	}
	return start, textEnd, end
}

// text returns line i without its terminator.
func (li *lineIndex) text(i int) string {
	s, e, _ := li.bounds(i)
	return li.s[s:e]
}

// lineOf returns the 1-based line holding byte offset off.
func (li *lineIndex) lineOf(off int) int {
	n := sort.Search(len(li.start), func(i int) bool { return li.start[i] > off })
	if n == 0 {
		return 1
	}
	return n
}

// span returns the 1-based first and last line of the byte range [start,end).
func (li *lineIndex) span(start, end int) (int, int) {
	first := li.lineOf(start)
	if end <= start {
		return first, first
	}
	return first, li.lineOf(end - 1)
}

// toLF turns every "\r\n" into "\n".
func toLF(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }

// searchLines splits LF-normalized text into lines with trailing whitespace
// removed, and reports whether the text ended with a newline.
func searchLines(s string) (ls []string, finalNL bool) {
	s = toLF(s)
	finalNL = strings.HasSuffix(s, "\n")
	s = strings.TrimSuffix(s, "\n")
	ls = strings.Split(s, "\n")
	for i, l := range ls {
		ls[i] = trimRight(l)
	}
	return ls, finalNL
}

func trimRight(s string) string { return strings.TrimRight(s, " \t\r\f\v") }

// eolAt returns the line terminator of the line holding off: the first one at
// or after off, else the last one before it, else "\n".
func eolAt(s string, off int) string {
	if i := strings.IndexByte(s[off:], '\n'); i >= 0 {
		if i := off + i; i > 0 && s[i-1] == '\r' {
			return "\r\n"
		}
		return "\n"
	}
	if i := strings.LastIndexByte(s[:off], '\n'); i > 0 && s[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

// commonPrefix returns the longest common prefix of a and b.
func commonPrefix(a, b string) string {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	return a[:i]
}

// shorten cuts s to about max bytes on a rune boundary, marking the cut.
func shorten(s string, max int) string {
	if len(s) <= max {
		return s
	}
	i := max
	for i > 0 && s[i]&0xC0 == 0x80 {
		i--
	}
	return s[:i] + "…"
}
