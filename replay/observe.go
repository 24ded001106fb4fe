package replay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"runtime"
	"slices"
	"sort"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/snapshot"
)

// Observation asks Observe to record what some files are on disk now,
// against what the journal last wrote or saw of them.
type Observation struct {
	// Paths are tool paths (absolute inside a root, or relative to the
	// first root). Each is compared with its head: a file that differs (or
	// is new, or is gone) is recorded; one that does not is left out.
	Paths []string
	// Tool names the event: journal.ToolWatch, journal.ToolCatchUp, or the
	// agent's tool that made the changes (a hook's "Bash").
	Tool string
	// Args are the event's arguments (the command that made the changes).
	Args json.RawMessage
	// Actor is who made the changes (default: {Kind: "external"}).
	Actor *journal.Actor
	// Baseline records files the journal has no head for in an event of
	// their own, Tool journal.ToolBaseline: a scan's first sight of files
	// that existed before it, which no undo or rewind may delete. Without
	// it such files are recorded as created.
	Baseline bool
	// MaxFiles bounds the files of one event (default ObserveMaxFiles);
	// more make several events, recorded together.
	MaxFiles int
	// Watched says the caller is told of every later write to these files
	// (the watcher's inotify): a file changed within racyMargin is then
	// recorded as read, without the wait and second read that would
	// otherwise prove the read whole — a write in the same clock tick
	// after the read sends its own event, and the file is observed again.
	// Such a file's Stamp is not returned (a cache must not vouch for it).
	Watched bool
	// Captured are files read before (Capture), by their Paths entry: they
	// are recorded as they were then, even if they changed since (the
	// caller watches them: a later change is observed again), so that a
	// caller can answer once it has read them and store them after — but
	// one a batch wrote since (its head moved) is returned Unsettled, not
	// recorded older than its head.
	Captured *Capture
	// MaxSize, if positive, leaves out regular files larger than it, as
	// Skipped with the reason TooLarge (the stat that sizes a file's read
	// tells: no stat of its own).
	MaxSize  int64
	TooLarge string
	// Each, if set, is given the files recorded and their Stamps (as
	// Observed.Files and Stamps would hold them) as their events are
	// appended, in event order, an event or a few at a time, and Observed
	// keeps only their count: a first scan of 100,000 files need not hold
	// them all until it returns. The slices are reused after: Each copies
	// what it keeps.
	Each func(files []journal.FileChange, stamps []Stamp)
}

// Capture is what Engine.Capture read of some files: their contents and
// identities at one moment, for an Observe after.
type Capture struct {
	reads map[string]captured
}

type captured struct {
	st      state
	stamp   Stamp
	stamped bool
	err     error
	// head is the file's head before it was read (known: it had one):
	// a batch that wrote it since makes what was read stale.
	head  journal.Head
	known bool
}

// Capture reads the files at paths (as Observe would, between two stats,
// without the racy wait, without the journal's lock) for an Observe that
// records them as read now (Observation.Captured). A path that does not
// resolve is left to that Observe to report.
func (e *Engine) Capture(paths []string) *Capture {
	c := &Capture{reads: map[string]captured{}}
	var ps []Path
	var names []string
	for _, s := range paths {
		if p, err := e.Resolve(s); err == nil {
			ps, names = append(ps, p), append(names, s)
		}
	}
	keys := make([]string, len(ps))
	for i, p := range ps {
		keys[i] = p.Key
	}
	heads, _ := e.headsOf(keys) // an error: none known, each file then looked at again (classifyObserved)
	reads := make([]captured, len(ps))
	for i, k := range keys {
		reads[i].head, reads[i].known = heads[k]
	}
	snapshot.Parallel(len(ps), func(i int) {
		r := &reads[i]
		r.st, r.stamp, r.stamped, r.err = e.readSettled(ps[i], nil, nil)
	})
	for i, n := range names {
		c.reads[n] = reads[i]
	}
	return c
}

// ObserveMaxFiles is the default bound on the files of one observe event:
// a checkout of thousands of files is one event, a first scan of a large
// repository a few, each small enough for a reader to load whole.
const ObserveMaxFiles = 10000

// Observed is what Observe recorded.
type Observed struct {
	Events []uint64 // the events appended, in order (none if nothing changed)
	// Files are every file recorded, in event order (none when
	// Observation.Each was given them); Count is how many.
	Files []journal.FileChange
	Count int
	// Skipped are files that cannot be journaled (a symbolic link, a
	// directory, a hard-linked or unreadable file), with why.
	Skipped []Skip
	// Unsettled are files that changed while they were read: what was read
	// may be half of a write, so nothing of them is recorded. The caller
	// looks at them again (the watcher does once they settle).
	Unsettled []string
	// Stamps are, for each of Files, the identity of the file still
	// present, as read and as checked again when its event was appended
	// (the zero Stamp where there is none: gone, changed within the racy
	// margin, or a platform without identities): a file with one of them
	// still holds the content recorded (the watcher's cache).
	Stamps []Stamp
}

// Skip is a file Observe left out and why.
type Skip struct {
	Path string `json:"path"`
	Why  string `json:"why"`
}

// observeChunk bounds the contents one transaction of Observe stores, so
// that a burst of thousands of files never sits in memory at once; and
// storeFiles the files: contents' keys are hashes, so a few thousand
// small files already touch most of the store's pages, which each
// transaction rewrites whole; more files a transaction cost little more
// (fewer transactions: fewer pages rewritten, fewer syncs).
const (
	observeChunk = 16 << 20
	storeFiles   = 16384
)

// observed is one file Observe found changed, between its phases. It holds
// no pointers (its path is an index into Observe's paths): a first scan
// keeps one for each of 100,000 files until their events are appended, and
// the collector need not scan them.
type observed struct {
	i     int32 // of Observe's paths
	flags obFlags
	stamp Stamp // its identity when read; checked again before the event
	after snapshot.ID
	mode  uint32
	// added and removed count the lines against the head's content,
	// once stored
	added, removed int
	// capSeq: for a captured file (Observation.Captured: read before,
	// recorded as read even if the file changed since; a Stamp only if it
	// is still that file), the seq of its head before that read
	capSeq uint64
}

type obFlags uint8

const (
	obStamped  obFlags = 1 << iota // stamp is an identity
	obRacy                         // changed within racyMargin of its read, recorded so (Watched): no Stamp returned
	obCaptured                     // read before, by Capture
	obCapKnown                     // captured with a head
	obDropped                      // left out after its read (unsettled, or changed meanwhile)
	obNew                          // had no head when stored
)

// Observe records, as committed observe events, the files among o.Paths whose
// disk content or mode differs from the journal's head. Nothing on disk is
// written: the event says what another process did, so its commit is one
// transaction of the journal (as the observe events of a batch's intent are),
// with no files to write and no intent to recover.
//
// Contents are read and stored first, in chunks of at most observeChunk
// bytes, each under the journal's lock for one short transaction; then, with
// the lock held, every changed file's identity (Stamp) is checked to be what
// it was when read, and the events are appended. So a file read half-way
// through another process's write, or replaced since, is never recorded as
// it was read: it is returned in Unsettled. A file one of our own batches
// wrote meanwhile equals its head again and is left out, so our writes never
// become an observe event, and a change racing one of them is recorded by
// the next Observe of that file (the watcher sees its event).
func (e *Engine) Observe(ctx context.Context, o Observation) (*Observed, error) {
	out := &Observed{}
	paths := make([]Path, 0, len(o.Paths))
	var given map[string]string // key → its Paths entry (Captured's name)
	if o.Captured != nil {
		given = map[string]string{}
	}
	links := map[string]string{}
	for _, s := range o.Paths {
		p, err := e.resolve(s, links)
		if err != nil {
			out.Skipped = append(out.Skipped, Skip{Path: s, Why: errText(err)})
			continue
		}
		if _, dup := given[p.Key]; given != nil && !dup {
			given[p.Key] = s
		}
		paths = append(paths, p)
	}
	// sorted by key, each once (no map of 100,000 keys for a first scan)
	sort.SliceStable(paths, func(i, j int) bool { return paths[i].Key < paths[j].Key })
	paths = slices.CompactFunc(paths, func(a, b Path) bool { return a.Key == b.Key })
	// The chunks read go to one storer, which stores them while the next
	// are read (two cores: the reads and the journal's transactions
	// overlap), in order, a transaction for up to observeChunk bytes or
	// storeFiles files of them (a transaction of bbolt rewrites every page
	// it touches, and contents' keys are hashes: a first scan's 100,000
	// small files touch most of the store's pages in each), and records the
	// files of a baseline as it stores them, an event's worth at a time.
	rec := &recording{o: o, paths: paths}
	type toStore struct {
		chunk []observed
		datas [][]byte
	}
	queue, storeErr := make(chan toStore, 1), make(chan error, 1)
	go func() {
		var err error
		var buf []observed
		var bufData [][]byte
		var size int64
		flush := func() {
			if err == nil && len(buf) > 0 {
				var kept []observed
				if kept, err = e.storeObserved(paths, buf, bufData); err == nil {
					err = e.recordStored(rec, kept)
				}
			}
			buf, bufData, size = nil, nil, 0
		}
		for c := range queue {
			if err != nil {
				continue // failed: the rest is not stored
			}
			buf, bufData = append(buf, c.chunk...), append(bufData, c.datas...)
			for _, d := range c.datas {
				size += int64(len(d))
			}
			if size >= observeChunk || len(buf) >= storeFiles {
				flush()
			}
		}
		flush()
		storeErr <- err
	}()
	stored := func() error {
		close(queue)
		return <-storeErr
	}
	for start := 0; start < len(paths); {
		if err := ctx.Err(); err != nil {
			stored()
			return nil, err
		}
		// read a chunk's worth, compare with the heads, store what changed
		var chunk []observed
		var datas [][]byte
		var racy []int // of chunk: changed too recently for equal stats to prove a whole read
		var until time.Time
		// the chunk: files up to observeChunk bytes by their stats (large
		// files stream, so they count for little), read several at once
		// (each stat is the one its read starts from: readSettled). The
		// stats of the next 1,024 files are taken at once too; those past
		// the chunk's bytes are taken again for the next.
		ds := newDirHandles()
		stats := make([]fs.FileInfo, min(len(paths)-start, 1024))
		snapshot.Parallel(len(stats), func(i int) {
			if fi, err := ds.lstat(paths[start+i]); err == nil {
				stats[i] = fi
			}
		})
		end := start
		for est := int64(0); end-start < len(stats) && est < observeChunk; end++ {
			if fi := stats[end-start]; fi != nil && fi.Size() < e.streamMin {
				est += fi.Size()
			}
		}
		stats = stats[:end-start]
		type read struct {
			st      state
			stamp   Stamp
			stamped bool
			big     bool // over o.MaxSize: not read
			err     error
		}
		reads := make([]read, end-start)
		snapshot.Parallel(len(reads), func(i int) {
			r := &reads[i]
			if fi := stats[i]; o.MaxSize > 0 && fi != nil && fi.Mode().IsRegular() && fi.Size() > o.MaxSize {
				r.big = true
				return
			}
			if o.Captured != nil {
				if c, ok := o.Captured.reads[given[paths[start+i].Key]]; ok {
					r.st, r.stamp, r.stamped, r.err = c.st, c.stamp, c.stamped, c.err
					return
				}
			}
			r.st, r.stamp, r.stamped, r.err = e.readSettled(paths[start+i], stats[i], ds)
		})
		moved := ds.moved() // read through a directory moved meanwhile: perhaps from outside the root
		ds.close()
		for i, r := range reads {
			p, st, stamp, stamped, err := paths[start+i], r.st, r.stamp, r.stamped, r.err
			switch {
			case r.big:
				out.Skipped = append(out.Skipped, Skip{Path: p.Key, Why: o.TooLarge})
				continue
			case errors.Is(err, errUnsettled), moved(p):
				out.Unsettled = append(out.Unsettled, p.Key)
				continue
			case err != nil:
				out.Skipped = append(out.Skipped, Skip{Path: p.Key, Why: errText(err)})
				continue
			}
			ob := observed{i: int32(start + i), stamp: stamp, after: st.id}
			if stamped && st.exists {
				ob.flags |= obStamped
			}
			if o.Captured != nil {
				if c, ok := o.Captured.reads[given[p.Key]]; ok {
					ob.flags |= obCaptured
					ob.capSeq = c.head.Seq
					if c.known {
						ob.flags |= obCapKnown
					}
				}
			}
			if st.exists {
				ob.mode = uint32(st.mode)
				if t := time.Unix(0, max(stamp.Mtime, stamp.Ctime)).Add(racyMargin); stamped && time.Until(t) > 0 {
					racy = append(racy, len(chunk))
					until = maxTime(until, t)
				}
			}
			chunk = append(chunk, ob)
			datas = append(datas, st.data)
		}
		start = end
		// File times advance by the kernel's clock tick: a write in the same
		// tick as the one before leaves the stats equal. A file changed
		// within racyMargin is read again once the margin has passed, and
		// kept only if it is the same content with the same identity — a
		// writer still at work would have moved its times by then (git's
		// racy-index rule). One wait for the whole chunk.
		if len(racy) > 0 && o.Watched {
			for _, i := range racy {
				chunk[i].flags |= obRacy
			}
		} else if len(racy) > 0 {
			time.Sleep(time.Until(until))
			for _, i := range racy {
				ob := &chunk[i]
				again, stamp, ok, err := e.readBetweenStats(paths[ob.i], nil, nil)
				if err != nil || !ok || stamp != ob.stamp || again.id != ob.after {
					out.Unsettled = append(out.Unsettled, paths[ob.i].Key)
					ob.flags |= obDropped
				}
			}
		}
		queue <- toStore{chunk, datas}
	}
	if err := stored(); err != nil {
		return nil, err
	}
	if err := e.recordAll(rec, append(rec.fresh, rec.changed...)); err != nil {
		return nil, err
	}
	out.Events, out.Files, out.Stamps, out.Count = rec.out.Events, rec.out.Files, rec.out.Stamps, rec.out.Count
	out.Unsettled = append(out.Unsettled, rec.out.Unsettled...)
	return out, nil
}

// recording is what Observe has stored and not yet recorded, and what it
// recorded.
type recording struct {
	o     Observation
	paths []Path
	// fresh: files stored that had no head (a baseline's files, recorded
	// an event's worth at a time); changed: the others, recorded together
	// at the end (a move is a delete and a create of one recording)
	fresh, changed []observed
	out            Observed
}

// recordStored adds a chunk's stored files to rec and, for a baseline,
// records the files first seen in events of a full o.MaxFiles each: the
// journal need not hold 100,000 of them until the last is read.
func (e *Engine) recordStored(rec *recording, kept []observed) error {
	for _, ob := range kept {
		if ob.flags&obNew != 0 && rec.o.Baseline {
			rec.fresh = append(rec.fresh, ob)
		} else {
			rec.changed = append(rec.changed, ob)
		}
	}
	max := rec.o.MaxFiles
	if max <= 0 {
		max = ObserveMaxFiles
	}
	for len(rec.fresh) >= max {
		if rec.out.Files == nil && rec.o.Each == nil { // a baseline's first event: room for every file read
			rec.out.Files, rec.out.Stamps = make([]journal.FileChange, 0, len(rec.paths)), make([]Stamp, 0, len(rec.paths))
		}
		if err := e.recordAll(rec, rec.fresh[:max]); err != nil {
			return err
		}
		rec.fresh = append(rec.fresh[:0], rec.fresh[max:]...)
	}
	return nil
}

// recordAll appends the events of changed under the journal's lock, and
// gives their files to o.Each, if set, once it is let go.
func (e *Engine) recordAll(rec *recording, changed []observed) error {
	if len(changed) == 0 {
		return nil
	}
	from := len(rec.out.Files)
	err := e.do(func(db *journal.DB) error {
		if err := e.recoverLocked(db); err != nil {
			return err
		}
		if err := e.flushSealLocked(db); err != nil { // every batch's heads in the bbolt file
			return err
		}
		return e.appendObserved(db, rec.o, rec.paths, changed, &rec.out)
	})
	if err != nil {
		return classify(fmt.Errorf("replay: record outside changes: %w", err))
	}
	rec.out.Count += len(rec.out.Files) - from
	if each := rec.o.Each; each != nil && len(rec.out.Files) > from {
		each(rec.out.Files[from:], rec.out.Stamps[from:])
		rec.out.Files, rec.out.Stamps = rec.out.Files[:from], rec.out.Stamps[:from]
	}
	return nil
}

// errUnsettled: a file changed while it was being read.
var errUnsettled = errors.New("replay: file changed while it was read")

// readSettled reads the file at p (its state, as a batch would) between two
// stats of it, trying again while they differ: what was read may then be
// half old and half new (errUnsettled after a few tries). A missing file is
// a state too (exists false). before, if not nil, is a stat of p taken
// before this call, the first try's first stat.
func (e *Engine) readSettled(p Path, before fs.FileInfo, ds *dirHandles) (state, Stamp, bool, error) {
	for try := 0; ; try++ {
		st, stamp, ok, err := e.readBetweenStats(p, before, ds)
		if !errors.Is(err, errUnsettled) || try == 3 {
			return st, stamp, ok, err
		}
		before = nil
		time.Sleep(time.Duration(try+1) * 10 * time.Millisecond)
	}
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// readBetweenStats reads p's state between two stats; ok is false where the
// platform gives no identity (the state is then returned if size and time
// agree). errUnsettled: the stats differ. The first stat is before if not
// nil (a stat of p taken earlier: the stats then span a longer time, which
// proves no less), and the read takes its size and mode from it, so each
// file costs two stats, not three.
func (e *Engine) readBetweenStats(p Path, before fs.FileInfo, ds *dirHandles) (state, Stamp, bool, error) {
	given := before != nil
	if !given {
		var err error
		before, err = ds.lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return state{}, Stamp{}, true, nil
		}
		if err != nil {
			return state{}, Stamp{}, false, mapFSError(p, "stat", err)
		}
	}
	st, err := e.readStated(p, true, before, ds)
	if err != nil && given { // gone or changed since the stat given: again from a stat of now
		return state{}, Stamp{}, false, errUnsettled
	}
	if err != nil {
		return state{}, Stamp{}, false, err
	}
	after, err := ds.lstat(p)
	if err != nil || !st.exists {
		return state{}, Stamp{}, false, errUnsettled
	}
	a, ok1 := StampOf(before)
	b, ok2 := StampOf(after)
	switch {
	case ok1 && ok2 && a == b:
		return st, a, true, nil
	case (!ok1 || !ok2) && before.Size() == after.Size() && before.ModTime().Equal(after.ModTime()):
		return st, Stamp{}, false, nil
	}
	return state{}, Stamp{}, false, errUnsettled
}

// headsOf returns the heads of keys as a batch would compare them: the
// bbolt file's, then this engine's unsealed and logged batches'. Taken
// without the journal's lock, so it may be behind (another process's logged
// batches): a file that looks changed is compared again under the lock.
func (e *Engine) headsOf(keys []string) (map[string]journal.Head, error) {
	want := make(map[string]bool, len(keys))
	for _, k := range keys {
		want[k] = true
	}
	heads := map[string]journal.Head{}
	err := e.j.View(func(tx *journal.Tx) error {
		for _, k := range keys {
			if h, ok := tx.Head(k); ok {
				heads[k] = h
			}
		}
		return nil
	})
	for k, h := range e.ownHeads() {
		if want[k] {
			heads[k] = h
		}
	}
	return heads, err
}

// ownHeads returns the heads this engine's unsealed and logged batches set,
// newest last. It takes e.mu but never the journal: a reader of the journal
// must not hold e.mu (a lease kept for a queued batch would wait for it).
func (e *Engine) ownHeads() map[string]journal.Head {
	e.mu.Lock()
	defer e.mu.Unlock()
	heads := map[string]journal.Head{}
	if u := e.unsealed; u != nil {
		for _, f := range u.Files {
			heads[f.Path] = journal.Head{ID: f.After, Mode: f.AfterMode, Seq: u.Seq}
		}
	}
	e.loggedHeads(heads)
	return heads
}

// storeObserved keeps the files of chunk that differ from their heads and
// stores their contents (a small one as a delta against its head's), in one
// transaction under the journal's lock; large files stream into the store.
// A large file whose stored content is not the one hashed changed meanwhile:
// it is dropped (the next look records it).
func (e *Engine) storeObserved(paths []Path, chunk []observed, datas [][]byte) ([]observed, error) {
	keys := make([]string, 0, len(chunk))
	for _, ob := range chunk {
		if ob.flags&obDropped == 0 {
			keys = append(keys, paths[ob.i].Key)
		}
	}
	if len(keys) == 0 {
		return nil, nil
	}
	heads, err := e.headsOf(keys)
	if err != nil {
		return nil, err
	}
	var kept []observed
	var keptData [][]byte
	for i, ob := range chunk {
		if ob.flags&obDropped != 0 {
			continue
		}
		h, ok := heads[paths[ob.i].Key]
		if !ok && ob.after.IsZero() {
			continue // never known, not there
		}
		if ok && matches(h, ob.after, ob.mode) {
			continue // as the journal has it
		}
		if !ok {
			ob.flags |= obNew
		}
		kept = append(kept, ob)
		keptData = append(keptData, datas[i])
	}
	if len(kept) == 0 {
		return nil, nil
	}
	err = e.do(func(db *journal.DB) error {
		for i := range kept {
			ob := &kept[i]
			if keptData[i] != nil || ob.after.IsZero() {
				continue
			}
			err := e.storeLarge(db, paths[ob.i], ob.after)
			if errors.Is(err, ErrConflict) {
				ob.flags |= obDropped // changed meanwhile: the next look records it
				continue
			}
			if err != nil {
				return err
			}
		}
		return db.Update(func(tx *journal.Tx) error {
			var contents []snapshot.Content
			for i := range kept {
				ob := &kept[i]
				if ob.flags&obDropped != 0 || keptData[i] == nil {
					continue
				}
				c := snapshot.Content{ID: ob.after, Data: keptData[i]}
				var base []byte
				if h, ok := heads[paths[ob.i].Key]; ok && !h.ID.IsZero() {
					if n, err := snapshot.Size(tx.Bolt(), h.ID); err == nil && n <= 4<<20 {
						base, _ = snapshot.Bytes(tx.Bolt(), h.ID)
					}
				}
				c.Base = base
				ob.added, ob.removed = lineStats(base, keptData[i])
				contents = append(contents, c)
			}
			_, err := snapshot.PutDeltas(tx.Bolt(), contents)
			return err
		})
	})
	if err != nil {
		return nil, classify(fmt.Errorf("replay: store outside changes: %w", err))
	}
	out := kept[:0]
	for _, ob := range kept {
		if ob.flags&obDropped == 0 {
			out = append(out, ob)
		}
	}
	return out, nil
}

// appendObserved appends the observe events for changed, each file checked
// once more under the lock: still the identity it had when read, and still
// different from its head. Each event commits in a transaction of its own
// (a first scan's thousands of files never make one huge transaction); the
// journal's lock is held throughout, so the checks hold for all of them.
// The journal and e.mu are held.
func (e *Engine) appendObserved(db *journal.DB, o Observation, paths []Path, changed []observed, out *Observed) error {
	from := len(out.Files)
	var plain []journal.FileChange
	var plainSt []Stamp
	if err := db.View(func(tx *journal.Tx) error {
		plain, plainSt = e.classifyObserved(tx, o, paths, changed, out)
		return nil
	}); err != nil {
		return err
	}
	actor := journal.Actor{Kind: "external"}
	if o.Actor != nil {
		actor = *o.Actor
	}
	max := o.MaxFiles
	if max <= 0 {
		max = ObserveMaxFiles
	}
	now := time.Now().UTC()
	emit := func(files []journal.FileChange, tool string, args json.RawMessage) error {
		for len(files) > 0 {
			n := min(len(files), max)
			ev := &journal.Event{Time: now, Kind: journal.KindObserve, Status: journal.StatusCommitted,
				Actor: actor, Tool: tool, Args: args, Files: files[:n]}
			if err := db.Update(func(tx *journal.Tx) error { return tx.Append(ev) }); err != nil {
				return err
			}
			out.Events = append(out.Events, ev.Seq)
			files = files[n:]
		}
		return nil
	}
	if err := emit(out.Files[from:], journal.ToolBaseline, nil); err != nil {
		return err
	}
	if err := emit(plain, o.Tool, o.Args); err != nil {
		return err
	}
	out.Files, out.Stamps = append(out.Files, plain...), append(out.Stamps, plainSt...)
	return nil
}

// classifyObserved checks each changed file once more under the lock: with
// o.Baseline, those first seen are added to out.Files (their identities to
// out.Stamps), the other changes returned, with theirs. The journal is held.
func (e *Engine) classifyObserved(tx *journal.Tx, o Observation, paths []Path, changed []observed, out *Observed) (plain []journal.FileChange, plainSt []Stamp) {
	deleted := map[snapshot.ID]string{} // content → path, of files gone
	// each file as it is now (the stats first, a run of the sorted files on
	// each core, each with handles of its own: one recycles them)
	type now struct {
		exists, stamped bool
		stamp           Stamp
	}
	nows := make([]now, len(changed))
	parts := min(runtime.GOMAXPROCS(0), (len(changed)+1023)/1024)
	snapshot.Parallel(parts, func(part int) {
		ds := newDirHandles()
		ds.recycle = true
		defer ds.close()
		for i := part * len(changed) / parts; i < (part+1)*len(changed)/parts; i++ {
			if fi, err := ds.lstat(paths[changed[i].i]); err == nil {
				n := &nows[i]
				n.exists = true
				n.stamp, n.stamped = StampOf(fi)
			}
		}
	})
	for i, ob := range changed {
		p := paths[ob.i]
		captured := ob.flags&obCaptured != 0
		exists := nows[i].exists
		same := exists == !ob.after.IsZero()
		if same && exists {
			same = !nows[i].stamped || (ob.flags&obStamped != 0 && nows[i].stamp == ob.stamp)
		}
		if !same && !captured {
			out.Unsettled = append(out.Unsettled, p.Key)
			continue
		}
		if captured {
			exists = !ob.after.IsZero() // as it was read
		}
		h, known := tx.Head(p.Key)
		if known && h.ID == ob.after && (!exists || h.Mode == ob.mode) {
			continue
		}
		if captured && (known != (ob.flags&obCapKnown != 0) || h.Seq != ob.capSeq) {
			// a batch wrote it after it was read: what was read is older
			// than the journal's head (recorded, it would take the head
			// back); looked at again, as the disk has it then
			out.Unsettled = append(out.Unsettled, p.Key)
			continue
		}
		var stamp Stamp // none
		if exists && same && ob.flags&(obStamped|obRacy) == obStamped {
			stamp = ob.stamp
		}
		fc := journal.FileChange{Path: p.Key, After: ob.after, Added: ob.added, Removed: ob.removed}
		if !ob.after.IsZero() {
			fc.AfterMode = ob.mode
		}
		fc.Before, fc.BeforeMode = h.ID, h.Mode
		if fc.Before.IsZero() {
			fc.BeforeMode = 0
		}
		if fc.After.IsZero() {
			fc.Added, fc.Removed = observedLines(tx, fc.Before, state{}) // every line it had, as a tool's delete counts
			deleted[fc.Before] = fc.Path
		}
		if o.Baseline && fc.Before.IsZero() && !known {
			out.Files, out.Stamps = append(out.Files, fc), append(out.Stamps, stamp)
		} else {
			plain, plainSt = append(plain, fc), append(plainSt, stamp)
		}
	}
	// a file gone and another new with its very content: a move
	for i := range plain {
		if fc := &plain[i]; fc.Before.IsZero() && !fc.After.IsZero() {
			if from, ok := deleted[fc.After]; ok {
				fc.MovedFrom = from         // the old path's delete stays in the event: a revert puts it back (Event.Listed shows one move)
				fc.Added, fc.Removed = 0, 0 // the very content: no line changed
				delete(deleted, fc.After)
				for j := range plain { // nor did the old path lose any: they moved
					if plain[j].Path == from && plain[j].After.IsZero() {
						plain[j].Added, plain[j].Removed = 0, 0
					}
				}
			}
		}
	}
	return plain, plainSt
}

// errText is an error's message for a Skip: a PathError's own words.
func errText(err error) string {
	var pe *PathError
	if errors.As(err, &pe) {
		if pe.Hint != "" {
			return pe.Msg + " (" + pe.Hint + ")"
		}
		return pe.Msg
	}
	return err.Error()
}

// Stamp is a file's identity: device, inode, size, modification and change
// times. Any write, replacement or change of metadata changes it; where the
// platform gives no identity (StampOf's ok false), callers hash instead.
type Stamp struct {
	Dev, Ino     uint64
	Size         int64
	Mtime, Ctime int64 // nanoseconds
}

// StampOf returns the identity of the file fi describes (from Lstat or Stat).
func StampOf(fi fs.FileInfo) (Stamp, bool) {
	id, ok := identOf(fi)
	return Stamp{Dev: id.dev, Ino: id.ino, Size: id.size, Mtime: id.mtime, Ctime: id.ctime}, ok
}

// Known returns every file the journal has a head for (present or deleted),
// by journal key, with this engine's unsealed and logged batches applied.
func (e *Engine) Known() (map[string]journal.Head, error) {
	heads := map[string]journal.Head{}
	err := e.j.View(func(tx *journal.Tx) error {
		return tx.Heads(func(path string, h journal.Head) error {
			heads[path] = h
			return nil
		})
	})
	for k, h := range e.ownHeads() {
		heads[k] = h
	}
	return heads, err
}
