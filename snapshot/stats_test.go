package snapshot_test

import (
	"bytes"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/journalfs/journal/snapshot"
	bolt "go.etcd.io/bbolt"
)

// TestStats_Counters: the running totals equal a walk of the store after
// small and streamed puts, puts of contents already stored, and a content
// that shares chunks with another; a store without them (a journal from
// before) is walked, and Recount creates them.
func TestStats_Counters(t *testing.T) {
	db, err := bolt.Open(filepath.Join(t.TempDir(), "s.db"), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Update(snapshot.CreateBuckets); err != nil {
		t.Fatal(err)
	}
	same := func(what string) {
		t.Helper()
		if err := db.View(func(tx *bolt.Tx) error {
			got, err := snapshot.ReadStats(tx)
			if err != nil {
				return err
			}
			want, err := snapshot.WalkStats(tx)
			if err != nil {
				return err
			}
			if got != want {
				t.Fatalf("%s: totals %+v, a walk counts %+v", what, got, want)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	same("empty")
	rng := rand.New(rand.NewPCG(3, 4))
	big := make([]byte, 3<<20)
	for i := range big {
		big[i] = byte(rng.Uint32() % 16)
	}
	if err := db.Update(func(tx *bolt.Tx) error {
		for _, c := range [][]byte{[]byte("a\n"), []byte("a\n"), []byte("b\n"), big} {
			if _, err := snapshot.PutTx(tx, c); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	same("after puts")
	// a streamed content over several transactions, sharing most chunks with big
	edited := bytes.Clone(big)
	copy(edited[1<<20:], "an edit in the middle")
	if _, _, err := snapshot.PutStream(db.Update, bytes.NewReader(edited), 256<<10); err != nil {
		t.Fatal(err)
	}
	same("after a streamed put")
	// a store from before the totals: walked; Recount creates them
	if err := db.Update(func(tx *bolt.Tx) error { return tx.DeleteBucket(snapshot.BucketStats) }); err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error { _, err := snapshot.PutTx(tx, []byte("c\n")); return err }); err != nil {
		t.Fatal(err)
	}
	same("without totals")
	if err := db.Update(snapshot.Recount); err != nil {
		t.Fatal(err)
	}
	same("recounted")
}
