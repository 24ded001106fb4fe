package snapshot_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/journalfs/journal/snapshot"
)

func putLayout(t testing.TB, db *bolt.DB, data []byte, base *snapshot.Base) snapshot.Stored {
	t.Helper()
	st, err := snapshot.PutStreamWith(db.Update, bytes.NewReader(data), snapshot.StreamOptions{Base: base, Layout: true, TxBytes: 256 << 10})
	if err != nil {
		t.Fatal(err)
	}
	if st.ID != snapshot.Sum(data) || st.Size != int64(len(data)) {
		t.Fatalf("stored %s/%d, want %s/%d", st.ID.Short(), st.Size, snapshot.Sum(data).Short(), len(data))
	}
	return st
}

func manifest(t testing.TB, db *bolt.DB, id snapshot.ID) []byte {
	t.Helper()
	var m []byte
	db.View(func(tx *bolt.Tx) error {
		m = bytes.Clone(tx.Bucket(snapshot.BucketContents).Get(id[:]))
		return nil
	})
	if m == nil {
		t.Fatalf("no manifest for %s", id.Short())
	}
	return m
}

// edits returns variants of base: the edits a base must handle.
func edits(r *rand.Rand, base []byte) map[string][]byte {
	n := len(base)
	mid := n / 2
	out := map[string][]byte{
		"same":         bytes.Clone(base),
		"replace mid":  slices.Concat(base[:mid], []byte("EDITED!!"), base[mid+8:]),
		"insert mid":   slices.Concat(base[:mid], []byte("a new line of text\n"), base[mid:]),
		"delete mid":   slices.Concat(base[:mid], base[mid+5000:]),
		"replace head": slices.Concat([]byte("HEAD"), base[4:]),
		"insert head":  slices.Concat([]byte("new first line\n"), base),
		"append":       slices.Concat(base, []byte("one more line\n")),
		"truncate":     bytes.Clone(base[:n-3]),
		"cut in half":  bytes.Clone(base[:mid]),
		"two edits":    slices.Concat(base[:n/4], []byte("X"), base[n/4+1:3*n/4], []byte("YY"), base[3*n/4:]),
		"other":        randBytes(r, n),
		"empty":        {},
		"doubled":      slices.Concat(base, base),
	}
	for i := range 5 { // random splices
		a := r.IntN(n)
		b := a + r.IntN(min(n-a, 70000)+1)
		out[fmt.Sprintf("splice %d", i)] = slices.Concat(base[:a], randBytes(r, r.IntN(100)), base[b:])
	}
	return out
}

// TestPutStreamWith_Base: a content stored against a base has exactly the
// layout and manifest it has when stored from scratch, for every kind of
// edit, and reads back; a text edit's new chunks are deltas.
func TestPutStreamWith_Base(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, kind := range []string{"random", "text"} {
		var base []byte
		if kind == "random" {
			base = randBytes(r, 3<<20+123)
		} else {
			var b bytes.Buffer
			for b.Len() < 3<<20 {
				fmt.Fprintf(&b, "%d %x line of some text\n", r.IntN(1e6), r.Uint64())
			}
			base = b.Bytes()
		}
		for name, data := range edits(r, base) {
			t.Run(kind+"/"+name, func(t *testing.T) {
				db, ref := openDB(t), openDB(t)
				b := putLayout(t, db, base, nil)
				checked := false
				st := putLayout(t, db, data, &snapshot.Base{ID: b.ID, Chunks: b.Chunks, Data: bytes.NewReader(base),
					Check: func() error { checked = true; return nil }})
				want := putLayout(t, ref, data, nil)
				if !slices.Equal(st.Chunks, want.Chunks) {
					t.Fatalf("layout differs from a fresh put: %d vs %d chunks", len(st.Chunks), len(want.Chunks))
				}
				if !bytes.Equal(manifest(t, db, st.ID), manifest(t, ref, want.ID)) {
					t.Fatal("manifest differs from a fresh put")
				}
				var got bytes.Buffer
				if err := db.View(func(tx *bolt.Tx) error { return snapshot.Get(tx, st.ID, &got) }); err != nil || !bytes.Equal(got.Bytes(), data) {
					t.Fatalf("get: %v", err)
				}
				if name == "same" && !checked {
					t.Fatal("base used without its check")
				}
				// new chunks of a text edit are deltas against the base's
				if kind == "text" && strings.Contains("replace mid insert mid two edits replace head", name) && st.Deltas == 0 {
					t.Fatal("no chunk stored as a delta")
				}
				if kind == "random" && st.Deltas > 0 && name == "other" {
					t.Fatal("unrelated random bytes stored as a delta")
				}
			})
		}
	}
}

// TestPutStreamWith_BaseCheckFails: if the base's check fails, nothing is
// recorded for the new content.
func TestPutStreamWith_BaseCheckFails(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	db := openDB(t)
	base := randBytes(r, 1<<20)
	b := putLayout(t, db, base, nil)
	data := slices.Concat(base[:500000], []byte("x"), base[500001:])
	changed := errors.New("changed")
	_, err := snapshot.PutStreamWith(db.Update, bytes.NewReader(data), snapshot.StreamOptions{
		Base: &snapshot.Base{ID: b.ID, Chunks: b.Chunks, Data: bytes.NewReader(base), Check: func() error { return changed }}})
	if !errors.Is(err, changed) {
		t.Fatalf("err = %v", err)
	}
	db.View(func(tx *bolt.Tx) error {
		if snapshot.Has(tx, snapshot.Sum(data)) {
			t.Fatal("content recorded although its base changed")
		}
		return nil
	})
}

func BenchmarkPutStreamWith_50MB_OneLineEdit_Base(b *testing.B) {
	db := openDB(b)
	data := source(rand.New(rand.NewPCG(7, 8)), 50<<20)
	st, _ := snapshot.PutStreamWith(db.Update, bytes.NewReader(data), snapshot.StreamOptions{Layout: true})
	old := bytes.Clone(data)
	b.SetBytes(int64(len(data)))
	for i := 0; b.Loop(); i++ {
		copy(data[25<<20:], []byte{byte('a' + i%26)})
		base := &snapshot.Base{ID: st.ID, Chunks: st.Chunks, Data: bytes.NewReader(old), Check: func() error { return nil }}
		if _, err := snapshot.PutStreamWith(db.Update, bytes.NewReader(data), snapshot.StreamOptions{Base: base}); err != nil {
			b.Fatal(err)
		}
	}
}
