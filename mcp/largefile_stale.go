package mcp

import (
	"bytes"
	"fmt"

	"github.com/journalfs/journal/ops/match"
	"github.com/journalfs/journal/replay"
)

// Someone else's change to the lines an edit_content change replaces.
// edit_content's search text says which lines the agent means; the version
// of the file the session last saw (read, or left by its own write) says
// what those lines held when it chose them. When the file changed since
// that version and a change's search text stood there on lines that have
// changed since, the change was made against lines that are no longer
// there: whatever the matcher would find now (a near copy, the text only
// another change of the batch writes, a replacement that looks made
// already), only a refusal is right, as for the line tools (rebase.go).

// staleChange refuses (replay.ErrConflict) a change of an in-memory file
// whose search text stood, in the version the session last saw, on lines
// changed since; data is the file's current content. A session that never
// saw the file, or saw it as it is, is not judged here; nor is a change
// whose search text that version did not hold.
func (s *Server) staleChange(session string, v *replay.View, data []byte, changes []match.Change) error {
	if v.Strategy != replay.StrategyMemory {
		return nil
	}
	fv := s.viewOf(session, v.Path.Key)
	if fv.cur.IsZero() || fv.cur == v.ID {
		return nil
	}
	seen, ok := s.reads.get(fv.cur)
	if !ok {
		var err error
		if seen, ok, err = s.eng.Content(fv.cur, rebaseLimit); err != nil || !ok {
			return nil
		}
	}
	var lm *lineMap
	for i, c := range changes {
		if !bytes.Contains(seen, []byte(longestLine(c.Search))) {
			continue // not in the version seen: nothing to say (a cheap test before a match)
		}
		c.AllowRepeat, c.MadeAt = true, 0
		es, err := match.Locate(string(seen), []match.Change{c})
		if err != nil {
			continue
		}
		if lm == nil {
			lm = newLineMap(seen, data)
		}
		for _, e := range es {
			a, b := e.Match.Line, e.Match.EndLine
			if _, _, ok := lm.span(a, b); ok {
				continue
			}
			what := "the search text"
			if len(changes) > 1 {
				what = fmt.Sprintf("change %d's search text", i)
			}
			return &replay.PathError{Path: v.Path.Key, Err: replay.ErrConflict,
				Msg: fmt.Sprintf("changed since this session last saw it (version %s, now %s): %s stood at lines %s then, and someone else has changed those lines since, so the edit was made against lines that are no longer there and nothing was written. As you saw them:\n%sNow, around there:\n%s",
					fv.cur.Short(), v.ID.Short(), what, rangeText(a, b), excerpt(seen, a, b), excerpt(data, max(1, a-2), b+2)),
				Hint: "read the file again and redo the edit against its current lines"}
		}
	}
	return nil
}
