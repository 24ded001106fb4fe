package replay

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
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
		if err := e.flushSealLocked(db); err != nil {
			return err
		}
		var err error
		done, err = e.recover(db)
		return err
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
	e.removeNotedTemps(db, last)
	for _, k := range staged {
		dir, tmp, _ := strings.Cut(k, "\x00")
		for _, r := range e.roots {
			if r.Dir == dir {
				r.root.Remove(tmp)
			}
		}
	}
	if len(staged) > 0 {
		if err := db.Update(func(tx *journal.Tx) error { return tx.Unstage(staged) }); err != nil {
			return nil, err
		}
	}
	done := notedDone(db)
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
		if seq == done || e.inPlace(ev) {
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
	return rolledBack, nil
}

// recoverEvent puts every file of a pending event back to its before state
// (files still in their before state, or changed by someone else since, are
// left alone), removes the event's temporary files, and seals it rolled_back.
func (e *Engine) recoverEvent(db *journal.DB, ev *journal.Event, reason string) error {
	dirs := map[*Root]map[string]bool{}
	var skipped []string
	for _, f := range ev.Files {
		p, err := e.Resolve(f.Path)
		if err != nil {
			skipped = append(skipped, f.Path)
			continue
		}
		// A temp that cannot be reached now because its directory was
		// swapped for a link (outside, or a loop) keeps the event pending, so
		// a later recovery removes it instead of leaving it behind a sealed
		// event. Other failures (a directory made read-only) leave it, as a
		// stray temp is better than a journal no batch can get past.
		if err := p.Root.root.Remove(tempName(p.Rel, ev.Seq)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			if me := mapFSError(p, "remove temporary file", err); errors.Is(me, ErrOutsideRoot) || errors.Is(me, ErrInvalidPath) {
				return me
			}
		}
		if dirs[p.Root] == nil {
			dirs[p.Root] = map[string]bool{}
		}
		dirs[p.Root][path.Dir(p.Rel)] = true
		cur, err := e.readState(p, false)
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
		if err != nil || len(f.NewDirs) == 0 {
			continue
		}
		for i := len(f.NewDirs) - 1; i >= 0; i-- {
			p.Root.root.Remove(f.NewDirs[i])
		}
		dirs[p.Root][path.Dir(f.NewDirs[0])] = true
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
	return db.Update(func(tx *journal.Tx) error {
		_, err := tx.Seal(ev.Seq, journal.StatusRolledBack, reason)
		return err
	})
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
	tmp := tempName(p.Rel, seq)
	err := db.View(func(tx *journal.Tx) error {
		_, err := e.writeTemp(p, tmp, mode, nil, func(w io.Writer) error {
			return snapshot.Get(tx.Bolt(), id, w)
		})
		return err
	})
	if err != nil {
		return err
	}
	return e.rename(p, tmp)
}
