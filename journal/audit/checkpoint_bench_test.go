package audit_test

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/audit"
	bolt "go.etcd.io/bbolt"
	"golang.org/x/mod/sumdb/tlog"
)

// bucketBytes is what bbolt allocates to a bucket: its pages, or its bytes
// inline in its parent's page.
func bucketBytes(b *bolt.Bucket) int {
	if b == nil {
		return 0
	}
	st := b.Stats()
	return st.BranchAlloc + st.LeafAlloc + st.InlineBucketInuse
}

// BenchmarkCheckpoints_100k is the cost of checkpoints on a journal of
// 100,000 one-line edits (stored as the engine stores them) signed every
// 1,000 events: what the tree and the checkpoints take on disk per event
// (target ≤ 10 B), proving one event against the newest checkpoint in
// process (target ≤ 50 ms), and, timed by the loop, verify with every
// signature and root checked: the chain and every content (Verify), then
// the tree (VerifyTree) (target ≥ 50,000 events/s).
func BenchmarkCheckpoints_100k(b *testing.B) {
	const n, every = 100000, 1000
	s, vs := keys(b, "alice")
	j := oneLineEdits(b, n, every, s)
	var cps int
	var perEvent, treeBytes, proveMS float64 // reported after the loop, which resets the metrics
	err := j.View(func(tx *journal.Tx) error {
		merkle := bucketBytes(tx.Bolt().Bucket([]byte("merkle")))
		checkpoints := bucketBytes(tx.Bolt().Bucket([]byte("checkpoints")))
		perEvent, treeBytes = float64(merkle+checkpoints)/n, float64(merkle)/n
		c, err := audit.Checkpoints(tx)
		cps = len(c)
		if err != nil {
			return err
		}
		newest := c[len(c)-1]
		var worst time.Duration
		for _, seq := range []uint64{1, 257, 49999, 99001, 99999} { // near either end, and in a partial tile
			t0 := time.Now()
			e, err := tx.Event(seq)
			if err != nil {
				return err
			}
			i, _ := audit.LeafIndex(tx, seq)
			p, err := audit.ProveEvent(tx, i, newest.Size)
			if err != nil {
				return err
			}
			worst = max(worst, time.Since(t0))
			if err := tlog.CheckRecord(p, newest.Size, newest.Root, i, audit.LeafHash(e.Hash)); err != nil {
				return err
			}
		}
		proveMS = float64(worst.Microseconds()) / 1000
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	if cps != n/every {
		b.Fatalf("%d checkpoints", cps)
	}
	var chain, tree time.Duration
	for b.Loop() {
		err := j.View(func(tx *journal.Tx) error {
			t0 := time.Now()
			r, err := tx.Verify(true, nil)
			chain += time.Since(t0)
			if err == nil && r.Events != n {
				err = fmt.Errorf("%d events verified", r.Events)
			}
			if err != nil {
				return err
			}
			t0 = time.Now()
			tr, err := audit.VerifyTree(tx, audit.CheckOptions{Keys: vs})
			tree += time.Since(t0)
			if err == nil && tr.Checkpoints != n/every {
				err = fmt.Errorf("%d checkpoints matched", tr.Checkpoints)
			}
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n*b.N)/(chain+tree).Seconds(), "events/s")
	b.ReportMetric(float64(n*b.N)/chain.Seconds(), "chain-events/s")
	b.ReportMetric(float64(n*b.N)/tree.Seconds(), "tree-events/s")
	b.ReportMetric(perEvent, "B/event")
	b.ReportMetric(treeBytes, "tree-B/event")
	b.ReportMetric(proveMS, "prove-ms")
}

// BenchmarkCheckExport_100k is `journal verify --export FILE --key
// FILE.pub` in process: an export of 100,000 one-line edits with a
// checkpoint every 10,000 events in its head, checked whole (every line
// re-derived, the chain, the tree recomputed, every checkpoint's signature
// and root) from memory (target ≥ 50,000 events/s).
func BenchmarkCheckExport_100k(b *testing.B) {
	const n, every = 100000, 10000
	s, vs := keys(b, "alice")
	j := oneLineEdits(b, n, every, s)
	var buf bytes.Buffer
	if err := j.View(func(tx *journal.Tx) error {
		_, err := audit.Export(tx, &buf, "jsonl", audit.ExportFilter{}, nil)
		return err
	}); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	for b.Loop() {
		rep, err := audit.CheckExport(bytes.NewReader(buf.Bytes()), audit.ExportCheck{CheckOptions: audit.CheckOptions{Keys: vs}})
		if err == nil && (rep.Events != n || rep.Tree == nil || rep.Tree.Checkpoints != n/every) {
			err = fmt.Errorf("%d events, tree %+v", rep.Events, rep.Tree)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "events/s")
}
