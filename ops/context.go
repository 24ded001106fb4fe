package ops

import (
	"sort"
	"strconv"
	"strings"
)

// ContextLines is how many unchanged lines results show around a changed
// region (seed 003: "changed region ±2 lines").
const ContextLines = 2

// CreateContextLines caps the context a file_create_new result shows: the
// first lines of the new file.
const CreateContextLines = 50

// Context returns lines from-n .. to+n of d (clamped to the file), each as
// "N: text" with its 1-indexed number and without its line ending, the form
// seed 003 uses for new_context. It returns nil for an empty Doc.
func Context(d *Doc, from, to, n int) []string {
	if from > to {
		from, to = to, from
	}
	lo, hi := max(1, from-n), min(d.LineCount(), to+n)
	if lo > hi {
		return nil
	}
	out := make([]string, 0, hi-lo+1)
	for i := lo; i <= hi; i++ {
		out = append(out, numbered(d, i))
	}
	return out
}

func numbered(d *Doc, n int) string { return strconv.Itoa(n) + ": " + d.Line(n) }

// headTail returns the first h and last t numbered lines of d, with "..."
// between them when lines are left out (seed 003's capped context for whole
// file writes).
func headTail(d *Doc, h, t int) []string {
	n := d.LineCount()
	if n <= h+t {
		return Context(d, 1, n, 0)
	}
	out := append(Context(d, 1, h, 0), "...")
	if t > 0 {
		out = append(out, Context(d, n-t+1, n, 0)...)
	}
	return out
}

// Diff returns a unified diff from before to after, labelled oldLabel and
// newLabel, or "" when they are equal. Both sides are decoded first, so a
// UTF-16 or Latin-1 file diffs as text; a side that does not decode (binary)
// is diffed as raw bytes.
func Diff(oldLabel, newLabel string, before, after []byte) string {
	return Unified(oldLabel, newLabel, diffText(before), diffText(after))
}

func diffText(b []byte) string {
	if d, err := Decode(b); err == nil {
		return d.Text()
	}
	return string(b)
}

// LocateLine finds the line whose trimmed text equals the trimmed want
// within ±ContextLines lines of line (seed 002's target-line targeting),
// preferring line itself. A line found nearby is used only when no other
// line within ±locateGuard lines has the same text: a generic line (`}`,
// `if err != nil {`) found 2 lines away while the real one is 3 away would
// otherwise be edited in its place. It returns the line found, or an error
// wrapping ErrAmbiguousMatch (every such line nearby, nearest first) or
// ErrNoMatch (the lines of the file that do have the text, nearest first,
// else the window).
func LocateLine(d *Doc, line int, want string) (int, error) {
	want = strings.TrimSpace(want)
	match := func(n int) bool {
		return n >= 1 && n <= d.LineCount() && strings.TrimSpace(d.Line(n)) == want
	}
	if match(line) {
		return line, nil
	}
	var near []int
	for dist := 1; dist <= locateGuard; dist++ {
		for _, n := range []int{line - dist, line + dist} {
			if match(n) {
				near = append(near, n)
			}
		}
	}
	close := len(near) > 0 && abs(near[0]-line) <= ContextLines
	switch {
	case close && len(near) == 1:
		return near[0], nil
	case close:
		var cands []Candidate
		for _, n := range near {
			cands = append(cands, Candidate{Line: n, Text: d.Line(n)})
		}
		return 0, &Error{Err: ErrAmbiguousMatch,
			Msg:        sprintf("target line text %q is not at line %d; lines %s near it have that text", want, line, lineNums(near)),
			Hint:       "give the line number of the one you mean (the candidates), or re-read the file",
			Candidates: cands}
	}
	var cands []Candidate
	for n := 1; n <= d.LineCount() && len(cands) < 50; n++ {
		if match(n) {
			cands = append(cands, Candidate{Line: n, Text: d.Line(n)})
		}
	}
	if len(cands) > 0 {
		sort.SliceStable(cands, func(i, j int) bool { return abs(cands[i].Line-line) < abs(cands[j].Line-line) })
		return 0, &Error{Err: ErrNoMatch,
			Msg:        sprintf("target line text %q not found within %d lines of line %d; the file has it at line %s", want, ContextLines, line, lineNums(candLines(cands))),
			Hint:       "the lines moved: re-read the file, or give the line number of the one you mean (the candidates, nearest first)",
			Candidates: cands[:min(len(cands), 5)]}
	}
	for n := max(1, line-ContextLines); n <= min(d.LineCount(), line+ContextLines); n++ {
		cands = append(cands, Candidate{Line: n, Text: d.Line(n)})
	}
	return 0, &Error{Err: ErrNoMatch,
		Msg:        sprintf("target line text %q not found within %d lines of line %d (nor anywhere else in the file)", want, ContextLines, line),
		Hint:       "the file may have changed; re-read it and retry with current line numbers",
		Candidates: cands}
}

// locateGuard is how far LocateLine looks for another line with the target
// text before trusting a nearby one.
const locateGuard = 8

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func candLines(cs []Candidate) []int {
	out := make([]int, len(cs))
	for i, c := range cs {
		out[i] = c.Line
	}
	return out
}

// lineNums lists line numbers for a message: "3, 7 and 12".
func lineNums(ns []int) string {
	parts := make([]string, 0, len(ns))
	for i, n := range ns {
		if i == 5 {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, sprintf("%d", n))
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}
