package snapshot_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/journalfs/journal/snapshot"
)

// FuzzGetCorrupted stores a content (unit repeated, so large contents span
// several chunks without large inputs), then corrupts one stored record (chunk,
// chunk list or content manifest: a byte flipped, the record truncated or
// extended) chosen by the fuzzer: Get never panics and returns either the
// exact original content or an error — never other bytes.
func FuzzGetCorrupted(f *testing.F) {
	f.Add([]byte("hello\n"), uint16(0), uint8(0), uint16(0), uint16(3), uint8(1), uint8(0))
	f.Add([]byte("abcdefghij"), uint16(20000), uint8(0), uint16(2), uint16(100), uint8(0xff), uint8(0))
	f.Add([]byte("0123456789abcdef\n"), uint16(9000), uint8(1), uint16(0), uint16(0), uint8(0x80), uint8(1))
	f.Add([]byte{}, uint16(0), uint8(2), uint16(0), uint16(1), uint8(0), uint8(2))
	f.Add([]byte("x"), uint16(1), uint8(2), uint16(0), uint16(40), uint8(7), uint8(0))
	// One database per fuzzing process (workers are processes of their own).
	var once sync.Once
	var db *bolt.DB
	open := func(t *testing.T) {
		once.Do(func() {
			dir, err := os.MkdirTemp("", "snapshot-fuzz-")
			if err != nil {
				t.Fatal(err)
			}
			if db, err = bolt.Open(filepath.Join(dir, "s.db"), 0o600, &bolt.Options{NoSync: true, Timeout: time.Second}); err != nil {
				t.Fatal(err)
			}
		})
	}
	buckets := [][]byte{snapshot.BucketChunks, snapshot.BucketLists, snapshot.BucketContents}
	f.Fuzz(func(t *testing.T, unit []byte, reps uint16, which uint8, rec uint16, off uint16, xor uint8, mode uint8) {
		open(t)
		data := bytes.Repeat(unit, 1+int(reps))
		if len(data) > 256<<10 {
			data = data[:256<<10]
		}
		errStop := errors.New("stop")
		// Everything happens in one write transaction that is rolled back, so runs are independent.
		err := db.Update(func(tx *bolt.Tx) error {
			for _, b := range buckets {
				tx.DeleteBucket(b)
			}
			if err := snapshot.CreateBuckets(tx); err != nil {
				return err
			}
			id, err := snapshot.PutTx(tx, data)
			if err != nil {
				t.Fatalf("PutTx: %v", err)
			}
			corruptAndGet(t, tx.Bucket(buckets[int(which)%len(buckets)]), rec, off, xor, mode, id, data)
			return errStop
		})
		if err != nil && !errors.Is(err, errStop) {
			t.Fatal(err)
		}
	})
}

// FuzzDeltaCorrupted stores a content (a source-like text with a seed
// line), then a version of it with a splice chosen by the fuzzer as a delta
// against it, reads the version back exactly, then corrupts one stored
// record of either as FuzzGetCorrupted does: the version's Get never panics
// or loops and returns either its exact bytes or an error.
func FuzzDeltaCorrupted(f *testing.F) {
	f.Add([]byte("hello\n"), uint16(300), uint16(5), []byte("x"), uint16(0), uint16(3), uint8(1), uint8(0), uint8(0))
	f.Add([]byte("func f() {}\n"), uint16(9000), uint16(0), []byte("// new line\n"), uint16(1), uint16(40), uint8(0x80), uint8(0), uint8(1))
	f.Add([]byte("0123456789abcdef\n"), uint16(40000), uint16(3000), []byte{}, uint16(2), uint16(7), uint8(7), uint8(2), uint8(2))
	f.Add([]byte("a"), uint16(0), uint16(0), []byte("abc"), uint16(0), uint16(0), uint8(0), uint8(1), uint8(0))
	var once sync.Once
	var db *bolt.DB
	buckets := [][]byte{snapshot.BucketChunks, snapshot.BucketLists, snapshot.BucketContents}
	f.Fuzz(func(t *testing.T, seed []byte, at, del uint16, ins []byte, rec, off uint16, xor, mode, which uint8) {
		once.Do(func() {
			dir, err := os.MkdirTemp("", "snapshot-fuzz-")
			if err != nil {
				t.Fatal(err)
			}
			if db, err = bolt.Open(filepath.Join(dir, "s.db"), 0o600, &bolt.Options{Timeout: time.Second}); err != nil {
				t.Fatal(err)
			}
		})
		var text bytes.Buffer
		for i := 0; text.Len() < 48<<10; i++ {
			text.Write(seed)
			fmt.Fprintf(&text, " line %d %d\n", i, i*i%977)
		}
		base := text.Bytes()
		a := int(at) % (len(base) + 1)
		b := min(len(base), a+int(del))
		data := slices.Concat(base[:a], ins, base[b:])
		id := snapshot.Sum(data)
		errStop := errors.New("stop")
		err := db.Update(func(tx *bolt.Tx) error {
			for _, b := range buckets {
				tx.DeleteBucket(b)
			}
			if err := snapshot.CreateBuckets(tx); err != nil {
				return err
			}
			if _, err := snapshot.PutTx(tx, base); err != nil {
				t.Fatalf("PutTx: %v", err)
			}
			if _, err := snapshot.PutDelta(tx, id, data, base); err != nil {
				t.Fatalf("PutDelta: %v", err)
			}
			if got, err := snapshot.Bytes(tx, id); err != nil || !bytes.Equal(got, data) {
				t.Fatalf("stored version reads %d bytes, %v", len(got), err)
			}
			corruptAndGet(t, tx.Bucket(buckets[int(which)%len(buckets)]), rec, off, xor, mode, id, data)
			return errStop
		})
		if err != nil && !errors.Is(err, errStop) {
			t.Fatal(err)
		}
	})
}

// corruptAndGet damages one record of b (chosen by rec), then reads content
// id, whose bytes are data: an error, or exactly data.
func corruptAndGet(t *testing.T, b *bolt.Bucket, rec, off uint16, xor, mode uint8, id snapshot.ID, data []byte) {
	var keys [][]byte
	b.ForEach(func(k, _ []byte) error { keys = append(keys, bytes.Clone(k)); return nil })
	if len(keys) > 0 {
		k := keys[int(rec)%len(keys)]
		if err := b.Put(k, corrupt(b.Get(k), off, xor, mode)); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	if err := snapshot.Get(b.Tx(), id, &out); err == nil && !bytes.Equal(out.Bytes(), data) {
		t.Fatalf("corrupted store returned %d wrong bytes without an error (want %d)", out.Len(), len(data))
	}
}

// corrupt returns a damaged copy of a record: a byte flipped, the record
// truncated or extended, as mode says.
func corrupt(rec []byte, off uint16, xor, mode uint8) []byte {
	v := bytes.Clone(rec)
	switch mode % 3 {
	case 0:
		if len(v) > 0 {
			v[int(off)%len(v)] ^= xor | 1
		}
	case 1:
		v = v[:int(off)%(len(v)+1)]
	case 2:
		v = append(v, bytes.Repeat([]byte{xor}, int(off)%64+1)...)
	}
	return v
}
