package mcp

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/journalfs/journal/ops"
	"github.com/journalfs/journal/ops/match"
)

// diffContext is how many unchanged lines surround a hunk (the result's
// context uses 2, the architecture's "changed region ±2 lines").
const diffContext = 3

// describe builds the result of an edit from the original text around each
// change: a unified diff (the minimal hunks of each change's lines, the same
// as ops.Unified of the whole file gives — journal show's diff — without
// reading the whole file) and the changed regions ±2 lines in post-edit
// numbering.
func (t *ltext) describe(edits []match.Edit) (*EditOut, error) {
	out := &EditOut{Success: true, Changes: []EditChangeResult{}, SimilarityUsed: 1}
	var diff strings.Builder
	fmt.Fprintf(&diff, "--- a/%s\n+++ b/%s\n", t.v.Path.Rel, t.v.Path.Rel)
	for i, e := range edits {
		m := e.Match
		r := EditChangeResult{Index: e.Change, Level: string(m.Level), Similarity: m.Similarity,
			LineNumber: m.Line, EndLine: m.EndLine, NewLine: e.NewLine, NewEndLine: e.NewEndLine}
		if m.Level != match.LevelExact {
			r.Matched = m.Matched
		}
		r.AlreadyApplied, r.Note = e.AlreadyApplied, m.Note
		out.Changes = append(out.Changes, r)
		if i == 0 {
			out.LineNumber = m.Line
		}
		if e.AlreadyApplied {
			continue
		}
		out.ChangesMade++
		out.SimilarityUsed = min(out.SimilarityUsed, m.Similarity)
		h, err := t.hunk(e)
		if err != nil {
			return nil, err
		}
		// the minimal diff of the region, as journal show gives it
		first := m.Line - len(h.before)
		diff.WriteString(ops.Hunks(joinLines(h.before, h.old, h.after), joinLines(h.before, h.new, h.after), first, e.NewLine-len(h.before)))
		if len(out.Context) > 0 {
			out.Context = append(out.Context, "…")
		}
		k := len(h.before) - min(2, len(h.before))
		for j, l := range h.before[k:] {
			out.Context = append(out.Context, fmt.Sprintf("%d: %s", e.NewLine-(len(h.before)-k)+j, l))
		}
		for j, l := range h.new {
			out.Context = append(out.Context, fmt.Sprintf("%d: %s", e.NewLine+j, l))
		}
		for j, l := range h.after[:min(2, len(h.after))] {
			out.Context = append(out.Context, fmt.Sprintf("%d: %s", e.NewLine+len(h.new)+j, l))
		}
	}
	out.Preview = diff.String()
	return out, nil
}

// hunkLines are the lines of one change: unchanged before, old, new, unchanged after.
type hunkLines struct {
	before, old, new, after []string
}

// hunkWindow bounds how far around a change hunk reads for context lines.
const hunkWindow = 16 << 10

func (t *ltext) hunk(e match.Edit) (hunkLines, error) {
	start, end := int64(e.Match.Start), int64(e.Match.End)
	lo, hi := max(start-hunkWindow, 0), min(end+hunkWindow, t.size)
	var buf []byte
	if t.data != nil {
		buf = t.data[lo:hi] // read only; the lines below are copies
	} else {
		buf = make([]byte, hi-lo)
		if _, err := t.body.ReadAt(buf, lo); err != nil && !errors.Is(err, io.EOF) {
			return hunkLines{}, err
		}
	}
	s, en := int(start-lo), int(end-lo)
	ls := bytes.LastIndexByte(buf[:s], '\n') + 1 // start of the first changed line
	le := len(buf)                               // end of the last changed line, with its ending
	if en > s && buf[en-1] == '\n' {
		le = en
	} else if i := bytes.IndexByte(buf[en:], '\n'); i >= 0 {
		le = en + i + 1
	}
	var h hunkLines
	h.old = splitDisplay(buf[ls:le])
	h.new = splitDisplay([]byte(string(buf[ls:s]) + e.Replacement + string(buf[en:le])))
	// Only the diffContext lines on each side are split out of the window.
	from := ls // buf[from:ls]: the lines before, each with its ending
	for n := 0; n < diffContext && from > 0; n++ {
		from = bytes.LastIndexByte(buf[:from-1], '\n') + 1
	}
	h.before = splitDisplay(buf[from:ls])
	if from == 0 && lo > 0 && len(h.before) > 0 {
		h.before = h.before[1:] // it starts at the window's start: it may be cut
	}
	to := le // buf[le:to]: the lines after
	for n := 0; n < diffContext && to < len(buf); n++ {
		i := bytes.IndexByte(buf[to:], '\n')
		if i < 0 {
			if hi == t.size {
				to = len(buf) // the file's last line, without an ending
			} // else the rest is a line the window cut
			break
		}
		to += i + 1
	}
	h.after = splitDisplay(buf[le:to])
	return h, nil
}

// joinLines joins groups of lines, each line ended by "\n".
func joinLines(groups ...[]string) string {
	var b strings.Builder
	for _, g := range groups {
		for _, l := range g {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// splitDisplay splits text into lines without their endings.
func splitDisplay(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	s := strings.TrimSuffix(string(b), "\n")
	ls := strings.Split(s, "\n")
	for i, l := range ls {
		ls[i] = strings.TrimSuffix(l, "\r")
	}
	return ls
}
