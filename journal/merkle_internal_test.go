package journal

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/journalfs/journal/snapshot"
	"golang.org/x/mod/sumdb/tlog"
)

// TestTreeReader_EveryStoredHash compares every hash tlog would store for
// the tree with what the reader gives (stored tiles, recomputed leaves), at
// a size whose last tile is partial, after the tiles were stored (ExtendTree,
// as a checkpoint does).
func TestTreeReader_EveryStoredHash(t *testing.T) {
	j, err := Open(filepath.Join(t.TempDir(), DirName, FileName), Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	err = j.Do(func(db *DB) error {
		return db.Update(func(tx *Tx) error {
			for i := 0; i < 1033; i++ {
				id, _ := snapshot.PutTx(tx.Bolt(), []byte(fmt.Sprint(i)))
				ev := &Event{Kind: KindApply, Status: StatusCommitted, Files: []FileChange{{Path: "a", After: id}}}
				if err := tx.Append(ev); err != nil {
					return err
				}
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Do(func(db *DB) error { return db.Update(func(tx *Tx) error { return tx.ExtendTree() }) }); err != nil {
		t.Fatal(err)
	}
	err = j.View(func(tx *Tx) error {
		leaves, _ := tx.Leaves()
		var m []tlog.Hash
		r := tlog.HashReaderFunc(func(idx []int64) ([]tlog.Hash, error) {
			out := []tlog.Hash{}
			for _, x := range idx {
				out = append(out, m[x])
			}
			return out, nil
		})
		for i, h := range leaves {
			hs, _ := tlog.StoredHashes(int64(i), h[:], r)
			m = append(m, hs...)
		}
		tr := tx.treeReader()
		for x := range m {
			got, err := tr.ReadHashes([]int64{int64(x)})
			if err != nil {
				t.Fatal(x, err)
			}
			if got[0] != m[x] {
				l, n := tlog.SplitStoredHashIndex(int64(x))
				t.Errorf("index %d (level %d n %d) differs", x, l, n)
			}
		}
		if len(m) != int(tlog.StoredHashCount(1033)) {
			t.Errorf("%d hashes, tlog stores %d", len(m), tlog.StoredHashCount(1033))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
