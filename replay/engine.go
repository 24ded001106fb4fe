package replay

import (
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/snapshot"
)

// Options configure Open.
type Options struct {
	// Roots are the workspace directories; the first holds .journal/ by default.
	Roots []string
	// JournalPath overrides <first root>/.journal/journal.db.
	JournalPath string
	// Actor is recorded on every event this engine appends (unless a Batch names its own).
	Actor journal.Actor
	// LockTimeout bounds the wait for another process's batch without a sign
	// of its progress (default 2s).
	LockTimeout time.Duration
	// LockWaiting, if set, is called once when a batch or read has waited a
	// second for another process (journal.Options.Waiting).
	LockWaiting func()
	// StreamThreshold: files at least this large are streamed rather than held in memory (default DefaultStreamThreshold).
	StreamThreshold int64
	// LogLimit bounds the contents (before and after, in bytes) of a batch
	// that commits through the write-ahead log (wal.go): default and at most
	// journal.MaxLogRecord less room for its events; negative: no batch does,
	// every one commits by a bbolt intent.
	LogLimit int
	// Fault, for fault-injection tests only, runs before each step of the apply
	// protocol ("mkdir", "create", "write", "fsync" or, for a logged batch's
	// temps, "written", "log", "rename", "remove", "dirsync") and may fail it;
	// CommitFault runs before every journal commit (a write-ahead log record's
	// included).
	Fault       func(step, path string) error
	CommitFault func() error
	// SpareTemps keeps an unnamed file ready, made outside the journal's
	// lock, in each directory the engine last wrote temps in (spare.go), and
	// makes the write-ahead log file at open (unless LogLimit < 0): for an
	// engine that edits again and again (serve), not a one-batch CLI.
	SpareTemps bool
	// ScanSecrets runs the secret detector over new events once the engine
	// is idle after a timed checkpoint (200 ms without a call, 2 s at most)
	// and stores what it finds (secrets.go): for an engine that serves
	// edits; a one-batch CLI leaves it to status.
	ScanSecrets bool
}

// Engine applies batches of file changes to workspace roots, journaled.
// It is safe for concurrent use; writers serialize on the journal's lock.
type Engine struct {
	roots      []*Root
	j          *journal.Journal
	journalDir string
	actor      journal.Actor
	streamMin  int64
	logLimit   int

	// hold makes batches wait while a watcher's first walk records the tree
	// (HoldEdits, hold.go); it has its own lock, taken before mu.
	hold editHold

	// mu serializes this process's batches before they reach the journal's
	// file lock (which polls, and would add latency to in-process waits).
	mu sync.Mutex
	// queued counts the batches waiting for mu; lease is the journal's lock
	// kept from one batch for the next while some are queued and nobody
	// else waits for it (do). Guarded by mu.
	queued atomic.Int64
	lease  *journal.Lease
	// calls counts the calls of do: the secret detector gives way to any
	// batch or read that comes while it scans (secrets.go).
	calls atomic.Uint64

	// fault, if set, runs before each step of the apply protocol and may fail it (tests).
	fault func(step, path string) error
	// commitFault, if set, runs before every journal commit (tests).
	commitFault func() error

	// unsealed is this engine's last batch event, complete but not sealed
	// yet (seal.go); sealGen and sealTimer drive its timed seal. Guarded by mu.
	unsealed  *journal.Event
	sealGen   uint64
	sealTimer *time.Timer

	// logged are this engine's batches committed by the write-ahead log and
	// not yet in the bbolt file (wal.go), oldest first; walEnd is where the
	// next record goes; orphaned says the log holds a record of this engine
	// that its own rollback could not finish, which the next recovery
	// completes. Guarded by mu.
	logged   []*logged
	walEnd   int64
	orphaned bool
	// runPeak is the longest run of the log this engine checkpointed: the
	// timer keeps the log file that long and half more (reserveLog).
	// Guarded by mu.
	runPeak int64
	// wroteLog says this engine wrote to the log: Close empties it
	// (journal.DB.LogTrim). Guarded by mu.
	wroteLog bool
	// appended are this engine's logged batches of the log's current run
	// that were moved into the bbolt file for a reader before their files
	// were synced (appendForReaders); the checkpoint syncs them. Guarded by mu.
	appended []*logged
	// trustNotes says Open's recovery is done: from then on a run of the
	// log whose last batch noted it finished is taken over without reading
	// its files (adopt). Open itself reads them: it follows a crash more
	// often than not, and does it once.
	trustNotes bool

	// spares are the unnamed files of Options.SpareTemps; spareWant the
	// files of this batch's temps, whose directories get one after it.
	// spareWant is guarded by mu.
	spares    spares
	spareWant []Path

	// secrets is the secret detector's state (secrets.go).
	secrets secretScan
}

// DefaultJournalPath returns the journal location for a first root.
func DefaultJournalPath(root string) string {
	return filepath.Join(root, journal.DirName, journal.FileName)
}

// Open opens the roots and the journal (creating it), then recovers any batch
// a crashed process left pending.
func Open(o Options) (*Engine, error) {
	if len(o.Roots) == 0 {
		o.Roots = []string{"."}
	}
	e := &Engine{actor: o.Actor, streamMin: o.StreamThreshold, fault: o.Fault, commitFault: o.CommitFault, logLimit: o.LogLimit}
	e.spares.on = o.SpareTemps
	e.secrets.on = o.ScanSecrets
	if e.logLimit == 0 || e.logLimit > journal.MaxLogRecord {
		e.logLimit = journal.MaxLogRecord
	}
	if e.streamMin <= 0 {
		e.streamMin = DefaultStreamThreshold
	}
	for _, d := range o.Roots {
		r, err := openRoot(d)
		if err != nil {
			e.Close()
			return nil, err
		}
		e.roots = append(e.roots, r)
	}
	jp := o.JournalPath
	if jp == "" {
		jp = DefaultJournalPath(e.roots[0].Dir)
	}
	jp, err := filepath.Abs(jp)
	if err != nil {
		e.Close()
		return nil, fmt.Errorf("replay: journal path: %w", err)
	}
	e.journalDir = filepath.Dir(jp)
	if rd, err := filepath.EvalSymlinks(e.journalDir); err == nil {
		e.journalDir = rd
	}
	e.j, err = journal.Open(jp, journal.Options{Create: true, Timeout: o.LockTimeout, Waiting: o.LockWaiting})
	if err != nil {
		e.Close()
		return nil, err
	}
	if e.actor.Kind == "" {
		e.actor = CLIActor()
	}
	// A damaged journal still opens, so that a server started on it answers
	// reads and reports the damage: every write runs recovery first (Edit)
	// and refuses with the same error.
	if _, err := e.Recover(); err != nil && !errors.Is(err, journal.ErrDamaged) && !errors.Is(err, journal.ErrCorrupt) {
		e.Close()
		return nil, err
	}
	e.mu.Lock()
	e.trustNotes = true
	e.mu.Unlock()
	if o.SpareTemps && e.logLimit >= 0 {
		// an engine that edits again and again: its log file is made now,
		// not by its first batch (a megabyte of zeros and two fsyncs);
		// Close empties it again. Best effort: the first batch makes it
		// otherwise.
		e.do(func(db *journal.DB) error {
			e.wroteLog = true
			return db.LogReserve(1)
		})
	}
	return e, nil
}

// CLIActor describes a person at the command line.
func CLIActor() journal.Actor {
	a := journal.Actor{Kind: "cli", Origin: "cli"}
	if u, err := user.Current(); err == nil {
		a.User = u.Username
	}
	a.Host, _ = os.Hostname()
	return a
}

// Journal returns the engine's journal, after sealing this engine's last
// batch if its seal is still deferred, so that a reader sees every
// acknowledged batch committed. (If that seal fails, the event stays pending
// and the timer tries again.)
func (e *Engine) Journal() *journal.Journal {
	e.FlushSeal()
	return e.j
}

// LastChange returns the newest event that changed file key's content and
// the content it left (nil when none), with this engine's logged and
// unsealed batches counted as committed — they are: a logged batch's record
// is its commit, and an unsealed event's files are all in place — without
// moving them into the bbolt file first, as Journal does at the cost of a
// commit. Like headsOf it may be behind another process's logged batches.
func (e *Engine) LastChange(key string) (*journal.Event, snapshot.ID, error) {
	changed := func(ev *journal.Event) (snapshot.ID, bool) {
		f, ok := ev.File(key)
		return f.After, ok && f.Before != f.After
	}
	e.mu.Lock()
	for i := len(e.logged) - 1; i >= 0; i-- {
		evs := e.logged[i].rec.Events
		for j := len(evs) - 1; j >= 0; j-- {
			if after, ok := changed(evs[j]); ok {
				e.mu.Unlock()
				return evs[j], after, nil
			}
		}
	}
	if u := e.unsealed; u != nil {
		if after, ok := changed(u); ok {
			c := *u
			c.Status = journal.StatusCommitted
			e.mu.Unlock()
			return &c, after, nil
		}
	}
	e.mu.Unlock()
	var last *journal.Event
	var after snapshot.ID
	err := e.j.View(func(tx *journal.Tx) error {
		return tx.EachIndexed("path", key, func(ev *journal.Event) error {
			if a, ok := changed(ev); ok {
				last, after = ev, a
				return journal.ErrStop
			}
			return nil
		})
	})
	return last, after, err
}

// Roots returns the workspace roots.
func (e *Engine) Roots() []*Root { return e.roots }

// Actor returns the actor recorded on this engine's events.
func (e *Engine) Actor() journal.Actor { return e.actor }

// Close seals the last batch if its seal is still deferred, and releases
// the roots. The journal holds nothing open between calls.
func (e *Engine) Close() error {
	var err error
	if e.j != nil {
		e.mu.Lock()
		wrote := e.wroteLog
		e.mu.Unlock()
		if err = e.Checkpoint(); err == nil {
			e.closeScan() // best effort: status scans what is not stored
		} else {
			e.secrets.closing.Store(true)
		}
		if err == nil && wrote {
			// a journal nobody writes keeps no log of zeros
			// (journal.DB.LogTrim); only space: a failure changes nothing
			// this engine did, and the next close tries again
			e.do(func(db *journal.DB) error { return db.LogTrim() })
		}
	}
	e.mu.Lock()
	if e.sealTimer != nil {
		e.sealTimer.Stop()
	}
	e.dropLease() // kept for a batch queued behind Close's
	e.mu.Unlock()
	e.spares.close()
	for _, r := range e.roots {
		r.root.Close()
	}
	if e.j != nil {
		e.j.Close()
	}
	return err
}

func (e *Engine) step(step, path string) error {
	if e.fault != nil {
		return e.fault(step, path)
	}
	return nil
}

// dropLease lets go of the journal's lock if a lease holds it; e.mu is held.
func (e *Engine) dropLease() error {
	if e.lease == nil {
		return nil
	}
	err := e.lease.Release()
	e.lease = nil
	return err
}

// do runs fn with the journal held exclusively.
func (e *Engine) do(fn func(db *journal.DB) error) (err error) {
	e.calls.Add(1)
	e.queued.Add(1)
	e.mu.Lock()
	e.queued.Add(-1)
	defer e.mu.Unlock()
	keep := false
	defer func() { // when fn panics: the lock must not outlive the batch
		if !keep {
			e.dropLease()
		}
	}()
	if e.lease == nil {
		e.lease, err = e.j.Acquire()
	}
	if err == nil {
		err = e.lease.Do(func(db *journal.DB) error {
			if e.commitFault != nil {
				db.SetCommitHook(e.commitFault)
			}
			return fn(db)
		})
		// keep the lease for the batch queued behind this one, unless
		// anyone else waits for the journal (another process, a reader)
		keep = err == nil && e.queued.Load() > 0 && !e.lease.Contended()
	}
	if !keep {
		if rerr := e.dropLease(); err == nil {
			err = rerr
		}
	}
	if len(e.spareWant) > 0 {
		e.spares.fill(e.spareWant)
		e.spareWant = nil
	}
	return err
}
