package journal

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/journalfs/journal/journal/boltfile"
	"github.com/journalfs/journal/snapshot"
)

var packT0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// packJournal makes a journal of n events, event s at packT0 + s seconds,
// on the paths f0..f6, appended and sealed in transactions of 100.
func packJournal(t *testing.T, n int) *Journal {
	t.Helper()
	j, err := Open(filepath.Join(t.TempDir(), DirName, FileName), Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	appendMore(t, j, 0, n)
	return j
}

// appendMore appends events done+1..done+n as packJournal does.
func appendMore(t *testing.T, j *Journal, done, n int) {
	t.Helper()
	for n += done; done < n; {
		err := j.Do(func(db *DB) error {
			return db.Update(func(tx *Tx) error {
				for i := 0; i < 100 && done < n; i, done = i+1, done+1 {
					id, err := snapshot.PutTx(tx.Bolt(), fmt.Appendf(nil, "content %d\n", done))
					if err != nil {
						return err
					}
					ev := &Event{Kind: KindApply, Time: packT0.Add(time.Duration(done+1) * time.Second), Tool: "edit_content",
						Args:  fmt.Appendf(nil, `{"absolute_file_path":"/w/f%d","replace_text":"edit %d"}`, done%7, done),
						Actor: Actor{Kind: "mcp", Session: fmt.Sprintf("s%d", done/500)},
						Files: []FileChange{{Path: fmt.Sprintf("f%d", done%7), After: id, Added: 1}}}
					if err := tx.Append(ev); err != nil {
						return err
					}
					if _, err := tx.Seal(ev.Seq, StatusCommitted, ""); err != nil {
						return err
					}
				}
				return nil
			})
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// packLayout returns the events bucket's entries: for a block, its range;
// for a loose record, [seq, seq].
func packLayout(t *testing.T, j *Journal) (blocks, loose [][2]uint64) {
	t.Helper()
	if err := j.View(func(tx *Tx) error {
		return tx.tx.Bucket(bucketEvents).ForEach(func(k, v []byte) error {
			if v[0] == recordBlock {
				h, ok := parseBlockHeader(v)
				if !ok {
					t.Fatalf("block %d: header", keySeq(k))
				}
				blocks = append(blocks, [2]uint64{h.first, h.last()})
			} else {
				loose = append(loose, [2]uint64{keySeq(k), keySeq(k)})
			}
			return nil
		})
	}); err != nil {
		t.Fatal(err)
	}
	return blocks, loose
}

// checkEvents reads events 1..n (those from first on kept; gc, if not 0, is
// a gc's event) every way there is: one by one, forward and backward from
// several places, by path, and verify.
func checkEvents(t *testing.T, j *Journal, first, n, gc uint64) {
	t.Helper()
	if err := j.View(func(tx *Tx) error {
		for s := uint64(1); s <= n+1; s++ {
			e, err := tx.Event(s)
			switch {
			case s < first || s > n:
				if !errors.Is(err, ErrNotFound) {
					t.Fatalf("event %d: %v, want not found", s, err)
				}
			case err != nil || e.Seq != s:
				t.Fatalf("event %d: %v %v", s, e, err)
			case s == gc:
				if e.Kind != KindGC {
					t.Fatalf("event %d: %s, want the gc", s, e.Kind)
				}
			case string(e.Args) != fmt.Sprintf(`{"absolute_file_path":"/w/f%d","replace_text":"edit %d"}`, (s-1)%7, s-1):
				t.Fatalf("event %d: args %s", s, e.Args)
			}
		}
		for _, from := range []uint64{0, 1, first, first + 1, 255, 256, 257, 511, 512, 513, n - 1, n, n + 5} {
			for _, backward := range []bool{false, true} {
				var got []uint64
				if err := tx.Each(from, backward, func(e *Event) error {
					got = append(got, e.Seq)
					return nil
				}); err != nil {
					t.Fatal(err)
				}
				var want []uint64
				for s := first; s <= n; s++ {
					if (!backward && s >= from) || (backward && (from == 0 || s <= from)) {
						want = append(want, s)
					}
				}
				if backward {
					slices.Reverse(want)
				}
				if !slices.Equal(got, want) {
					t.Fatalf("from %d backward %v: %d events %v.., want %d %v..", from, backward, len(got), got[:min(3, len(got))], len(want), want[:min(3, len(want))])
				}
			}
		}
		var byPath []uint64
		if err := tx.EachIndexed("path", "f3", func(e *Event) error {
			byPath = append(byPath, e.Seq)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		for i, s := range byPath {
			if (s-1)%7 != 3 && s != gc || (i > 0 && s >= byPath[i-1]) || s < first {
				t.Fatalf("f3's events: %v", byPath)
			}
		}
		r, err := tx.Verify(true, nil)
		if err != nil || uint64(r.Events) != n-first+1 {
			t.Fatalf("verify: %+v %v", r, err)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// TestPack: events packLag and more behind the newest are stored as blocks
// of packBlock; every way of reading events sees the same events through
// them; gc (a dry run in place, and the copy) trims the block its cut goes
// through and keeps the rest packed.
func TestPack(t *testing.T) {
	const n = 2000
	j := packJournal(t, n)
	blocks, loose := packLayout(t, j)
	// packed at 512, 768, ..., 1792: six blocks, 1537..2000 loose
	if len(blocks) != 6 || blocks[0] != [2]uint64{1, 256} || blocks[5] != [2]uint64{1281, 1536} || len(loose) != n-1536 {
		t.Fatalf("blocks %v, %d loose", blocks, len(loose))
	}
	checkEvents(t, j, 1, n, 0)

	// gc cuts at event 1000, inside the block 769..1024
	o := GCOptions{Keep: time.Hour, Now: packT0.Add(time.Hour + 1000*time.Second), Actor: Actor{Kind: "cli"}}
	o.DryRun = true
	dry, err := j.GC(o)
	if err != nil || dry.FirstKept != 1000 || dry.Dropped != 999 {
		t.Fatalf("dry run: %+v %v", dry, err)
	}
	o.DryRun = false
	rep, err := j.GC(o)
	if err != nil || rep.FirstKept != 1000 || rep.Event != n+1 {
		t.Fatalf("gc: %+v %v", rep, err)
	}
	blocks, _ = packLayout(t, j)
	if len(blocks) != 3 || blocks[0] != [2]uint64{1000, 1024} {
		t.Fatalf("after gc: blocks %v", blocks)
	}
	checkEvents(t, j, 1000, n+1, n+1)
}

// TestPack_OldJournal: a journal of loose records only (as a binary before
// format 10 wrote it) reads as it is, takes new events (which are packed as
// they come), and is packed by its first gc.
func TestPack_OldJournal(t *testing.T) {
	packOnAppend = false
	j := packJournal(t, 1500)
	packOnAppend = true
	if blocks, _ := packLayout(t, j); len(blocks) != 0 {
		t.Fatalf("blocks %v", blocks)
	}
	checkEvents(t, j, 1, 1500, 0)
	// 1501..1800: the packing at 1536 and 1792 packs 1025..1280 and
	// 1281..1536; 1..1024 stay loose
	f := j.Path()
	appendMore(t, j, 1500, 300)
	blocks, _ := packLayout(t, j)
	if len(blocks) != 2 || blocks[0] != [2]uint64{1025, 1280} {
		t.Fatalf("blocks %v", blocks)
	}
	checkEvents(t, j, 1, 1800, 0)
	// a gc that drops 99 events packs the rest
	before, _ := os.Stat(f)
	rep, err := j.GC(GCOptions{Keep: time.Hour, Now: packT0.Add(time.Hour + 100*time.Second), Actor: Actor{Kind: "cli"}})
	if err != nil || rep.FirstKept != 100 {
		t.Fatalf("gc: %+v %v", rep, err)
	}
	blocks, loose := packLayout(t, j)
	// 100..355, 356..611, 612..867 (868..1024 stay loose: the block after
	// ends the run), then 1025..1280, 1281..1536 as they were; 1545.. (past
	// last-packLag) loose
	t.Logf("after gc: %v; %d loose; file %d → %d bytes", blocks, len(loose), before.Size(), rep.FileAfter)
	if len(blocks) != 5 || blocks[0] != [2]uint64{100, 355} || blocks[2] != [2]uint64{612, 867} || len(loose) != 157+8+256+1 {
		t.Fatalf("after gc: blocks %v", blocks)
	}
	checkEvents(t, j, 100, 1801, 1801)
}

// TestPack_Damage: a block whose bytes rotted is a damaged run of events
// for log (Scan goes on past it) and verify; repair takes its events back
// from another whole copy of the block in the file's bytes, found by its
// frame and checksum, when the page that holds it cannot be read — and
// names them lost when no copy is left.
func TestPack_Damage(t *testing.T) {
	for _, c := range []struct {
		name string
		rot  func(b []byte, at, size int)
		lost bool
	}{
		// the block's page header: bbolt cannot read the page, the block
		// itself is whole in the file's bytes
		{"page header", func(b []byte, at, _ int) {
			b[leafHeader(b, at)+8] ^= 0xff // the page's flags
		}, false},
		// inside the frame: no copy left
		{"frame", func(b []byte, at, size int) { b[at+size/2] ^= 0x01 }, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			j := packJournal(t, 1000)
			path := j.Path()
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			// the block 257..512: its key, then its value; the loose copies
			// its events had before they were packed (in freed pages) rot
			var blk []byte
			j.View(func(tx *Tx) error {
				blk = slices.Clone(tx.tx.Bucket(bucketEvents).Get(u64(512)))
				return nil
			})
			if len(blk) == 0 || blk[0] != recordBlock {
				t.Fatal("no block 257..512")
			}
			for s := uint64(257); s <= 512; s++ {
				rotLoose(b, s)
			}
			at := bytes.Index(b, append(u64(512), blk[:16]...)) + 8
			if at < 8 {
				t.Fatal("block not found in the file")
			}
			c.rot(b, at, len(blk))
			if err := os.WriteFile(path, b, 0o600); err != nil {
				t.Fatal(err)
			}
			j, err = Open(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var seen int
			var damaged [][2]uint64
			if err := j.View(func(tx *Tx) error {
				return tx.Scan(0, false, func(*Event) error { seen++; return nil }, func(first, last uint64, _ error) error {
					damaged = append(damaged, [2]uint64{first, last})
					return nil
				})
			}); err != nil {
				t.Fatal(err)
			}
			lost := 0
			for _, r := range damaged {
				lost += int(r[1] - r[0] + 1)
			}
			// the block's page may hold a loose record or two besides it, or
			// the block before it (1..256): what it holds is damaged with it
			covered := slices.ContainsFunc(damaged, func(r [2]uint64) bool { return r[0] <= 257 && r[1] >= 512 })
			if seen+lost != 1000 || !covered {
				t.Fatalf("log: %d events, damaged %v", seen, damaged)
			}
			rep, err := j.Repair(true, Actor{Kind: "cli"})
			if err != nil {
				t.Fatal(err)
			}
			if c.lost != (len(rep.LostEvents) > 0) || (c.lost && rep.LostEvents[0] != [2]uint64{257, 512}) {
				t.Fatalf("repair: %d events, lost %v", rep.Events, rep.LostEvents)
			}
			if !c.lost && rep.Events != 1000 {
				t.Fatalf("repair: %d events", rep.Events)
			}
			if err := j.View(func(tx *Tx) error {
				_, err := tx.Verify(true, nil)
				return err
			}); err != nil {
				t.Fatalf("verify after repair: %v", err)
			}
		})
	}
}

// rotLoose flips a byte in the body of every loose record of event seq in b.
func rotLoose(b []byte, seq uint64) {
	k := u64(seq)
	for off := 0; ; {
		i := bytes.Index(b[off:], k)
		if i < 0 {
			return
		}
		at := off + i
		anyActor := func(uint64) (Actor, error) { return Actor{}, nil }
		if e, _, err := decodeCompact(b[at+8:], anyActor); err == nil && e.Seq == seq {
			b[at+8+25] ^= 0x01
		}
		off = at + 1
	}
}

// TestPack_Random: journals of random lengths, packed or not as they were
// written, gc'd at random cuts (in blocks, between them, in the loose
// tail) and written on: every event kept reads the same every way.
func TestPack_Random(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for round := range 6 {
		packOnAppend = round%3 != 0
		n := 300 + r.IntN(1500)
		j := packJournal(t, n)
		packOnAppend = true
		first, gc := uint64(1), uint64(0)
		if round%2 == 0 {
			cut := 1 + r.IntN(n-1) // drops events 1..cut-1
			rep, err := j.GC(GCOptions{Keep: time.Hour, Now: packT0.Add(time.Hour + time.Duration(cut)*time.Second), Actor: Actor{Kind: "cli"}})
			if err != nil || rep.FirstKept != uint64(cut) {
				t.Fatalf("round %d: gc at %d of %d: %+v %v", round, cut, n, rep, err)
			}
			first, gc, n = uint64(cut), uint64(n+1), n+1
		}
		more := r.IntN(700)
		appendMore(t, j, n, more)
		checkEvents(t, j, first, uint64(n+more), gc)
		blocks, loose := packLayout(t, j)
		t.Logf("round %d: %d events from %d; %d blocks, %d loose", round, n+more, first, len(blocks), len(loose))
	}
}

// leafHeader returns the offset in b (a bbolt file) of the header of the
// leaf page holding offset at: the page of at itself, or, when the leaf
// spans several pages (overflow), the first of them — the one whose header
// (id, flags, count, overflow; little endian) names its own page number and
// reaches at. (Taking at's own page, a leaf's second page, flipped a byte of
// another record's value: the test saw block 1..256 damaged instead.)
func leafHeader(b []byte, at int) int {
	ps := os.Getpagesize()
	for k := at / ps; k >= 0; k-- {
		h := b[k*ps:]
		id, flags, overflow := binary.LittleEndian.Uint64(h), binary.LittleEndian.Uint16(h[8:]), binary.LittleEndian.Uint32(h[12:])
		if id == uint64(k) && flags == boltfile.Leaf && k+int(overflow) >= at/ps {
			return k * ps
		}
	}
	panic("no leaf page holds the block")
}
