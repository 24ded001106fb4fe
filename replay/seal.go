package replay

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/snapshot"
	bolt "go.etcd.io/bbolt"
)

// The deferred seal: a batch's event is sealed committed by the next
// transaction this engine commits anyway (the next batch's intent), or by a
// timer sealDelay after the batch, or when a reader asks for the journal —
// not by a commit of its own before the batch returns. See doc.go, "The
// apply protocol".

// sealDelay is how long an event may stay unsealed when no batch follows
// (a variable for tests only).
var sealDelay = 20 * time.Millisecond

// sealRetry is the wait before sealing again after a failed attempt (the
// journal busy in another process, a failing disk).
const sealRetry = 500 * time.Millisecond

// deferSeal records ev, whose files are all in place and durable, as the
// engine's unsealed event, and arms the timer that seals it if no batch
// comes first. e.mu is held.
func (e *Engine) deferSeal(ev *journal.Event) {
	e.unsealed = ev
	e.armSeal(sealDelay)
}

// armSeal (re)starts the seal timer for the current generation. e.mu is held.
func (e *Engine) armSeal(after time.Duration) {
	e.sealGen++
	gen := e.sealGen
	if e.sealTimer != nil {
		e.sealTimer.Stop()
	}
	e.sealTimer = time.AfterFunc(after, func() { e.timedSeal(gen) })
}

// timedSeal is the timer's seal: it does nothing if a later batch re-armed
// the timer, and tries again later if the seal fails. Then the secret
// detector runs once the engine is idle (secrets.go, scanWhenIdle).
func (e *Engine) timedSeal(gen uint64) {
	e.mu.Lock()
	stale, done := e.sealGen != gen, !e.outstanding(true)
	e.mu.Unlock()
	if stale {
		return
	}
	if done { // a reader flushed first
		e.scanWhenIdle()
		return
	}
	if e.precompressLogged() { // a batch came meanwhile: its timer checkpoints
		e.mu.Lock()
		stale = e.sealGen != gen
		e.mu.Unlock()
		if stale {
			return
		}
	}
	if err := e.do(func(db *journal.DB) error {
		if err := e.flushLocked(db, true); err != nil {
			return err
		}
		_ = e.reserveLog(db) // best effort: a batch grows the file otherwise
		return nil
	}); err != nil {
		e.mu.Lock()
		if e.outstanding(true) && e.sealGen == gen {
			e.armSeal(sealRetry)
		}
		e.mu.Unlock()
		return
	}
	e.scanWhenIdle() // best effort: a failed pass is retried by the next
}

// precompressMin is the content size from which the timer compresses a
// logged content's chunks before the checkpoint takes the journal's lock
// (precompressLogged).
const precompressMin = 256 << 10

// precompressLogged compresses the large contents of the logged batches
// ahead of the checkpoint that stores them (snapshot.Precompress), holding
// neither e.mu nor the journal: a batch that comes meanwhile takes the lock
// at once instead of waiting for the compression. It reports whether it had
// any to compress.
func (e *Engine) precompressLogged() bool {
	var datas [][]byte
	e.mu.Lock()
	for _, l := range e.logged {
		for _, c := range l.rec.Contents {
			if len(c.Data) >= precompressMin {
				datas = append(datas, c.Data)
			}
		}
	}
	e.mu.Unlock()
	view := func(fn func(*bolt.Tx) error) error {
		return e.j.View(func(tx *journal.Tx) error { return fn(tx.Bolt()) })
	}
	for _, d := range datas {
		if snapshot.Precompress(view, d) != nil {
			break // best effort: the checkpoint compresses what is left
		}
	}
	return len(datas) > 0
}

// outstanding reports whether the engine has work a flush would do: an
// unsealed event, logged batches not in the bbolt file, an orphaned record,
// and (full) logged batches whose files are not synced yet. e.mu is held.
func (e *Engine) outstanding(full bool) bool {
	return e.unsealed != nil || len(e.logged) > 0 || e.orphaned || (full && len(e.appended) > 0)
}

// FlushSeal makes every batch of this engine visible in the bbolt file, as
// committed: it seals the last batch event if its seal is deferred, and
// moves the logged batches in (wal.go, appendForReaders: one bbolt commit,
// their files' sync is left to the checkpoint). Journal, Status, Event,
// FindEdit and Content call it, so readers see every acknowledged batch. It
// takes the engine's batch mutex: a Plan (which runs holding it) must not
// call it, nor Journal, Status, Event or FindEdit.
func (e *Engine) FlushSeal() error { return e.flush(false) }

// Checkpoint is FlushSeal, and ends the write-ahead log's run: the files of
// every logged batch and their directories are fsynced first (wal.go,
// checkpointLocked). The timer runs it sealDelay after the last batch, and
// Close.
func (e *Engine) Checkpoint() error { return e.flush(true) }

// flush is FlushSeal (full false) or Checkpoint (full true).
func (e *Engine) flush(full bool) error {
	e.mu.Lock()
	none := !e.outstanding(full)
	e.mu.Unlock()
	if none {
		return nil
	}
	return e.do(func(db *journal.DB) error { return e.flushLocked(db, full) })
}

// flushSealLocked is FlushSeal's work. e.mu and the journal are held.
func (e *Engine) flushSealLocked(db *journal.DB) error { return e.flushLocked(db, false) }

// flushLocked moves the logged batches into the bbolt file — with their
// files synced first and the log's run ended if full (checkpointLocked),
// else for readers (appendForReaders) — which seals the unsealed event too,
// or seals the unsealed event in a transaction of its own. e.mu and the
// journal are held.
func (e *Engine) flushLocked(db *journal.DB, full bool) error {
	if e.orphaned {
		if _, err := e.recover(db); err != nil {
			return err
		}
	}
	if len(e.logged) > 0 || (full && len(e.appended) > 0) {
		if err := e.recoverLog(db); err != nil { // drops them if another process took them over
			return err
		}
		var err error
		if full {
			err = e.checkpointLocked(db)
		} else {
			err = e.appendForReaders(db)
		}
		if err != nil {
			return err
		}
	}
	if e.unsealed == nil {
		return nil
	}
	if err := db.Update(e.sealUnsealed); err != nil {
		return classify(fmt.Errorf("replay: commit event %d: %w", e.unsealed.Seq, err))
	}
	e.unsealed = nil
	return nil
}

// sealUnsealed seals the unsealed event committed inside tx, unless it is
// no longer pending (another process's recovery sealed it: its files were in
// place). The caller clears e.unsealed once tx has committed.
func (e *Engine) sealUnsealed(tx *journal.Tx) error {
	if e.unsealed == nil || !tx.IsPending(e.unsealed.Seq) {
		return nil
	}
	_, err := tx.Seal(e.unsealed.Seq, journal.StatusCommitted, "")
	return err
}

// unsealedHeads returns the heads the unsealed event sets once sealed, if it
// is still pending in tx (nil otherwise): change detection compares files
// with them, not with the heads before the event.
func (e *Engine) unsealedHeads(tx *journal.Tx) map[string]journal.Head {
	if e.unsealed == nil || !tx.IsPending(e.unsealed.Seq) {
		return nil
	}
	m := map[string]journal.Head{}
	for _, f := range e.unsealed.Files {
		m[f.Path] = journal.Head{ID: f.After, Mode: f.AfterMode, Seq: e.unsealed.Seq}
	}
	return m
}

// noteDone records in the lock file's note that event seq has all its files
// in place, for recovery to seal it committed if this process stops before
// sealing it. The note outlives the process, not the machine; after a power
// failure recovery relies on finding every file at its after-content.
func noteDone(db *journal.DB, seq uint64) error {
	b, _ := json.Marshal(notedTemps{Seq: seq, Done: true})
	return db.SetNote(b)
}

// doneNote is the note of a logged batch whose files are all in place
// (event seq, the last of its record): it keeps naming the engine's
// unsealed event as complete (tempNote), and says since which boot. e.mu is
// held.
func (e *Engine) doneNote(seq uint64) []byte {
	n := notedTemps{Seq: seq, Done: true, Boot: bootStamp()}
	if e.unsealed != nil {
		n.Complete = e.unsealed.Seq
	}
	b, _ := json.Marshal(n)
	return b
}

// bootStamp returns the machine's boot time in Unix seconds, or 0 where it
// is not known.
func bootStamp() int64 {
	if t := bootTime(); !t.IsZero() {
		return t.Unix()
	}
	return 0
}

// inPlace reports whether every file of a pending event already holds its
// after-content (absent for a delete) and no temp of the event is left: the
// batch reached its end, whatever stopped it before the seal. A file it
// cannot read (out of reach, an I/O error) counts as not in place: the
// rollback that follows deals with it.
func (e *Engine) inPlace(ev *journal.Event) bool {
	for _, f := range ev.Files {
		p, err := e.Resolve(f.Path)
		if err != nil {
			return false
		}
		if _, err := p.Root.root.Lstat(tempName(p.Rel, ev.Seq)); !errors.Is(err, fs.ErrNotExist) {
			return false
		}
		cur, err := e.readState(p, false)
		if err != nil || cur.id != f.After {
			return false
		}
	}
	return true
}
