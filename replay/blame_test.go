package replay_test

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay"
	"github.com/journalfs/journal/snapshot"
)

// blameOf blames key after event at through e's journal and returns each
// line's owner and the file's text.
func blameOf(t *testing.T, e *replay.Engine, key string, at uint64) ([]uint64, string, error) {
	t.Helper()
	var b *replay.Blame
	err := e.Journal().View(func(tx *journal.Tx) (err error) { b, err = replay.BlameTx(tx, key, at); return })
	if err != nil {
		return nil, "", err
	}
	var seqs []uint64
	var text strings.Builder
	for _, l := range b.Lines {
		seqs = append(seqs, l.Seq)
		text.Write(l.Text)
		if l.Seq != 0 && b.Events[l.Seq] == nil {
			t.Fatalf("line owned by event %d, which Events lacks", l.Seq)
		}
	}
	return seqs, text.String(), nil
}

// TestBlame: each line is owned by the event that wrote it — through edits,
// an outside change (its observe event), a revert (the line it put back
// keeps the event that first wrote it), a move (the lines carried over), at
// an earlier event, and after a gc dropped the events that made the oldest
// lines (event 0).
func TestBlame(t *testing.T) {
	dir := t.TempDir()
	e := open(t, dir)
	apply := func(tool string, changes ...replay.Change) uint64 {
		t.Helper()
		res, err := e.Apply(ctx, &replay.Batch{Tool: tool, Changes: changes})
		if err != nil {
			t.Fatal(err)
		}
		return res.Seq
	}
	put := func(path, data string) replay.Change { return replay.Change{Path: path, Data: []byte(data)} }
	check := func(key string, at uint64, want []uint64, wantText string) {
		t.Helper()
		got, text, err := blameOf(t, e, key, at)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) || text != wantText {
			t.Fatalf("blame of %s at %d: %v %q, want %v %q", key, at, got, text, want, wantText)
		}
	}
	c1 := apply("create", put("a.txt", "one\ntwo\nthree\n"))
	c2 := apply("edit", put("a.txt", "one\nTWO\nthree\n"))
	c3 := apply("append", put("a.txt", "one\nTWO\nthree\nfour\n"))
	check("a.txt", 0, []uint64{c1, c2, c1, c3}, "one\nTWO\nthree\nfour\n")
	check("a.txt", c2, []uint64{c1, c2, c1}, "one\nTWO\nthree\n")

	// someone changes line 1 behind the journal; the next batch records it
	write(t, dir, "a.txt", "ONE\nTWO\nthree\nfour\n")
	c5 := apply("edit", put("a.txt", "ONE\nTWO\nTHREE\nfour\n"))
	obs := c5 - 1
	if ev, err := e.Event(obs); err != nil || ev.Kind != journal.KindObserve {
		t.Fatalf("event %d: %+v %v", obs, ev, err)
	}
	check("a.txt", 0, []uint64{obs, c2, c5, c3}, "ONE\nTWO\nTHREE\nfour\n")

	// reverting c2 puts "two" back: it is c1's line again
	if _, err := e.Revert(ctx, c2, replay.RevertOptions{}); err != nil {
		t.Fatal(err)
	}
	check("a.txt", 0, []uint64{obs, c1, c5, c3}, "ONE\ntwo\nTHREE\nfour\n")

	// a move carries the lines over, and owns the line it changed
	mv := apply("move", replay.Change{Path: "a.txt", Delete: true},
		replay.Change{Path: "b.txt", Data: []byte("ONE\ntwo\nTHREE\nfour\nfive\n"), MovedFrom: "a.txt"})
	check("b.txt", 0, []uint64{obs, c1, c5, c3, mv}, "ONE\ntwo\nTHREE\nfour\nfive\n")
	if _, _, err := blameOf(t, e, "a.txt", 0); !errors.Is(err, journal.ErrNotFound) {
		t.Fatalf("blame of the moved-away file: %v", err)
	}
	check("a.txt", c3, []uint64{c1, c2, c1, c3}, "one\nTWO\nthree\nfour\n")
	if _, _, err := blameOf(t, e, "never.txt", 0); !errors.Is(err, journal.ErrNotFound) {
		t.Fatalf("blame of a file never journaled: %v", err)
	}

	// a file a tool makes again after a delete is that tool's: it wrote it
	apply("delete", replay.Change{Path: "b.txt", Delete: true})
	re := apply("recreate", put("b.txt", "ONE\nnew\n"))
	check("b.txt", 0, []uint64{re, re}, "ONE\nnew\n")

	// CRLF lines and a last line without an end
	w1 := apply("crlf", put("w.txt", "a\r\nb\r\nc"))
	w2 := apply("crlf", put("w.txt", "a\r\nB\r\nc"))
	check("w.txt", 0, []uint64{w1, w2, w1}, "a\r\nB\r\nc")

	b1 := apply("binary", put("bin.dat", "x\x00y\n"))
	if _, _, err := blameOf(t, e, "bin.dat", 0); !errors.Is(err, replay.ErrBinary) {
		t.Fatalf("blame of a binary file: %v", err)
	}
	// a file that was binary for a while: its text after owns every line
	b2 := apply("text again", put("bin.dat", "x\ny\n"))
	check("bin.dat", 0, []uint64{b2, b2}, "x\ny\n")
	if _, _, err := blameOf(t, e, "bin.dat", b1); !errors.Is(err, replay.ErrBinary) {
		t.Fatalf("blame of a binary version: %v", err)
	}
}

// TestBlame_AfterGC: lines made by events a gc dropped are owned by event 0
// (older than the history the journal keeps); the kept events keep theirs.
func TestBlame_AfterGC(t *testing.T) {
	dir := t.TempDir()
	e := open(t, dir)
	var seqs []uint64
	var cutoff time.Time
	lines := []string{"a\n", "b\n", "c\n", "d\n"}
	for i := range lines {
		if i == 2 {
			time.Sleep(20 * time.Millisecond)
			cutoff = time.Now()
			time.Sleep(20 * time.Millisecond)
		}
		lines[i] = fmt.Sprintf("%d\n", i)
		res, err := e.Apply(ctx, &replay.Batch{Tool: "edit", Changes: []replay.Change{{Path: "f.txt", Data: []byte(strings.Join(lines, ""))}}})
		if err != nil {
			t.Fatal(err)
		}
		seqs = append(seqs, res.Seq)
	}
	// the cutoff fixed (Now), not measured again inside GC: under load the
	// gap between time.Since and GC's own clock moved it past event 3
	now := time.Now()
	if rep, err := e.GC(journal.GCOptions{Keep: now.Sub(cutoff), Now: now, Actor: journal.Actor{Kind: "cli"}}); err != nil || rep.Dropped != 2 {
		t.Fatalf("gc: %+v %v", rep, err)
	}
	got, text, err := blameOf(t, e, "f.txt", 0)
	if err != nil {
		t.Fatal(err)
	}
	if want := []uint64{0, 0, seqs[2], seqs[3]}; !slices.Equal(got, want) || text != "0\n1\n2\n3\n" {
		t.Fatalf("blame after gc: %v %q, want %v", got, text, want)
	}
}

// BenchmarkBlame: a 2,000-line file with 1,000 one-line edits on it, blamed
// at its newest version (issue #18: at most 200 ms).
func BenchmarkBlame(b *testing.B) {
	dir := b.TempDir()
	e := open(b, dir)
	replay.EditHistory(b, e, "f.go")
	j := e.Journal()
	for b.Loop() {
		err := j.View(func(tx *journal.Tx) error {
			bl, err := replay.BlameTx(tx, "f.go", 0)
			if err == nil && len(bl.Events) < 500 {
				err = fmt.Errorf("%d events own lines", len(bl.Events))
			}
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// TestBlame_Tampered: a version whose manifest was swapped for another
// version's (same size, every chunk intact) is caught by the whole-content
// hash blame checks beside its diffs: ErrCorrupt, not a wrong blame.
func TestBlame_Tampered(t *testing.T) {
	dir := t.TempDir()
	e := open(t, dir)
	var ids []snapshot.ID
	for _, v := range []string{"aaa\nxxx\n", "bbb\nxxx\n", "bbb\nccc\n"} {
		res, err := e.Apply(ctx, &replay.Batch{Tool: "edit", Changes: []replay.Change{{Path: "f.txt", Data: []byte(v)}}})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.Files[0].After)
	}
	if _, _, err := blameOf(t, e, "f.txt", 0); err != nil {
		t.Fatal(err)
	}
	err := e.Journal().Do(func(db *journal.DB) error {
		return db.Update(func(tx *journal.Tx) error {
			// the manifest, or the chunk of a content of one chunk
			for _, name := range [][]byte{snapshot.BucketContents, snapshot.BucketChunks} {
				if c := tx.Bolt().Bucket(name); c.Get(ids[0][:]) != nil {
					return c.Put(ids[1][:], bytes.Clone(c.Get(ids[0][:])))
				}
			}
			return errors.New("no record of the content")
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := blameOf(t, e, "f.txt", 0); !errors.Is(err, snapshot.ErrCorrupt) {
		t.Fatalf("blame over a swapped manifest: %v", err)
	}
}

// TestBlame_OnDisk: the file as it is on disk keeps the events of the lines
// it shares with the journal's newest version; the lines changed since are
// not journaled yet.
func TestBlame_OnDisk(t *testing.T) {
	dir := t.TempDir()
	e := open(t, dir)
	res, err := e.Apply(ctx, &replay.Batch{Tool: "create", Changes: []replay.Change{{Path: "f.txt", Data: []byte("a\nb\nc\n")}}})
	if err != nil {
		t.Fatal(err)
	}
	var b *replay.Blame
	if err := e.Journal().View(func(tx *journal.Tx) (err error) { b, err = replay.BlameTx(tx, "f.txt", 0); return }); err != nil {
		t.Fatal(err)
	}
	d, err := b.OnDisk([]byte("a\nB\nc\nd\n"))
	if err != nil {
		t.Fatal(err)
	}
	var got []uint64
	for _, l := range d.Lines {
		got = append(got, l.Seq)
	}
	u := replay.Unjournaled
	if want := []uint64{res.Seq, u, res.Seq, u}; !slices.Equal(got, want) || d.Events[res.Seq] == nil {
		t.Fatalf("on disk: %v, want %v", got, want)
	}
	if _, err := b.OnDisk([]byte("a\x00")); !errors.Is(err, replay.ErrBinary) {
		t.Fatalf("binary on disk: %v", err)
	}
}

// TestBlame_UndoRedoRestore: a line put back by an undo, a redo, a restore
// or the undo of a whole session keeps the event that first wrote it; the
// lines it did not touch keep their owners.
func TestBlame_UndoRedoRestore(t *testing.T) {
	dir := t.TempDir()
	e := open(t, dir)
	put := func(actor *journal.Actor, data string) uint64 {
		t.Helper()
		res, err := e.Apply(ctx, &replay.Batch{Tool: "edit", Actor: actor, Changes: []replay.Change{{Path: "a.txt", Data: []byte(data)}}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Seq
	}
	check := func(want ...uint64) {
		t.Helper()
		got, _, err := blameOf(t, e, "a.txt", 0)
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("blame %v (%v), want %v", got, err, want)
		}
	}
	c1 := put(nil, "1\n2\n3\n")
	c2 := put(nil, "1\nTWO\n3\n")
	if _, err := e.Undo(ctx, replay.RevertOptions{}); err != nil {
		t.Fatal(err)
	}
	check(c1, c1, c1)
	if _, err := e.Redo(ctx, replay.RevertOptions{}); err != nil {
		t.Fatal(err)
	}
	check(c1, c2, c1)
	if _, err := e.Restore(ctx, "a.txt", c1, replay.RevertOptions{}); err != nil {
		t.Fatal(err)
	}
	check(c1, c1, c1)
	s2 := &journal.Actor{Kind: "mcp", Name: "other", Session: "s2"}
	e3 := put(s2, "1\n2\nTHREE\n")
	check(c1, c1, e3)
	if _, err := e.UndoSession(ctx, "s2", replay.RevertOptions{}); err != nil {
		t.Fatal(err)
	}
	check(c1, c1, c1)
	// a line no version held is the restoring event's own: a restore of
	// a version with a line changed behind the journal since
	c6 := put(nil, "1\n2\n3\nfour more\n")
	write(t, dir, "a.txt", "1\n2\n3\nfour more\nfive outside\n")
	put(nil, "1\n2\n3\nfour more\nfive outside\nsix\n")
	got, _, err := blameOf(t, e, "a.txt", 0)
	if err != nil || got[3] != c6 || got[4] == c6 || got[4] == 0 {
		t.Fatalf("blame %v (%v): line 4 is c6 (%d)'s, line 5 the observe event's", got, err, c6)
	}
}
