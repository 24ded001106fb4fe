package snapshot_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/journalfs/journal/snapshot"
	bolt "go.etcd.io/bbolt"
)

// rewrite returns version v of a ~kb KB source-like file whose every line
// names v: a whole-file rewrite of version v-1.
func rewrite(kb, v int) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < kb*1000; i++ {
		fmt.Fprintf(&b, "    x%06d := compute(x%06d, %d, 0x%08x) + offset\n", i, i/2, v, uint32(i*2654435761+v*40503))
	}
	return b.Bytes()
}

// TestPrecompress_SameRecords: a content stored after Precompress is stored
// as the same chunk records, byte for byte, as without it — a rewrite
// against its previous version (deltas tried) and a first version alone —
// and the records compressed ahead are the ones taken.
func TestPrecompress_SameRecords(t *testing.T) {
	base, next := rewrite(300, 1), rewrite(300, 2)
	store := func(ahead bool) map[string][]byte {
		db := openDB(t)
		if err := db.Update(func(tx *bolt.Tx) error { _, err := snapshot.PutTx(tx, base); return err }); err != nil {
			t.Fatal(err)
		}
		used := snapshot.PrecompressUsed()
		if ahead {
			if err := snapshot.Precompress(db.View, next); err != nil {
				t.Fatal(err)
			}
		}
		if err := db.Update(func(tx *bolt.Tx) error {
			_, err := snapshot.PutDelta(tx, snapshot.Sum(next), next, base)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if ahead && snapshot.PrecompressUsed() == used {
			t.Fatal("no record compressed ahead was taken")
		}
		recs := map[string][]byte{}
		db.View(func(tx *bolt.Tx) error {
			if got, err := snapshot.Bytes(tx, snapshot.Sum(next)); err != nil || !bytes.Equal(got, next) {
				t.Fatalf("read back: %d bytes, %v", len(got), err)
			}
			return tx.Bucket(snapshot.BucketChunks).ForEach(func(k, v []byte) error {
				recs[string(k)] = bytes.Clone(v)
				return nil
			})
		})
		return recs
	}
	plain, early := store(false), store(true)
	if len(plain) != len(early) {
		t.Fatalf("%d chunk records stored, %d with Precompress", len(plain), len(early))
	}
	for k, v := range plain {
		if !bytes.Equal(early[k], v) {
			t.Fatalf("chunk %x: %d bytes stored, %d with Precompress", k[:4], len(v), len(early[k]))
		}
	}
}
