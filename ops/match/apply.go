package match

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/journalfs/journal/ops"
)

// Change is one search/replace of a batch.
type Change struct {
	Search  string `json:"search"`
	Replace string `json:"replace"`
	Options
}

// Applied records one replacement Apply made.
type Applied struct {
	Change     int   `json:"change"`       // index of the change in the batch
	Match      Match `json:"match"`        // where it matched, in ORIGINAL coordinates
	NewStart   int   `json:"new_start"`    // byte range of the replacement in the result
	NewEnd     int   `json:"new_end"`      //
	NewLine    int   `json:"new_line"`     // 1-based lines of the replacement in the result
	NewEndLine int   `json:"new_end_line"` // equal to NewLine for a deletion
}

// Apply resolves every change against the ORIGINAL content, refuses
// overlapping matches with ops.ErrOverlap, and returns the new content with
// one Applied per replacement (ordered by change, then position). It is
// all-or-nothing: on error the content is unchanged and the *ops.Error's Index
// names the failing change. A miss says so when the change's replacement
// text is already present ("already applied?").
func Apply(content string, changes []Change) (string, []Applied, error) {
	if len(changes) == 0 {
		return content, nil, &ops.Error{Op: "match", Index: -1, Err: ops.ErrInvalidInput,
			Msg: "no changes given", Hint: "give at least one search/replace pair"}
	}
	var edits []Applied
	repl := map[int]string{} // edit index → replacement text
	for i, c := range changes {
		ms, err := Find(content, c.Search, c.Options)
		if err != nil {
			return content, nil, withIndex(alreadyApplied(err, content, c.Replace), i)
		}
		for _, m := range ms {
			repl[len(edits)] = m.Rewrite(c.Replace)
			edits = append(edits, Applied{Change: i, Match: m})
		}
	}
	order := make([]int, len(edits))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return edits[order[a]].Match.Start < edits[order[b]].Match.Start })
	for k := 1; k < len(order); k++ {
		p, q := &edits[order[k-1]], &edits[order[k]]
		if q.Match.Start < p.Match.End {
			return content, nil, overlapError(p, q)
		}
	}
	var b strings.Builder
	b.Grow(len(content))
	prev, lines := 0, 0
	for _, k := range order {
		e, r := &edits[k], repl[k]
		lines += strings.Count(content[prev:e.Match.Start], "\n")
		b.WriteString(content[prev:e.Match.Start])
		e.NewStart, e.NewLine = b.Len(), lines+1
		b.WriteString(r)
		e.NewEnd, e.NewEndLine = b.Len(), e.NewLine
		if r != "" {
			e.NewEndLine += strings.Count(r[:len(r)-1], "\n")
		}
		lines += strings.Count(r, "\n")
		prev = e.Match.End
	}
	b.WriteString(content[prev:])
	return b.String(), edits, nil
}

func withIndex(err error, i int) error {
	var e *ops.Error
	if !errors.As(err, &e) {
		return err
	}
	c := *e
	c.Index = i
	return &c
}

func overlapError(p, q *Applied) error {
	a, b := p.Match, q.Match
	return &ops.Error{Op: "match", Index: max(p.Change, q.Change), Err: ops.ErrOverlap,
		Msg: fmt.Sprintf("change %d (lines %d-%d) overlaps change %d (lines %d-%d)",
			p.Change, a.Line, a.EndLine, q.Change, b.Line, b.EndLine),
		Hint: "merge the overlapping changes into one, or make their search texts disjoint",
		Candidates: []ops.Candidate{
			{Line: a.Line, EndLine: a.EndLine, Text: shorten(a.Matched, 200)},
			{Line: b.Line, EndLine: b.EndLine, Text: shorten(b.Matched, 200)},
		}}
}
