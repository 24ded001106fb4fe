package replay_test

import (
	"errors"
	"fmt"
	"syscall"
	"testing"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay"
	"github.com/journalfs/journal/snapshot"
)

func faultBatch() *replay.Batch {
	return &replay.Batch{Tool: "fault", Changes: []replay.Change{
		{Path: "a.txt", Data: []byte("A2\r\n")},
		{Path: "sub/new.txt", Data: []byte("new\n")},
		{Path: "b.txt", Delete: true},
		{Path: "c.bin", Data: []byte{0, 9, 0, 9}},
	}}
}

// inPlaceBatch modifies existing files only: its temps are written while
// its intent commits (replay's writeAhead).
func inPlaceBatch() *replay.Batch {
	return &replay.Batch{Tool: "fault", Changes: []replay.Change{
		{Path: "a.txt", Data: []byte("A2\r\n")},
		{Path: "b.txt", Data: []byte("B2\n")},
		{Path: "c.bin", Data: []byte{0, 9, 0, 9}},
	}}
}

func faultWorkspace(t *testing.T) (string, *replay.Engine, map[string]string) {
	dir := t.TempDir()
	write(t, dir, "a.txt", "A1\r\n")
	write(t, dir, "b.txt", "B1\n")
	write(t, dir, "c.bin", "\x00\x01")
	e := open(t, dir)
	return dir, e, snapshotDir(t, dir)
}

// TestFault_EachStep fails each step of the apply protocol in turn (every
// write, fsync, rename, removal, directory sync and the intent's commit) with
// ENOSPC and EIO: every case returns an error and leaves everything as before.
// Both for a batch with new and removed files and for one that only modifies
// files, whose temps are written while the intent commits.
func TestFault_EachStep(t *testing.T) {
	for _, bc := range []struct {
		name  string
		batch func() *replay.Batch
	}{{"mixed", faultBatch}, {"in-place", inPlaceBatch}} {
		batch := bc.batch
		t.Run(bc.name, func(t *testing.T) {
			// Count the steps of a clean run.
			_, e, _ := faultWorkspace(t)
			var steps []string
			e.SetFault(func(step, path string) error { steps = append(steps, step+" "+path); return nil })
			if _, err := e.Apply(ctx, batch()); err != nil {
				t.Fatal(err)
			}
			e.SetFault(nil) // the steps of the batch, not of its deferred checkpoint (TestFault_Checkpoint)
			if len(steps) < 10 {
				t.Fatalf("only %d steps seen: %v", len(steps), steps)
			}
			for _, errno := range []syscall.Errno{syscall.ENOSPC, syscall.EIO} {
				for n := range steps {
					t.Run(fmt.Sprintf("%v/%d-%s", errno, n, steps[n]), func(t *testing.T) {
						dir, e, before := faultWorkspace(t)
						count := 0
						e.SetFault(func(step, path string) error {
							count++
							if count == n+1 {
								return fmt.Errorf("injected at %s %s: %w", step, path, errno)
							}
							return nil
						})
						_, err := e.Apply(ctx, batch())
						if !errors.Is(err, errno) {
							t.Fatalf("got %v, want %v", err, errno)
						}
						if errno == syscall.ENOSPC && !errors.Is(err, replay.ErrNoSpace) {
							t.Fatalf("ENOSPC not classified: %v", err)
						}
						checkRolledBack(t, e, dir, before)
					})
				}
				for commit := 1; commit <= 1; commit++ { // the one commit before the batch returns: its seal is deferred (TestFault_DeferredSeal)
					t.Run(fmt.Sprintf("%v/commit-%d", errno, commit), func(t *testing.T) {
						dir, e, before := faultWorkspace(t)
						count := 0
						e.SetCommitFault(func() error {
							count++
							if count == commit {
								return fmt.Errorf("injected commit failure: %w", errno)
							}
							return nil
						})
						if _, err := e.Apply(ctx, batch()); !errors.Is(err, errno) {
							t.Fatalf("got %v", err)
						}
						e.SetCommitFault(nil)
						checkRolledBack(t, e, dir, before)
					})
				}
			}
		})
	}
}

func checkRolledBack(t *testing.T, e *replay.Engine, dir string, before map[string]string) {
	t.Helper()
	if k, ok := equalMaps(before, snapshotDir(t, dir)); !ok {
		t.Fatalf("disk changed at %s", k)
	}
	if tmp := temps(dir); len(tmp) != 0 {
		t.Fatalf("temp files left: %v", tmp)
	}
	e.SetFault(nil)
	e.SetCommitFault(nil)
	if _, err := e.Recover(); err != nil {
		t.Fatal(err)
	}
	if k, ok := equalMaps(before, snapshotDir(t, dir)); !ok {
		t.Fatalf("recovery changed %s", k)
	}
	verifyChain(t, e)
	err := e.Journal().View(func(tx *journal.Tx) error {
		if last := tx.Last(); last > 0 {
			ev, _ := tx.Event(last)
			if ev.Status != journal.StatusRolledBack {
				return fmt.Errorf("last event %d is %s", last, ev.Status)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// And the workspace still works.
	if _, err := e.Apply(ctx, faultBatch()); err != nil {
		t.Fatalf("apply after fault: %v", err)
	}
}

// TestFault_DeferredSeal: a batch returns once its files are in place; its
// seal is committed later, with the next batch's intent or on its own. When
// that commit fails, the next batch fails and is rolled back, the first stays
// as it was acknowledged, and a later seal commits it.
func TestFault_DeferredSeal(t *testing.T) {
	for _, errno := range []syscall.Errno{syscall.ENOSPC, syscall.EIO} {
		t.Run(errno.Error(), func(t *testing.T) {
			dir, e, _ := faultWorkspace(t)
			if _, err := e.Apply(ctx, inPlaceBatch()); err != nil {
				t.Fatal(err)
			}
			after := snapshotDir(t, dir)
			fail := func() error { return fmt.Errorf("injected commit failure: %w", errno) }
			e.SetCommitFault(fail)
			next := &replay.Batch{Tool: "fault", Changes: []replay.Change{{Path: "a.txt", Data: []byte("A3\r\n")}}}
			if _, err := e.Apply(ctx, next); !errors.Is(err, errno) {
				t.Fatalf("next batch: got %v, want %v", err, errno)
			}
			if err := e.FlushSeal(); !errors.Is(err, errno) {
				t.Fatalf("seal on its own: got %v, want %v", err, errno)
			}
			if k, ok := equalMaps(after, snapshotDir(t, dir)); !ok {
				t.Fatalf("disk is not as the first batch left it, at %s", k)
			}
			if tmp := temps(dir); len(tmp) != 0 {
				t.Fatalf("temp files left: %v", tmp)
			}
			e.SetCommitFault(nil)
			if err := e.FlushSeal(); err != nil {
				t.Fatal(err)
			}
			err := e.Journal().View(func(tx *journal.Tx) error {
				if p := tx.Pending(); len(p) != 0 {
					return fmt.Errorf("pending %v", p)
				}
				ev, err := tx.Event(tx.Last())
				if err == nil && (ev.Status != journal.StatusCommitted || ev.Files[0].After != snapshot.Sum([]byte(after["a.txt"]))) {
					err = fmt.Errorf("last event %d is %s", ev.Seq, ev.Status)
				}
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			verifyChain(t, e)
		})
	}
}
