package replay_test

import (
	"testing"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay"
)

// A file read for a later Observe (Capture: a watcher answering an agent's
// hook before it stores the call's changes) that one of the engine's own
// batches writes before that Observe is not recorded as read: what was
// read is older than the batch's head, and recording it would take the
// journal's head back from what is on disk. It is returned Unsettled, to
// be looked at again; a captured outside change whose head did not move is
// recorded as before.
func TestObserve_CapturedThenWrittenByABatch(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "d.txt", "one\n")
	write(t, dir, "o.txt", "o\n")
	e := open(t, dir)
	if _, err := e.Observe(ctx, replay.Observation{Paths: []string{"d.txt", "o.txt"}}); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "o.txt", "outside\n") // an outside change, captured below
	c := e.Capture([]string{"d.txt", "o.txt"})
	res, err := e.Apply(ctx, &replay.Batch{Tool: "edit_content", Changes: []replay.Change{{Path: "d.txt", Data: []byte("two\n")}}})
	if err != nil {
		t.Fatal(err)
	}
	ob, err := e.Observe(ctx, replay.Observation{Paths: []string{"d.txt", "o.txt"}, Tool: "Bash", Captured: c})
	if err != nil {
		t.Fatal(err)
	}
	if len(ob.Files) != 1 || ob.Files[0].Path != "o.txt" || len(ob.Unsettled) != 1 || ob.Unsettled[0] != "d.txt" {
		t.Fatalf("recorded %+v, unsettled %v", ob.Files, ob.Unsettled)
	}
	err = e.Journal().View(func(tx *journal.Tx) error {
		if h, _ := tx.Head("d.txt"); h.Seq != res.Seq {
			t.Errorf("d.txt's head is event %d, not the batch's %d", h.Seq, res.Seq)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
