package journal

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/journalfs/journal/snapshot"
)

// # Retention (gc)
//
// GC drops the events older than a window and the stored contents no
// retained event or head references. A gc that drops events does so by
// copying what it keeps into a fresh file (gccopy.go); one that drops none
// (or a dry run) deletes in place what nothing references. The rule:
//
//  1. Only a prefix of the chain is dropped, so what is left is still one
//     chain: the boundary B is the first event that is newer than the cutoff
//     (now − Keep), or not sealed, or of a write-ahead-log run whose files may
//     not be synced yet (Tx.LogUnsynced: the engine that logged them still
//     checks them against the bbolt file, and a recovery rolls them forward); events base+1 … B−1 are dropped, B … last
//     are kept. The hash and number of event B−1 are stored in the meta
//     bucket ("gc_base_seq", "gc_base_hash"), and Verify (and an export)
//     starts the chain from there instead of from event 1.
//  2. The last state of every file is never dropped. Every head's content is
//     kept. A head set by a dropped event is carried into the gc event itself:
//     the gc event lists that file with before = after = its head content and
//     mode, so `restore PATH --at N` (N ≥ the gc event), `log PATH` and the
//     by-path index still reach it, and its head now points at the gc event.
//     Files whose head is "absent" (deleted) need no content and keep their
//     head as it is.
//  3. Every content named (before or after) by a retained event is kept, so
//     every retained event can still be shown, diffed and reverted; reverting
//     one whose own revert target was dropped still works (it only needs its
//     own contents). Contents named by pending events are kept.
//  4. Contents nothing references are deleted, then every list and chunk no
//     kept content references (snapshot.Refs) — which also reclaims chunks
//     left by a streamed store that never finished.
//  5. Index entries (by_path, by_session) and revert links of dropped events
//     are deleted; sessions whose every event was dropped are deleted.
//  6. If anything was dropped, the run is recorded as an event of kind gc
//     (tool "gc", args {keep, cutoff, dropped, first_kept}), which cannot be
//     reverted. Nothing is ever dropped unless Keep is given.

var (
	metaBaseSeq  = []byte("gc_base_seq")
	metaBaseHash = []byte("gc_base_hash")
	errDryRun    = errors.New("journal: gc dry run")
	// metaTreeBase is set once the Merkle tree's hashes are stored
	// (journal/audit's tree): such a journal's gc needs GCOptions.KeepTree.
	metaTreeBase = []byte("tree_base")
)

// Base returns the event before the first stored one: 0 and the zero hash
// unless gc dropped a prefix of the chain.
func (t *Tx) Base() (seq uint64, hash snapshot.ID) {
	m := t.tx.Bucket(bucketMeta)
	if v := m.Get(metaBaseSeq); len(v) == 8 {
		seq = binary.BigEndian.Uint64(v)
	}
	copy(hash[:], m.Get(metaBaseHash))
	return seq, hash
}

// GCOptions configure GC.
type GCOptions struct {
	Keep     time.Duration // events older than this are dropped; must be > 0
	Now      time.Time     // default time.Now()
	DryRun   bool          // compute the report, change nothing
	Actor    Actor         // recorded on the gc event
	Progress func(step string, done, total int)
	// KeepTree keeps what the Merkle tree over the events (journal/audit)
	// needs of the events gc drops, up to newBase, in the transaction
	// before gc's copy: audit.KeepTreeForGC, which replay.Engine.GC sets.
	// A gc that drops events of a journal whose tree is stored (it has a
	// checkpoint) refuses without it (ErrState) rather than leave the
	// checkpoints' roots beyond recomputing.
	KeepTree func(tx *Tx, newBase uint64) error
}

// GCReport says what GC dropped (or would drop, in a dry run).
type GCReport struct {
	Cutoff    time.Time
	Dropped   int    // events dropped
	FirstKept uint64 // the first retained event
	Carried   int    // heads carried into the gc event
	Contents  int    // contents deleted
	Lists     int    // chunk lists deleted
	Chunks    int    // chunks deleted
	Bytes     int64  // stored bytes freed (record sizes)
	Event     uint64 // the gc event (0 if nothing was dropped)
	// FileBefore and FileAfter are the journal file's size before and after
	// a gc that dropped something (copied into a fresh file, gccopy.go) or
	// found a quarter of the file free (compacted, Compact).
	FileBefore, FileAfter int64
}

// GC applies the retention rule above: a gc that drops events copies what
// it keeps into a fresh file swapped in at the end (gccopy.go); one that
// drops none, and a dry run, work in place in one transaction. It refuses
// (ErrBusy) while the write-ahead log holds events the bbolt file has not
// yet (its gc event would take their numbers): replay.Engine.GC completes
// them first.
func (j *Journal) GC(o GCOptions) (*GCReport, error) {
	var rep *GCReport
	err := j.Do(func(db *DB) (err error) {
		rep, err = db.GC(o)
		return err
	})
	return rep, err
}

// GC is Journal.GC for the holder of the exclusive lock. A gc that drops
// events, or compacts, replaces the file, so it must be the last thing its
// Do does with d.
func (d *DB) GC(o GCOptions) (*GCReport, error) {
	if o.Keep <= 0 {
		return nil, fmt.Errorf("journal: gc: keep must be a positive duration")
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	var plan *gcPlan
	err := d.View(func(tx *Tx) (err error) {
		if d.j.LogAhead(tx.Last()) {
			return fmt.Errorf("journal: gc: the write-ahead log holds events not yet in %s; run any journal command (journal status does), which completes them, and retry: %w", d.j.path, ErrBusy)
		}
		plan, err = tx.planGC(o)
		return err
	})
	if err != nil {
		return nil, err
	}
	if !o.DryRun && plan.rep.Dropped > 0 {
		// the Merkle tree keeps what it needs of the dropped events first
		err := d.Update(func(tx *Tx) error {
			if o.KeepTree != nil {
				return o.KeepTree(tx, plan.base.seq)
			}
			if tx.tx.Bucket(bucketMeta).Get(metaTreeBase) != nil {
				return fmt.Errorf("journal: gc: the journal stores a Merkle tree (it has checkpoints) and no GCOptions.KeepTree was given to keep it: %w", ErrState)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		return d.gcCopy(o, plan) // copies what it keeps (gccopy.go)
	}
	// a dry run, or nothing to drop: in place, under the same lock
	var rep *GCReport
	err = d.Update(func(tx *Tx) (err error) {
		rep, err = tx.gc(o)
		if err == nil && o.DryRun {
			return errDryRun
		}
		return err
	})
	if errors.Is(err, errDryRun) {
		err = nil
	}
	if err == nil && !o.DryRun && d.mostlyFree() {
		// the file gives back what an earlier gc (by a binary that did not
		// compact) left free: the last step of this Do
		rep.FileBefore, rep.FileAfter, err = d.Compact()
	}
	return rep, err
}

// mostlyFree reports whether a quarter or more of the file is free pages.
func (d *DB) mostlyFree() bool {
	st := d.db.Stats()
	fi, err := os.Stat(d.j.path)
	if err != nil || fi.Size() == 0 {
		return false
	}
	return int64(st.FreePageN+st.PendingPageN)*int64(d.db.Info().PageSize)*4 >= fi.Size()
}

// gcPlan is what a gc will do, decided in a read transaction.
type gcPlan struct {
	rep     *GCReport
	base    droppedEvent // the last dropped event: the new chain base
	carried []FileChange // heads set by dropped events, carried by the gc event
}

// planGC finds the events GC would drop (see the rule in gc.go).
func (t *Tx) planGC(o GCOptions) (*gcPlan, error) {
	p := &gcPlan{rep: &GCReport{Cutoff: o.Now.Add(-o.Keep).UTC()}}
	base, _ := t.Base()
	last := t.Last()
	b := last + 1
	var dropped int
	unsynced := t.LogUnsynced()
	err := t.Each(base+1, false, func(e *Event) error {
		if e.Status == StatusPending || !e.Time.Before(p.rep.Cutoff) || (unsynced != 0 && e.Seq >= unsynced) {
			b = e.Seq
			return ErrStop
		}
		dropped++
		p.base = droppedEvent{seq: e.Seq, hash: e.Hash}
		if o.Progress != nil {
			o.Progress("scan", dropped, int(last-base))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if dropped > 0 && b == last+1 {
		// Never drop the newest event: the chain continues from it. With the
		// events bucket emptied, Append would number the gc event 1 with no
		// prev (verify fails), and bbolt's Cursor.Last spins on a bucket
		// emptied in the same transaction.
		dropped, b = dropped-1, last
		if dropped > 0 {
			e, err := t.Event(last - 1)
			if err != nil {
				return nil, err
			}
			p.base = droppedEvent{seq: e.Seq, hash: e.Hash}
		}
	}
	p.rep.FirstKept, p.rep.Dropped = b, dropped
	err = t.Heads(func(path string, h Head) error {
		if h.Seq < b && !h.ID.IsZero() {
			p.carried = append(p.carried, FileChange{Path: path, Before: h.ID, After: h.ID, BeforeMode: h.Mode, AfterMode: h.Mode})
		}
		return nil
	})
	p.rep.Carried = len(p.carried)
	return p, err
}

// gc applies the rule in place, in t: for a dry run (t is rolled back) and
// for a gc that drops no event (only unreferenced contents go).
func (t *Tx) gc(o GCOptions) (*GCReport, error) {
	plan, err := t.planGC(o)
	if err != nil {
		return nil, err
	}
	if plan.rep.Dropped > 0 {
		if err := t.dropPrefix(plan, o); err != nil {
			return nil, err
		}
	}
	prog := func(step string, done, total int) {
		if o.Progress != nil {
			o.Progress(step, done, total)
		}
	}
	before, err := snapshot.ReadStats(t.tx)
	if err != nil {
		return nil, err
	}
	if err := t.sweep(plan.rep, prog); err != nil {
		return nil, err
	}
	// counted as the copy of a gc that drops events counts them (gccopy.go),
	// so a dry run says what the run then does: a small content stored as
	// one whole chunk, without a manifest, is a content too
	after, err := snapshot.ReadStats(t.tx)
	if err != nil {
		return nil, err
	}
	plan.rep.Contents, plan.rep.Chunks = before.Contents-after.Contents, before.Chunks-after.Chunks
	plan.rep.Bytes = before.StoredBytes - after.StoredBytes
	return plan.rep, nil
}

// droppedEvent is the last event a gc drops: the chain's new base.
type droppedEvent struct {
	seq  uint64
	hash snapshot.ID
}

// gcEvent is the event that records a gc of plan.
func gcEvent(o GCOptions, p *gcPlan) *Event {
	ev := &Event{Time: o.Now.UTC(), Kind: KindGC, Actor: o.Actor, Tool: "gc", Status: StatusCommitted,
		Files: append([]FileChange{}, p.carried...)}
	ev.Args = fmt.Appendf(nil, `{"keep":%q,"cutoff":%q,"dropped":%d,"first_kept":%d}`,
		o.Keep.String(), p.rep.Cutoff.Format(time.RFC3339), p.rep.Dropped, p.rep.FirstKept)
	return ev
}

// dropPrefix deletes, in place, the events plan drops, their index entries,
// revert links and sessions, moves the chain's base and appends the gc event.
func (t *Tx) dropPrefix(p *gcPlan, o GCOptions) error {
	b := p.rep.FirstKept
	base, _ := t.Base()
	var keys [][2][]byte // bucket, key
	paths, sessions := map[string]bool{}, map[string]bool{}
	err := t.Each(base+1, false, func(e *Event) error {
		if e.Seq >= b {
			return ErrStop
		}
		for _, f := range e.Files {
			paths[f.Path] = true
		}
		if s := e.Actor.Session; s != "" {
			sessions[s] = true
		}
		keys = append(keys, [2][]byte{bucketLinks, u64(e.Seq)})
		return nil
	})
	if err != nil {
		return err
	}
	for _, ix := range []struct {
		bucket []byte
		names  map[string]bool
	}{{bucketByPath, paths}, {bucketBySession, sessions}} {
		for name := range ix.names {
			if err := dropIndexBelow(t.tx.Bucket(ix.bucket), name, b); err != nil {
				return fmt.Errorf("journal: gc: %s: %w", ix.bucket, err)
			}
		}
	}
	t.Sessions(func(s Session) error {
		if s.Last < b {
			keys = append(keys, [2][]byte{bucketSessions, []byte(s.ID)})
		}
		return nil
	})
	for _, k := range keys {
		if err := t.tx.Bucket(k[0]).Delete(k[1]); err != nil {
			return fmt.Errorf("journal: gc: %s: %w", k[0], err)
		}
	}
	if err := t.dropEventsBelow(b); err != nil {
		return err
	}
	m := t.tx.Bucket(bucketMeta)
	if err := m.Put(metaBaseSeq, u64(p.base.seq)); err != nil {
		return fmt.Errorf("journal: gc: meta: %w", err)
	}
	if err := m.Put(metaBaseHash, p.base.hash[:]); err != nil {
		return fmt.Errorf("journal: gc: meta: %w", err)
	}
	ev := gcEvent(o, p)
	if err := t.Append(ev); err != nil {
		return err
	}
	p.rep.Event = ev.Seq
	return nil
}

// sweep deletes contents, lists and chunks that no retained event or head references.
func (t *Tx) sweep(rep *GCReport, prog func(string, int, int)) error {
	_, err := t.sweepWithout(rep, prog, nil)
	return err
}

// sweepWithout is sweep, leaving out the contents a redaction took out
// (which events and heads still name) and, first, storing whole every kept
// chunk that was a delta against a chunk in forbid not listed by a kept
// content (snapshot.Unbase), so that those go too. It returns how many
// chunks it stored whole.
func (t *Tx) sweepWithout(rep *GCReport, prog func(string, int, int), forbid map[snapshot.ID]bool) (int, error) {
	keep := map[snapshot.ID]bool{}
	t.Heads(func(_ string, h Head) error {
		keep[h.ID] = true
		return nil
	})
	err := t.Each(0, false, func(e *Event) error {
		for _, f := range e.Files {
			keep[f.Before], keep[f.After] = true, true
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	delete(keep, snapshot.ID{})
	for id := range t.redactedContents() {
		delete(keep, id)
	}
	refs := map[string]map[snapshot.ID]bool{string(snapshot.BucketLists): {}, string(snapshot.BucketChunks): {}}
	n := 0
	for id := range keep {
		if !snapshot.Has(t.tx, id) {
			continue // verify reports it; gc does not make it worse
		}
		err := snapshot.Refs(t.tx, id, func(bucket []byte, ref snapshot.ID) { refs[string(bucket)][ref] = true })
		if err != nil {
			return 0, fmt.Errorf("journal: gc: content %s: %w", id.Short(), err)
		}
		if n++; n%releaseContents == 0 {
			t.release()
		}
		prog("mark", n, len(keep))
	}
	dead := map[snapshot.ID]bool{}
	for id := range forbid {
		if !refs[string(snapshot.BucketChunks)][id] {
			dead[id] = true
		}
	}
	rewritten, err := snapshot.Unbase(t.tx, refs[string(snapshot.BucketChunks)], dead)
	if err != nil {
		return 0, fmt.Errorf("journal: redact: %w", err)
	}
	// a kept delta needs its bases (snapshot's delta.go)
	if err := snapshot.MarkBases(t.tx, refs[string(snapshot.BucketChunks)]); err != nil {
		return 0, fmt.Errorf("journal: gc: %w", err)
	}
	sweep := func(name []byte, live func(snapshot.ID) bool, count *int) error {
		bk := t.tx.Bucket(name)
		var dead [][]byte
		n := 0
		bk.ForEach(func(k, v []byte) error {
			var id snapshot.ID
			copy(id[:], k)
			if !live(id) {
				dead = append(dead, append([]byte(nil), k...))
				rep.Bytes += int64(len(v))
			}
			if n++; n%releaseEvery == 0 {
				t.release()
			}
			return nil
		})
		for _, k := range dead {
			if err := bk.Delete(k); err != nil {
				return fmt.Errorf("journal: gc: %s: %w", name, err)
			}
		}
		*count = len(dead)
		return nil
	}
	if err := sweep(snapshot.BucketContents, func(id snapshot.ID) bool { return keep[id] }, &rep.Contents); err != nil {
		return 0, err
	}
	if err := sweep(snapshot.BucketLists, func(id snapshot.ID) bool { return refs["lists"][id] }, &rep.Lists); err != nil {
		return 0, err
	}
	if err := sweep(snapshot.BucketChunks, func(id snapshot.ID) bool { return refs["chunks"][id] }, &rep.Chunks); err != nil {
		return 0, err
	}
	// the store's running totals, recounted (created in a journal from
	// before them)
	return rewritten, snapshot.Recount(t.tx)
}
