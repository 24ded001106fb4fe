package journal_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/audit"
	"github.com/journalfs/journal/journal/journaltest"
	"github.com/journalfs/journal/snapshot"
)

// timed appends n events at t0, t0+1h, … touching f0..f2 with fresh contents.
func timed(t *testing.T, j *journal.Journal, t0 time.Time, n int) { journaltest.Timed(t, j, t0, n) }

func TestGC_DropsOldPrefixKeepsHeadsAndVerifies(t *testing.T) {
	j := create(t)
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	timed(t, j, t0, 12) // events 1..12 at t0+0h..11h; f0 last set by 10, f1 by 11, f2 by 12
	// kept contents: f0's head (10), and 11 and 12's before and after (8, 9, 11, 12): 5 of 12
	var heads = map[string]journal.Head{}
	j.View(func(tx *journal.Tx) error {
		return tx.Heads(func(p string, h journal.Head) error { heads[p] = h; return nil })
	})
	now := t0.Add(20 * time.Hour)
	dry, err := j.GC(journal.GCOptions{Keep: 10 * time.Hour, Now: now, DryRun: true}) // cutoff t0+10h: drop 1..10
	if err != nil || dry.Dropped != 10 || dry.FirstKept != 11 {
		t.Fatalf("dry %+v %v", dry, err)
	}
	j.View(func(tx *journal.Tx) error {
		if tx.Last() != 12 {
			t.Fatalf("dry run changed the journal")
		}
		return nil
	})
	rep, err := j.GC(journal.GCOptions{Keep: 10 * time.Hour, Now: now, Actor: journal.Actor{Kind: "cli"}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Dropped != 10 || rep.Carried != 1 || rep.Event != 13 || rep.Contents != 7 || rep.Chunks == 0 {
		t.Fatalf("report %+v", rep)
	}
	j.View(func(tx *journal.Tx) error {
		vr, err := tx.Verify(true, nil)
		if err != nil || vr.Events != 3 {
			t.Fatalf("verify after gc: %+v %v", vr, err)
		}
		if _, err := tx.Event(10); err == nil {
			t.Fatalf("event 10 kept")
		}
		for p, h := range heads {
			got, _ := tx.Head(p)
			if got.ID != h.ID {
				t.Fatalf("head of %s changed", p)
			}
			if _, err := snapshot.Bytes(tx.Bolt(), h.ID); err != nil {
				t.Fatalf("last state of %s dropped: %v", p, err)
			}
		}
		// f0's last event (10) was dropped: the gc event carries it and the index reaches it.
		var seen []uint64
		tx.EachIndexed("path", "f0.txt", func(e *journal.Event) error { seen = append(seen, e.Seq); return nil })
		if len(seen) != 1 || seen[0] != 13 {
			t.Fatalf("f0 events %v", seen)
		}
		return nil
	})
	// An export after gc starts at the base and verifies on its own.
	var buf bytes.Buffer
	j.View(func(tx *journal.Tx) error {
		_, err := audit.Export(tx, &buf, "jsonl", audit.ExportFilter{}, nil)
		return err
	})
	if rep, err := audit.VerifyExport(&buf, snapshot.ID{}, nil); err != nil || rep.First != 11 {
		t.Fatalf("export after gc: %+v %v", rep, err)
	}
	// A second run has nothing old to drop and records nothing.
	again, err := j.GC(journal.GCOptions{Keep: 10 * time.Hour, Now: now})
	if err != nil || again.Dropped != 0 || again.Event != 0 || again.Contents != 0 {
		t.Fatalf("second gc %+v %v", again, err)
	}
}

func TestGC_RequiresKeep(t *testing.T) {
	j := create(t)
	if _, err := j.GC(journal.GCOptions{}); err == nil {
		t.Fatal("gc without keep ran")
	}
}

// TestGC_CopiesWhatItKeeps: the gc that drops events copies what it keeps
// into a fresh file: a bucket this version does not know comes along whole;
// sessions, index entries and contents of dropped events only do not; what
// the kept events name reads back; and the chain verifies.
func TestGC_CopiesWhatItKeeps(t *testing.T) {
	j := create(t)
	defer j.Close()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	timed(t, j, t0, 30) // sessions s0..s7, 4 events each
	var old snapshot.ID
	err := j.Do(func(db *journal.DB) error {
		return db.Update(func(tx *journal.Tx) error {
			ev, err := tx.Event(2)
			old = ev.Files[0].After // f1.txt's content 1, replaced by event 5
			b, err2 := tx.Bolt().CreateBucket([]byte("future"))
			if err2 != nil {
				return err2
			}
			if err := b.Put([]byte("k"), []byte("v")); err != nil {
				return err
			}
			return err
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := j.GC(journal.GCOptions{Keep: 10 * time.Hour, Now: t0.Add(29*time.Hour + 30*time.Minute)}) // drops 1..20
	if err != nil {
		t.Fatal(err)
	}
	if rep.Dropped != 20 || rep.FirstKept != 21 || rep.Contents == 0 || rep.FileAfter == 0 || rep.FileAfter > rep.FileBefore {
		t.Fatalf("report %+v", rep)
	}
	err = j.View(func(tx *journal.Tx) error {
		if v := tx.Bolt().Bucket([]byte("future")); v == nil || string(v.Get([]byte("k"))) != "v" {
			t.Error("the unknown bucket was not copied")
		}
		var sessions []string
		tx.Sessions(func(s journal.Session) error { sessions = append(sessions, s.ID); return nil })
		if fmt.Sprint(sessions) != "[s5 s6 s7]" {
			t.Errorf("sessions %q", sessions)
		}
		if snapshot.Has(tx.Bolt(), old) {
			t.Error("a content only dropped events named was kept")
		}
		var indexed []uint64
		for _, p := range []string{"f0.txt", "f1.txt", "f2.txt"} {
			tx.EachIndexed("path", p, func(e *journal.Event) error { indexed = append(indexed, e.Seq); return nil })
		}
		// blocks that held dropped events are keyed by their first kept one
		tx.Bolt().Bucket([]byte("by_path")).ForEach(func(k, _ []byte) error {
			if seq := binary.BigEndian.Uint64(k[len(k)-8:]); seq < 21 {
				t.Errorf("by_path key %q of event %d", k, seq)
			}
			return nil
		})
		slices.Sort(indexed)
		if len(indexed) != 10 || indexed[0] != 21 || indexed[9] != 30 { // events 21..30 (the heads are theirs: the gc event carries none)
			t.Errorf("by_path holds events %v", indexed)
		}
		for seq := uint64(21); seq <= tx.Last(); seq++ {
			e, err := tx.Event(seq)
			if err != nil {
				return err
			}
			for _, f := range e.Files {
				if _, err := snapshot.Bytes(tx.Bolt(), f.After); err != nil {
					t.Errorf("event %d %s: %v", seq, f.Path, err)
				}
			}
		}
		_, err := tx.Verify(true, nil)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestGC_CopiesDamageAsItIs: a kept content whose chunk is damaged is copied
// damaged (gc does not make it worse, nor hide it): verify names the same
// content after the gc as before, and every other kept content reads.
func TestGC_CopiesDamageAsItIs(t *testing.T) {
	j := create(t)
	defer j.Close()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	timed(t, j, t0, 30)
	var bad snapshot.ID
	err := j.Do(func(db *journal.DB) error {
		return db.Update(func(tx *journal.Tx) error {
			ev, err := tx.Event(29)
			if err != nil {
				return err
			}
			bad = ev.Files[0].After
			// its one chunk is the content's own bytes: the content ID
			b := tx.Bolt().Bucket(snapshot.BucketChunks)
			v := bytes.Clone(b.Get(bad[:]))
			if v == nil {
				return fmt.Errorf("no chunk under the content's ID")
			}
			v[len(v)-1] ^= 0x55
			return b.Put(bad[:], v)
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	verify := func() error {
		return j.View(func(tx *journal.Tx) error { _, err := tx.Verify(true, nil); return err })
	}
	before := verify()
	if before == nil || !strings.Contains(before.Error(), bad.Short()) {
		t.Fatalf("verify before the gc: %v", before)
	}
	if _, err := j.GC(journal.GCOptions{Keep: 10 * time.Hour, Now: t0.Add(29*time.Hour + 30*time.Minute)}); err != nil {
		t.Fatal(err)
	}
	after := verify()
	if after == nil || !strings.Contains(after.Error(), bad.Short()) || !errors.Is(after, snapshot.ErrCorrupt) {
		t.Fatalf("verify after the gc: %v (before: %v)", after, before)
	}
}
