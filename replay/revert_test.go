package replay_test

import (
	"errors"
	"testing"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay"
)

func apply(t testing.TB, e *replay.Engine, kv ...string) uint64 {
	t.Helper()
	var cs []replay.Change
	for i := 0; i < len(kv); i += 2 {
		cs = append(cs, replay.Change{Path: kv[i], Data: []byte(kv[i+1])})
	}
	res, err := e.Apply(ctx, &replay.Batch{Tool: "t", Changes: cs})
	if err != nil {
		t.Fatal(err)
	}
	return res.Seq
}

func TestRevert_MergeAndConflict(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "f.txt", "a\nb\nc\nd\ne\nf\ng\n")
	e := open(t, dir)
	n := apply(t, e, "f.txt", "a\nB\nc\nd\ne\nf\ng\n")   // change line 2
	apply(t, e, "f.txt", "a\nB\nc\nd\ne\nF\ng\n")        // later: line 6
	write(t, dir, "f.txt", "a\nB\nc\nd\ne\nF\ng\nh\n")   // outside: append
	res, err := e.Revert(ctx, n, replay.RevertOptions{}) // merges: line 2 back, keeps F and h
	if err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, dir, "f.txt"); got != "a\nb\nc\nd\ne\nF\ng\nh\n" {
		t.Fatalf("merged revert: %q", got)
	}
	// Reverting the revert re-applies event n.
	if _, err := e.Revert(ctx, res.Seq, replay.RevertOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, dir, "f.txt"); got != "a\nB\nc\nd\ne\nF\ng\nh\n" {
		t.Fatalf("revert of revert: %q", got)
	}
	// Overlap: change line 2 again, then revert n → conflict naming the lines, nothing written.
	m := apply(t, e, "f.txt", "a\nBB\nc\nd\ne\nF\ng\nh\n")
	_ = m
	before := mustRead(t, dir, "f.txt")
	_, err = e.Revert(ctx, n, replay.RevertOptions{})
	var ce *replay.ConflictError
	if !errors.As(err, &ce) || !errors.Is(err, replay.ErrRevertConflict) || len(ce.Lines) == 0 || ce.Lines[0][0] != 2 {
		t.Fatalf("want a conflict at line 2, got %v (%+v)", err, ce)
	}
	if mustRead(t, dir, "f.txt") != before {
		t.Fatal("a refused revert changed the file")
	}
	// Force restores event n's before-content exactly, as a new event.
	if _, err := e.Revert(ctx, n, replay.RevertOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, dir, "f.txt"); got != "a\nb\nc\nd\ne\nf\ng\n" {
		t.Fatalf("forced: %q", got)
	}
	verifyChain(t, e)
}

func TestRevert_BadEvents(t *testing.T) {
	dir := t.TempDir()
	e := open(t, dir)
	n := apply(t, e, "f.txt", "x\n")
	if _, err := e.Revert(ctx, 99, replay.RevertOptions{}); !errors.Is(err, replay.ErrBadEvent) {
		t.Fatalf("unknown event: %v", err)
	}
	r, err := e.Revert(ctx, n, replay.RevertOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Revert(ctx, n, replay.RevertOptions{}); !errors.Is(err, replay.ErrNothing) {
		t.Fatalf("double revert: %v", err)
	}
	if _, ok := read(t, dir, "f.txt"); ok {
		t.Fatal("revert of a create should delete")
	}
	if _, err := e.Revert(ctx, r.Seq, replay.RevertOptions{}); err != nil {
		t.Fatal(err)
	}
	if mustRead(t, dir, "f.txt") != "x\n" {
		t.Fatal("revert of revert")
	}
	// A rolled-back event cannot be reverted.
	e.SetFault(func(step, path string) error {
		if step == "rename" {
			return errors.New("injected")
		}
		return nil
	})
	if _, err := e.Apply(ctx, &replay.Batch{Changes: []replay.Change{{Path: "f.txt", Data: []byte("y\n")}}}); err == nil {
		t.Fatal("fault not injected")
	}
	e.SetFault(nil)
	rb := lastEvent(t, e)
	if rb.Status != journal.StatusRolledBack {
		t.Fatalf("status %s", rb.Status)
	}
	if _, err := e.Revert(ctx, rb.Seq, replay.RevertOptions{}); !errors.Is(err, replay.ErrBadEvent) {
		t.Fatalf("revert of rolled back: %v", err)
	}
}

func TestUndoRedo_SessionAndGlobal(t *testing.T) {
	dir := t.TempDir()
	e := open(t, dir)
	apply(t, e, "f.txt", "1\n")
	apply(t, e, "f.txt", "2\n")
	apply(t, e, "f.txt", "3\n")
	s := replay.RevertOptions{Session: "s1"}
	for _, want := range []string{"2\n", "1\n"} {
		if _, err := e.Undo(ctx, s); err != nil {
			t.Fatal(err)
		}
		if got := mustRead(t, dir, "f.txt"); got != want {
			t.Fatalf("undo: %q want %q", got, want)
		}
	}
	for _, want := range []string{"2\n", "3\n"} {
		if _, err := e.Redo(ctx, s); err != nil {
			t.Fatal(err)
		}
		if got := mustRead(t, dir, "f.txt"); got != want {
			t.Fatalf("redo: %q want %q", got, want)
		}
	}
	if _, err := e.Redo(ctx, s); !errors.Is(err, replay.ErrNothing) {
		t.Fatalf("redo past the end: %v", err)
	}
	// A new change clears the redo history.
	e.Undo(ctx, s)
	apply(t, e, "f.txt", "4\n")
	if _, err := e.Redo(ctx, s); !errors.Is(err, replay.ErrNothing) {
		t.Fatalf("redo after a new change: %v", err)
	}
	// Another session's undo does not touch s1's events; global undo does.
	if _, err := e.Undo(ctx, replay.RevertOptions{Session: "other"}); !errors.Is(err, replay.ErrNothing) {
		t.Fatalf("other session: %v", err)
	}
	if _, err := e.Undo(ctx, replay.RevertOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, dir, "f.txt"); got != "2\n" {
		t.Fatalf("global undo: %q", got)
	}
}

func TestRestore(t *testing.T) {
	dir := t.TempDir()
	e := open(t, dir)
	a := apply(t, e, "f.txt", "A\n")
	apply(t, e, "f.txt", "B\n", "g.txt", "G\n")
	if _, err := e.Restore(ctx, "f.txt", a, replay.RevertOptions{}); err != nil {
		t.Fatal(err)
	}
	if mustRead(t, dir, "f.txt") != "A\n" || mustRead(t, dir, "g.txt") != "G\n" {
		t.Fatal("restore touched the wrong files")
	}
	if _, err := e.Restore(ctx, "g.txt", a, replay.RevertOptions{}); !errors.Is(err, replay.ErrBadEvent) {
		t.Fatalf("restore before the first event of a path: %v", err)
	}
	if _, err := e.Restore(ctx, "never.txt", a, replay.RevertOptions{}); !errors.Is(err, replay.ErrBadEvent) {
		t.Fatalf("never journaled: %v", err)
	}
}
