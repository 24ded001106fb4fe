package replay

import (
	"bytes"
	"errors"
	"fmt"
	"os"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/audit"
	"github.com/journalfs/journal/snapshot"
)

// Drift is a file whose disk content or permission bits differ from the
// journal's head: a chmod is a change as Observe records it, so status
// names it too.
type Drift struct {
	Path     string      `json:"path"`
	Head     snapshot.ID `json:"head"`                // what the journal last wrote or saw (zero: absent)
	Disk     snapshot.ID `json:"disk"`                // what is there now (zero: absent)
	HeadMode uint32      `json:"head_mode,omitempty"` // the head's permission bits (zero when absent)
	DiskMode uint32      `json:"disk_mode,omitempty"` // the disk's (zero when absent)
	HeadSeq  uint64      `json:"head_seq"`            // the event that set the head
	Err      string      `json:"error,omitempty"`     // why the file could not be read
}

// ModeChanged reports whether the file is there in both and its permission
// bits differ.
func (d Drift) ModeChanged() bool {
	return !d.Head.IsZero() && !d.Disk.IsZero() && d.HeadMode != d.DiskMode
}

// ModeOnly reports whether only the permission bits differ.
func (d Drift) ModeOnly() bool {
	return d.Err == "" && d.Head == d.Disk && d.ModeChanged()
}

// matches reports whether the journal's head h is the file as read: the same
// content and, where it exists, the same permission bits. Observe, Apply's
// drift check and Status share it, so a chmod is a change to each of them.
func matches(h journal.Head, id snapshot.ID, mode uint32) bool {
	return h.ID == id && (id.IsZero() || h.Mode == mode)
}

// Status is the state of the workspace against its journal.
type Status struct {
	Events       uint64         `json:"events"`
	Changed      []Drift        `json:"changed"` // files changed outside the journal since its last event on them
	Pending      []uint64       `json:"pending"` // batches a crashed process left (recovered on the next write)
	JournalBytes int64          `json:"journal_bytes"`
	Store        snapshot.Stats `json:"store"`
	// Replication is each continuous replication's state (journal serve
	// --replicate), as last recorded, and how far behind it is.
	Replication []journal.Replication `json:"replication,omitempty"`
}

// Status hashes every file the journal knows and compares it with its head.
// It only reads: pending batches are listed, not recovered.
func (e *Engine) Status() (*Status, error) {
	st := &Status{}
	type head struct {
		path string
		h    journal.Head
	}
	var heads []head
	e.FlushSeal() // this engine's last batch shows committed, not pending
	err := e.j.View(func(tx *journal.Tx) error {
		st.Events = tx.Last()
		st.Pending = tx.Pending()
		var err error
		if st.Store, err = snapshot.ReadStats(tx.Bolt()); err != nil {
			return err
		}
		return tx.Heads(func(path string, h journal.Head) error {
			heads = append(heads, head{path, h})
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(e.j.Path()); err == nil {
		st.JournalBytes = fi.Size()
	}
	if st.Replication, err = e.j.Replications(); err != nil {
		return nil, err
	}
	for _, h := range heads {
		d := Drift{Path: h.path, Head: h.h.ID, HeadSeq: h.h.Seq}
		if !h.h.ID.IsZero() {
			d.HeadMode = h.h.Mode
		}
		p, err := e.Resolve(h.path)
		if err != nil {
			continue // a root not configured in this process
		}
		cur, err := e.readState(p, false)
		if err != nil {
			d.Err = err.Error()
		} else if d.Disk = cur.id; cur.exists {
			d.DiskMode = uint32(cur.mode)
		}
		if d.Err != "" || !matches(h.h, d.Disk, d.DiskMode) {
			st.Changed = append(st.Changed, d)
		}
	}
	return st, nil
}

// GC applies journal retention (journal.GCOptions) once every batch is in
// the bbolt file: this engine's logged and unsealed batches, and any a
// stopped process left (recovered first), so that the gc event never takes
// the number of a logged one.
func (e *Engine) GC(o journal.GCOptions) (*journal.GCReport, error) {
	var rep *journal.GCReport
	err := e.do(func(db *journal.DB) error {
		if err := e.flushLocked(db, true); err != nil {
			return err
		}
		if _, err := e.recover(db); err != nil {
			return err
		}
		if err := e.flushLocked(db, true); err != nil { // a run recover adopted
			return err
		}
		if o.KeepTree == nil {
			o.KeepTree = audit.KeepTreeForGC
		}
		var err error
		rep, err = db.GC(o)
		return err
	})
	return rep, err
}

// Event returns event seq.
func (e *Engine) Event(seq uint64) (*journal.Event, error) {
	var ev *journal.Event
	e.FlushSeal()
	err := e.j.View(func(tx *journal.Tx) (err error) { ev, err = tx.Event(seq); return })
	if err != nil && errors.Is(err, journal.ErrNotFound) {
		return nil, fmt.Errorf("event %d does not exist: %w", seq, ErrBadEvent)
	}
	return ev, err
}

// Content returns a stored content if it is at most max bytes (ok=false if larger).
func (e *Engine) Content(id snapshot.ID, max int64) (data []byte, ok bool, err error) {
	if id.IsZero() {
		return nil, true, nil
	}
	// A logged batch's contents reach the store when it is moved into the
	// bbolt file: until then they are read from its record, rather than
	// moved in by a commit for the sake of one read.
	e.mu.Lock()
	data, ok = e.loggedContent(id)
	e.mu.Unlock()
	if ok {
		if int64(len(data)) > max {
			return nil, false, nil
		}
		return bytes.Clone(data), true, nil // the record's own bytes are stored at the checkpoint
	}
	err = e.j.View(func(tx *journal.Tx) error {
		size, err := snapshot.Size(tx.Bolt(), id)
		if err != nil || size > max {
			return err
		}
		ok = true
		data, err = snapshot.Bytes(tx.Bolt(), id)
		return err
	})
	return data, ok, err
}

// FindEdit returns the newest committed, live event of session (any session
// if empty) that changed path and was not an observe event.
func (e *Engine) FindEdit(path, session string) (uint64, error) {
	p, err := e.Resolve(path)
	if err != nil {
		return 0, err
	}
	var seq uint64
	e.FlushSeal() // the newest edit may be this engine's unsealed one
	err = e.j.View(func(tx *journal.Tx) error {
		return tx.EachIndexed("path", p.Key, func(ev *journal.Event) error {
			if ev.Status != journal.StatusCommitted || ev.Kind == journal.KindObserve || !live(tx, ev.Seq) {
				return nil
			}
			if session != "" && ev.Actor.Session != session {
				return nil
			}
			seq = ev.Seq
			return journal.ErrStop
		})
	})
	if err == nil && seq == 0 {
		err = &PathError{Path: p.Rel, Err: ErrNothing, Msg: "has no edit of this session to revert", Hint: "journal_log lists the events that touched it; pass one as backup_id"}
	}
	return seq, err
}
