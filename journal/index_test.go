package journal

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// TestIndexBlocks: entries added in any order — appends, events older than
// a name's newest (repair restores in any order), the same event twice,
// beside keys of one event each as journals before format 8 wrote them —
// list each name's events newest first, exactly once; blocks stay below
// indexBlockMax; dropping the events before a number (gc in place) and
// trimming each block (gc by copy) keep exactly the later ones.
func TestIndexBlocks(t *testing.T) {
	db, err := bolt.Open(filepath.Join(t.TempDir(), "ix.db"), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	r := rand.New(rand.NewPCG(3, 4))
	want := map[string][]uint64{}
	names := []string{"a", "a/b", "ab", "b", "src/f.go"}
	err = db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucket([]byte("ix"))
		if err != nil {
			return err
		}
		// old-style entries: a key of one event each, no value
		for seq := uint64(1); seq <= 40; seq++ {
			n := names[r.IntN(len(names))]
			if err := b.Put(indexKey(n, seq), nil); err != nil {
				return err
			}
			want[n] = append(want[n], seq)
		}
		for seq := uint64(41); seq <= 3000; seq++ {
			n := names[r.IntN(len(names))]
			if r.IntN(10) == 0 { // now and then, an older event restored late
				seq += 5
				if err := putIndex(b, n, seq-10); err != nil {
					return err
				}
				want[n] = append(want[n], seq-10)
			}
			if err := putIndex(b, n, seq); err != nil {
				return err
			}
			if err := putIndex(b, n, seq); err != nil { // twice: no change
				return err
			}
			want[n] = append(want[n], seq)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for n, seqs := range want {
		slices.Sort(seqs)
		want[n] = slices.Compact(seqs)
	}
	check := func(from uint64) {
		t.Helper()
		db.View(func(tx *bolt.Tx) error {
			b := tx.Bucket([]byte("ix"))
			for _, n := range names {
				var got []uint64
				eachIndexed(b, n, func(seq uint64) error { got = append(got, seq); return nil })
				slices.Reverse(got)
				var w []uint64
				for _, s := range want[n] {
					if s >= from {
						w = append(w, s)
					}
				}
				if !slices.Equal(got, w) {
					t.Errorf("%s from %d: %d events, want %d", n, from, len(got), len(w))
				}
			}
			keys := 0
			b.ForEach(func(k, v []byte) error {
				keys++
				if len(v) > indexBlockMax {
					t.Errorf("block %q of %d bytes", k, len(v))
				}
				if seq := binary.BigEndian.Uint64(k[len(k)-8:]); seq < from {
					t.Errorf("key %q of event %d", k, seq)
				}
				return nil
			})
			t.Logf("from %d: %d keys", from, keys)
			return nil
		})
	}
	check(0)
	// stop early: newest first, ErrStop ends it without error
	db.View(func(tx *bolt.Tx) error {
		var got []uint64
		err := eachIndexed(tx.Bucket([]byte("ix")), "a", func(seq uint64) error {
			if got = append(got, seq); len(got) == 3 {
				return ErrStop
			}
			return nil
		})
		w := want["a"]
		if err != nil || fmt.Sprint(got) != fmt.Sprint([]uint64{w[len(w)-1], w[len(w)-2], w[len(w)-3]}) {
			t.Errorf("the newest three of a: %v, %v", got, err)
		}
		return nil
	})
	// gc by copy: every block trimmed into a fresh bucket
	err = db.Update(func(tx *bolt.Tx) error {
		src := tx.Bucket([]byte("ix"))
		dst, err := tx.CreateBucket([]byte("copy"))
		if err != nil {
			return err
		}
		err = src.ForEach(func(k, v []byte) error {
			if nk, nv, ok := trimBlock(k, v, 1234); ok {
				return dst.Put(nk, nv)
			}
			return nil
		})
		if err != nil {
			return err
		}
		if err := tx.DeleteBucket([]byte("ix")); err != nil {
			return err
		}
		// copied back under the name check reads
		ix, err := tx.CreateBucket([]byte("ix"))
		if err != nil {
			return err
		}
		return dst.ForEach(func(k, v []byte) error { return ix.Put(k, v) })
	})
	if err != nil {
		t.Fatal(err)
	}
	check(1234)
	// gc in place
	err = db.Update(func(tx *bolt.Tx) error {
		for _, n := range names {
			if err := dropIndexBelow(tx.Bucket([]byte("ix")), n, 2500); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	check(2500)
}

// TestRecentSet: the set verify remembers checked contents in answers
// "new" once per ID while it is among the last n to 2n added, and holds at
// most 2n.
func TestRecentSet(t *testing.T) {
	s := newRecentSet(4)
	id := func(i int) (x [32]byte) { x[0], x[1] = byte(i), byte(i>>8); return }
	for i := range 4 {
		if !s.add(id(i)) || s.add(id(i)) {
			t.Fatalf("id %d", i)
		}
	}
	for i := 4; i < 8; i++ { // the first four move to the older generation
		s.add(id(i))
	}
	if s.add(id(0)) || s.add(id(7)) {
		t.Error("an id among the last 2n added was new again")
	}
	for i := 8; i < 20; i++ {
		s.add(id(i))
	}
	if !s.add(id(1)) {
		t.Error("an id added 2n and more adds ago is still remembered")
	}
	if n := len(s.cur) + len(s.prev); n > 8 {
		t.Errorf("%d ids held", n)
	}
}
