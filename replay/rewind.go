package replay

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"syscall"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/snapshot"
)

// Rewind returns every file the journal knows (every path a committed event
// touched, in this engine's roots) to its state right after event seq, as
// ONE new restore event (Tool "restore", Args {"at":seq,"files":n}) that one
// undo or revert takes back: files created since are removed, files deleted
// since are recreated, contents and modes are put back.
//
// A file's state after seq is what the newest committed event at or before
// seq left (its After and AfterMode: a revert or undo is an event with its
// own After, so folding committed events in order is exact; rolled-back
// events changed nothing and are ignored). A file no committed event up to
// seq touched is decided by its first committed event after seq: a non-zero
// Before is the content it had at seq; a watcher's baseline event
// (journal.Event.IsBaseline) means the journal did not know the file at seq,
// so the rewind leaves it alone; otherwise that event created it and the
// rewind removes it, and the directories that creation made once the
// rewind leaves them empty (a directory holding anything else stays).
// Files already in their state (content and mode) are
// left out; a file changed outside the journal since its last event is
// recorded as an observe event first, as for any batch.
//
// The batch is atomic: a path that is now a symbolic link, a directory, or
// leads outside its root refuses the whole rewind with the path's
// *PathError and nothing is written. o.DryRun plans and checks, writes
// nothing, and returns the planned files in Result.Files (Before and After
// with their modes; see RewindChange). o.Through, when set, is the newest
// event a preview showed: if the journal has newer ones the rewind is
// refused (ErrConflict), so it never takes back what the preview did not
// show. o.Force and o.Session are not used: a rewind restores exactly.
func (e *Engine) Rewind(ctx context.Context, seq uint64, o RevertOptions) (*Result, error) {
	var planned map[string]journal.FileChange
	res, err := e.Edit(ctx, func(r *Reader) (*Batch, error) {
		if err := e.flushSealLocked(r.db); err != nil { // the plan reads the events
			return nil, err
		}
		want, err := e.statesAt(r.db, seq, o.Through)
		if err != nil {
			return nil, err
		}
		var b *Batch
		b, planned, err = e.planRewind(r, seq, want, o)
		return b, err
	})
	if err != nil || !o.DryRun {
		return res, err
	}
	// a dry run knows a streamed content's ID and the modes only from the plan
	for i, f := range res.Files {
		if p, ok := planned[f.Path]; ok {
			res.Files[i] = p
		}
	}
	return res, nil
}

// RewindChange says what a rewind does to one file (an entry of its
// Result.Files): "created", "deleted", "modified" (the content), or "mode"
// (the permission bits alone).
func RewindChange(f journal.FileChange) string {
	switch {
	case f.Before.IsZero():
		return "created"
	case f.After.IsZero():
		return "deleted"
	case f.Before == f.After:
		return "mode"
	}
	return "modified"
}

// fileAt is a file's state right after the event a rewind goes back to.
type fileAt struct {
	id    snapshot.ID // zero: the file did not exist
	mode  uint32
	known bool // a committed event at or before the rewind's event set it
	found bool // decided by the first committed event after it
	leave bool // only a watcher's baseline after it knows the file: not the rewind's to touch
	// dirs are the directories the file's creation after the rewind's
	// event made for it (FileChange.NewDirs): removed with the file where
	// the rewind leaves them empty, as an undo of that creation does.
	dirs []string
}

// statesAt folds the committed events into each file's state right after
// event seq, refusing an event that does not exist (or that retention
// dropped) and, with through set, a journal that moved on past it.
func (e *Engine) statesAt(db *journal.DB, seq, through uint64) (map[string]*fileAt, error) {
	want := map[string]*fileAt{}
	err := db.View(func(tx *journal.Tx) error {
		last := tx.Last()
		base, _ := tx.Base()
		switch {
		case seq == 0 || seq > last:
			return fmt.Errorf("event %d does not exist (the newest is %d): %w", seq, last, ErrBadEvent)
		case seq <= base:
			return fmt.Errorf("event %d was dropped by retention (journal gc): the oldest event kept is %d: %w", seq, base+1, ErrBadEvent)
		case through != 0 && last > through:
			return fmt.Errorf("the journal has events after %d, which the rewind's preview did not show (the newest is %d): %w", through, last, ErrConflict)
		}
		err := tx.Each(0, false, func(ev *journal.Event) error {
			if ev.Status != journal.StatusCommitted {
				return nil
			}
			for _, f := range ev.Files {
				w := want[f.Path]
				if w == nil {
					w = &fileAt{}
					want[f.Path] = w
				}
				switch {
				case ev.Seq <= seq:
					w.id, w.mode, w.known = f.After, f.AfterMode, true
				case w.known || w.found:
				case !f.Before.IsZero():
					w.id, w.mode, w.found = f.Before, f.BeforeMode, true
				case ev.IsBaseline():
					w.leave, w.found = true, true
				default:
					w.found, w.dirs = true, f.NewDirs // created after seq: absent at seq
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("rewind to event %d: read the events: %w", seq, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return want, nil
}

// planRewind turns the wanted states into the batch's changes (sorted by
// path), skipping the files already so, and returns the planned changes by
// path as a dry run reports them.
func (e *Engine) planRewind(r *Reader, seq uint64, want map[string]*fileAt, o RevertOptions) (*Batch, map[string]journal.FileChange, error) {
	var paths []string
	for key, w := range want {
		if !w.leave && e.ours(key) {
			paths = append(paths, key)
		}
	}
	slices.Sort(paths)
	r.Prefetch(paths)
	var changes []Change
	planned := map[string]journal.FileChange{}
	for _, key := range paths {
		w := want[key]
		cur, err := r.Read(key)
		if err != nil && w.id.IsZero() && errors.Is(err, syscall.ENOTDIR) {
			continue // to be absent, and cannot exist: a directory on its path is a file now
		}
		if err != nil {
			return nil, nil, fmt.Errorf("rewind to event %d: %w", seq, err)
		}
		if cur.ID == w.id && (w.id.IsZero() || w.mode == 0 || cur.Mode == modeOf(w.mode)) {
			continue // already as it was
		}
		c, err := e.contentChange(r, key, w.id, w.mode, cur.ID)
		if err != nil {
			return nil, nil, fmt.Errorf("rewind to event %d: %s: %w", seq, cur.Path.Rel, err)
		}
		if w.id.IsZero() {
			c.PruneDirs = w.dirs
		}
		changes = append(changes, c)
		f := journal.FileChange{Path: cur.Path.Key, Before: cur.ID, After: w.id}
		if cur.Exists {
			f.BeforeMode = uint32(cur.Mode)
		}
		if !w.id.IsZero() {
			f.AfterMode = uint32(cur.Mode)
			if m := modeOf(w.mode); m != 0 {
				f.AfterMode = uint32(m)
			} else if !cur.Exists {
				f.AfterMode = 0o644
			}
		}
		planned[f.Path] = f
	}
	if len(changes) == 0 {
		return nil, nil, fmt.Errorf("every file the journal knows is already as it was after event %d: %w", seq, ErrNothing)
	}
	args := fmt.Appendf(nil, `{"at":%d,"files":%d}`, seq, len(changes))
	return &Batch{Tool: "restore", Args: args, Kind: journal.KindRestore, Actor: o.Actor, Changes: changes, DryRun: o.DryRun, WriteReadOnly: o.WriteReadOnly}, planned, nil
}

// ours reports whether a journal path names a file in one of this engine's
// roots: a relative one is the first root's; an absolute one (another
// root's) must lie in a root of this engine. A journal shared by engines
// with other roots may know files this engine cannot reach; every other
// path is this engine's, and one it cannot use refuses the rewind.
func (e *Engine) ours(key string) bool {
	if !filepath.IsAbs(filepath.FromSlash(key)) {
		return true
	}
	root, _ := e.rootOf(filepath.FromSlash(key))
	return root != nil
}
