package replay

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/audit"
	"github.com/journalfs/journal/journal/secrets"
)

// Secret detection (Options.ScanSecrets): after a timed checkpoint, once the
// engine has had no call for scanIdle (scanDefer at the latest; never on an
// edit's reply, nor sharing the cores with a burst of batches), the events
// after the last scanned one are read under the journal's lock (their
// arguments and after-contents, up to scanBudget bytes), scanned with
// the lock released (journal/secrets), and what was found is stored in one
// bbolt commit (audit.PutSecrets). A content over
// journal.StreamScanSize is not read then but in pieces of 1 MiB while it is
// scanned, each in a read transaction of its own (audit.ContentReader):
// the detector holds a piece and a window of a 50 MB content, not all of it,
// and the lock for a piece's read at a time. A pass gives way to the engine's
// other work: it stops after the event it is scanning when a batch or a
// reader calls the engine, and goes on from there at the next idle moment,
// so an edit waits for one event's scan at most (its CPU, not the lock).
// Events that hold no secret cost no commit of their own: the scanned mark is kept in memory and stored with
// the next findings, once scanStoreEvery events are scanned without any, or
// at Close (whose last pass runs closeScanTime at most). Readers never depend on it: what they print is masked by a scan
// of what they print (audit.ScanSecrets covers what is not stored).

// scanBudget bounds the bytes one pass reads; scanStoreEvery is how many
// scanned events without findings may wait for a commit.
const (
	scanBudget     = 1 << 20
	scanStoreEvery = 256
)

// secretScan is an engine's detector state.
type secretScan struct {
	on bool
	// mu is held by a pass: background passes skip when it is taken, the
	// passes of Close and ScanSecrets wait for it.
	mu sync.Mutex
	// closing stops background passes (at their next step) and their
	// retries: Close is running its own, the last.
	closing atomic.Bool
	// waiting: a pass waits for the engine to be idle (scanWhenIdle).
	waiting atomic.Bool
	// scanned is the last event scanned (stored or not); cache remembers
	// the regions scanned, so an edited file costs the regions its edit
	// changed; texts keeps files' last versions, so that an edited file's
	// next version is read against it (audit.Collector). Guarded by mu.
	scanned uint64
	cache   *secrets.Cache
	texts   audit.Collector
}

// ScanSecrets runs the detector over every event not scanned yet, whether
// or not the engine was opened with Options.ScanSecrets, and stores what it
// finds and how far it scanned: journal status runs it, so a journal that
// no server scanned (an earlier binary's, a CLI's) is scanned once.
func (e *Engine) ScanSecrets() error { return e.scan(true, true, time.Time{}) }

// scanSecrets runs one detection pass of an engine opened with
// Options.ScanSecrets.
func (e *Engine) scanSecrets() error {
	if !e.secrets.on {
		return nil
	}
	return e.scan(false, false, time.Time{})
}

// closeScanTime bounds Close's last pass: what a busy server left unscanned
// beyond it waits for journal status, not for the server's exit.
const closeScanTime = 2 * time.Second

// closeScan is Close's last pass: background passes stop first (closing),
// then it stores the scanned mark even without findings, for at most
// closeScanTime.
func (e *Engine) closeScan() error {
	e.secrets.closing.Store(true)
	if !e.secrets.on {
		return nil
	}
	return e.scan(true, true, time.Now().Add(closeScanTime))
}

// scan is a detection pass. A background pass (final false) skips when
// another runs, stops when Close begins, and gives way to the engine's
// other calls, trying again sealDelay later (retry) so that what it left is
// scanned without waiting for another batch; the final passes (Close's,
// ScanSecrets') wait for the one running and scan to the end (or the
// deadline). store stores the scanned mark even without findings; a pass
// with a deadline stops at the first store after it.
func (e *Engine) scan(store, final bool, deadline time.Time) error {
	s := &e.secrets
	if final {
		s.mu.Lock()
	} else if s.closing.Load() || !s.mu.TryLock() {
		return nil
	}
	defer s.mu.Unlock()
	stop := func() bool { return !final && s.closing.Load() }
	for {
		if stop() {
			return nil
		}
		if !final && e.queued.Load() > 0 { // a batch waits for the engine
			e.retryScan()
			return nil
		}
		var texts []audit.ScanText
		var stored, last uint64
		err := e.do(func(db *journal.DB) error {
			return db.View(func(tx *journal.Tx) error {
				stored = audit.SecretsScanned(tx)
				from := max(stored, s.scanned)
				var err error
				texts, last, err = s.texts.CollectSecretTexts(tx, from, scanBudget)
				if last == from {
					last = s.scanned
				}
				return err
			})
		})
		if err != nil {
			return err
		}
		// give way: stop at the first event after which the engine was
		// called (a batch, a reader)
		since := e.calls.Load()
		// a large content is read in pieces as it is scanned, each piece
		// an engine call of its own (not one that gives way)
		view := func(fn func(*journal.Tx) error) error {
			err := e.do(func(db *journal.DB) error { return db.View(fn) })
			since++
			return err
		}
		found := map[uint64][]audit.Secret{}
		gave := false
		for i := range texts {
			if i > 0 && !final && (e.calls.Load() != since || stop()) {
				texts, last, gave = texts[:i], texts[i-1].Seq, true
				break
			}
			if s.cache == nil {
				s.cache = secrets.NewCache()
			}
			more, err := audit.ScanSecretTexts(s.cache, texts[i:i+1], view)
			if err != nil { // nothing stored: the next pass scans these events again
				return err
			}
			for seq, f := range more {
				found[seq] = f
			}
		}
		next := max(s.scanned, last) // moved once what was found is stored
		ending := len(texts) == 0 || !deadline.IsZero() && time.Now().After(deadline)
		// a final pass stores the mark at its end, not after every pass:
		// each store is a commit (two fdatasyncs)
		if len(found) > 0 || (store && ending && next > stored) || next-stored >= scanStoreEvery {
			if err := e.do(func(db *journal.DB) error {
				return db.Update(func(tx *journal.Tx) error { return audit.PutSecrets(tx, next, found) })
			}); err != nil {
				return err
			}
			since++ // the store's own call
		}
		s.scanned = next
		switch {
		case !final && (gave || e.calls.Load() != since):
			e.retryScan()
			return nil
		case ending:
			return nil
		}
	}
}

// retryScan runs a detection pass once the engine is idle (scanWhenIdle).
func (e *Engine) retryScan() { e.scanWhenIdle() }

// scanIdle is how long the engine must have been left alone (no batch,
// flush or observe) before a background detection pass starts, and
// scanDefer how long a busy engine may put one off. A pass over a rewritten
// large file costs as much CPU as the batch that wrote it: run during a
// burst of batches it shares their cores; once the agent pauses (seconds,
// as it thinks) it costs nothing anyone waits for. Readers do not depend on
// it: what is not scanned yet is scanned as it is read.
const (
	scanIdle  = 200 * time.Millisecond
	scanDefer = 2 * time.Second
)

// scanWhenIdle runs a background detection pass once the engine has had no
// call for scanIdle, or scanDefer from now at the latest; one waits at a
// time.
func (e *Engine) scanWhenIdle() {
	s := &e.secrets
	if !s.on || !s.waiting.CompareAndSwap(false, true) {
		return
	}
	first := time.Now()
	var wait func()
	wait = func() {
		calls := e.calls.Load()
		time.AfterFunc(scanIdle, func() {
			if e.calls.Load() != calls && time.Since(first) < scanDefer && !s.closing.Load() {
				wait()
				return
			}
			s.waiting.Store(false)
			e.scanSecrets()
		})
	}
	wait()
}
