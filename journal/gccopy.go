package journal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/journalfs/journal/snapshot"
	bolt "go.etcd.io/bbolt"
)

// Copying gc. A gc that drops events copies what it keeps into a fresh
// file, in key order, committing every copyTx bytes, and swaps it in as
// Compact does. Deleting in place would touch, in one write transaction,
// every dropped event, its index entries and every content nothing
// references, and bbolt holds every page a transaction touches as a node in
// memory until it commits: memory would grow with the journal. It copies:
//
//   - the events from the first kept one (B) on, and the index entries,
//     revert links and sessions that reach them; heads, pending, staging and
//     any bucket this version does not know, whole (one that nests buckets
//     is refused: gc leaves such a journal to the version that wrote it);
//     meta with the new base;
//   - the contents the kept events and the heads name, each with its lists,
//     chunks and their delta bases (snapshot.CopyContent): the copy itself
//     is the set of what is live, so nothing is marked in memory;
//   - then, in the last transaction, the gc event (appended as before, so
//     the heads it carries move to it) and the store's recounted totals.
//
// Memory is bounded by a transaction's bytes and the mapped-page budget
// (release.go), whatever the size of the journal. A kill at any moment
// leaves the old file whole (the copy, not yet renamed, is removed by the
// next compaction) or the new one whole: there is no in-between state to
// recover. The rule of what is kept is the one above (gc.go).

// copyTx is smaller than a compaction's transaction: contents are copied in
// the order the kept events name them, so their chunks' keys (hashes) land
// all over the new file's pages, and bbolt holds every page a transaction
// touches as a node until it commits (at a million events, 4 MiB
// transactions touched most of the 40 MiB copy's chunk pages).
const copyTx = 1 << 20

// copier writes a fresh bbolt file in transactions of about copyTx bytes.
type copier struct {
	db    *bolt.DB
	tx    *bolt.Tx
	bytes int64
	hook  func() error // DB.commitHook
}

func (c *copier) begin() error {
	tx, err := c.db.Begin(true)
	if err != nil {
		return fmt.Errorf("journal: gc: %w", err)
	}
	c.tx, c.bytes = tx, 0
	return nil
}

// commit commits the transaction; next, if set, begins another.
func (c *copier) commit(next bool) error {
	if c.hook != nil {
		if err := c.hook(); err != nil {
			c.tx.Rollback()
			return err
		}
	}
	if err := c.tx.Commit(); err != nil {
		return fmt.Errorf("journal: gc: %w", err)
	}
	if next {
		return c.begin()
	}
	return nil
}

// grew commits and begins anew once the transaction holds compactTx bytes.
func (c *copier) grew(n int64) error {
	if c.bytes += n; c.bytes < copyTx {
		return nil
	}
	(&Tx{tx: c.tx, budget: copyBudget}).release()
	return c.commit(true)
}

// put stores a copy of k → v in bucket name (created, and filled in key
// order). A copy: bbolt keeps the slices it is given until the transaction
// commits, and the source's are in its mapping, whose pages gc lets go of as
// it goes (touching them again at the commit doubled gc's peak memory).
func (c *copier) put(name, k, v []byte) error {
	b, err := c.tx.CreateBucketIfNotExists(name)
	if err != nil {
		return fmt.Errorf("journal: gc: bucket %s: %w", name, err)
	}
	b.FillPercent = appendFill // keys come in order
	if err := b.Put(bytes.Clone(k), bytes.Clone(v)); err != nil {
		return fmt.Errorf("journal: gc: %s: %w", name, err)
	}
	return c.grew(int64(len(k) + len(v)))
}

// gcCopy carries out plan (which drops events) by copying what is kept into
// a fresh file and swapping it in.
func (d *DB) gcCopy(o GCOptions, plan *gcPlan) (*GCReport, error) {
	rep := plan.rep
	var err error
	rep.FileBefore, rep.FileAfter, err = d.rewrite("gc", func(dst *bolt.DB) error { return d.copyKept(dst, o, plan) })
	if err != nil {
		return nil, err
	}
	return rep, nil
}

// copyKept writes into dst everything plan keeps, then the gc event.
func (d *DB) copyKept(dst *bolt.DB, o GCOptions, plan *gcPlan) error {
	rep, b := plan.rep, plan.rep.FirstKept
	stx, err := d.db.Begin(false)
	if err != nil {
		return fmt.Errorf("journal: gc: %w", err)
	}
	defer stx.Rollback()
	src := &Tx{tx: stx, j: d.j, budget: copyBudget}
	c := &copier{db: dst, hook: d.commitHook}
	if err := c.begin(); err != nil {
		return err
	}
	defer func() {
		if c.tx != nil && c.tx.DB() != nil {
			c.tx.Rollback()
		}
	}()
	before, err := snapshot.ReadStats(stx)
	if err != nil {
		return err
	}
	lists := stx.Bucket(snapshot.BucketLists).Stats().KeyN
	src.releaseAll()
	n := 0
	// every bucket but the store's, filtered by the rule
	err = stx.ForEach(func(name []byte, bk *bolt.Bucket) (err error) {
		keep := func(k, v []byte) bool { return true }
		trim := false // index blocks: without the dropped events (index.go)
		switch string(name) {
		case string(snapshot.BucketChunks), string(snapshot.BucketLists), string(snapshot.BucketContents), string(snapshot.BucketStats):
			_, err := c.tx.CreateBucketIfNotExists(name)
			return err
		case string(bucketByPath), string(bucketBySession):
			trim = true
		case string(bucketSessions):
			keep = func(_, v []byte) bool {
				var s Session
				return json.Unmarshal(v, &s) != nil || s.Last >= b
			}
		case string(bucketMeta):
			keep = func(k, _ []byte) bool { return string(k) != string(metaBaseSeq) && string(k) != string(metaBaseHash) }
		}
		nb, err := c.tx.CreateBucketIfNotExists(name)
		if err != nil {
			return fmt.Errorf("journal: gc: bucket %s: %w", name, err)
		}
		if err := nb.SetSequence(bk.Sequence()); err != nil { // a bucket's counter goes with it
			return fmt.Errorf("journal: gc: bucket %s: %w", name, err)
		}
		put := func(k, v []byte) error { return c.put(name, k, v) }
		cur := bk.Cursor()
		k, v := cur.First()
		if string(name) == string(bucketEvents) || string(name) == string(bucketLinks) {
			k, v = cur.Seek(u64(b)) // keyed by event number: those from B on
		}
		if string(name) == string(bucketEvents) {
			// runs of loose records are packed as they are copied, and a
			// block holding events before B is trimmed (pack.go)
			p := &packer{put: put}
			if last := src.Last(); last > packLag {
				p.upTo = last - packLag
			}
			put = p.add
			defer func() {
				if err == nil {
					err = p.flush()
				}
			}()
			if k != nil {
				if v, _, err = trimEventBlock(keySeq(k), v, b); err != nil {
					return err
				}
			}
		}
		for ; k != nil; k, v = cur.Next() {
			if n++; n%releaseRandom == 0 { // kept or not, the entry was read
				src.release()
			}
			if v == nil && bk.Bucket(k) != nil {
				return fmt.Errorf("journal: gc: bucket %s holds a bucket %q this version does not know (a newer journal binary wrote it: run its gc); nothing was changed: %w", name, k, ErrState)
			}
			if !keep(k, v) {
				continue
			}
			if trim {
				nk, nv, ok := trimBlock(k, v, b)
				if !ok {
					continue
				}
				k, v = nk, nv
			}
			if err := put(k, v); err != nil {
				return err
			}
		}
		if o.Progress != nil {
			o.Progress("copy "+string(name), 0, 0)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := c.put(bucketMeta, metaBaseSeq, u64(plan.base.seq)); err != nil {
		return err
	}
	if err := c.put(bucketMeta, metaBaseHash, plan.base.hash[:]); err != nil {
		return err
	}
	src.releaseAll()
	// the contents the kept history names
	lost := src.lostContents()
	copyContent := func(id snapshot.ID) error {
		if id.IsZero() || lost[id] {
			return nil
		}
		k, err := snapshot.CopyContent(stx, c.tx, id, func() {
			if n++; n%releaseRandom == 0 {
				src.release()
				(&Tx{tx: c.tx, budget: copyBudget}).release()
			}
		})
		if errors.Is(err, snapshot.ErrNotFound) {
			return nil // verify reports it; gc does not make it worse
		}
		if err != nil {
			return fmt.Errorf("journal: gc: %w", err)
		}
		return c.grew(k)
	}
	done, total := 0, int(src.Last()-b+1)
	err = src.Each(b, false, func(e *Event) error {
		for _, f := range e.Files {
			if err := copyContent(f.Before); err != nil {
				return err
			}
			if err := copyContent(f.After); err != nil {
				return err
			}
		}
		if done++; o.Progress != nil {
			o.Progress("copy contents", done, total)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := src.Heads(func(_ string, h Head) error { return copyContent(h.ID) }); err != nil {
		return err
	}
	src.releaseAll()
	(&Tx{tx: c.tx}).releaseAll()
	// the gc event, and the store's totals
	ev := gcEvent(o, plan)
	if err := (&Tx{tx: c.tx, j: d.j}).Append(ev); err != nil {
		return err
	}
	rep.Event = ev.Seq
	if err := snapshot.Recount(c.tx); err != nil {
		return err
	}
	after, err := snapshot.ReadStats(c.tx)
	if err != nil {
		return err
	}
	rep.Contents, rep.Chunks = before.Contents-after.Contents, before.Chunks-after.Chunks
	rep.Bytes = before.StoredBytes - after.StoredBytes
	err = c.commit(false)
	c.tx = nil
	if err != nil {
		return err
	}
	return dst.View(func(tx *bolt.Tx) error {
		rep.Lists = lists - tx.Bucket(snapshot.BucketLists).Stats().KeyN
		return nil
	})
}
