package snapshot_test

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/journalfs/journal/snapshot"
	bolt "go.etcd.io/bbolt"
)

func openDB(t testing.TB) *bolt.DB {
	t.Helper()
	db, err := bolt.Open(filepath.Join(t.TempDir(), "s.db"), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Update(snapshot.CreateBuckets); err != nil {
		t.Fatal(err)
	}
	return db
}

func randBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func source(r *rand.Rand, n int) []byte {
	var b bytes.Buffer
	for b.Len() < n {
		b.WriteString("func f")
		b.WriteString(string(rune('a' + r.IntN(26))))
		b.WriteString("() { return nil } // line\n")
	}
	return b.Bytes()[:n]
}

func TestPutGet_RoundTrip(t *testing.T) {
	db := openDB(t)
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 100, 2047, 8192, 70000, 1 << 20} {
		for _, data := range [][]byte{randBytes(r, n), source(r, n)} {
			var id snapshot.ID
			if err := db.Update(func(tx *bolt.Tx) (err error) { id, err = snapshot.PutTx(tx, data); return }); err != nil {
				t.Fatal(err)
			}
			if id != snapshot.Sum(data) {
				t.Fatalf("n=%d: id is not the content hash", n)
			}
			sid, size, err := snapshot.PutStream(db.Update, bytes.NewReader(data), 64<<10)
			if err != nil || sid != id || size != int64(n) {
				t.Fatalf("n=%d: PutStream = %s,%d,%v want %s", n, sid.Short(), size, err, id.Short())
			}
			err = db.View(func(tx *bolt.Tx) error {
				got, err := snapshot.Bytes(tx, id)
				if err != nil {
					return err
				}
				if !bytes.Equal(got, data) {
					t.Fatalf("n=%d: round trip differs", n)
				}
				sz, err := snapshot.Size(tx, id)
				if sz != int64(n) {
					t.Fatalf("size %d want %d", sz, n)
				}
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestPut_DedupSmallEdit(t *testing.T) {
	db := openDB(t)
	r := rand.New(rand.NewPCG(3, 4))
	data := source(r, 8<<20)
	put := func(b []byte) {
		if _, _, err := snapshot.PutStream(db.Update, bytes.NewReader(b), 0); err != nil {
			t.Fatal(err)
		}
	}
	stats := func() snapshot.Stats {
		var s snapshot.Stats
		db.View(func(tx *bolt.Tx) (err error) { s, err = snapshot.ReadStats(tx); return })
		return s
	}
	put(data)
	before := stats()
	edited := append([]byte{}, data...)
	copy(edited[4<<20:], "// one changed line\n")
	put(edited)
	after := stats()
	if grew := after.StoredBytes - before.StoredBytes; grew > 64<<10 {
		t.Fatalf("a one-line edit of 8 MiB stored %d new bytes, want < 64 KiB", grew)
	}
	put(data) // identical content: nothing new
	if again := stats(); again.StoredBytes != after.StoredBytes {
		t.Fatalf("re-putting stored %d bytes", again.StoredBytes-after.StoredBytes)
	}
	if after.DedupRatio() < 2 {
		t.Fatalf("dedup ratio %.2f", after.DedupRatio())
	}
}

func TestGet_CorruptChunkDetected(t *testing.T) {
	db := openDB(t)
	data := source(rand.New(rand.NewPCG(5, 6)), 100000)
	var id snapshot.ID
	db.Update(func(tx *bolt.Tx) (err error) { id, err = snapshot.PutTx(tx, data); return })
	// Flip one byte of the last byte of some chunk record (raw or compressed).
	err := db.Update(func(tx *bolt.Tx) error {
		c := tx.Bucket(snapshot.BucketChunks).Cursor()
		k, v := c.First()
		nv := append([]byte{}, v...)
		nv[len(nv)-1] ^= 0x40
		return tx.Bucket(snapshot.BucketChunks).Put(append([]byte{}, k...), nv)
	})
	if err != nil {
		t.Fatal(err)
	}
	err = db.View(func(tx *bolt.Tx) error { _, err := snapshot.Verify(tx, id); return err })
	if !errors.Is(err, snapshot.ErrCorrupt) {
		t.Fatalf("Verify after corruption = %v, want ErrCorrupt", err)
	}
}

func TestGet_Missing(t *testing.T) {
	db := openDB(t)
	err := db.View(func(tx *bolt.Tx) error { _, err := snapshot.Bytes(tx, snapshot.Sum([]byte("x"))); return err })
	if !errors.Is(err, snapshot.ErrNotFound) {
		t.Fatalf("got %v", err)
	}
}

func TestID_Text(t *testing.T) {
	id := snapshot.Sum([]byte("hello"))
	p, err := snapshot.ParseID(id.String())
	if err != nil || p != id || len(id.Short()) != snapshot.ShortLen {
		t.Fatal(p, err)
	}
	if _, err := snapshot.ParseID("zz"); err == nil {
		t.Fatal("bad id parsed")
	}
	var z snapshot.ID
	if b, _ := z.MarshalText(); len(b) != 0 {
		t.Fatal("zero id should marshal empty")
	}
}

func BenchmarkPutStream_50MB_OneLineEdit(b *testing.B) {
	db := openDB(b)
	data := source(rand.New(rand.NewPCG(7, 8)), 50<<20)
	snapshot.PutStream(db.Update, bytes.NewReader(data), 0)
	b.SetBytes(int64(len(data)))
	for i := 0; b.Loop(); i++ {
		copy(data[25<<20:], []byte{byte('a' + i%26)})
		if _, _, err := snapshot.PutStream(db.Update, bytes.NewReader(data), 0); err != nil {
			b.Fatal(err)
		}
	}
}
