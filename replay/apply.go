package replay

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/snapshot"
)

// Change is the new state of one file in a batch.
type Change struct {
	Path   string      // tool path: absolute inside a root, or relative to the first root
	Delete bool        // remove the file
	Data   []byte      // new content (in memory)
	Source Source      // new content, streamed (large files); used when Data is nil
	Mode   fs.FileMode // permission bits; 0 keeps the file's mode (0644 for new files)
	// Expect, if set, is the content the file must have now (the zero ID: must
	// not exist); otherwise the batch fails with ErrConflict.
	Expect    *snapshot.ID
	MovedFrom string // informational: this change and a Delete of MovedFrom are one move
	// PruneDirs, with Delete, are directories (relative to the file's root,
	// outermost first) to remove once the batch is done if the delete left
	// them empty: those the file's creation made (FileChange.NewDirs), when
	// a revert or an undo takes the creation back.
	PruneDirs []string
}

// Source writes a content to w (streaming).
type Source func(w io.Writer) error

// Batch is one mutating call: all its changes are applied or none.
type Batch struct {
	Tool    string
	Args    json.RawMessage
	Kind    journal.Kind // default apply
	Reverts uint64
	Undone  []uint64       // the undo of a session: the events it takes back (journal.Event.Undone)
	Actor   *journal.Actor // default: the engine's actor
	Changes []Change
	// DryRun computes and checks the changes but writes nothing.
	DryRun bool
	// WriteReadOnly writes files whose mode has no write bit for their
	// owner. Without it a change to such a file (content, mode or delete)
	// refuses the whole batch with ErrReadOnlyFile, dry runs included: a
	// person's chmod a-w is a protection, not an obstacle the rename
	// happens to step over. A person's commands (the CLI, the web app) set
	// it; an agent's tool sets it only when the call says so.
	WriteReadOnly bool
}

// Result says what a batch did.
type Result struct {
	Seq      uint64               // the event (0 when nothing changed)
	Observed []uint64             // observe events appended first, for files changed outside
	Files    []journal.FileChange // per file, before/after
	Paths    []Path               // resolved paths, parallel to Files
	Planned  []Change             // for a dry run: the changes that would be applied
}

// Reader reads files while a batch holds the journal's lock, so what a plan
// reads is what the batch replaces.
type Reader struct {
	e      *Engine
	db     *journal.DB
	cache  map[string]state
	cached bool // outside the lock: large files may take their version from the version cache
}

// File is a file as a plan sees it.
type File struct {
	Path   Path
	Exists bool
	ID     snapshot.ID
	Mode   fs.FileMode
	Size   int64
	Data   []byte // nil for files at or above the stream threshold: use Open
}

// Read returns the file at a tool path (Exists=false if missing).
func (r *Reader) Read(p string) (*File, error) {
	rp, err := r.e.Resolve(p)
	if err != nil {
		return nil, err
	}
	st, err := r.state(rp)
	if err != nil {
		return nil, err
	}
	return &File{Path: rp, Exists: st.exists, ID: st.id, Mode: st.mode, Size: st.size, Data: st.data}, nil
}

// Open opens a file for streaming reads.
func (r *Reader) Open(p Path) (io.ReadCloser, error) {
	f, err := p.Root.root.Open(p.Rel)
	if err != nil {
		return nil, mapFSError(p, "open", err)
	}
	return f, nil
}

// Prefetch reads the files at paths that are not read yet, several at once
// (each is read and hashed whole, or stat'ed if large), so that the Reads
// that follow find them. A path it cannot read is left to Read, which
// returns the error.
func (r *Reader) Prefetch(paths []string) {
	var todo []Path
	seen := map[string]bool{}
	for _, p := range paths {
		rp, err := r.e.Resolve(p)
		if err != nil || seen[rp.Key] {
			continue
		}
		if _, ok := r.cache[rp.Key]; !ok {
			seen[rp.Key] = true
			todo = append(todo, rp)
		}
	}
	if len(todo) < 2 {
		return
	}
	states := make([]state, len(todo))
	errs := make([]error, len(todo))
	snapshot.Parallel(len(todo), func(i int) { states[i], errs[i] = r.e.readState(todo[i], r.cached) })
	for i, p := range todo {
		if errs[i] == nil {
			r.cache[p.Key] = states[i]
		}
	}
}

func (r *Reader) state(p Path) (state, error) {
	if st, ok := r.cache[p.Key]; ok {
		return st, nil
	}
	st, err := r.e.readState(p, r.cached)
	if err != nil {
		return st, err
	}
	r.cache[p.Key] = st
	return st, nil
}

// Plan computes a batch's changes from files read under the lock. It runs
// holding the engine's batch mutex, so it must not call the engine's
// Journal, Status, Event, FindEdit or FlushSeal (they take it too).
type Plan func(r *Reader) (*Batch, error)

// Apply applies a batch atomically (see the package doc for the protocol).
func (e *Engine) Apply(ctx context.Context, b *Batch) (*Result, error) {
	return e.Edit(ctx, func(*Reader) (*Batch, error) { return b, nil })
}

// Edit holds the journal's lock, recovers any crashed batch, runs plan to
// compute the changes from the files as they are now, and applies them.
func (e *Engine) Edit(ctx context.Context, plan Plan) (*Result, error) {
	if err := e.hold.wait(ctx); err != nil {
		return nil, err
	}
	var res *Result
	err := e.do(func(db *journal.DB) error {
		if err := e.recoverLocked(db); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		r := &Reader{e: e, db: db, cache: map[string]state{}}
		b, err := plan(r)
		if err != nil {
			return err
		}
		res, err = e.applyLocked(db, r, b)
		return err
	})
	return res, classify(err)
}

// refuseReadOnly refuses a batch that changes an existing file whose owner
// may not write it. The mode bits decide, not access(2): a server running
// as root may write any file, and a read-only file is the person's word
// whoever runs the server.
func refuseReadOnly(ops []*fileOp) error {
	for _, op := range ops {
		if op.cur.exists && op.cur.mode.Perm()&0o200 == 0 {
			return &PathError{Path: op.p.Rel, Err: ErrReadOnlyFile,
				Msg: fmt.Sprintf("is read-only (mode %04o): someone made it so to keep it from being changed; nothing was written", op.cur.mode.Perm())}
		}
	}
	return nil
}

// fileOp is one file of a batch being applied.
type fileOp struct {
	p      Path
	cur    state
	change Change
	after  snapshot.ID
	mode   fs.FileMode
	size   int64
	// added, removed: the line counts of the change, counted beside the
	// hash (applyLocked)
	added, removed int
	tmp            string
	staged         bool // temp written before the intent (streamed content)
	fc             journal.FileChange
	old            *os.File  // a large file's old inode, held open across its rename (see holdOld)
	own            fileIdent // the file's identity once renamed, if probe proved it unchanged (version.go)
	owned          bool
	layout         []snapshot.Chunk // a streamed content's layout
}

func (e *Engine) applyLocked(db *journal.DB, r *Reader, b *Batch) (*Result, error) {
	actor := e.actor
	if b.Actor != nil {
		actor = *b.Actor
	}
	kind := b.Kind
	if kind == "" {
		kind = journal.KindApply
	}
	var ops []*fileOp
	seen := map[string]bool{}
	for _, c := range b.Changes {
		p, err := e.Resolve(c.Path)
		if err != nil {
			return nil, err
		}
		if seen[p.Key] {
			return nil, &PathError{Path: p.Rel, Err: ErrInvalidPath, Msg: "appears twice in one batch"}
		}
		seen[p.Key] = true
		cur, err := r.state(p)
		if err != nil {
			return nil, err
		}
		if c.Expect != nil && *c.Expect != cur.id {
			msg := fmt.Sprintf("is version %s, not the expected %s", short(cur.id), short(*c.Expect))
			return nil, &PathError{Path: p.Rel, Err: ErrConflict, Msg: msg, Hint: "read the file again and redo the edit on its current content"}
		}
		if c.Delete && !cur.exists {
			return nil, &PathError{Path: p.Rel, Err: ErrNotFound, Msg: "does not exist, cannot delete"}
		}
		op := &fileOp{p: p, cur: cur, change: c, mode: c.Mode.Perm()}
		if op.mode == 0 {
			op.mode = cur.mode
			if !cur.exists {
				op.mode = 0o644
			}
		}
		if !c.Delete && c.Data == nil && c.Source == nil {
			op.change.Data = []byte{}
		}
		ops = append(ops, op)
	}
	// the new contents' hashes and the changes' line counts (a rewrite
	// diffs every line), several at once: a batch of one file has them on
	// two cores
	n := len(ops)
	snapshot.Parallel(2*n, func(i int) {
		if i >= n {
			if op := ops[i-n]; op.cur.data != nil || op.change.Data != nil {
				op.added, op.removed = lineStats(op.cur.data, op.change.Data)
			}
			return
		}
		if op := ops[i]; !op.change.Delete && op.change.Data != nil {
			op.after, op.size = snapshot.Sum(op.change.Data), int64(len(op.change.Data))
		}
	})
	ops = slices.DeleteFunc(ops, func(op *fileOp) bool {
		return !op.change.Delete && op.change.Data != nil && op.after == op.cur.id && op.mode == op.cur.mode // no change to this file
	})
	if len(ops) == 0 {
		return &Result{}, nil
	}
	if !b.WriteReadOnly {
		if err := refuseReadOnly(ops); err != nil {
			return nil, err
		}
	}
	if b.DryRun {
		res := &Result{}
		for _, op := range ops {
			res.Files = append(res.Files, journal.FileChange{Path: op.p.Key, Before: op.cur.id, After: op.after})
			res.Paths = append(res.Paths, op.p)
			res.Planned = append(res.Planned, op.change)
		}
		return res, nil
	}

	// A batch of in-place modifications small enough commits through the
	// write-ahead log (wal.go); any other first moves the logged batches
	// into the bbolt file, as does one that finds the log full or its oldest
	// batch older than maxLogAge.
	fast, need := e.loggable(ops, len(b.Args))
	if e.checkpointDue(fast, need) {
		if err := e.checkpointLocked(db); err != nil {
			return nil, err
		}
	}

	// Sequence numbers: observe events first, then the batch's event.
	var last uint64
	if err := db.View(func(tx *journal.Tx) error { last = max(tx.Last(), e.loggedLast()); return nil }); err != nil {
		return nil, err
	}
	var observes []*journal.Event
	err := db.View(func(tx *journal.Tx) error {
		unsealed := e.unsealedHeads(tx)
		if unsealed == nil {
			unsealed = map[string]journal.Head{}
		}
		e.loggedHeads(unsealed)
		for _, op := range ops {
			h, ok := tx.Head(op.p.Key)
			if u, in := unsealed[op.p.Key]; in {
				h, ok = u, true
			}
			if ok && !matches(h, op.cur.id, uint32(op.cur.mode)) {
				fc := journal.FileChange{Path: op.p.Key, Before: h.ID, After: op.cur.id, BeforeMode: uint32(h.Mode), AfterMode: uint32(op.cur.mode)}
				fc.Added, fc.Removed = observedLines(tx, h.ID, op.cur)
				observes = append(observes, &journal.Event{Kind: journal.KindObserve, Status: journal.StatusCommitted,
					Actor: journal.Actor{Kind: "external"}, Files: []journal.FileChange{fc}})
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	seq := last + uint64(len(observes)) + 1
	for _, op := range ops {
		op.tmp = tempName(op.p.Rel, seq)
	}

	// Large contents stream into the store before the intent, in transactions of their own.
	var dirs []createdDir // made for new files; removed again if the batch fails
	if err := e.stageStreams(db, ops, &dirs); err != nil {
		e.removeTemps(ops)
		removeDirs(dirs)
		return nil, err
	}

	ev := &journal.Event{Time: time.Now().UTC(), Kind: kind, Actor: actor, Tool: b.Tool, Args: b.Args, Reverts: b.Reverts, Undone: b.Undone}
	for _, op := range ops {
		op.fc = journal.FileChange{Path: op.p.Key, Before: op.cur.id, After: op.after,
			BeforeMode: uint32(op.cur.mode), MovedFrom: op.change.MovedFrom}
		if !op.change.Delete {
			op.fc.AfterMode = uint32(op.mode)
		}
		if !op.cur.exists && !op.change.Delete {
			op.fc.NewDirs = newDirs(op.p, dirs)
		}
	}
	for _, op := range ops {
		op.fc.Added, op.fc.Removed = op.added, op.removed
		if op.change.Delete && op.cur.exists && op.cur.data == nil {
			// a large file's delete counts its lines from the store, as
			// an rm the watcher records does
			db.View(func(tx *journal.Tx) error {
				op.fc.Added, op.fc.Removed = observedLines(tx, op.cur.id, state{})
				return nil
			})
		}
		ev.Files = append(ev.Files, op.fc)
	}
	for i, o := range observes {
		o.Time = ev.Time
		o.Seq = last + uint64(i) + 1
	}
	if fast {
		ev.Seq = seq
		return e.applyLogged(db, ops, ev, observes)
	}

	// When every file is modified in place, the temps are written while the
	// intent commits (see writeAhead); the lock file's note names them first,
	// so that a crash before the intent lands leaves none behind.
	ahead := writeAhead(ops)
	var tempsDone chan error
	if ahead {
		if err := db.SetNote(e.tempNote(seq, ops)); err != nil {
			return nil, classify(fmt.Errorf("replay: note temporary files: %w", err))
		}
		tempsDone = make(chan error, 1)
		e.wantSpares(ops)
		go func() { tempsDone <- e.writeTemps(ops, true) }()
	}

	// 1. Intent: the previous batch's seal (if deferred), contents and the
	// pending event, in one transaction.
	err = db.Update(func(tx *journal.Tx) error {
		if err := e.sealUnsealed(tx); err != nil {
			return err
		}
		// The files' previous versions, then their new ones as deltas
		// against them (the event appended below marks the journal's
		// format, journal.Tx.MarkFormat): each set stored at once, on
		// every core (a delta's base must be stored before it).
		var before, after []snapshot.Content
		for _, op := range ops {
			if op.cur.data != nil {
				before = append(before, snapshot.Content{ID: op.cur.id, Data: op.cur.data})
			}
			if op.change.Data != nil {
				after = append(after, snapshot.Content{ID: op.after, Data: op.change.Data, Base: op.cur.data})
			}
		}
		if _, err := snapshot.PutDeltas(tx.Bolt(), before); err != nil {
			return err
		}
		if _, err := snapshot.PutDeltas(tx.Bolt(), after); err != nil {
			return err
		}
		for _, o := range observes {
			if err := tx.Append(o); err != nil {
				return err
			}
		}
		if err := tx.Append(ev); err != nil {
			return err
		}
		if ev.Seq != seq {
			return fmt.Errorf("replay: event number %d, expected %d: %w", ev.Seq, seq, journal.ErrState)
		}
		var staged []string
		for _, op := range ops {
			if op.staged {
				staged = append(staged, stageKey(op.p, op.tmp))
			}
		}
		return tx.Unstage(staged)
	})
	if ahead {
		if terr := <-tempsDone; err == nil && terr != nil {
			return nil, e.rollback(db, ev, dirs, terr)
		}
	}
	if err != nil {
		e.removeTemps(ops)
		removeDirs(dirs)
		return nil, classify(fmt.Errorf("replay: record intent: %w", err))
	}
	e.unsealed = nil // sealed by the intent's transaction

	// 2. Files. 3. Commit.
	defer releaseOld(ops)
	if err := e.writeFiles(ops, &dirs, !ahead); err != nil {
		return nil, e.rollback(db, ev, dirs, err)
	}
	// 3. Commit, deferred (seal.go): the note says the files are in place.
	// A note that cannot be written only leaves recovery to find them so.
	_ = noteDone(db, ev.Seq)
	e.deferSeal(ev)
	pruneDirs(ops)
	for _, op := range ops {
		if op.owned {
			versions.putOwn(op.p, op.own, op.after, op.layout)
		}
	}
	return newResult(ev, observes, ops), nil
}

// newResult is the Result of an applied batch.
func newResult(ev *journal.Event, observes []*journal.Event, ops []*fileOp) *Result {
	res := &Result{Seq: ev.Seq, Files: ev.Files}
	for _, o := range observes {
		res.Observed = append(res.Observed, o.Seq)
	}
	for _, op := range ops {
		res.Paths = append(res.Paths, op.p)
	}
	return res
}

func short(id snapshot.ID) string {
	if id.IsZero() {
		return "(absent)"
	}
	return id.Short()
}

func stageKey(p Path, tmp string) string { return p.Root.Dir + "\x00" + tmp }

// stageStreams writes streamed contents to their temp files and into the
// store, and stores large before-contents, ahead of the intent.
func (e *Engine) stageStreams(db *journal.DB, ops []*fileOp, dirs *[]createdDir) error {
	for _, op := range ops {
		if op.cur.exists && op.cur.data == nil {
			if err := e.storeLarge(db, op.p, op.cur.id); err != nil {
				return err
			}
		}
		if op.change.Delete || op.change.Data != nil {
			continue
		}
		if err := db.Update(func(tx *journal.Tx) error { return tx.Stage([]string{stageKey(op.p, op.tmp)}) }); err != nil {
			return err
		}
		op.staged = true
		// One pass: the content streams, in blocks, into the temp file and,
		// through a pipe, into the store at the same time. The writer writes
		// the temp file, a goroutine of the pipe hashes the whole content,
		// the reader compares, cuts, hashes and stores the chunks: three
		// streams of work that the scheduler spreads over the cores.
		h := snapshot.NewHasher()
		var tw io.Writer // the temp file, once writeTemp has opened it
		pipe := newAsyncPipe(4, func(b []byte) error {
			_, err := tw.Write(b)
			return err
		}, func(b []byte) { h.Write(b) })
		type stored struct {
			st  snapshot.Stored
			err error
		}
		done := make(chan stored, 1)
		base, closeBase := e.streamBase(op)
		go func() {
			st, err := snapshot.PutStreamWith(db.UpdateRaw, pipe, snapshot.StreamOptions{Sum: h.ID, Base: base, Layout: true})
			if err != nil {
				pipe.CloseRead(err) // unblock the writer if the store failed
			}
			done <- stored{st, err}
		}()
		src := op.change.Source
		size, err := e.writeTemp(op.p, op.tmp, op.mode, dirs, func(w io.Writer) error {
			tw = w
			err := src(pipe)
			if err == nil {
				err = pipe.Flush()
			}
			pipe.CloseWrite(err)
			return err
		})
		pipe.CloseWrite(err) // no-op after the fill closed it; ends the store on a write failure
		st := <-done
		closeBase()
		if err != nil {
			return err
		}
		if st.err != nil {
			return classify(fmt.Errorf("replay: store %s: %w", op.p.Rel, st.err))
		}
		op.after, op.size, op.layout = st.st.ID, size, st.st.Chunks // both were fed the same bytes
	}
	return nil
}

// storeLarge streams the large file at p into the store, in transactions of
// its own, unless its content id is stored already; a file whose content is
// no longer id (it changed since it was hashed) fails with ErrConflict (what
// was stored stays, named by no event). The journal is held.
func (e *Engine) storeLarge(db *journal.DB, p Path, id snapshot.ID) error {
	var have bool
	db.View(func(tx *journal.Tx) error { have = snapshot.Has(tx.Bolt(), id); return nil })
	if have {
		return nil
	}
	f, err := p.Root.root.Open(p.Rel)
	if err != nil {
		return mapFSError(p, "open", err)
	}
	got, _, err := snapshot.PutStream(db.UpdateRaw, f, 0)
	f.Close()
	if err != nil {
		return classify(fmt.Errorf("replay: store %s: %w", p.Rel, err))
	}
	if got != id {
		return &PathError{Path: p.Rel, Err: ErrConflict, Msg: "changed while it was being read"}
	}
	return nil
}

// writeFiles performs step 2 of the protocol: every temp written and synced
// (unless writeAhead has written them already: temps false), then every
// rename and removal, then every directory synced.
func (e *Engine) writeFiles(ops []*fileOp, dirs *[]createdDir, temps bool) error {
	for _, op := range ops {
		if !temps || op.change.Delete || op.staged {
			continue
		}
		data := op.change.Data
		if _, err := e.writeTemp(op.p, op.tmp, op.mode, dirs, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
			return err
		}
	}
	synced := map[*Root]map[string]bool{}
	holdOlds(ops)
	for _, op := range ops {
		var err error
		var probe tempProbe
		if op.change.Delete {
			err = e.remove(op.p)
		} else {
			if op.staged {
				probe = probeTemp(op.p, op.tmp, op.mode)
			}
			err = e.rename(op.p, op.tmp)
		}
		if err != nil {
			return err
		}
		if probe.ok {
			op.own, op.owned = renamedIdent(op.p, probe)
		}
		if synced[op.p.Root] == nil {
			synced[op.p.Root] = map[string]bool{}
		}
		synced[op.p.Root][path.Dir(op.p.Rel)] = true
	}
	for _, d := range *dirs { // a new directory's own entry must be durable too
		if synced[d.root] == nil {
			synced[d.root] = map[string]bool{}
		}
		synced[d.root][path.Dir(d.rel)] = true
	}
	for r, ds := range synced {
		for d := range ds {
			if err := e.syncDir(r, d); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeAhead reports whether a batch's temps may be written while its intent
// commits: every file exists and gets a new content held in memory (no
// delete, no new file, nothing streamed), so the batch makes no directory and
// the intent has nothing to record about the temps but their names. The
// temps are invisible until renamed, and no rename happens before the intent
// is durable, so the protocol's guarantee is the same; the two fsyncs (the
// temps' and bbolt's) overlap instead of following one another.
func writeAhead(ops []*fileOp) bool {
	for _, op := range ops {
		if op.change.Delete || op.staged || op.change.Data == nil || !op.cur.exists {
			return false
		}
	}
	return true
}

// notedTemps is the lock-file note of a batch writing its temps ahead of its
// intent: the event's number and each temp's staging key (stageKey).
type notedTemps struct {
	Seq   uint64   `json:"seq"`
	Temps []string `json:"temps,omitempty"`
	// Done says instead that event Seq has all its files in place (seal.go).
	Done bool `json:"done,omitempty"`
	// Complete is the engine's unsealed event, if it has one, which has all
	// its files in place: the note that said so (Done) is replaced by this
	// one, and the batches logged after it may change its files before it
	// is sealed, so that recovery could not tell from the files (inPlace).
	Complete uint64 `json:"complete,omitempty"`
	// Boot is the machine's boot time (Unix seconds) when a logged batch
	// noted Done: a note from an earlier boot says nothing of the files
	// (a power failure may have lost what the batch wrote).
	Boot int64 `json:"boot,omitempty"`
}

// tempNote is the note of a batch writing its temps ahead of its intent.
// e.mu is held.
func (e *Engine) tempNote(seq uint64, ops []*fileOp) []byte {
	n := notedTemps{Seq: seq}
	if e.unsealed != nil {
		n.Complete = e.unsealed.Seq
	}
	for _, op := range ops {
		n.Temps = append(n.Temps, stageKey(op.p, op.tmp))
	}
	b, _ := json.Marshal(n)
	return b
}

// writeTemps writes the temps of a writeAhead batch, and syncs them if
// sync (a logged batch's are synced at its checkpoint). A parent directory
// that has to be made again (someone removed it meanwhile) fails the batch:
// the intent does not record it, so recovery could not remove it.
func (e *Engine) writeTemps(ops []*fileOp, sync bool) error {
	for _, op := range ops {
		if ok, err := e.writeSpare(op.p, op.tmp, op.mode, op.change.Data, sync); ok {
			if err != nil {
				return err
			}
			continue
		}
		var made []createdDir
		data := op.change.Data
		_, err := e.writeTempSync(op.p, op.tmp, op.mode, &made, func(w io.Writer) error { _, err := w.Write(data); return err }, sync)
		if err == nil && len(made) > 0 {
			op.p.Root.root.Remove(op.tmp)
			err = &PathError{Path: op.p.Rel, Err: ErrConflict, Msg: "its directory was removed while the batch was being written",
				Hint: "check the directory and redo the edit"}
		}
		removeDirs(made)
		if err != nil {
			return err
		}
	}
	return nil
}

// wantSpares asks for spares (spare.go) in the directories of ops' temps,
// made after the batch. e.mu is held.
func (e *Engine) wantSpares(ops []*fileOp) {
	if !e.spares.on {
		return
	}
	for _, op := range ops {
		e.spareWant = append(e.spareWant, op.p)
	}
}

// readNote returns the lock file's note (zero if there is none, or it is
// torn or not ours).
func readNote(db *journal.DB) notedTemps {
	var n notedTemps
	if b, err := db.Note(); err == nil && b != nil && json.Unmarshal(b, &n) != nil {
		n = notedTemps{}
	}
	return n
}

// removeNotedTemps removes the temps a batch wrote ahead of an intent that
// never committed: the note names an event past the journal's last one (a
// later batch of any process would have replaced the note first). Only names
// of temps are removed, so a note cannot remove anything else.
func (e *Engine) removeNotedTemps(n notedTemps, last uint64) {
	if n.Seq <= last {
		return
	}
	for _, k := range n.Temps {
		if _, tmp, _ := strings.Cut(k, "\x00"); isTemp(path.Base(tmp)) {
			e.removeStaged(k)
		}
	}
}

// maxHeld bounds the old files a batch holds open that are not large ones
// (held for their freeing's cost, whatever their number): the rest are freed
// by their renames, as before, so that a batch of thousands of files does
// not hold thousands of descriptors while its renames need some.
const maxHeld = 64

// holdOlds holds open (holdOld) the old inodes of ops' existing files:
// every large one, and those of the first maxHeld.
func holdOlds(ops []*fileOp) {
	for i, op := range ops {
		if op.cur.exists && op.old == nil && (i < maxHeld || op.cur.data == nil) {
			op.old = holdOld(op.p)
		}
	}
}

// releaseOld closes, in the background, the old inodes writeFiles held open:
// the last close of a replaced large file frees its blocks and page cache,
// which need not delay the batch.
func releaseOld(ops []*fileOp) {
	var old []*os.File
	for _, op := range ops {
		if op.old != nil {
			old = append(old, op.old)
			op.old = nil
		}
	}
	if len(old) == 0 {
		return
	}
	go func() {
		for _, f := range old {
			f.Close()
		}
	}()
}

func (e *Engine) removeTemps(ops []*fileOp) {
	for _, op := range ops {
		op.p.Root.root.Remove(op.tmp)
	}
}

// rollback puts every file of a failed batch back and seals its event
// rolled_back. If that fails too, the event stays pending and the next open
// recovers it.
func (e *Engine) rollback(db *journal.DB, ev *journal.Event, dirs []createdDir, cause error) error {
	saved := e.fault
	e.fault = nil // the fault under test has fired; the rollback itself runs clean
	defer func() { e.fault = saved }()
	if err := e.recoverEvent(db, ev, "rolled back: "+cause.Error()); err != nil {
		return fmt.Errorf("%w (rollback incomplete, the next open recovers it: %v)", cause, err)
	}
	removeDirs(dirs)
	return cause
}

// Read returns a file as it is now, without taking the journal's lock (a
// read-only view for read tools; edits re-read and re-hash under the lock).
// Files at or above the stream threshold have no Data (use OpenFile), and
// their version comes from the version cache when their identity is
// unchanged, so a read tool refusing a huge file does not hash it first.
func (e *Engine) Read(p string) (*File, error) {
	r := &Reader{e: e, cache: map[string]state{}, cached: true}
	return r.Read(p)
}

// OpenFile opens a resolved file for streaming reads.
func (e *Engine) OpenFile(p Path) (io.ReadCloser, error) {
	r := &Reader{e: e}
	return r.Open(p)
}

// newDirs lists, outermost first, the parent directories of a new file that
// this batch creates: those staging already made (dirs) and those still
// missing. The pending event records them so that a recovery can remove them.
func newDirs(p Path, dirs []createdDir) []string {
	var out []string
	for _, d := range dirs {
		if d.root == p.Root && strings.HasPrefix(p.Rel, d.rel+"/") {
			out = append(out, d.rel)
		}
	}
	missing := missingDirs(p)
	for i := len(missing) - 1; i >= 0; i-- {
		out = append(out, missing[i])
	}
	return out
}

// pruneDirs removes, innermost first, the directories deletes name in
// PruneDirs that are left empty (one that holds anything stays, and so do
// the ones outside it). It runs once the batch is done: a crash before it
// leaves empty directories, never a batch that cannot be rolled back.
func pruneDirs(ops []*fileOp) {
	for _, op := range ops {
		if !op.change.Delete {
			continue
		}
		for i := len(op.change.PruneDirs) - 1; i >= 0; i-- {
			op.p.Root.root.Remove(op.change.PruneDirs[i]) // fails, harmlessly, on one not empty
		}
	}
}
