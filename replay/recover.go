package replay

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/snapshot"
)

// Recover finishes every batch a stopped process left pending: one whose
// files are all in place (it stopped before the deferred seal) is sealed
// committed, any other is rolled back and its temporary files removed. It
// seals this engine's own unsealed batch first. It is idempotent; Open runs
// it, and so does every batch before it starts. It returns the events it
// rolled back.
func (e *Engine) Recover() ([]uint64, error) {
	var done []uint64
	err := e.do(func(db *journal.DB) error {
		if err := e.flushLocked(db, true); err != nil {
			return err
		}
		var err error
		if done, err = e.recover(db); err != nil {
			return err
		}
		if err := e.flushLocked(db, true); err != nil { // the log's run, if recover adopted it (wal.go)
			return err
		}
		return db.FinishRedaction() // a redaction a crash interrupted: its last step
	})
	return done, err
}

func (e *Engine) recoverLocked(db *journal.DB) error {
	_, err := e.recover(db)
	return err
}

func (e *Engine) recover(db *journal.DB) ([]uint64, error) {
	var pending []uint64
	var staged []string
	var last uint64
	if err := db.View(func(tx *journal.Tx) error {
		pending, staged, last = tx.Pending(), tx.Staged(), tx.Last()
		return nil
	}); err != nil {
		return nil, err
	}
	note := readNote(db) // read once: temps to remove, or a batch done
	e.removeNotedTemps(note, max(last, e.loggedLast()))
	var gone []string
	for _, k := range staged {
		if e.removeStaged(k) {
			gone = append(gone, k)
		}
	}
	if len(gone) > 0 {
		if err := db.Update(func(tx *journal.Tx) error { return tx.Unstage(gone) }); err != nil {
			return nil, err
		}
	}
	var done uint64
	if note.Done {
		done = note.Seq
	}
	complete := note.Complete // an unsealed batch the note's batch followed
	var rolledBack []uint64
	for _, seq := range pending {
		if e.unsealed != nil && seq == e.unsealed.Seq {
			continue // this engine's own batch, complete, its seal deferred
		}
		var ev *journal.Event
		if err := db.View(func(tx *journal.Tx) (err error) { ev, err = tx.Event(seq); return }); err != nil {
			return nil, err
		}
		// A batch whose files are all in place completed: its process
		// stopped before the deferred seal. The note says so even if a file
		// was changed since; without the note (a power failure), every file
		// must hold its after-content.
		if seq == done || seq == complete || e.inPlace(ev) {
			err := db.Update(func(tx *journal.Tx) error {
				_, err := tx.Seal(seq, journal.StatusCommitted, "")
				return err
			})
			if err != nil {
				return nil, fmt.Errorf("replay: recover event %d: %w", seq, err)
			}
			continue
		}
		if err := e.recoverEvent(db, ev, "rolled back by recovery: the process applying it stopped before it committed"); err != nil {
			return nil, fmt.Errorf("replay: recover event %d: %w", seq, err)
		}
		rolledBack = append(rolledBack, seq)
	}
	if err := e.recoverLog(db); err != nil {
		return nil, err
	}
	return rolledBack, nil
}

// removeStaged removes the staged temp of key (root dir 0x00 path in the
// root) and reports whether it may be unstaged: the temp is gone, or could
// not be removed for a reason other than being out of reach (a read-only
// directory: left, as a stray temp is better than a journal no batch can get
// past). A temp out of reach — a directory on its path is a symbolic link
// outside the root or a loop — stays staged for a later recovery, and so does
// one in a root this engine has not opened. Removal goes through the root's
// os.Root, so it never follows a link outside.
func (e *Engine) removeStaged(key string) bool {
	dir, tmp, _ := strings.Cut(key, "\x00")
	for _, r := range e.roots {
		if r.Dir != dir {
			continue
		}
		err := r.root.Remove(tmp)
		if err == nil || errors.Is(err, fs.ErrNotExist) {
			return true
		}
		return !unreachable(mapFSError(Path{Root: r, Rel: tmp, Key: tmp}, "remove temporary file", err))
	}
	return false
}

// unreachable reports whether a mapped file-system error means the path
// cannot be reached now: a directory on it is a symbolic link outside the
// root, a loop, or not a directory.
func unreachable(err error) bool {
	return errors.Is(err, ErrOutsideRoot) || errors.Is(err, ErrInvalidPath)
}

// recoverEvent puts every file of a pending event back to its before state
// (files still in their before state, or changed by someone else since, are
// left alone), removes the event's temporary files, and seals it rolled_back.
//
// A temp it cannot reach (its directory was swapped for a link outside the
// root, or a loop) does not keep the event pending, which would stop every
// later batch: the file behind it is left as it is, the rest is rolled back,
// and the temp is staged (journal.Tx.Stage) in the transaction that seals the
// event, whose reason names it, so that every later recovery tries to remove
// it again until it is gone. Other failures to remove a temp (a directory made
// read-only) leave it, as a stray temp is better than a journal no batch can
// get past. A file that is no longer a regular file of its own (replaced by a
// symbolic link, a directory, a hard link) is left as it is too, and named.
func (e *Engine) recoverEvent(db *journal.DB, ev *journal.Event, reason string) error {
	dirs := map[*Root]map[string]bool{}
	mark := func(r *Root, d string) {
		if dirs[r] == nil {
			dirs[r] = map[string]bool{}
		}
		dirs[r][d] = true
	}
	var skipped, left, kept, stage []string
	out := map[string]bool{} // files behind an unreachable temp
	for _, f := range ev.Files {
		p, err := e.Resolve(f.Path)
		if err != nil {
			skipped = append(skipped, f.Path)
			continue
		}
		tmp := tempName(p.Rel, ev.Seq)
		if err := p.Root.root.Remove(tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
			tp := tempPath(p, tmp)
			if me := mapFSError(tp, "remove temporary file", err); unreachable(me) {
				var pe *PathError
				msg := me.Error()
				if errors.As(me, &pe) {
					msg = pe.Msg
				}
				out[f.Path] = true
				stage = append(stage, stageKey(p, tmp))
				left = append(left, fmt.Sprintf("%s (temporary file %s: %s)", f.Path, tp.Key, msg))
				continue
			}
		}
		mark(p.Root, path.Dir(p.Rel))
		cur, err := e.readState(p, false)
		if unreachable(err) {
			// Now a symbolic link, a directory, a hard-linked or special
			// file (someone else's doing since the crash): neither read
			// through nor replaced, so that it cannot hold up the journal.
			var pe *PathError
			msg := err.Error()
			if errors.As(err, &pe) {
				msg = pe.Msg
			}
			kept = append(kept, fmt.Sprintf("%s (%s)", f.Path, msg))
			continue
		}
		if err != nil {
			return err
		}
		if cur.id != f.After || f.After == f.Before {
			continue
		}
		if err := e.putBack(db, p, f.Before, fs.FileMode(f.BeforeMode), ev.Seq); err != nil {
			return err
		}
	}
	// Directories the rolled-back changes created, innermost first; one that
	// is not empty (someone else wrote there) stays. Their parents are synced.
	for _, f := range ev.Files {
		p, err := e.Resolve(f.Path)
		if err != nil || len(f.NewDirs) == 0 || out[f.Path] {
			continue
		}
		for i := len(f.NewDirs) - 1; i >= 0; i-- {
			p.Root.root.Remove(f.NewDirs[i])
		}
		mark(p.Root, path.Dir(f.NewDirs[0]))
	}
	for r, ds := range dirs {
		for d := range ds {
			if err := e.syncDir(r, d); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
	}
	if len(skipped) > 0 {
		reason += fmt.Sprintf(" (paths outside the configured roots left as they are: %s)", strings.Join(skipped, ", "))
	}
	if len(kept) > 0 {
		reason += fmt.Sprintf(" (files left as they are, no longer regular files: %s)", strings.Join(kept, "; "))
	}
	if len(left) > 0 {
		reason += fmt.Sprintf(" (files left as they are, their temporary files out of reach and kept for a later recovery to remove: %s)", strings.Join(left, "; "))
	}
	return db.Update(func(tx *journal.Tx) error {
		if err := tx.Stage(stage); err != nil {
			return err
		}
		_, err := tx.Seal(ev.Seq, journal.StatusRolledBack, reason)
		return err
	})
}

// tempPath is the Path of tmp, the temp file of p; its Key names it the way
// the journal names p (relative in the first root, else absolute).
func tempPath(p Path, tmp string) Path {
	t := Path{Root: p.Root, Rel: tmp, Key: tmp}
	if p.Key != p.Rel {
		t.Key = filepath.ToSlash(t.Abs())
	}
	return t
}

// putBack makes p hold the stored content id (or removes it when id is zero),
// through a temporary file named for event seq.
func (e *Engine) putBack(db *journal.DB, p Path, id snapshot.ID, mode fs.FileMode, seq uint64) error {
	if id.IsZero() {
		return e.remove(p)
	}
	if mode == 0 {
		mode = 0o644
	}
	return e.writeBack(db, p, id, nil, false, mode, seq)
}

// writeBack makes p hold content id, through a temporary file named for
// event seq (fsynced) and a rename: data when have, else the content as
// stored.
func (e *Engine) writeBack(db *journal.DB, p Path, id snapshot.ID, data []byte, have bool, mode fs.FileMode, seq uint64) error {
	tmp := tempName(p.Rel, seq)
	var err error
	if have {
		_, err = e.writeTemp(p, tmp, mode, nil, func(w io.Writer) error { _, err := w.Write(data); return err })
	} else {
		err = db.View(func(tx *journal.Tx) error {
			_, err := e.writeTemp(p, tmp, mode, nil, func(w io.Writer) error { return snapshot.Get(tx.Bolt(), id, w) })
			return err
		})
	}
	if err != nil {
		return err
	}
	return e.rename(p, tmp)
}
