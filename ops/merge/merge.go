package merge

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/journalfs/journal/ops"
)

// Merge3 merges the changes base→ours and base→theirs into one content.
// Non-overlapping changes combine and identical changes count once;
// overlapping changes that differ make it fail with an *ops.Error wrapping
// ops.ErrConflict whose Candidates are the conflicting line ranges in ours.
// The result never aliases the inputs.
func Merge3(base, ours, theirs []byte) ([]byte, error) {
	switch {
	case bytes.Equal(ours, base):
		return bytes.Clone(theirs), nil
	case bytes.Equal(theirs, base), bytes.Equal(ours, theirs):
		return bytes.Clone(ours), nil
	}
	return merge3(base, ours, theirs)
}

// merge3 is Merge3 without the shortcuts for unchanged sides.
func merge3(base, ours, theirs []byte) ([]byte, error) {
	ids := map[string]int{}
	bl, bi := splitLines(base, ids)
	ol, oi := splitLines(ours, ids)
	tl, ti := splitLines(theirs, ids)
	side := [2]struct {
		lines [][]byte
		ids   []int
		hs    []hunk
		next  int // first hunk not yet placed in a group
		delta int // side line - base line after the placed hunks
	}{{lines: ol, ids: oi, hs: diffLines(bi, oi)}, {lines: tl, ids: ti, hs: diffLines(bi, ti)}}

	var out [][]byte
	var conflicts []conflict
	prev := 0
	for {
		// the next group starts with the hunk of lowest base position
		lo, hi, ok := -1, -1, false
		for s := range side {
			if sd := &side[s]; sd.next < len(sd.hs) {
				h := sd.hs[sd.next]
				if !ok || h.b0 < lo || (h.b0 == lo && h.b1 < hi) {
					lo, hi, ok = h.b0, h.b1, true
				}
			}
		}
		if !ok {
			break
		}
		// grow it while a hunk of either side overlaps it
		var in [2][2]int // per side: first and end index of its hunks in the group
		for s := range side {
			in[s] = [2]int{side[s].next, side[s].next}
		}
		for grown := true; grown; {
			grown = false
			for s := range side {
				sd := &side[s]
				for in[s][1] < len(sd.hs) {
					h := sd.hs[in[s][1]]
					if !overlaps(lo, hi, h.b0, h.b1) {
						break
					}
					lo, hi = min(lo, h.b0), max(hi, h.b1)
					in[s][1]++
					grown = true
				}
			}
		}
		out = append(out, bl[prev:lo]...)
		prev = hi
		var rng [2][2]int // per side: line range covering base [lo,hi)
		for s := range side {
			sd := &side[s]
			rng[s][0] = lo + sd.delta
			for _, h := range sd.hs[in[s][0]:in[s][1]] {
				sd.delta += (h.s1 - h.s0) - (h.b1 - h.b0)
			}
			rng[s][1] = hi + sd.delta
			sd.next = in[s][1]
		}
		oLines, tLines := ol[rng[0][0]:rng[0][1]], tl[rng[1][0]:rng[1][1]]
		switch {
		case in[1][0] == in[1][1]: // only ours changed
			out = append(out, oLines...)
		case in[0][0] == in[0][1]: // only theirs changed
			out = append(out, tLines...)
		case equalIDs(oi[rng[0][0]:rng[0][1]], ti[rng[1][0]:rng[1][1]]):
			out = append(out, oLines...)
		default:
			conflicts = append(conflicts, conflict{rng[0][0], rng[0][1], oLines, tLines})
		}
	}
	if len(conflicts) > 0 {
		return nil, conflictError(conflicts)
	}
	out = append(out, bl[prev:]...)
	return bytes.Join(out, nil), nil
}

// overlaps reports whether base ranges [a0,a1) and [b0,b1) collide: they
// share a line, an insertion lies strictly inside the other range, or two
// insertions are at the same place.
func overlaps(a0, a1, b0, b1 int) bool {
	if a0 == a1 && b0 == b1 {
		return a0 == b0
	}
	return a0 < b1 && b0 < a1
}

func equalIDs(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// splitLines splits b after every "\n", keeping terminators, and maps each
// line to a small integer (equal lines, equal IDs).
func splitLines(b []byte, ids map[string]int) ([][]byte, []int) {
	var ls [][]byte
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n') + 1
		if i == 0 {
			i = len(b)
		}
		ls = append(ls, b[:i:i])
		b = b[i:]
	}
	is := make([]int, len(ls))
	for k, l := range ls {
		id, ok := ids[string(l)]
		if !ok {
			id = len(ids)
			ids[string(l)] = id
		}
		is[k] = id
	}
	return ls, is
}

// conflict is a region both sides changed differently; o0,o1 are 0-based
// line indexes in ours.
type conflict struct {
	o0, o1 int
	ours   [][]byte
	theirs [][]byte
}

func (c conflict) where() string {
	switch {
	case c.o1 <= c.o0:
		return fmt.Sprintf("line %d (removed since)", c.o0+1)
	case c.o1 == c.o0+1:
		return fmt.Sprintf("line %d", c.o0+1)
	}
	return fmt.Sprintf("lines %d-%d", c.o0+1, c.o1)
}

func conflictError(cs []conflict) error {
	sort.Slice(cs, func(i, j int) bool { return cs[i].o0 < cs[j].o0 })
	var where []string
	var cands []ops.Candidate
	for _, c := range cs {
		where = append(where, c.where())
		cand := ops.Candidate{Line: c.o0 + 1, Text: clip(bytes.Join(c.ours, nil), 300), Diff: sideDiff(c)}
		if c.o1 > c.o0+1 {
			cand.EndLine = c.o1
		}
		cands = append(cands, cand)
	}
	return &ops.Error{Op: "merge", Index: -1, Err: ops.ErrConflict,
		Msg:        strings.Join(where, ", ") + " changed by both",
		Hint:       "the file changed in the same lines since; edit those lines by hand, or restore the old content explicitly",
		Candidates: cands}
}

// sideDiff shows a conflict as "-" current lines and "+" target lines.
func sideDiff(c conflict) string {
	const maxLines = 12
	var ls []string
	for _, l := range c.ours {
		ls = append(ls, "-"+strings.TrimRight(string(l), "\r\n"))
	}
	for _, l := range c.theirs {
		ls = append(ls, "+"+strings.TrimRight(string(l), "\r\n"))
	}
	if len(ls) > maxLines {
		ls = append(ls[:maxLines], "…")
	}
	return strings.Join(ls, "\n")
}

func clip(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return strings.ToValidUTF8(string(b[:n]), "") + "…"
}
