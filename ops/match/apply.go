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
	// AlreadyApplied: the change was found made already (its replacement
	// where the search would match); the edit leaves the file as it is.
	AlreadyApplied bool `json:"already_applied,omitempty"`
}

// Apply resolves every change against the ORIGINAL content (see Locate)
// and returns the new content with one Applied per replacement (ordered by
// change, then position). It is all-or-nothing: on error the content is
// unchanged and the *ops.Error's Index names the failing change.
func Apply(content string, changes []Change) (string, []Applied, error) {
	edits, err := Locate(content, changes)
	if err != nil {
		return content, nil, err
	}
	var b strings.Builder
	b.Grow(len(content))
	prev := 0
	for _, e := range edits {
		b.WriteString(content[prev:e.Match.Start])
		b.WriteString(e.Replacement)
		prev = e.Match.End
	}
	b.WriteString(content[prev:])
	out := make([]Applied, len(edits))
	for i, e := range edits {
		out[i] = e.Applied
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Change < out[b].Change })
	return b.String(), out, nil
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
