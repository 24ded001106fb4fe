package replay

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/snapshot"
)

// Logged batches: a batch that only modifies existing files, with contents
// held in memory and small enough for the write-ahead log, commits by one
// record in the log (journal.DB.LogAppend: one write and one fdatasync of a
// preallocated file) instead of a bbolt transaction; its temps are written,
// unsynced, meanwhile, then renamed into place, and the batch returns. The
// checkpoint — fsync of the batch's files and directories, then one bbolt
// transaction that appends the events of every logged batch, committed — is
// deferred like the seal of an unlogged batch (seal.go). See doc.go, "Logged
// batches".

// maxLogged bounds the batches logged before a checkpoint: past it the next
// batch checkpoints first, so a recovery never has much to redo.
const maxLogged = 64

// maxLogAge bounds how long a logged batch's files may stay unsynced while
// batches keep coming (the timer checkpoints sealDelay after the last one):
// a batch that finds the oldest logged batch older checkpoints first.
var maxLogAge = 100 * time.Millisecond // a variable for tests only

// eagerCheckpoint is the size of a batch's record from which the checkpoint
// starts as soon as the batch is done rather than sealDelay later: storing
// that much takes long, and what waiting would gather is a few more fsyncs.
const eagerCheckpoint = 512 << 10

// logSlack is room for a record's events (JSON) beside its contents when
// deciding whether a batch fits in the log.
const logSlack = 64 << 10

// logged is a batch this engine logged and completed whose events are not in
// the bbolt file yet.
type logged struct {
	rec   *journal.LogRecord
	paths []Path    // its files: fsynced, with their directories, at the checkpoint
	at    time.Time // when it was logged
}

// loggable reports whether a batch goes through the write-ahead log, and the
// room its record needs besides its events: every file exists and is
// modified in memory (writeAhead), and the contents, before and after, fit
// in one record.
func (e *Engine) loggable(ops []*fileOp, args int) (bool, int) {
	if e.logLimit < 0 || !writeAhead(ops) {
		return false, 0
	}
	var contents int
	n := logSlack + 2*args
	for _, op := range ops {
		contents += len(op.change.Data) + len(op.cur.data)
		n += 2*len(op.p.Key) + 256
	}
	return contents <= e.logLimit && n+contents <= journal.MaxLogRecord, n + contents
}

// checkpointDue reports whether a batch must checkpoint the logged batches
// before it goes on: it is not loggable itself (the bbolt intent needs the
// chain complete), the log is full (by count or by room for need bytes), or
// the oldest logged batch is older than maxLogAge.
func (e *Engine) checkpointDue(fast bool, need int) bool {
	n := len(e.appended) + len(e.logged)
	if n == 0 {
		return false
	}
	oldest := e.runFirst()
	return !fast || n >= maxLogged || !journal.LogFits(e.walEnd, need) || time.Since(oldest.at) > maxLogAge
}

// runFirst returns the first batch of the log's current run (nil if none):
// the oldest appended one, else the oldest logged one.
func (e *Engine) runFirst() *logged {
	switch {
	case len(e.appended) > 0:
		return e.appended[0]
	case len(e.logged) > 0:
		return e.logged[0]
	}
	return nil
}

// runPaths returns the files of every batch of the log's current run.
func (e *Engine) runPaths() []Path {
	var paths []Path
	for _, l := range e.appended {
		paths = append(paths, l.paths...)
	}
	for _, l := range e.logged {
		paths = append(paths, l.paths...)
	}
	return paths
}

// loggedLast returns the number of the last event this engine logged, or
// zero.
func (e *Engine) loggedLast() uint64 {
	if len(e.logged) == 0 {
		return 0
	}
	return e.logged[len(e.logged)-1].rec.Last()
}

// loggedHeads sets in heads what the logged batches' events set once they
// are in the bbolt file.
func (e *Engine) loggedHeads(heads map[string]journal.Head) {
	for _, l := range e.logged {
		for _, ev := range l.rec.Events {
			for _, f := range ev.Files {
				heads[f.Path] = journal.Head{ID: f.After, Mode: f.AfterMode, Seq: ev.Seq}
			}
		}
	}
}

// loggedHas reports whether a logged record carries content id.
func (e *Engine) loggedHas(id snapshot.ID) bool {
	_, ok := e.loggedContent(id)
	return ok
}

// applyLogged applies a loggable batch (see the top of this file). ev and
// observes are numbered; ops have their temp names. e.mu and the journal
// are held.
func (e *Engine) applyLogged(db *journal.DB, ops []*fileOp, ev *journal.Event, observes []*journal.Event) (*Result, error) {
	ev.Status = journal.StatusCommitted
	rec := &journal.LogRecord{Events: append(append([]*journal.Event{}, observes...), ev)}
	// Contents: every after-content, and a before-content the store lacks.
	seen := map[snapshot.ID]bool{}
	err := db.View(func(tx *journal.Tx) error {
		for _, op := range ops {
			if !seen[op.cur.id] && op.cur.data != nil && !snapshot.Has(tx.Bolt(), op.cur.id) && !e.loggedHas(op.cur.id) {
				seen[op.cur.id] = true
				rec.Contents = append(rec.Contents, journal.LogContent{ID: op.cur.id, Data: op.cur.data})
			}
			if !seen[op.after] {
				seen[op.after] = true
				rec.Contents = append(rec.Contents, journal.LogContent{ID: op.after, Data: op.change.Data, Base: op.cur.data})
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := e.step("log", ops[0].p.Rel); err != nil {
		return nil, err
	}
	// The note names the temps first, so that a crash before the record
	// lands leaves none behind (recovery removes the temps a note names past
	// the journal's last event).
	if err := db.SetNote(e.tempNote(ev.Seq, ops)); err != nil {
		return nil, classify(fmt.Errorf("replay: note temporary files: %w", err))
	}
	e.wantSpares(ops)
	off := e.walEnd
	e.wroteLog = true
	var terr error // the temps are written while the record is written back
	end, err := db.LogAppendWith(off, rec, func() {
		if terr = e.writeTemps(ops, false); terr == nil {
			holdOlds(ops)
		}
	})
	defer releaseOld(ops)
	if err != nil {
		if stage := e.removeTempsOrStage(ops); len(stage) > 0 {
			db.Update(func(tx *journal.Tx) error { return tx.Stage(stage) }) // best effort: the log failed, bbolt may too
		}
		if verr := db.LogVoid(off); verr != nil {
			e.orphaned = true
			return nil, classify(fmt.Errorf("replay: log intent: %w (and its record could not be erased, so the next batch may complete this one: %v)", err, verr))
		}
		return nil, classify(fmt.Errorf("replay: log intent: %w", err))
	}
	if terr != nil {
		return nil, e.rollbackLogged(db, rec, off, ops, nil, terr)
	}
	for i, op := range ops {
		if err := e.rename(op.p, op.tmp); err != nil {
			return nil, e.rollbackLogged(db, rec, off, ops, ops[:i], err)
		}
	}
	// Done: a process that takes the run over need not read its files
	// (adopt). Best effort: without the note it reads them.
	_ = db.SetNote(e.doneNote(rec.Last()))
	l := &logged{rec: rec, at: time.Now()}
	for _, op := range ops {
		l.paths = append(l.paths, op.p)
	}
	e.logged = append(e.logged, l)
	e.walEnd = end
	if end-off >= eagerCheckpoint {
		e.armSeal(0)
	} else {
		e.armSeal(sealDelay)
	}
	return newResult(ev, observes, ops), nil
}

// rollbackLogged undoes a logged batch that failed after its record landed:
// the files already renamed get their before-contents back (synced), every
// temp goes, the record is voided, and the attempt is recorded as a
// rolled-back event, as a failed unlogged batch is. If a file cannot be put
// back, the record stays: the next batch's recovery completes the batch
// instead (it is all-or-nothing either way).
func (e *Engine) rollbackLogged(db *journal.DB, rec *journal.LogRecord, off int64, ops, renamed []*fileOp, cause error) error {
	saved := e.fault
	e.fault = nil // the fault under test has fired; the rollback runs clean
	defer func() { e.fault = saved }()
	dirs := map[*Root]map[string]bool{}
	for _, op := range renamed {
		var err error
		if op.cur.data != nil {
			err = e.writeBack(db, op.p, op.cur.id, op.cur.data, true, op.cur.mode, rec.Last())
		} else { // a large file's before-content, stored (stageStreams) before the record
			err = e.putBack(db, op.p, op.cur.id, op.cur.mode, rec.Last())
		}
		if err != nil {
			e.removeTempsOrStage(ops) // the recovery of the orphaned record stages them again
			e.orphaned = true
			e.walEnd = off // not reused: the orphaned record is recovered first
			return fmt.Errorf("%w (rollback incomplete, the next batch completes this one from the write-ahead log: %v)", cause, err)
		}
		if dirs[op.p.Root] == nil {
			dirs[op.p.Root] = map[string]bool{}
		}
		dirs[op.p.Root][path.Dir(op.p.Rel)] = true
	}
	stage := e.removeTempsOrStage(ops)
	for r, ds := range dirs {
		for d := range ds {
			if err := e.syncDir(r, d); err != nil {
				return fmt.Errorf("%w (rollback: %v)", cause, err)
			}
		}
	}
	if err := db.LogVoid(off); err != nil {
		e.orphaned = true
		return fmt.Errorf("%w (its log record could not be erased, so the next batch may complete it: %v)", cause, err)
	}
	// Record the attempt, rolled back (best effort: the files are back), and
	// stage the temps out of reach.
	if err := e.checkpointLocked(db); err != nil {
		if len(stage) > 0 {
			db.Update(func(tx *journal.Tx) error { return tx.Stage(stage) })
		}
		return cause
	}
	failed := &journal.LogRecord{Events: slices.Clone(rec.Events), Contents: rec.Contents}
	last := *failed.Events[len(failed.Events)-1]
	last.Status, last.Error = journal.StatusRolledBack, "rolled back: "+cause.Error()
	failed.Events[len(failed.Events)-1] = &last
	// An error here leaves the files back all the same; only the record of
	// the attempt is missing.
	_ = e.appendLogged(db, []*journal.LogRecord{failed}, stage, 0)
	return cause
}

// removeTempsOrStage removes the temps of ops and returns the staging keys
// of those it cannot reach (a directory on the way swapped for a symbolic
// link out of the root, or a loop), for a later recovery to remove.
func (e *Engine) removeTempsOrStage(ops []*fileOp) []string {
	var stage []string
	for _, op := range ops {
		err := op.p.Root.root.Remove(op.tmp)
		if err != nil && !errors.Is(err, fs.ErrNotExist) && unreachable(mapFSError(tempPath(op.p, op.tmp), "remove temporary file", err)) {
			stage = append(stage, stageKey(op.p, op.tmp))
		}
	}
	return stage
}

// putContents stores a record's contents (as deltas against their Base);
// the events appended with them mark the journal's format.
func putContents(tx *journal.Tx, rec *journal.LogRecord) error {
	for _, c := range rec.Contents {
		if _, err := snapshot.PutDelta(tx.Bolt(), c.ID, c.Data, c.Base); err != nil {
			return err
		}
	}
	return nil
}

// appendLogged appends the events of recs to the bbolt file, with the status
// they were recorded with (committed, but for a failed batch's record of its
// attempt), each with the number it was given, in one transaction that
// first seals the engine's unsealed batch, stages the
// temps in stage (out of a recovery's reach, see recoverEvent) and sets
// journal.Tx.LogUnsynced to unsynced: 0 once the run's files are synced,
// else the run's first event (unless it is set already).
func (e *Engine) appendLogged(db *journal.DB, recs []*journal.LogRecord, stage []string, unsynced uint64) error {
	err := db.Update(func(tx *journal.Tx) error {
		if err := e.sealUnsealed(tx); err != nil {
			return err
		}
		if err := tx.MarkFormat(journal.FormatLogged); err != nil {
			return err
		}
		if err := tx.Stage(stage); err != nil {
			return err
		}
		if unsynced == 0 || tx.LogUnsynced() == 0 {
			if err := tx.SetLogUnsynced(unsynced); err != nil {
				return err
			}
		}
		for _, rec := range recs {
			if err := putContents(tx, rec); err != nil {
				return err
			}
			for _, ev := range rec.Events {
				c := *ev
				if err := tx.Append(&c); err != nil {
					return err
				}
				if c.Seq != ev.Seq {
					return fmt.Errorf("replay: logged event %d lands as %d: %w", ev.Seq, c.Seq, journal.ErrState)
				}
			}
		}
		return nil
	})
	if err != nil {
		return classify(fmt.Errorf("replay: checkpoint: %w", err))
	}
	e.unsealed = nil
	return nil
}

// syncPaths fsyncs files and then their directories. A file that is gone
// or no longer a regular file of its own (someone else's doing) is skipped:
// what it held is not the journal's to keep any more.
func (e *Engine) syncPaths(paths []Path) error {
	type dir struct {
		r   *Root
		rel string
	}
	seenFile := map[string]bool{}
	seenDir := map[dir]bool{}
	var dirs []dir
	for _, p := range paths {
		if seenFile[p.Key] {
			continue
		}
		seenFile[p.Key] = true
		if err := e.step("fsync", p.Rel); err != nil {
			return err
		}
		f, err := p.Root.root.Open(p.Rel)
		if err == nil {
			err = f.Sync()
			f.Close()
			if err != nil {
				return classify(fmt.Errorf("replay: fsync %s: %w", p.Rel, err))
			}
		} else if me := mapFSError(p, "open", err); !errors.Is(err, fs.ErrNotExist) && !unreachable(me) {
			return me
		}
		d := dir{p.Root, path.Dir(p.Rel)}
		if !seenDir[d] {
			seenDir[d] = true
			dirs = append(dirs, d)
		}
	}
	for _, d := range dirs {
		if err := e.syncDir(d.r, d.rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// checkpointLocked ends the log's run: the files and directories of this
// engine's logged batches (those already moved into the bbolt file for a
// reader included) are fsynced, then the events not yet there are appended,
// committed, in one transaction (which also seals the unsealed batch and
// clears journal.Tx.LogUnsynced). The log is not erased: the next run
// overwrites it from offset 0, and a reader skips records already in the
// bbolt file. e.mu and the journal are held.
func (e *Engine) checkpointLocked(db *journal.DB) error {
	if e.runFirst() == nil {
		return nil
	}
	if err := e.syncPaths(e.runPaths()); err != nil {
		return err
	}
	if err := e.appendLogged(db, e.loggedRecs(), nil, 0); err != nil {
		return err
	}
	e.runPeak = max(e.runPeak, e.walEnd)
	e.logged, e.appended, e.walEnd = nil, nil, 0
	return nil
}

// reserveLog grows the log file ahead of the next runs (journal.DB.
// LogReserve) to the longest run checkpointed so far and half a run more,
// off any batch's path: the timer calls it after its checkpoint, so a run
// as long as an earlier one writes into zeros made before. e.mu and the
// journal are held.
func (e *Engine) reserveLog(db *journal.DB) error {
	if e.runPeak == 0 {
		return nil
	}
	return db.LogReserve(e.runPeak + e.runPeak/2)
}

// loggedRecs returns the records of e.logged.
func (e *Engine) loggedRecs() []*journal.LogRecord {
	recs := make([]*journal.LogRecord, len(e.logged))
	for i, l := range e.logged {
		recs[i] = l.rec
	}
	return recs
}

// appendForReaders moves this engine's logged batches into the bbolt file
// without syncing their files first (one bbolt commit, no fsync of files or
// directories): for a reader of the journal (Journal, FindEdit, a revert's
// plan), which needs the events, not the files' durability. The run goes on;
// journal.Tx.LogUnsynced names its first event, so that a recovery rolls the
// files of the whole run forward, and checkpointLocked syncs them later.
// e.mu and the journal are held.
func (e *Engine) appendForReaders(db *journal.DB) error {
	if len(e.logged) == 0 {
		return nil
	}
	if err := e.appendLogged(db, e.loggedRecs(), nil, e.runFirst().rec.First()); err != nil {
		return err
	}
	e.appended = append(e.appended, e.logged...)
	e.logged = nil
	return nil
}

// appendDisplaced appends this engine's logged batches, whose numbers
// another writer took (see recoverLog), after the journal's last event, as
// they are, numbered anew; their files (and those of the run's batches
// already appended) are synced first, as at a checkpoint.
func (e *Engine) appendDisplaced(db *journal.DB) error {
	if err := e.syncPaths(e.runPaths()); err != nil {
		return err
	}
	var next uint64
	if err := db.View(func(tx *journal.Tx) error { next = tx.Last() + 1; return nil }); err != nil {
		return err
	}
	recs := e.loggedRecs()
	for i, r := range recs {
		c := &journal.LogRecord{Contents: r.Contents}
		for _, ev := range r.Events {
			n := *ev
			n.Seq, next = next, next+1
			c.Events = append(c.Events, &n)
		}
		recs[i] = c
	}
	if err := e.appendLogged(db, recs, nil, 0); err != nil {
		return err
	}
	e.logged, e.appended, e.walEnd = nil, nil, 0
	return nil
}

// recoverLog completes the batches of the write-ahead log that are not in
// the bbolt file: those of a stopped process (crash, SIGKILL, power
// failure), or this engine's own after a rollback that could not finish.
// A logged batch is committed — its record is its commit — so each is rolled
// forward, the run to its end (rollForward): a file still holding its
// before-content (the rename never happened, or a power failure lost it),
// or any content the run had it hold before its last change, gets its
// last after-content from the record, through a temp and rename; a file
// holding its after-content stays;
// a file holding neither was changed by someone else since and is left as it
// is (the next batch records it as an outside change), unless a power
// failure may have torn it (tornByPowerLoss). Then the files and directories
// are fsynced and the events appended, committed. The records of the run
// that the bbolt file has already (moved in for a reader before their files
// were synced: journal.Tx.LogUnsynced) are rolled forward the same way, in
// order, and not appended again.
//
// This engine's own logged batches, intact, are left to its checkpoint, and
// so are the records other processes appended after them, and a run of
// records past the bbolt file's last event when nothing of the run is in
// the bbolt file (journal.Tx.LogUnsynced is 0): those are taken over
// (adopt), rolled forward as above but neither synced nor appended. Only a
// run that cannot be taken over as it is (a damaged record, a temp out of
// reach, a run a reader moved in part into the bbolt file, this engine's
// orphaned record) is completed and ended here (recoverRun). e.mu and the
// journal are held; pending events are recovered already.
func (e *Engine) recoverLog(db *journal.DB) error {
	var last, unsynced uint64
	if err := db.View(func(tx *journal.Tx) error { last, unsynced = tx.Last(), tx.LogUnsynced(); return nil }); err != nil {
		return err
	}
	if len(e.logged) == 0 && len(e.appended) > 0 && !e.orphaned {
		if unsynced == e.appended[0].rec.First() {
			return nil // ours, intact: a process that took them over would have cleared it
		}
		e.appended, e.walEnd = nil, 0 // another process's recovery synced them
	}
	if len(e.logged) > 0 && !e.orphaned {
		first := e.logged[0].rec.Events[0]
		if first.Seq > last {
			// Ours, intact (a process that took them over would have
			// appended them), perhaps followed by other processes' records.
			tail, end, err := db.LogTail(e.walEnd, e.loggedLast()+1)
			if err != nil {
				return err
			}
			if ok, err := e.adopt(db, tail, end); err != nil || ok {
				return err
			}
			// A damaged record, or a temp out of reach: the whole run is
			// recovered, ours with it, as below.
			e.logged, e.appended, e.walEnd = nil, nil, 0
			return e.recoverRun(db, last, unsynced)
		}
		// Another process's recovery appended them — unless a writer that
		// does not read the log took their numbers (journal.Journal.GC
		// refuses to): then they are not in the chain, and are appended
		// after what that writer appended, numbered anew, rather than lost.
		var got *journal.Event
		var base uint64
		err := db.View(func(tx *journal.Tx) (err error) {
			if base, _ = tx.Base(); first.Seq <= base {
				return nil
			}
			got, err = tx.Event(first.Seq)
			return
		})
		switch {
		case got == nil && err == nil:
			// appended by another process's recovery, then dropped by a
			// gc (the CLI's `journal gc` does both): theirs now, as below
		case err != nil:
			return err
		case !got.Time.Equal(first.Time) || got.Kind != first.Kind || got.Tool != first.Tool || len(got.Files) != len(first.Files):
			return e.appendDisplaced(db)
		}
		e.logged, e.appended, e.walEnd = nil, nil, 0
	}
	if len(e.appended) == 0 && unsynced == 0 && !e.orphaned {
		// Another process's run, its files unsynced (or a stopped
		// process's): taken over, not ended.
		recs, end, err := db.LogTail(0, last+1)
		if err != nil {
			return err
		}
		if len(recs) > 0 { // else recoverRun says what the log holds: nothing past the journal, or a run that does not follow it
			if ok, err := e.adopt(db, recs, end); err != nil || ok {
				return err
			}
		}
	}
	return e.recoverRun(db, last, unsynced)
}

// adopt takes over recs, the records of the log's current run from where
// this engine's run ends (or from its start, when it has none) to end: each
// is rolled forward (a record is its batch's commit, whether its process is
// running or stopped, so its files get their after-contents if they lack
// them) and becomes one of this engine's logged batches, which its next
// batch numbers after, its heads and contents count, and its checkpoint
// (or that of any other process running the run) moves into the bbolt file
// with its files synced. So a process taking the lock from another one that
// logged batches appends to the same run instead of ending it — no fsync of
// files, no bbolt commit at every turn — and several servers on one
// workspace share the log as one server does. It reports false, having
// adopted nothing, when the run cannot be adopted as it is and must be
// recovered whole (recoverRun): a damaged record, or a temp out of reach.
// With no records it reports true. e.mu and the journal are held.
func (e *Engine) adopt(db *journal.DB, recs []*journal.LogRecord, end int64) (bool, error) {
	if first, _ := db.LogLost(); first != 0 {
		return false, nil
	}
	if len(recs) == 0 {
		return true, nil
	}
	// The last record's batch noted that it finished (its files renamed)
	// since the machine booted: so did every batch before it in the run,
	// each adopted by the next before it logged, and their files need not
	// be read again.
	n := readNote(db)
	done := e.trustNotes && n.Done && n.Seq == recs[len(recs)-1].Last() && n.Boot != 0 && n.Boot == bootStamp()
	var adopted []*logged
	run := finalStates(recs)
	for _, r := range recs {
		var paths []Path
		if done {
			paths = e.recordPaths(r)
		} else {
			var stage []string
			var err error
			if paths, stage, err = e.rollForward(db, r, run); err != nil {
				return false, fmt.Errorf("replay: recover logged event %d: %w", r.Last(), err)
			}
			if len(stage) > 0 {
				return false, nil
			}
		}
		adopted = append(adopted, &logged{rec: r, paths: paths, at: r.Events[len(r.Events)-1].Time})
	}
	e.logged = append(e.logged, adopted...)
	for _, l := range adopted {
		e.setBases(l.rec)
	}
	e.walEnd = end
	e.armSeal(sealDelay) // their process may have stopped: the run is ended here then
	return true, nil
}

// recordPaths returns the files a logged record's batch changed (not those
// of its observe events), in a root this engine has.
func (e *Engine) recordPaths(r *journal.LogRecord) []Path {
	var paths []Path
	for _, ev := range r.Events {
		if ev.Kind == journal.KindObserve {
			continue
		}
		for _, f := range ev.Files {
			if p, err := e.Resolve(f.Path); err == nil {
				paths = append(paths, p)
			}
		}
	}
	return paths
}

// setBases gives each content of an adopted record the bytes of its file's
// previous version as its Base, where the run holds them (the record
// itself, or an earlier one), so that the checkpoint stores it as deltas,
// as it does the record of the process that logged it.
func (e *Engine) setBases(r *journal.LogRecord) {
	for _, ev := range r.Events {
		for _, f := range ev.Files {
			if f.Before.IsZero() {
				continue
			}
			for i := range r.Contents {
				c := &r.Contents[i]
				if c.ID != f.After || c.Base != nil {
					continue
				}
				if b, ok := r.Content(f.Before); ok {
					c.Base = b
				} else if b, ok := e.loggedContent(f.Before); ok {
					c.Base = b
				}
			}
		}
	}
}

// loggedContent returns a content a logged record carries.
func (e *Engine) loggedContent(id snapshot.ID) ([]byte, bool) {
	for _, l := range e.logged {
		if b, ok := l.rec.Content(id); ok {
			return b, true
		}
	}
	return nil, false
}

// recoverRun rolls forward and appends to the bbolt file, as recoverLog
// says, the log's run past the journal's last event (or from its first
// unsynced event), and ends it.
func (e *Engine) recoverRun(db *journal.DB, last, unsynced uint64) error {
	after := last // records past it are rolled forward
	if unsynced > 0 && unsynced-1 < after {
		after = unsynced - 1
	}
	recs, err := db.LogRead(after)
	if err != nil {
		return err
	}
	var todo, add []*journal.LogRecord
	for _, r := range recs {
		if len(todo) == 0 && r.First() != after+1 {
			return fmt.Errorf("replay: the write-ahead log %s.wal starts at event %d, but the journal ends at %d (was the journal file replaced or restored from a copy? its log belongs to the file it replaced: move the .wal file aside and open again): %w",
				e.j.Path(), r.First(), after, journal.ErrCorrupt)
		}
		todo = append(todo, r)
		if r.First() > last {
			add = append(add, r)
		}
	}
	if len(todo) == 0 {
		if unsynced > 0 { // a run whose records are gone (voided, torn): nothing to redo
			if err := db.Update(func(tx *journal.Tx) error { return tx.SetLogUnsynced(0) }); err != nil {
				return err
			}
		}
		e.logged, e.appended, e.walEnd, e.orphaned = nil, nil, 0, false
		return e.appendLost(db)
	}
	var paths []Path
	var stage []string
	run := finalStates(todo)
	for _, r := range todo {
		ps, st, err := e.rollForward(db, r, run)
		if err != nil {
			return fmt.Errorf("replay: recover logged event %d: %w", r.Last(), err)
		}
		paths, stage = append(paths, ps...), append(stage, st...)
	}
	if err := e.syncPaths(paths); err != nil {
		return err
	}
	if err := e.appendLogged(db, add, stage, 0); err != nil {
		return err
	}
	e.logged, e.appended, e.walEnd, e.orphaned = nil, nil, 0, false
	return e.appendLost(db)
}

// appendLost records the events the log held in damaged records
// (journal.DB.LogLost) — acknowledged batches that cannot be rolled forward
// — as lost: one damaged event names them, so that the chain goes on and
// `journal log` and the audit export show the gap. Their files are as the
// crash left them; the next batch on one records it as an outside change.
func (e *Engine) appendLost(db *journal.DB) error {
	first, last := db.LogLost()
	if first == 0 {
		return nil
	}
	return db.Update(func(tx *journal.Tx) error {
		first = max(first, tx.Last()+1)
		if first > last {
			return nil // the bbolt file has them
		}
		_, err := tx.AppendLost(first, last, "their record in the write-ahead log is damaged: acknowledged batches that could not be rolled forward", e.actor)
		return err
	})
}

// rollForward puts the files of a logged batch in their after state (see
// recoverLog) and returns them, and the staging keys of temps it cannot
// reach (a directory on the way swapped for a symbolic link out of the root,
// or a loop): the file behind such a temp is left as it is, and the temp is
// removed by the first recovery that can reach it.
//
// A run is rolled forward to where it ends, not through each batch in turn
// (run, from finalStates over the records being rolled forward): only a
// file's last change in the run is redone, over any content the run had the
// file hold before it. Batch by batch, a file the run took from A to B and
// back to A looked, at the first batch, like one still holding its
// before-content, and got B back — and a recovery killed before the second
// batch left it so, under a journal that says A (TestCrash_KillGC found
// it: an empty file given a content, then emptied).
func (e *Engine) rollForward(db *journal.DB, rec *journal.LogRecord, run map[string]*finalState) ([]Path, []string, error) {
	var paths []Path
	var stage []string
	for _, ev := range rec.Events {
		if ev.Kind == journal.KindObserve {
			continue // what someone else did: nothing to redo
		}
		for _, f := range ev.Files {
			p, err := e.Resolve(f.Path)
			if err != nil {
				continue // a root not configured in this process
			}
			tmp := tempName(p.Rel, ev.Seq)
			if err := p.Root.root.Remove(tmp); err != nil && !errors.Is(err, fs.ErrNotExist) && unreachable(mapFSError(tempPath(p, tmp), "remove temporary file", err)) {
				stage = append(stage, stageKey(p, tmp))
				continue
			}
			fin := run[f.Path]
			if fin.seq != ev.Seq {
				continue // a later batch of the run changes it again
			}
			cur, err := e.readState(p, false)
			if unreachable(err) {
				continue // no longer a regular file of its own: someone else's
			}
			if err != nil {
				return nil, nil, err
			}
			switch {
			case cur.exists && cur.id == f.After:
			case cur.exists && fin.prior[cur.id], e.tornByPowerLoss(p, ev.Time):
				mode := fs.FileMode(f.AfterMode)
				if mode == 0 {
					mode = 0o644
				}
				data, ok := rec.Content(f.After)
				if err := e.writeBack(db, p, f.After, data, ok, mode, ev.Seq); err != nil {
					return nil, nil, err
				}
			default:
				continue
			}
			paths = append(paths, p)
		}
	}
	return paths, stage, nil
}

// finalState is, for a file a run of logged batches changes, the event of
// its last change, and every content the run had it hold before that
// change's after: each of its changes' before-contents.
type finalState struct {
	seq   uint64
	prior map[snapshot.ID]bool
}

// finalStates returns the finalState of every file recs change (their
// batches' events, not the outside changes they observed), by path key.
func finalStates(recs []*journal.LogRecord) map[string]*finalState {
	run := map[string]*finalState{}
	for _, r := range recs {
		for _, ev := range r.Events {
			if ev.Kind == journal.KindObserve {
				continue
			}
			for _, f := range ev.Files {
				fin := run[f.Path]
				if fin == nil {
					fin = &finalState{prior: map[snapshot.ID]bool{}}
					run[f.Path] = fin
				}
				fin.seq = ev.Seq
				fin.prior[f.Before] = true
			}
		}
	}
	return run
}

// tornByPowerLoss reports whether the file at p, holding neither the
// before- nor the after-content of a logged batch made at t, may have been
// torn by a power failure rather than changed by someone: the machine has
// booted since t, and the file's inode last changed before that boot. Such a
// file is the batch's unsynced write (or another program's, equally
// unsynced, in the milliseconds before the failure), and gets the batch's
// after-content. bootTime is a seam for tests.
func (e *Engine) tornByPowerLoss(p Path, t time.Time) bool {
	boot := bootTime()
	if boot.IsZero() || !t.Before(boot) {
		return false
	}
	fi, err := p.Root.root.Lstat(p.Rel)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	ct, ok := changeTime(fi)
	return ok && ct.Before(boot)
}
