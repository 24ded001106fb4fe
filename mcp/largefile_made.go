package mcp

import (
	"bytes"
	"errors"
	"slices"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/ops"
	"github.com/journalfs/journal/ops/match"
	"github.com/journalfs/journal/ops/merge"
	"github.com/journalfs/journal/replay"
	"github.com/journalfs/journal/snapshot"
)

// The journal's evidence that an edit_content change was made already.
// The matcher reports a change applied already only on the file's own
// evidence (ops/match/applied.go); a retry whose replacement now stands in
// several places, or whose lines are too short to tell, is refused there.
// When the refused change's replacement stands in the file, the events of
// the file are searched for one that made exactly this change — its search
// text replaced by its replacement, in that event's diff — and whose lines
// are, unchanged since, where the replacement stands now. Found, the call
// runs again with that line as the change's match.Options.MadeAt, and the
// change answers already_applied; not found, the refusal stands.

// madeHistory bounds the events of a file searched for the change: a retry
// comes soon after the edit it repeats.
const madeHistory = 20

// suspect is a refused change whose replacement stands in the file: its
// index, where the replacement stands, and the content it was judged on.
type suspect struct {
	change int
	at     []match.Match
	data   []byte
}

// suspectOf returns the refused change of err whose replacement stands in
// the in-memory file v (nil if none, or if the change has evidence already
// or asks to repeat).
func suspectOf(err error, v *replay.View, changes []match.Change) *suspect {
	var oe *ops.Error
	if v == nil || v.Strategy != replay.StrategyMemory || !errors.As(err, &oe) || oe.Index < 0 || oe.Index >= len(changes) ||
		!(errors.Is(err, ops.ErrNoMatch) || errors.Is(err, ops.ErrAmbiguousMatch)) {
		return nil
	}
	c := changes[oe.Index]
	if c.AllowRepeat || c.MadeAt > 0 || c.ReplaceAll || c.Occurrence > 0 {
		return nil
	}
	ms := match.Present(string(v.Data), c.Replace)
	if len(ms) == 0 {
		return nil
	}
	return &suspect{change: oe.Index, at: ms, data: v.Data}
}

// madeAt returns the 1-based line where an earlier event of file key made
// change c, when its replacement still stands there unchanged (one of
// sp.at); 0 when no event of the last madeHistory did.
func (s *Server) madeAt(key string, c match.Change, sp *suspect) int {
	type pair struct{ before, after snapshot.ID }
	var evs []pair
	n := 0
	_ = s.eng.Journal().View(func(tx *journal.Tx) error {
		return tx.EachIndexed("path", key, func(e *journal.Event) error {
			if f, ok := e.File(key); ok && e.Status == journal.StatusCommitted && !f.Before.IsZero() && !f.After.IsZero() && f.Before != f.After {
				evs = append(evs, pair{f.Before, f.After})
			}
			if n++; n >= madeHistory {
				return journal.ErrStop
			}
			return nil
		})
	})
	anchor := []byte(longestLine(c.Search))
	for _, e := range evs {
		before, ok, err := s.eng.Content(e.before, rebaseLimit)
		if err != nil || !ok || !bytes.Contains(before, anchor) {
			continue // most events: the search text was not there before them
		}
		after, ok, err := s.eng.Content(e.after, rebaseLimit)
		if err != nil || !ok {
			continue
		}
		a, b, ok := madeBy(before, after, c)
		if !ok {
			continue
		}
		if a, _, ok = newLineMap(after, sp.data).span(a, b); !ok {
			continue // its lines changed since: not this place any more
		}
		for _, m := range sp.at {
			if m.Line == a {
				return a
			}
		}
	}
	return 0
}

// madeBy reports whether the change before→after made change c: c applied
// to before (where its search text matches once) gives lines that after
// has, at the same place, among whatever else that event changed. It
// returns the lines of c's replacement in after.
func madeBy(before, after []byte, c match.Change) (int, int, bool) {
	// the search's and the replacement's longest lines, trimmed, must be
	// there before and after: most events are ruled out without a match
	// (a miss would compute its nearest windows over the whole file)
	if !bytes.Contains(before, []byte(longestLine(c.Search))) || !bytes.Contains(after, []byte(longestLine(c.Replace))) {
		return 0, 0, false
	}
	c.AllowRepeat, c.MadeAt = true, 0
	es, err := match.Locate(string(before), []match.Change{c})
	if err != nil || len(es) != 1 || es[0].AlreadyApplied {
		return 0, 0, false
	}
	e := es[0]
	x := string(before[:e.Match.Start]) + e.Replacement + string(before[e.Match.End:])
	if x == string(after) {
		return e.NewLine, e.NewEndLine, true
	}
	// an event of several changes: each hunk of c's change must be one of
	// the event's, with the same lines, all shifted alike
	bl, xl, al := splitLinesKeep(before), splitLinesKeep([]byte(x)), splitLinesKeep(after)
	ha := merge.DiffStrings(bl, al)
	shift, found := 0, false
	for _, h := range merge.DiffStrings(bl, xl) {
		k := slices.IndexFunc(ha, func(g merge.Hunk) bool {
			return g.A0 == h.A0 && g.A1 == h.A1 && slices.Equal(xl[h.B0:h.B1], al[g.B0:g.B1])
		})
		if k < 0 || (found && ha[k].B0-h.B0 != shift) {
			return 0, 0, false
		}
		shift, found = ha[k].B0-h.B0, true
	}
	if !found {
		return 0, 0, false
	}
	return e.NewLine + shift, e.NewEndLine + shift, true
}
