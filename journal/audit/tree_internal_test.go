package audit

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/snapshot"
	"golang.org/x/mod/sumdb/tlog"
)

// TestTreeReader_EveryStoredHash compares every hash tlog would store for
// the tree with what the reader gives (stored tiles, recomputed leaves), at
// a size whose last tile is partial, after the tiles were stored (ExtendTree,
// as a checkpoint does).
func TestTreeReader_EveryStoredHash(t *testing.T) {
	j, err := journal.Open(filepath.Join(t.TempDir(), journal.DirName, journal.FileName), journal.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	err = j.Do(func(db *journal.DB) error {
		return db.Update(func(tx *journal.Tx) error {
			for i := 0; i < 1033; i++ {
				id, _ := snapshot.PutTx(tx.Bolt(), []byte(fmt.Sprint(i)))
				ev := &journal.Event{Kind: journal.KindApply, Status: journal.StatusCommitted, Files: []journal.FileChange{{Path: "a", After: id}}}
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
	if err := j.Do(func(db *journal.DB) error { return db.Update(func(tx *journal.Tx) error { return ExtendTree(tx) }) }); err != nil {
		t.Fatal(err)
	}
	err = j.View(func(tx *journal.Tx) error {
		leaves, _ := Leaves(tx)
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
		tr := newTreeReader(tx)
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
