package replay_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay"
)

// TestUndoSession: the undo of one session takes back its changes that
// still stand — merged around another session's later change to the same
// file, a file it created deleted again — as one event linked to each; a
// pair it undid itself cancels; an overlap refuses the whole undo and
// writes nothing; force puts the files back as before the session; a
// revert of the undo redoes the session.
func TestUndoSession(t *testing.T) {
	dir := t.TempDir()
	e := open(t, dir)
	s2 := &journal.Actor{Kind: "mcp", Name: "other", Session: "s2"}
	apply := func(actor *journal.Actor, path, data string) uint64 {
		t.Helper()
		res, err := e.Apply(ctx, &replay.Batch{Tool: "file_replace", Actor: actor, Changes: []replay.Change{{Path: path, Data: []byte(data)}}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Seq
	}
	want := func(path, content string, exists bool) {
		t.Helper()
		got, ok := read(t, dir, path)
		if ok != exists || got != content {
			t.Fatalf("%s: %q (exists %v), want %q (exists %v)", path, got, ok, content, exists)
		}
	}
	apply(nil, "a.txt", "1\n2\n3\n4\n5\n6\n")
	e1 := apply(s2, "a.txt", "1\nTWO\n3\n4\n5\n6\n")
	e2 := apply(s2, "b.txt", "made by s2\n")
	apply(nil, "a.txt", "1\nTWO\n3\n4\n5\nSIX\n") // s1, after s2, elsewhere in the file
	e3 := apply(s2, "c.txt", "c\n")
	u, err := e.Undo(ctx, replay.RevertOptions{Session: "s2"}) // s2 undoes its own c.txt
	if err != nil || u.Seq == 0 {
		t.Fatal(u, err)
	}
	e4 := apply(s2, "a.txt", "1\nTWO\nTHREE\n4\n5\nSIX\n")

	// a dry run plans it and writes nothing
	dry, err := e.UndoSession(ctx, "s2", replay.RevertOptions{DryRun: true})
	if err != nil || dry.Seq != 0 || len(dry.Planned) != 2 {
		t.Fatalf("dry run: %+v %v", dry, err)
	}
	want("a.txt", "1\nTWO\nTHREE\n4\n5\nSIX\n", true)
	// through: only the events a preview saw (up to e1 here)
	dry, err = e.UndoSession(ctx, "s2", replay.RevertOptions{DryRun: true, Through: e1})
	if err != nil || len(dry.Planned) != 1 || string(dry.Planned[0].Data) != "1\n2\nTHREE\n4\n5\nSIX\n" {
		t.Fatalf("dry run through %d: %+v %v", e1, dry, err)
	}

	res, err := e.UndoSession(ctx, "s2", replay.RevertOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want("a.txt", "1\n2\n3\n4\n5\nSIX\n", true) // s1's change stays
	want("b.txt", "", false)
	want("c.txt", "", false) // s2's own undo stands
	ev, err := e.Event(res.Seq)
	if err != nil {
		t.Fatal(err)
	}
	if ev.Kind != journal.KindUndo || !slices.Equal(ev.Undone, []uint64{e4, e2, e1}) || ev.Tool != "undo_session" {
		t.Fatalf("the undo event: %+v", ev)
	}
	err = e.Journal().View(func(tx *journal.Tx) error {
		for _, s := range []uint64{e4, e2, e1} {
			if tx.RevertedBy(s) != res.Seq || tx.Live(s) {
				t.Errorf("event %d: reverted by %d, live %v", s, tx.RevertedBy(s), tx.Live(s))
			}
		}
		if tx.RevertedBy(e3) != u.Seq {
			t.Errorf("event %d is reverted by %d, want its own undo %d", e3, tx.RevertedBy(e3), u.Seq)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.UndoSession(ctx, "s2", replay.RevertOptions{}); !errors.Is(err, replay.ErrNothing) {
		t.Fatalf("a second undo of s2: %v", err)
	}
	if _, err := e.Revert(ctx, e1, replay.RevertOptions{}); !errors.Is(err, replay.ErrNothing) {
		t.Fatalf("a revert of an event the session undo took back: %v", err)
	}

	// reverting the undo redoes the session
	if _, err := e.Revert(ctx, res.Seq, replay.RevertOptions{}); err != nil {
		t.Fatal(err)
	}
	want("a.txt", "1\nTWO\nTHREE\n4\n5\nSIX\n", true)
	want("b.txt", "made by s2\n", true)

	// s1 changes a line s2 changed: the undo refuses, names the event, writes nothing
	apply(nil, "a.txt", "1\nTWO, then s1\nTHREE\n4\n5\nSIX\n")
	_, err = e.UndoSession(ctx, "s2", replay.RevertOptions{})
	var ce *replay.ConflictError
	if !errors.As(err, &ce) || ce.Event != e1 || ce.Path != "a.txt" {
		t.Fatalf("overlapping undo: %v", err)
	}
	want("a.txt", "1\nTWO, then s1\nTHREE\n4\n5\nSIX\n", true)
	want("b.txt", "made by s2\n", true)

	// force: every file as before the session's first change to it
	if _, err := e.UndoSession(ctx, "s2", replay.RevertOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
	want("a.txt", "1\n2\n3\n4\n5\n6\n", true)
	want("b.txt", "", false)

	if _, err := e.UndoSession(ctx, "nobody", replay.RevertOptions{}); !errors.Is(err, replay.ErrBadEvent) {
		t.Fatalf("unknown session: %v", err)
	}
	verifyChain(t, e)
}

// TestUndoSession_TakesItsShellCalls: a session's shell call, recorded by
// an agent hook (an observe event with the agent's tool and session), is
// undone with the session's tool edits; a change the watcher saw, which
// no session made, is left alone.
func TestUndoSession_TakesItsShellCalls(t *testing.T) {
	dir := t.TempDir()
	e := open(t, dir)
	s3 := &journal.Actor{Kind: "agent", Name: "claude-code", Session: "s3"}
	if _, err := e.Apply(ctx, &replay.Batch{Tool: "file_replace", Actor: s3, Changes: []replay.Change{{Path: "a.txt", Data: []byte("by the tool\n")}}}); err != nil {
		t.Fatal(err)
	}
	observe := func(path, data, tool string, actor *journal.Actor) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, path), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		ob, err := e.Observe(ctx, replay.Observation{Paths: []string{path}, Tool: tool, Actor: actor, Args: []byte(`{"command":"sed -i ..."}`)})
		if err != nil || len(ob.Events) != 1 {
			t.Fatalf("observe %s: %+v %v", path, ob, err)
		}
	}
	observe("b.txt", "by the agent's shell\n", "Bash", s3)
	observe("c.txt", "by someone else\n", journal.ToolWatch, nil)
	res, err := e.UndoSession(ctx, "s3", replay.RevertOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ev, err := e.Event(res.Seq)
	if err != nil || len(ev.Undone) != 2 {
		t.Fatalf("the undo: %+v %v", ev, err)
	}
	for path, exists := range map[string]bool{"a.txt": false, "b.txt": false, "c.txt": true} {
		if _, ok := read(t, dir, path); ok != exists {
			t.Errorf("%s exists: %v, want %v", path, ok, exists)
		}
	}
}
