package replay

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/ops"
	"github.com/journalfs/journal/ops/merge"
	"github.com/journalfs/journal/snapshot"
)

// RevertOptions tune Revert, Undo, Redo, Restore and Rewind.
type RevertOptions struct {
	Force   bool           // restore the before-content exactly even when the file changed since (still a new event)
	DryRun  bool           // plan and check, write nothing
	Session string         // Undo/Redo: only this session's events ("" = anyone's)
	Through uint64         // UndoSession: only the session's events up to this one (0 = all), as a preview saw them; Rewind: refuse if the journal has newer events
	Actor   *journal.Actor // default: the engine's actor
	// WriteReadOnly writes files made read-only (Batch.WriteReadOnly): a
	// person's revert, undo or restore sets it, an agent's only when it
	// says so.
	WriteReadOnly bool
}

// Revert takes event seq's changes back as a new event. Files untouched since
// get their before-content exactly; files changed since get seq's change
// reversed by a three-way merge, and overlapping changes refuse the revert
// with a *ConflictError (unless Force).
func (e *Engine) Revert(ctx context.Context, seq uint64, o RevertOptions) (*Result, error) {
	return e.Edit(ctx, func(r *Reader) (*Batch, error) {
		if err := e.flushSealLocked(r.db); err != nil { // the plan reads the events
			return nil, err
		}
		return e.planRevert(r, seq, journal.KindRevert, o)
	})
}

// Undo reverts the newest event not yet undone (of o.Session, or anyone's).
func (e *Engine) Undo(ctx context.Context, o RevertOptions) (*Result, error) {
	return e.Edit(ctx, func(r *Reader) (*Batch, error) {
		if err := e.flushSealLocked(r.db); err != nil { // the plan reads the events
			return nil, err
		}
		target, err := e.findUndo(r.db, o.Session)
		if err != nil {
			return nil, err
		}
		return e.planRevert(r, target, journal.KindUndo, o)
	})
}

// Redo reverts the newest undo that has not been redone, provided no new
// change came after it.
func (e *Engine) Redo(ctx context.Context, o RevertOptions) (*Result, error) {
	return e.Edit(ctx, func(r *Reader) (*Batch, error) {
		if err := e.flushSealLocked(r.db); err != nil { // the plan reads the events
			return nil, err
		}
		target, err := e.findRedo(r.db, o.Session)
		if err != nil {
			return nil, err
		}
		return e.planRevert(r, target, journal.KindRedo, o)
	})
}

// Restore makes a file what it was right after event seq, as a new event.
func (e *Engine) Restore(ctx context.Context, file string, seq uint64, o RevertOptions) (*Result, error) {
	return e.Edit(ctx, func(r *Reader) (*Batch, error) {
		if err := e.flushSealLocked(r.db); err != nil { // the plan reads the events
			return nil, err
		}
		p, err := e.Resolve(file)
		if err != nil {
			return nil, err
		}
		var want *journal.FileChange
		err = r.db.View(func(tx *journal.Tx) error {
			if seq > tx.Last() {
				return fmt.Errorf("event %d does not exist (the newest is %d): %w", seq, tx.Last(), ErrBadEvent)
			}
			return tx.EachIndexed("path", p.Key, func(ev *journal.Event) error {
				if ev.Seq > seq || ev.Status != journal.StatusCommitted {
					return nil
				}
				f, _ := ev.File(p.Key)
				want = &f
				return journal.ErrStop
			})
		})
		if err != nil {
			return nil, err
		}
		if want == nil {
			return nil, &PathError{Path: p.Rel, Err: ErrBadEvent, Msg: fmt.Sprintf("has no journaled state at or before event %d", seq),
				Hint: "run `journal log " + p.Rel + "` to see the events that touched it"}
		}
		cur, err := r.Read(file)
		if err != nil {
			return nil, err
		}
		if cur.ID == want.After {
			return nil, fmt.Errorf("%s is already as it was after event %d: %w", p.Rel, seq, ErrNothing)
		}
		c, err := e.contentChange(r, file, want.After, want.AfterMode, cur.ID)
		if err != nil {
			return nil, err
		}
		args := fmt.Appendf(nil, `{"path":%q,"at":%d}`, p.Key, seq)
		return &Batch{Tool: "restore", Args: args, Kind: journal.KindRestore, Actor: o.Actor, Changes: []Change{c}, DryRun: o.DryRun, WriteReadOnly: o.WriteReadOnly}, nil
	})
}

// live reports whether event seq's effect stands: it was not reverted, or the
// event that reverted it was itself reverted (a redo, or a revert of a revert).
func live(tx *journal.Tx, seq uint64) bool {
	by := tx.RevertedBy(seq)
	return by == 0 || !live(tx, by)
}

// undoable reports whether undo may pick ev: a committed change someone
// made — a tool's, a CLI's, or one the watcher, a hook or journal exec
// recorded (an observe event with a tool) — but not a baseline (files first
// seen, not created), a garbage collection, or an outside change recorded
// only because a tool was about to overwrite it (its tool's event follows).
func undoable(ev *journal.Event) bool {
	switch {
	case ev.Status != journal.StatusCommitted, ev.Kind == journal.KindGC, ev.Kind == journal.KindRedact, ev.Kind == journal.KindPrompt, ev.IsBaseline():
		return false
	case ev.Kind == journal.KindObserve:
		return ev.Tool != ""
	}
	return true
}

func (e *Engine) eachCandidate(db *journal.DB, session string, fn func(tx *journal.Tx, ev *journal.Event) error) error {
	return db.View(func(tx *journal.Tx) error {
		visit := func(ev *journal.Event) error {
			if !undoable(ev) {
				return nil
			}
			return fn(tx, ev)
		}
		if session != "" {
			return tx.EachIndexed("session", session, visit)
		}
		return tx.Each(0, true, visit)
	})
}

func (e *Engine) findUndo(db *journal.DB, session string) (uint64, error) {
	var target uint64
	err := e.eachCandidate(db, session, func(tx *journal.Tx, ev *journal.Event) error {
		if ev.Kind == journal.KindUndo || !live(tx, ev.Seq) {
			return nil
		}
		target = ev.Seq
		return journal.ErrStop
	})
	if err == nil && target == 0 {
		err = fmt.Errorf("no change to undo: %w", ErrNothing)
	}
	return target, err
}

func (e *Engine) findRedo(db *journal.DB, session string) (uint64, error) {
	var target uint64
	err := e.eachCandidate(db, session, func(tx *journal.Tx, ev *journal.Event) error {
		switch {
		case ev.Kind == journal.KindRedo:
			return nil
		case ev.Kind == journal.KindUndo && live(tx, ev.Seq):
			target = ev.Seq
			return journal.ErrStop
		case ev.Kind == journal.KindUndo:
			return nil
		}
		return journal.ErrStop // a new change ends the redo history
	})
	if err == nil && target == 0 {
		err = fmt.Errorf("no undo to redo: %w", ErrNothing)
	}
	return target, err
}

func (e *Engine) planRevert(r *Reader, seq uint64, kind journal.Kind, o RevertOptions) (*Batch, error) {
	var ev *journal.Event
	var by uint64
	err := r.db.View(func(tx *journal.Tx) (err error) {
		if ev, err = tx.Event(seq); err != nil {
			if errors.Is(err, journal.ErrNotFound) {
				return fmt.Errorf("event %d does not exist (the newest is %d): %w", seq, tx.Last(), ErrBadEvent)
			}
			return err
		}
		if tx.RevertedBy(seq) != 0 && live(tx, tx.RevertedBy(seq)) {
			by = tx.RevertedBy(seq)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	switch {
	case ev.Status != journal.StatusCommitted:
		return nil, fmt.Errorf("event %d is %s: it changed nothing, so there is nothing to revert: %w", seq, ev.Status, ErrBadEvent)
	case ev.Kind == journal.KindGC:
		return nil, fmt.Errorf("event %d records a garbage collection and cannot be reverted: %w", seq, ErrBadEvent)
	case ev.Kind == journal.KindPrompt:
		return nil, fmt.Errorf("event %d records a prompt, which changed no file (`journal undo --prompt %d` takes back what the agent did for it): %w", seq, seq, ErrBadEvent)
	case ev.Kind == journal.KindRedact:
		return nil, fmt.Errorf("event %d records a redaction, which cannot be reverted: the values it took out are gone: %w", seq, ErrBadEvent)
	case ev.IsBaseline():
		return nil, fmt.Errorf("event %d records files as a watcher first found them (a baseline, not their creation), so it cannot be reverted: %w", seq, ErrBadEvent)
	case by != 0:
		return nil, fmt.Errorf("event %d is already reverted by event %d (revert %d to re-apply it): %w", seq, by, by, ErrNothing)
	}
	b := &Batch{Tool: string(kind), Args: fmt.Appendf(nil, `{"event":%d,"force":%t}`, seq, o.Force), Kind: kind, Reverts: seq, Actor: o.Actor, DryRun: o.DryRun, WriteReadOnly: o.WriteReadOnly}
	for _, f := range ev.Files {
		cur, err := r.Read(f.Path)
		if err != nil {
			return nil, err
		}
		switch {
		case cur.ID == f.Before && (f.Before.IsZero() || f.BeforeMode == 0 || uint32(cur.Mode) == f.BeforeMode):
			continue // already as before (content and mode)
		case cur.ID == f.After || o.Force:
			// the mode goes back only from the event's own after-mode (or
			// with force): a chmod made since — a person's chmod a-w —
			// stays, as a later content change would
			mode := f.BeforeMode
			if !o.Force && f.AfterMode != 0 && uint32(cur.Mode) != f.AfterMode {
				mode = uint32(cur.Mode)
			}
			c, err := e.contentChange(r, f.Path, f.Before, mode, cur.ID)
			if err != nil {
				return nil, err
			}
			if c.Delete && f.Before.IsZero() {
				c.PruneDirs = f.NewDirs // the event made the file and these directories for it
			}
			b.Changes = append(b.Changes, c)
		default:
			c, err := e.mergeChange(r, ev, f, cur)
			if err != nil {
				return nil, err
			}
			b.Changes = append(b.Changes, c)
		}
	}
	if len(b.Changes) == 0 {
		return nil, fmt.Errorf("every file of event %d is already as it was before it: %w", seq, ErrNothing)
	}
	return b, nil
}

// contentChange sets path to the stored content id (deleting it for the zero ID).
func (e *Engine) contentChange(r *Reader, path string, id snapshot.ID, mode uint32, expect snapshot.ID) (Change, error) {
	c := Change{Path: path, Expect: &expect, Mode: modeOf(mode)}
	if id.IsZero() {
		c.Delete = true
		return c, nil
	}
	var size int64
	err := r.db.View(func(tx *journal.Tx) (err error) {
		size, err = snapshot.Size(tx.Bolt(), id)
		return tx.ContentError(id, err)
	})
	if err != nil {
		return c, err
	}
	if size < e.streamMin {
		err = r.db.View(func(tx *journal.Tx) (err error) {
			c.Data, err = snapshot.Bytes(tx.Bolt(), id)
			return tx.ContentError(id, err)
		})
		return c, err
	}
	c.Source = func(w io.Writer) error {
		return r.db.View(func(tx *journal.Tx) error { return snapshot.Get(tx.Bolt(), id, w) })
	}
	return c, nil
}

func modeOf(m uint32) fs.FileMode { return fs.FileMode(m).Perm() }

// mergeChange reverses f's change onto a file that changed since, by diff3.
func (e *Engine) mergeChange(r *Reader, ev *journal.Event, f journal.FileChange, cur *File) (Change, error) {
	conflict := func(msg string) (Change, error) {
		return Change{}, &ConflictError{Event: ev.Seq, Path: cur.Path.Rel, Msg: msg}
	}
	switch {
	case f.Before.IsZero():
		return conflict("the event created the file and it has changed since; reverting would delete those changes (use force to delete it anyway)")
	case f.After.IsZero():
		return conflict("the event deleted the file and it exists again; reverting would overwrite it (use force to restore the old content)")
	case !cur.Exists:
		return conflict("the file was deleted after the event (use force to restore the old content)")
	case cur.Data == nil:
		return conflict("the file is too large for a three-way merge (use force to restore the old content exactly)")
	}
	var base, theirs []byte
	err := r.db.View(func(tx *journal.Tx) (err error) {
		if base, err = snapshot.Bytes(tx.Bolt(), f.After); err != nil {
			return tx.ContentError(f.After, err)
		}
		theirs, err = snapshot.Bytes(tx.Bolt(), f.Before)
		return tx.ContentError(f.Before, err)
	})
	if err != nil {
		return Change{}, err
	}
	if bytes.IndexByte(base, 0) >= 0 || bytes.IndexByte(theirs, 0) >= 0 || bytes.IndexByte(cur.Data, 0) >= 0 {
		return conflict("the file is binary and changed since the event; it cannot be merged (use force to restore the old content exactly)")
	}
	out, err := merge.Merge3(base, cur.Data, theirs)
	if err != nil {
		var oe *ops.Error
		if errors.As(err, &oe) && errors.Is(err, ops.ErrConflict) {
			ce := &ConflictError{Event: ev.Seq, Path: cur.Path.Rel, Msg: oe.Msg}
			for _, c := range oe.Candidates {
				end := c.EndLine
				if end == 0 {
					end = c.Line
				}
				ce.Lines = append(ce.Lines, [2]int{c.Line, end})
			}
			return Change{}, ce
		}
		return Change{}, err
	}
	id := cur.ID
	return Change{Path: f.Path, Data: out, Expect: &id, Mode: cur.Mode}, nil
}
