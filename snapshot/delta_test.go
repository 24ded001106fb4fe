package snapshot_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/journalfs/journal/snapshot"
	bolt "go.etcd.io/bbolt"
)

// lineFile is a source-like text of n lines.
func lineFile(n int) []byte {
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, "\tfmt.Println(\"line %d of a typical source file\") // %d\n", i, i*i)
	}
	return b.Bytes()
}

// editLine replaces, inserts or deletes one line of data.
func editLine(r *rand.Rand, data []byte, i int) []byte {
	lines := bytes.SplitAfter(data, []byte("\n"))
	k := r.IntN(len(lines))
	switch r.IntN(3) {
	case 0:
		lines[k] = fmt.Appendf(nil, "\tlog.Printf(\"edit %d\") // %d\n", i, r.Uint32())
	case 1:
		lines = append(lines[:k], append([][]byte{fmt.Appendf(nil, "// inserted %d\n", i)}, lines[k:]...)...)
	case 2:
		lines = append(lines[:k], lines[k+1:]...)
	}
	return bytes.Join(lines, nil)
}

// chunkRecords returns every stored chunk record, by ID.
func chunkRecords(t testing.TB, db *bolt.DB) map[snapshot.ID][]byte {
	out := map[snapshot.ID][]byte{}
	db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(snapshot.BucketChunks).ForEach(func(k, v []byte) error {
			var id snapshot.ID
			copy(id[:], k)
			out[id] = bytes.Clone(v)
			return nil
		})
	})
	return out
}

// TestPutDelta_OneLineEdits stores 300 versions of a 40 KB source file, each
// one line away from the one before, as the engine does: every version reads
// back exactly, in the transaction that stored it and later; the new chunks
// are deltas of a few hundred bytes at most, and no chain is longer than the
// bound.
func TestPutDelta_OneLineEdits(t *testing.T) {
	db := openDB(t)
	r := rand.New(rand.NewPCG(7, 8))
	cur := lineFile(700)
	versions := [][]byte{cur}
	ids := []snapshot.ID{snapshot.Sum(cur)}
	if err := db.Update(func(tx *bolt.Tx) error { _, err := snapshot.PutTx(tx, cur); return err }); err != nil {
		t.Fatal(err)
	}
	before := chunkRecords(t, db)
	deltas := 0
	for i := range 300 {
		next := editLine(r, cur, i)
		id := snapshot.Sum(next)
		err := db.Update(func(tx *bolt.Tx) error {
			d, err := snapshot.PutDelta(tx, id, next, cur)
			if err != nil {
				return err
			}
			if d {
				deltas++
			}
			got, err := snapshot.Bytes(tx, id)
			if err != nil || !bytes.Equal(got, next) {
				return fmt.Errorf("version %d in its transaction: %d bytes, %v", i, len(got), err)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		cur = next
		versions, ids = append(versions, next), append(ids, id)
	}
	if deltas < 290 {
		t.Errorf("%d of 300 one-line edits stored deltas", deltas)
	}
	db.View(func(tx *bolt.Tx) error {
		for i, id := range ids {
			got, err := snapshot.Bytes(tx, id)
			if err != nil || !bytes.Equal(got, versions[i]) {
				t.Errorf("version %d: %d bytes, %v", i, len(got), err)
			}
		}
		return nil
	})
	var n, size, maxD int
	for id, rec := range chunkRecords(t, db) {
		if _, ok := before[id]; ok {
			continue
		}
		n++
		size += len(rec)
		if rec[1] == 2 || rec[1] == 3 { // a delta or a splice
			maxD = max(maxD, int(rec[2]))
		}
	}
	t.Logf("%d new chunks, %d bytes (%d per edit), deepest chain %d", n, size, size/300, maxD)
	if size/300 > 400 {
		t.Errorf("%d bytes of chunks per one-line edit", size/300)
	}
	if maxD < 2 || maxD > 128 {
		t.Errorf("deepest chain %d", maxD)
	}
}

// TestPutDelta_Shapes stores, against one base, contents of every shape
// (edits at either end, large insertions and removals, a rewrite, empty):
// each reads back exactly, and a rewrite is not stored as a delta.
func TestPutDelta_Shapes(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	base := lineFile(2000) // ~110 KB, many chunks
	cases := map[string][]byte{
		"prepend":       append([]byte("package main\n\n"), base...),
		"append":        append(bytes.Clone(base), "// end\n"...),
		"truncate":      base[:len(base)/3],
		"cut middle":    append(bytes.Clone(base[:20000]), base[60000:]...),
		"insert 50K":    append(append(bytes.Clone(base[:30000]), source(r, 50<<10)...), base[30000:]...),
		"random middle": append(append(bytes.Clone(base[:40000]), randBytes(r, 9000)...), base[49000:]...),
		"rewrite":       randBytes(r, len(base)),
		"empty":         {},
		"one byte":      {'x'},
		"two edits apart": bytes.Replace(bytes.Replace(base, []byte("line 10 of"), []byte("line ten of"), 1),
			[]byte("line 1900 of"), []byte("line 1900 (edited) of"), 1),
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			db := openDB(t)
			id := snapshot.Sum(data)
			var deltas bool
			err := db.Update(func(tx *bolt.Tx) error {
				if _, err := snapshot.PutTx(tx, base); err != nil {
					return err
				}
				var err error
				deltas, err = snapshot.PutDelta(tx, id, data, base)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			db.View(func(tx *bolt.Tx) error {
				got, err := snapshot.Bytes(tx, id)
				if err != nil || !bytes.Equal(got, data) {
					t.Errorf("%d bytes, %v", len(got), err)
				}
				return nil
			})
			if name == "rewrite" && deltas {
				t.Error("a rewrite stored as a delta")
			}
			if (name == "two edits apart" || name == "prepend") && !deltas {
				t.Error("an edit stored no delta")
			}
		})
	}
}

// TestPutDelta_DamagedBase: a delta whose base chunk is damaged or missing
// reads as an error naming the base, never as other bytes.
func TestPutDelta_DamagedBase(t *testing.T) {
	for _, how := range []string{"flipped", "deleted"} {
		t.Run(how, func(t *testing.T) {
			db := openDB(t)
			base := lineFile(100)
			next := bytes.Replace(base, []byte("line 50 of"), []byte("line fifty of"), 1)
			id := snapshot.Sum(next)
			err := db.Update(func(tx *bolt.Tx) error {
				if _, err := snapshot.PutTx(tx, base); err != nil {
					return err
				}
				d, err := snapshot.PutDelta(tx, id, next, base)
				if !d {
					t.Fatal("no delta stored")
				}
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			baseRecs := chunkRecords(t, db)
			db.Update(func(tx *bolt.Tx) error {
				b := tx.Bucket(snapshot.BucketChunks)
				for cid, rec := range baseRecs {
					if rec[1] == 2 || rec[1] == 3 {
						continue
					}
					if how == "deleted" {
						b.Delete(cid[:])
					} else {
						rec[len(rec)/2] ^= 0x40
						b.Put(cid[:], rec)
					}
				}
				return nil
			})
			db.View(func(tx *bolt.Tx) error {
				got, err := snapshot.Bytes(tx, id)
				if err == nil || got != nil {
					t.Fatalf("read %d bytes over a %s base", len(got), how)
				}
				want := snapshot.ErrCorrupt
				if how == "deleted" {
					want = snapshot.ErrNotFound
				}
				if !errors.Is(err, want) || !bytes.Contains([]byte(err.Error()), []byte("its base")) {
					t.Errorf("error %v", err)
				}
				return nil
			})
		})
	}
}

// TestDelta_ForgedChains: delta records that name themselves or each other
// as bases (a damaged or forged store) are refused, never followed forever.
func TestDelta_ForgedChains(t *testing.T) {
	db := openDB(t)
	data := lineFile(40)
	id := snapshot.Sum(data)
	if err := db.Update(func(tx *bolt.Tx) error { _, err := snapshot.PutTx(tx, data); return err }); err != nil {
		t.Fatal(err)
	}
	var chunk snapshot.ID
	for c := range chunkRecords(t, db) {
		chunk = c
	}
	other := snapshot.Sum([]byte("other"))
	// byte 0: 3, the chunk is the whole content (format 8)
	rec := func(depth byte, base snapshot.ID) []byte {
		return append(append([]byte{3, 2, depth, 1}, base[:]...), 0x28, 0xb5, 0x2f, 0xfd, 0, 0, 0)
	}
	for name, recs := range map[string]map[snapshot.ID][]byte{
		"itself":            {chunk: rec(1, chunk)},
		"itself deep":       {chunk: rec(32, chunk)},
		"itself deepest":    {chunk: rec(255, chunk)},
		"each other":        {chunk: rec(2, other), other: rec(1, chunk)},
		"base deeper":       {chunk: rec(200, other), other: rec(250, chunk)},
		"no bases":          {chunk: {3, 2, 1, 0}},
		"unknown record":    {chunk: {4, 2, 1, 0}},
		"depth zero splice": {chunk: {3, 3, 0, 1}},
	} {
		t.Run(name, func(t *testing.T) {
			db.Update(func(tx *bolt.Tx) error {
				for k, v := range recs {
					tx.Bucket(snapshot.BucketChunks).Put(k[:], v)
				}
				if _, err := snapshot.Bytes(tx, id); !errors.Is(err, snapshot.ErrCorrupt) {
					t.Errorf("%v", err)
				}
				return errors.New("roll back")
			})
		})
	}
}

// TestMarkBases: gc's live set, given the newest version's chunks, grows to
// every chunk of its chain, so that the version still reads after the
// others are swept.
func TestMarkBases(t *testing.T) {
	db := openDB(t)
	r := rand.New(rand.NewPCG(9, 9))
	cur := lineFile(100)
	db.Update(func(tx *bolt.Tx) error { _, err := snapshot.PutTx(tx, cur); return err })
	for i := range 140 { // past a chain's longest (128), so that a chain starts anew

		next := editLine(r, cur, i)
		db.Update(func(tx *bolt.Tx) error { _, err := snapshot.PutDelta(tx, snapshot.Sum(next), next, cur); return err })
		cur = next
	}
	id := snapshot.Sum(cur)
	err := db.Update(func(tx *bolt.Tx) error {
		live := map[snapshot.ID]bool{}
		if err := snapshot.Refs(tx, id, func(b []byte, ref snapshot.ID) {
			if string(b) == string(snapshot.BucketChunks) {
				live[ref] = true
			}
		}); err != nil {
			return err
		}
		direct := len(live)
		if err := snapshot.MarkBases(tx, live); err != nil {
			return err
		}
		if len(live) <= direct {
			t.Errorf("MarkBases added nothing to %d chunks", direct)
		}
		b := tx.Bucket(snapshot.BucketChunks)
		var dead [][]byte
		b.ForEach(func(k, _ []byte) error {
			var c snapshot.ID
			copy(c[:], k)
			if !live[c] {
				dead = append(dead, bytes.Clone(k))
			}
			return nil
		})
		if len(dead) == 0 {
			t.Error("every chunk is live")
		}
		for _, k := range dead {
			b.Delete(k)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	db.View(func(tx *bolt.Tx) error {
		if got, err := snapshot.Bytes(tx, id); err != nil || !bytes.Equal(got, cur) {
			t.Errorf("after the sweep: %d bytes, %v", len(got), err)
		}
		return nil
	})
}

// BenchmarkPutDelta_OneLineEdit: the cost of storing a one-line edit of a
// 16 KB file as a delta, beside storing it whole.
func BenchmarkPutDelta_OneLineEdit(b *testing.B) {
	for _, mode := range []string{"delta", "whole"} {
		b.Run(mode, func(b *testing.B) {
			db := openDB(b)
			r := rand.New(rand.NewPCG(1, 1))
			cur := lineFile(300)
			db.Update(func(tx *bolt.Tx) error { _, err := snapshot.PutTx(tx, cur); return err })
			i := 0
			for b.Loop() {
				next := editLine(r, cur, i)
				i++
				base := cur
				if mode == "whole" {
					base = nil
				}
				db.Update(func(tx *bolt.Tx) error {
					_, err := snapshot.PutDelta(tx, snapshot.Sum(next), next, base)
					return err
				})
				cur = next
			}
		})
	}
}

// TestPutDelta_EveryLineChanged: a 1 MB rewrite that changed every line a
// little (a rename, a reformat) is compressed against the base chunks at
// the same place — not the middle's first chunks — so it stores smaller than
// alone; and it reads back exactly, though its chunks were encoded at once.
func TestPutDelta_EveryLineChanged(t *testing.T) {
	base := lineFile(20000)
	next := bytes.ReplaceAll(base, []byte(" of "), []byte(" OF "))
	stored := func(withBase bool) int64 {
		db := openDB(t)
		id := snapshot.Sum(next)
		var before, after snapshot.Stats
		err := db.Update(func(tx *bolt.Tx) error {
			if _, err := snapshot.PutTx(tx, base); err != nil {
				return err
			}
			before, _ = snapshot.ReadStats(tx)
			var b []byte
			if withBase {
				b = base
			}
			if _, err := snapshot.PutDelta(tx, id, next, b); err != nil {
				return err
			}
			after, _ = snapshot.ReadStats(tx)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		db.View(func(tx *bolt.Tx) error {
			got, err := snapshot.Bytes(tx, id)
			if err != nil || !bytes.Equal(got, next) {
				t.Fatalf("read back %d bytes, %v", len(got), err)
			}
			return nil
		})
		return after.StoredBytes - before.StoredBytes
	}
	alone, delta := stored(false), stored(true)
	if delta*2 > alone {
		t.Fatalf("every line changed: %d bytes against the base, %d alone", delta, alone)
	}
}

// TestShortRefs: a delta names its base by the first 8 bytes of the base's
// ID (format 11). A chunk whose ID begins with the same 8 bytes — a
// collision, made here by hand — is a candidate every reader tries: a
// damaged one and one that decodes to other bytes are passed over, gc
// keeps and copies both, salvage finds the base among them; and a base
// that is gone is named as not found.
func TestShortRefs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.db")
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cur := lineFile(100) // one chunk
	next := bytes.Replace(cur, []byte("line 50 of"), []byte("line fifty of"), 1)
	id := snapshot.Sum(next)
	if err := db.Update(func(tx *bolt.Tx) error {
		if err := snapshot.CreateBuckets(tx); err != nil {
			return err
		}
		if _, err := snapshot.PutTx(tx, cur); err != nil {
			return err
		}
		_, err := snapshot.PutDelta(tx, id, next, cur)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	base := snapshot.Sum(cur)
	rec := chunkRecords(t, db)[id]
	// version 3 (whole), splice, depth 1, one base named short, its prefix
	if len(rec) < 12 || !bytes.Equal(rec[:4], []byte{3, 3, 1, 0x81}) || !bytes.Equal(rec[4:12], base[:8]) {
		t.Fatalf("splice record % x", rec[:min(len(rec), 12)])
	}
	if want := 12 + 3 + len("fifty") + 1; len(rec) > want+4 {
		t.Errorf("splice record of %d bytes, want about %d", len(rec), want)
	}

	// candidates sharing the base's 8 bytes, tried before it (key order):
	// one damaged; one whose bytes (served from the chain cache, as a real
	// collision's verified bytes would be) are another chunk's
	before, after := base, base
	for i := 8; i < 32; i++ {
		before[i], after[i] = 0, 0
	}
	after[31] = 1
	other := bytes.Replace(cur, []byte("line 7 of"), []byte("line seven of"), 1)
	err = db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(snapshot.BucketChunks)
		if err := b.Put(before[:], []byte{1, 0, 'x'}); err != nil {
			return err
		}
		if err := b.Put(after[:], append([]byte{1, 0}, other...)); err != nil {
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = db.View(func(tx *bolt.Tx) error {
		snapshot.CacheChunk(tx, after, other)
		got, err := snapshot.Bytes(tx, id)
		if err != nil || !bytes.Equal(got, next) {
			t.Errorf("read past the collisions: %v", err)
		}
		live := map[snapshot.ID]bool{id: true}
		if err := snapshot.MarkBases(tx, live); err != nil {
			return err
		}
		if !live[base] || !live[before] || !live[after] || len(live) != 4 {
			t.Errorf("gc keeps %d chunks, want the chunk and its 3 candidates", len(live))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	// gc's copy takes every candidate, and the copy reads
	dst := openDB(t)
	err = db.View(func(src *bolt.Tx) error {
		return dst.Update(func(tx *bolt.Tx) error {
			_, err := snapshot.CopyContent(src, tx, id, nil)
			return err
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(chunkRecords(t, dst)); n != 4 {
		t.Errorf("the copy holds %d chunks, want 4", n)
	}
	if err := dst.View(func(tx *bolt.Tx) error {
		got, err := snapshot.Bytes(tx, id)
		if err == nil && !bytes.Equal(got, next) {
			err = errors.New("other bytes")
		}
		return err
	}); err != nil {
		t.Errorf("copy: %v", err)
	}

	// salvage from the file's bytes, the store unread
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := snapshot.Salvage(raw, id, nil); err != nil || !bytes.Equal(got, next) {
		t.Errorf("salvage: %v", err)
	}

	// the base gone: not found, named by its prefix
	err = db.Update(func(tx *bolt.Tx) error {
		for _, k := range []snapshot.ID{before, base, after} {
			if err := tx.Bucket(snapshot.BucketChunks).Delete(k[:]); err != nil {
				return err
			}
		}
		_, err := snapshot.Bytes(tx, id)
		if !errors.Is(err, snapshot.ErrNotFound) || !strings.Contains(err.Error(), fmt.Sprintf("its base %x", base[:8])) {
			t.Errorf("base gone: %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestPutDeltas_AsOneByOne: contents stored together — new versions of
// several files against their previous ones, two that share chunks, one
// given twice, one stored already — store the same records, the same
// statistics and the same delta marks as PutDelta one after another, and
// read back exactly.
func TestPutDeltas_AsOneByOne(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var bases, news [][]byte
	for f := range 6 {
		base := lineFile(500 + 700*f)
		next := base
		for i := range 3 + f {
			next = editLine(r, next, i)
		}
		if f == 4 { // every line changed: the delta trials give up
			next = bytes.ReplaceAll(base, []byte(" of "), []byte(" OF "))
		}
		bases, news = append(bases, base), append(news, next)
	}
	shared := append(bytes.Clone(news[5]), "// and a tail\n"...) // shares news[5]'s chunks but its last
	var cs []snapshot.Content
	for f := range news {
		cs = append(cs, snapshot.Content{ID: snapshot.Sum(news[f]), Data: news[f], Base: bases[f]})
	}
	cs = append(cs, snapshot.Content{ID: snapshot.Sum(shared), Data: shared, Base: bases[5]}, cs[2],
		snapshot.Content{ID: snapshot.Sum(bases[1]), Data: bases[1]})
	store := func(together bool) (map[snapshot.ID][]byte, snapshot.Stats, []bool) {
		db := openDB(t)
		var st snapshot.Stats
		var marks []bool
		err := db.Update(func(tx *bolt.Tx) error {
			for _, b := range bases {
				if _, err := snapshot.PutTx(tx, b); err != nil {
					return err
				}
			}
			if together {
				var err error
				marks, err = snapshot.PutDeltas(tx, cs)
				if err != nil {
					return err
				}
			} else {
				for _, c := range cs {
					d, err := snapshot.PutDelta(tx, c.ID, c.Data, c.Base)
					if err != nil {
						return err
					}
					marks = append(marks, d)
				}
			}
			st, _ = snapshot.ReadStats(tx)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		db.View(func(tx *bolt.Tx) error {
			for _, c := range cs {
				if got, err := snapshot.Bytes(tx, c.ID); err != nil || !bytes.Equal(got, c.Data) {
					t.Fatalf("together %v: %s read back %d bytes, %v", together, c.ID.Short(), len(got), err)
				}
			}
			return nil
		})
		return chunkRecords(t, db), st, marks
	}
	oneRecs, oneStats, oneMarks := store(false)
	allRecs, allStats, allMarks := store(true)
	if oneStats != allStats {
		t.Fatalf("statistics differ: one by one %+v, together %+v", oneStats, allStats)
	}
	if len(oneRecs) != len(allRecs) {
		t.Fatalf("%d chunk records one by one, %d together", len(oneRecs), len(allRecs))
	}
	for id, rec := range oneRecs {
		if !bytes.Equal(allRecs[id], rec) {
			t.Fatalf("chunk %s stored differently", id.Short())
		}
	}
	for i := range cs {
		// a content stored already or given twice reports no deltas in either
		if oneMarks[i] != allMarks[i] {
			t.Fatalf("content %d: delta mark %v one by one, %v together", i, oneMarks[i], allMarks[i])
		}
	}
	if !oneMarks[0] || oneMarks[len(cs)-1] {
		t.Fatalf("marks %v: an edited file's new version is a delta, a stored content is not", oneMarks)
	}
}

// TestPutDeltas_RewritesGiveUpTogether: a batch of files rewritten in every
// line tries deltas in a few of them, then one in each of the others (not
// deltaTrials in each), and a file edited in one line among them — last —
// is still stored as a delta; all read back exactly.
func TestPutDeltas_RewritesGiveUpTogether(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	var cs []snapshot.Content
	var bases [][]byte
	for f := range 20 {
		base := lineFile(3000 + 10*f)
		var next []byte // every line new: nothing of the base left to refer to
		for len(next) < len(base) {
			next = fmt.Appendf(next, "%016x%016x\n", r.Uint64(), r.Uint64())
		}
		bases = append(bases, base)
		cs = append(cs, snapshot.Content{ID: snapshot.Sum(next), Data: next, Base: base})
	}
	edited := lineFile(3500)
	next := editLine(r, edited, 1)
	bases = append(bases, edited)
	cs = append(cs, snapshot.Content{ID: snapshot.Sum(next), Data: next, Base: edited})
	db := openDB(t)
	before := snapshot.DeltaTries()
	var marks []bool
	err := db.Update(func(tx *bolt.Tx) error {
		for _, b := range bases {
			if _, err := snapshot.PutTx(tx, b); err != nil {
				return err
			}
		}
		var err error
		marks, err = snapshot.PutDeltas(tx, cs)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	tries := snapshot.DeltaTries() - before
	// at most batchTrials plus one each after, plus the edited file's
	if limit := int64(8 + len(cs) + 4); tries > limit || tries < int64(len(cs)) {
		t.Fatalf("%d delta tries in %d contents, want %d to %d", tries, len(cs), len(cs), limit)
	}
	if !marks[len(cs)-1] {
		t.Fatal("the file edited in one line was not stored as a delta")
	}
	db.View(func(tx *bolt.Tx) error {
		for _, c := range cs {
			if got, err := snapshot.Bytes(tx, c.ID); err != nil || !bytes.Equal(got, c.Data) {
				t.Fatalf("%s read back %d bytes, %v", c.ID.Short(), len(got), err)
			}
		}
		return nil
	})
}

// TestVersions_RenewKeepsTheBases: a reader of a file's versions that moves
// to a later transaction (Renew) decodes the next version against the last
// one's chunks it holds, not against the chain in the store: with the
// chain's root deleted meanwhile, the next version still reads, verified,
// where a reader without them fails (it would rebuild the whole chain, and
// it does rebuild it when the root is there).
func TestVersions_RenewKeepsTheBases(t *testing.T) {
	db := openDB(t)
	r := rand.New(rand.NewPCG(11, 12))
	cur := lineFile(700)
	var versions [][]byte
	var ids []snapshot.ID
	err := db.Update(func(tx *bolt.Tx) error {
		base := []byte(nil)
		for i := range 21 {
			id := snapshot.Sum(cur)
			if _, err := snapshot.PutDelta(tx, id, cur, base); err != nil {
				return err
			}
			versions, ids = append(versions, cur), append(ids, id)
			base, cur = cur, editLine(r, cur, i)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var roots [][]byte // the whole chunks: the first version's
	for id, rec := range chunkRecords(t, db) {
		if rec[1] != 2 && rec[1] != 3 {
			roots = append(roots, bytes.Clone(id[:]))
		}
	}
	tx1, err := db.Begin(false)
	if err != nil {
		t.Fatal(err)
	}
	vs := snapshot.NewVersions(tx1)
	for i := range 20 {
		if got, err := vs.Bytes(ids[i]); err != nil || !bytes.Equal(got, versions[i]) {
			t.Fatalf("version %d: %d bytes, %v", i, len(got), err)
		}
	}
	if vs.Held() < int64(len(versions[19])) {
		t.Errorf("holds %d bytes of a %d-byte version", vs.Held(), len(versions[19]))
	}
	tx1.Rollback()
	if err := db.Update(func(tx *bolt.Tx) error {
		for _, k := range roots {
			if err := tx.Bucket(snapshot.BucketChunks).Delete(k); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	tx2, err := db.Begin(false)
	if err != nil {
		t.Fatal(err)
	}
	defer tx2.Rollback()
	if got, err := snapshot.NewVersions(tx2).Bytes(ids[20]); !errors.Is(err, snapshot.ErrNotFound) {
		t.Fatalf("a new reader read the last version over a deleted root: %d bytes, %v", len(got), err)
	}
	vs.Renew(tx2)
	if got, err := vs.Bytes(ids[20]); err != nil || !bytes.Equal(got, versions[20]) {
		t.Fatalf("the renewed reader: %d bytes, %v", len(got), err)
	}
}
