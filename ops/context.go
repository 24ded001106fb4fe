package ops

import (
	"strconv"
	"strings"

	"github.com/aymanbagabas/go-udiff"
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
	return udiff.Unified(oldLabel, newLabel, diffText(before), diffText(after))
}

func diffText(b []byte) string {
	if d, err := Decode(b); err == nil {
		return d.Text()
	}
	return string(b)
}

// LocateLine finds the line whose trimmed text equals the trimmed want within
// ±ContextLines lines of line (seed 002's target-line targeting), preferring
// line itself, then the nearest. It returns the line found, or an error
// wrapping ErrNoMatch (with the window as candidates) or ErrAmbiguousMatch
// when two lines at the same distance match.
func LocateLine(d *Doc, line int, want string) (int, error) {
	want = strings.TrimSpace(want)
	match := func(n int) bool {
		return n >= 1 && n <= d.LineCount() && strings.TrimSpace(d.Line(n)) == want
	}
	if match(line) {
		return line, nil
	}
	for dist := 1; dist <= ContextLines; dist++ {
		up, down := match(line-dist), match(line+dist)
		switch {
		case up && down:
			return 0, &Error{Err: ErrAmbiguousMatch,
				Msg:        sprintf("target line text found at lines %d and %d, both %d away from line %d", line-dist, line+dist, dist, line),
				Hint:       "give the exact line number",
				Candidates: []Candidate{{Line: line - dist, Text: d.Line(line - dist)}, {Line: line + dist, Text: d.Line(line + dist)}}}
		case up:
			return line - dist, nil
		case down:
			return line + dist, nil
		}
	}
	var cands []Candidate
	for n := max(1, line-ContextLines); n <= min(d.LineCount(), line+ContextLines); n++ {
		cands = append(cands, Candidate{Line: n, Text: d.Line(n)})
	}
	return 0, &Error{Err: ErrNoMatch,
		Msg:        sprintf("target line text %q not found within %d lines of line %d", want, ContextLines, line),
		Hint:       "the file may have changed; re-read it and retry with current line numbers",
		Candidates: cands}
}
