package match

import (
	"fmt"

	"github.com/journalfs/journal/ops"
)

// insideMade judges a retried batch: a change found made already (its
// replacement standing beside or in place of its search) shows where its
// replacement lies in the file, and another change of the batch whose
// search is found only inside that replacement found text the batch's
// first sending wrote there, not the place the caller meant. Such a change
// is applied already where the caller's evidence (MadeAt: the journal's
// event) names its replacement; otherwise it is refused ErrMaybeRepeat
// (allow_repeat makes it again), never made a second time.
func insideMade(content string, li *lineIndex, changes []Change, edits []Edit) ([]Edit, error) {
	var made []Match // spans of the replacements of changes applied already
	for _, e := range edits {
		if !e.AlreadyApplied {
			continue
		}
		for _, r := range presentAround(content, li, e.Match, changes[e.Change].Replace) {
			if r.Start <= e.Match.Start && e.Match.End <= r.End {
				made = append(made, r)
			}
		}
	}
	if len(made) == 0 {
		return edits, nil
	}
	for k, e := range edits {
		c := changes[e.Change]
		if e.AlreadyApplied || c.AllowRepeat {
			continue
		}
		for _, r := range made {
			if r.Start > e.Match.Start || e.Match.End > r.End || r.End-r.Start <= e.Match.End-e.Match.Start {
				continue
			}
			if m, ok := madeAt(findAll(content, li, c.Replace, Options{Fuzzy: true}), c.MadeAt); ok {
				n := noop(m)
				n.Change = e.Change
				edits[k] = n
				break
			}
			return nil, &ops.Error{Op: "match", Index: e.Change, Err: ErrMaybeRepeat,
				Msg:        fmt.Sprintf("the search text stands only inside what another change of this call made already (lines %d-%d): this call looks sent before, and no earlier edit in the journal made this change, so nothing was written", r.Line, r.EndLine),
				Hint:       "read the file at the candidate's lines; to make the change there anyway, send the call again with allow_repeat: true",
				Candidates: []ops.Candidate{{Line: e.Match.Line, EndLine: e.Match.EndLine, Similarity: 1, Text: shorten(e.Match.Matched, 200)}}}
		}
	}
	return edits, nil
}
