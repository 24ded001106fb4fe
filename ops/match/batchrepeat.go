package match

import (
	"fmt"
	"slices"
	"strings"

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

// madeElsewhere judges a change whose search text stands only at a
// tolerant level (another indentation, look-alikes) while its replacement
// stands as sent, with a line the change writes of some length, at another
// place: the exact place is where the change was made already, and the
// tolerant one another block that resembles the search (a retried
// `return nil, err` found again one level deeper). It is applied already
// where the caller's evidence (MadeAt) names the replacement's line, else
// refused (ErrMaybeRepeat), never made a second time.
func madeElsewhere(content string, li *lineIndex, ms []Match, search, replace string, at int) ([]Edit, bool, error) {
	for _, m := range ms {
		if m.Level == LevelExact || m.Level == LevelLineEndings {
			return nil, false, nil
		}
	}
	if !writesLong(search, replace) {
		return nil, false, nil
	}
	var rs []Match
	for _, r := range findAll(content, li, replace, Options{}) {
		if r.Level == LevelExact && !slices.ContainsFunc(ms, func(m Match) bool { return r.Start < m.End && m.Start < r.End }) {
			rs = append(rs, r)
		}
	}
	if len(rs) == 0 {
		return nil, false, nil
	}
	if r, ok := madeAt(rs, at); ok {
		return []Edit{noop(r)}, true, nil
	}
	return nil, true, &ops.Error{Op: "match", Index: -1, Err: ErrMaybeRepeat,
		Msg: fmt.Sprintf("the search text stands only with other whitespace or characters (line %d), while this change's replacement stands as sent at line %d: made already, or meant at that other place? No earlier edit in the journal made this change there, so nothing was written",
			ms[0].Line, rs[0].Line),
		Hint:       "read the file at both places; to change the resembling block, send its text exactly as the file has it",
		Candidates: []ops.Candidate{{Line: rs[0].Line, EndLine: rs[0].EndLine, Similarity: 1, Text: shorten(rs[0].Matched, 200)}}}
}

// writesLong reports a change that writes a line (not a line of its search
// as it is) of at least minKeyRunes once folded: short lines ("}") stand
// in many places and prove nothing.
func writesLong(search, replace string) bool {
	old := map[string]bool{}
	for _, k := range keyLines(search) {
		old[k] = true
	}
	for _, k := range keyLines(replace) {
		if !old[k] && len([]rune(k)) >= minKeyRunes {
			return true
		}
	}
	return false
}

// blankAlready judges an insertion of blank lines alone after (before) its
// search text, which extendedAlready cannot see (blank lines are no keys):
// where every match already has that many blank lines after (before) it,
// the change was made already where the caller's evidence (MadeAt) names
// its replacement, and is otherwise refused (ErrMaybeRepeat) — never a
// blank line added a second time.
func blankAlready(content string, li *lineIndex, ms []Match, search, replace string, at int) ([]Edit, bool, error) {
	s, r := toLF(search), toLF(replace)
	after := strings.HasPrefix(r, s) && strings.HasSuffix(s, "\n")
	var rest string
	switch {
	case after:
		rest = r[len(s):]
	case strings.HasSuffix(r, s):
		rest = r[:len(r)-len(s)]
	default:
		return nil, false, nil
	}
	n := strings.Count(rest, "\n")
	if strings.TrimSpace(rest) != "" || n == 0 {
		return nil, false, nil
	}
	var es []Edit
	for _, m := range ms {
		for k := 0; k < n; k++ {
			j := m.EndLine + k // 0-based index of the k-th line after the match
			if !after {
				j = m.Line - 2 - k
			}
			if j < 0 || j >= li.n() || strings.TrimSpace(li.text(j)) != "" {
				return nil, false, nil
			}
		}
		es = append(es, noop(m))
	}
	if madeAround(content, li, ms, replace, at) {
		return es, true, nil
	}
	where := "after"
	if !after {
		where = "before"
	}
	return nil, true, repeatError(ms[0], []string{"(blank line)"}, where)
}

// madeAround reports the caller's evidence (at, from the journal's event)
// that the replacement was made around the search's one match ms[0].
func madeAround(content string, li *lineIndex, ms []Match, replace string, at int) bool {
	r, ok := madeAt(findAll(content, li, replace, Options{Fuzzy: true}), at)
	return ok && len(ms) == 1 && r.Line <= ms[0].Line && r.EndLine >= ms[0].EndLine
}
