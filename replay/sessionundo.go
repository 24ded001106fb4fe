package replay

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/snapshot"
)

// UndoSession takes back everything one session did that still stands, as
// one new undo event (journal.Event.Undone names the events, each linked to
// it as a revert is): the session's events are reverted newest first, each
// onto what the ones after it left, so a file changed by others since gets
// the session's changes reversed by three-way merges and an overlap refuses
// the whole undo with a *ConflictError naming the event (unless o.Force,
// which puts every file back exactly as it was before the session's first
// change to it). Nothing is written on a conflict or with o.DryRun.
//
// An undo, redo or revert by the session of the session's own event cancels
// with it (the pair changed nothing), so neither is taken back; observe and
// gc events are not the session's doing and are skipped. Redo the whole
// session by reverting the event this makes.
func (e *Engine) UndoSession(ctx context.Context, session string, o RevertOptions) (*Result, error) {
	if session == "" {
		return nil, fmt.Errorf("no session given: %w", ErrBadEvent)
	}
	return e.Edit(ctx, func(r *Reader) (*Batch, error) {
		if err := e.flushSealLocked(r.db); err != nil { // the plan reads the events
			return nil, err
		}
		evs, err := sessionTargets(r.db, session, 0, o.Through)
		if err != nil {
			return nil, err
		}
		return e.planSessionUndo(r, session, evs, o)
	})
}

// sessionTargets returns the session's events whose effect stands, newest
// first: from event from on (0: all), through event through (0: all). The
// events of the session's agent's calls of our MCP tool (CallSession) are
// among them.
func sessionTargets(db *journal.DB, session string, from, through uint64) ([]*journal.Event, error) {
	var evs []*journal.Event
	found := false
	err := db.View(func(tx *journal.Tx) error {
		mine := map[uint64]bool{}
		var all []*journal.Event
		err := tx.EachIndexed("session", session, func(ev *journal.Event) error {
			found = true
			mine[ev.Seq] = true
			all = append(all, ev)
			return nil
		})
		if err != nil {
			return err
		}
		// an agent's calls of our MCP tool are events of the MCP server's
		// session that name the agent's (CallSession): the session's too
		if ss, ok := tx.Session(session); ok {
			err = tx.Each(max(ss.First, from), false, func(ev *journal.Event) error {
				if ev.Actor.Session != session && CallSession(ev) == session {
					mine[ev.Seq] = true
					all = append(all, ev)
				}
				return nil
			})
			if err != nil {
				return err
			}
			slices.SortFunc(all, func(a, b *journal.Event) int { return cmp.Compare(b.Seq, a.Seq) })
		}
		for _, ev := range all {
			switch {
			// a hook's record of the agent's shell call (observe, tool
			// "Bash", the agent's session) is the session's as much as
			// its tools' edits: undoable decides, as for undo
			case through != 0 && ev.Seq > through, ev.Seq < from, !undoable(ev), ev.Kind == journal.KindDamaged, len(ev.Files) == 0, !live(tx, ev.Seq):
				continue
			}
			if t := ev.Targets(); len(t) > 0 && !slices.ContainsFunc(t, func(s uint64) bool { return !mine[s] }) {
				continue // it took back the session's own events: the two cancel
			}
			evs = append(evs, ev)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	switch {
	case !found:
		return nil, fmt.Errorf("session %q has no events in this journal: %w", session, ErrBadEvent)
	case len(evs) == 0:
		return nil, fmt.Errorf("nothing session %q did still stands (each change was undone or reverted): %w", session, ErrNothing)
	}
	return evs, nil
}

// pending is a file's state while a session undo is planned: a stored
// content, or merged bytes.
type pending struct {
	cur  *File
	id   snapshot.ID // the content (zero: deleted)
	mode uint32
	data []byte   // merged content not in the store (id is its hash)
	dirs []string // the directories the session's creation of the file made (FileChange.NewDirs)
}

func (e *Engine) planSessionUndo(r *Reader, session string, evs []*journal.Event, o RevertOptions) (*Batch, error) {
	state := map[string]*pending{}
	var order []string
	for _, ev := range evs {
		for _, f := range ev.Files {
			p := state[f.Path]
			if p == nil {
				cur, err := r.Read(f.Path)
				if err != nil {
					return nil, err
				}
				p = &pending{cur: cur, id: cur.ID, mode: uint32(cur.Mode), data: cur.Data}
				if !cur.Exists {
					p.id = snapshot.ID{}
				}
				state[f.Path] = p
				order = append(order, f.Path)
			}
			switch {
			case p.id == f.Before && !p.id.IsZero() && modeStands(f, modeOf(p.mode)):
				p.mode = f.BeforeMode // the content is as before, the event's mode still stands
			case p.id == f.Before:
				// already as before
			case p.id == f.After || o.Force:
				p.id, p.mode, p.data = f.Before, f.BeforeMode, nil
				if f.Before.IsZero() {
					p.dirs = f.NewDirs
				}
			default:
				// reverse the event's change onto what the later ones left
				at := *p.cur
				at.ID, at.Exists, at.Mode, at.Data = p.id, !p.id.IsZero(), modeOf(p.mode), p.data
				if at.Exists && at.Data == nil && p.id != p.cur.ID {
					err := r.db.View(func(tx *journal.Tx) (err error) {
						at.Data, err = snapshot.Bytes(tx.Bolt(), p.id)
						return tx.ContentError(p.id, err)
					})
					if err != nil {
						return nil, err
					}
				}
				c, err := e.mergeChange(r, ev, f, &at)
				if ce := (*ConflictError)(nil); errors.As(err, &ce) {
					ce.Session = session
					if p.id != p.cur.ID { // the lines are of the file as the later undos left it, not as it is
						ce.Lines = nil
						ce.Msg += " (once the session's later changes to the file are taken back)"
					}
				}
				if err != nil {
					return nil, err
				}
				p.id, p.data = snapshot.Sum(c.Data), c.Data
			}
		}
	}
	undone := make([]uint64, len(evs))
	for i, ev := range evs {
		undone[i] = ev.Seq
	}
	b := &Batch{Tool: "undo_session", Args: fmt.Appendf(nil, `{"session":%q,"force":%t}`, session, o.Force),
		Kind: journal.KindUndo, Undone: undone, Actor: o.Actor, DryRun: o.DryRun, WriteReadOnly: o.WriteReadOnly}
	for _, path := range order {
		p := state[path]
		if p.id == p.cur.ID && (p.id.IsZero() || uint32(p.cur.Mode) == p.mode) {
			continue // back where it is now
		}
		if p.data != nil && p.id != p.cur.ID {
			id := p.cur.ID
			b.Changes = append(b.Changes, Change{Path: path, Data: p.data, Expect: &id, Mode: modeOf(p.mode)})
			continue
		}
		c, err := e.contentChange(r, path, p.id, p.mode, p.cur.ID)
		if err != nil {
			return nil, err
		}
		if c.Delete {
			c.PruneDirs = p.dirs
		}
		b.Changes = append(b.Changes, c)
	}
	if len(b.Changes) == 0 {
		return nil, fmt.Errorf("every file session %q changed is already as it was before it: %w", session, ErrNothing)
	}
	return b, nil
}

// modeStands reports whether f changed its file's mode and a file of mode
// now still has it: a session undo puts the mode back even where the
// content is already as before (a chmod, or a rewind's change of mode
// alone), as planRevert does for one event.
func modeStands(f journal.FileChange, now fs.FileMode) bool {
	return !f.Before.IsZero() && !f.After.IsZero() && f.BeforeMode != 0 && f.AfterMode != 0 &&
		f.BeforeMode != f.AfterMode && now == modeOf(f.AfterMode)
}
