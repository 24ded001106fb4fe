package snapshot_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/journalfs/journal/snapshot"
	bolt "go.etcd.io/bbolt"
)

// TestSalvage stores contents of every shape — empty, small, compressible
// and random chunks, a content of many lists, chained deltas — in a real bbolt file, then
// rebuilds each from the file's bytes alone and with chunks from the store;
// a content whose chunk's bytes are overwritten in the file is not found.
func TestSalvage(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	random := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	}
	var text bytes.Buffer
	for i := 0; text.Len() < 300<<10; i++ {
		fmt.Fprintf(&text, "line %d: the quick brown fox %d\n", i, i*i)
	}
	contents := map[string][]byte{
		"empty":       {},
		"small":       []byte("hello\n"),
		"text 300K":   text.Bytes(),
		"random 200K": random(200 << 10),
		"random 70K":  random(70 << 10),
		"many lists":  random(12 << 20),
	}
	p := filepath.Join(t.TempDir(), "s.db")
	db, err := bolt.Open(p, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]snapshot.ID{}
	if err := db.Update(func(tx *bolt.Tx) error {
		if err := snapshot.CreateBuckets(tx); err != nil {
			return err
		}
		for name, c := range contents {
			id, err := snapshot.PutTx(tx, c)
			if err != nil {
				return err
			}
			ids[name] = id
		}
		// deltas, five deep, against "text 300K"
		base := contents["text 300K"]
		for i := range 5 {
			next := bytes.Replace(base, fmt.Appendf(nil, "line %d:", 1000*i+7), fmt.Appendf(nil, "line %d (edited):", 1000*i+7), 1)
			name := fmt.Sprintf("text delta %d", i)
			contents[name], ids[name] = next, snapshot.Sum(next)
			if d, err := snapshot.PutDelta(tx, ids[name], next, base); err != nil || !d {
				return fmt.Errorf("%s: delta %v, %v", name, d, err)
			}
			base = next
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var have func(snapshot.ID) ([]byte, bool)
	if err := db.View(func(tx *bolt.Tx) error {
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for name, id := range ids {
			got, err := snapshot.Salvage(raw, id, nil)
			if err != nil || !bytes.Equal(got, contents[name]) {
				t.Errorf("%s from the bytes: %d bytes, %v", name, len(got), err)
			}
			have = func(c snapshot.ID) ([]byte, bool) {
				b, err := snapshot.ReadChunk(tx, c)
				return b, err == nil
			}
			if got, err := snapshot.Salvage(raw, id, have); err != nil || !bytes.Equal(got, contents[name]) {
				t.Errorf("%s with the store's chunks: %d bytes, %v", name, len(got), err)
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	raw, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	// overwrite the record after each occurrence of a content's ID
	id := ids["small"]
	for i := 0; ; {
		k := bytes.Index(raw[i:], id[:])
		if k < 0 {
			break
		}
		copy(raw[i+k+32:], "XXXXXXXX")
		i += k + 1
	}
	if _, err := snapshot.Salvage(raw, id, nil); !errors.Is(err, snapshot.ErrNotFound) {
		t.Fatalf("a content whose records are overwritten: %v", err)
	}
}
