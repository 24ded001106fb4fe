package replay_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay"
)

// killAt is a Fault hook that kills the process (SIGKILL, by itself) the n-th
// time the apply protocol reaches step.
func killAt(step string, n int) func(step, path string) error {
	seen := 0
	return func(s, _ string) error {
		if s == step {
			if seen++; seen == n {
				syscall.Kill(os.Getpid(), syscall.SIGKILL)
			}
		}
		return nil
	}
}

// runKilled runs the test function child in a child process, with env added
// to its environment, and fails unless a signal killed it.
func runKilled(t *testing.T, child string, env ...string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+child+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), env...)
	err := cmd.Run()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
		t.Fatalf("child %s was not killed: %v", child, err)
	}
}

// crashChild is the body of a child process started by runKilled: unless the
// environment variable env names a root (the test runs as a parent), it
// skips; otherwise it opens an engine on that root with o's hooks, applies
// changes, and exits with status 4 if the hooks did not kill it (3 if the
// engine did not open).
func crashChild(t *testing.T, env string, o replay.Options, changes ...replay.Change) {
	dir := os.Getenv(env)
	if dir == "" {
		t.Skip("child process, runs when " + env + " is set")
	}
	o.Roots = []string{dir}
	e, err := replay.Open(o)
	if err != nil {
		os.Exit(3)
	}
	e.Apply(ctx, &replay.Batch{Tool: "crash", Changes: changes})
	os.Exit(4) // not killed: the step never came
}

// TestCrashDirsChild is the child process of TestCrash_RemovesCreatedDirs: it
// applies one batch that creates files in new directories and is killed
// (SIGKILL, by itself) at the given step of the apply protocol.
func TestCrashDirsChild(t *testing.T) {
	// At the second file: the first is already in place.
	crashChild(t, "JOURNAL_CRASH_DIRS_ROOT", replay.Options{Fault: killAt(os.Getenv("JOURNAL_CRASH_DIRS_STEP"), 2)},
		replay.Change{Path: "new/a/b/one.txt", Data: []byte("one\n")},
		replay.Change{Path: "new/a/c/two.txt", Data: []byte("two\n")},
		replay.Change{Path: "old/three.txt", Data: []byte("three\n")})
}

// TestCrash_RemovesCreatedDirs: after a crash in the middle of a batch that
// made directories for new files, recovery rolls the batch back and removes
// those directories again, but not one that existed before. A crash once
// every file is in place (at the directories' fsync) completed the batch.
func TestCrash_RemovesCreatedDirs(t *testing.T) {
	if os.Getenv("JOURNAL_CRASH_DIRS_ROOT") != "" {
		t.Skip("in child")
	}
	for _, step := range []string{"write", "rename", "dirsync"} {
		t.Run(step, func(t *testing.T) {
			dir := t.TempDir()
			os.MkdirAll(filepath.Join(dir, "old"), 0o755)
			runKilled(t, "TestCrashDirsChild", "JOURNAL_CRASH_DIRS_ROOT="+dir, "JOURNAL_CRASH_DIRS_STEP="+step)
			e, err := replay.Open(replay.Options{Roots: []string{dir}}) // recovers
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			if step == "dirsync" {
				// Every file was in place (the directories were being
				// synced): the batch completed, and recovery seals it
				// committed instead of undoing it.
				var ev *journal.Event
				e.Journal().View(func(tx *journal.Tx) (err error) { ev, err = tx.Event(tx.Last()); return })
				if ev == nil || ev.Status != journal.StatusCommitted {
					t.Fatalf("event %+v, want committed", ev)
				}
				if b, err := os.ReadFile(filepath.Join(dir, "new/a/c/two.txt")); err != nil || string(b) != "two\n" {
					t.Fatalf("two.txt: %q, %v", b, err)
				}
				return
			}
			if _, err := os.Stat(filepath.Join(dir, "new")); !os.IsNotExist(err) {
				t.Fatalf("the directories the batch made are still there: %v", err)
			}
			if _, err := os.Stat(filepath.Join(dir, "old")); err != nil {
				t.Fatalf("a directory that existed before is gone: %v", err)
			}
			if tmp := temps(dir); len(tmp) != 0 {
				t.Fatalf("temp files left: %v", tmp)
			}
			var ev *journal.Event
			e.Journal().View(func(tx *journal.Tx) (err error) { ev, err = tx.Event(tx.Last()); return })
			if ev == nil || ev.Status != journal.StatusRolledBack || len(ev.Files[0].NewDirs) != 3 {
				t.Fatalf("event %+v", ev)
			}
		})
	}
}

// TestCrashAheadChild is the child process of TestCrash_WriteAheadTemps: it
// applies a batch that modifies files in place, whose intent's commit fails
// (nothing of it is written), and is killed (SIGKILL, by itself) once both
// temps are written. The batch is small (its intent is a write-ahead log
// record, its temps are not fsynced: step "written"; they are written
// between the record's write and its sync, and still when the record could
// not be written) or, with JOURNAL_CRASH_AHEAD_BIG, too large for the log
// (a bbolt intent, fsynced temps written while it commits).
func TestCrashAheadChild(t *testing.T) {
	step, one, two := "written", []byte("one, edited\n"), []byte("two, edited\n")
	if os.Getenv("JOURNAL_CRASH_AHEAD_BIG") != "" {
		step = "fsync"
		one = bytes.Repeat(one, 300_000)
	}
	crashChild(t, "JOURNAL_CRASH_AHEAD_ROOT", replay.Options{
		Fault:       killAt(step, 2),
		CommitFault: func() error { return errors.New("the intent never lands") },
	},
		replay.Change{Path: "one.txt", Data: one},
		replay.Change{Path: "sub/two.txt", Data: two})
}

// TestCrash_WriteAheadTemps: a batch that writes its temps while its intent
// commits, killed before the intent landed, leaves no temp behind once the
// journal is opened again (the lock file's note names them), and nothing
// else changes.
func TestCrash_WriteAheadTemps(t *testing.T) {
	if os.Getenv("JOURNAL_CRASH_AHEAD_ROOT") != "" {
		t.Skip("in child")
	}
	for _, big := range []string{"", "1"} {
		t.Run("big="+big, func(t *testing.T) { crashWriteAhead(t, big) })
	}
}

func crashWriteAhead(t *testing.T, big string) {
	dir := t.TempDir()
	write(t, dir, "one.txt", "one\n")
	write(t, dir, "sub/two.txt", "two\n")
	before := snapshotDir(t, dir)
	runKilled(t, "TestCrashAheadChild", "JOURNAL_CRASH_AHEAD_ROOT="+dir, "JOURNAL_CRASH_AHEAD_BIG="+big)
	if tmp := temps(dir); len(tmp) != 2 {
		t.Fatalf("the child should have left both temps: %v", tmp)
	}
	e, err := replay.Open(replay.Options{Roots: []string{dir}}) // recovers
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if tmp := temps(dir); len(tmp) != 0 {
		t.Fatalf("temp files left: %v", tmp)
	}
	if k, ok := equalMaps(before, snapshotDir(t, dir)); !ok {
		t.Fatalf("disk changed at %s", k)
	}
	var last uint64
	e.Journal().View(func(tx *journal.Tx) error { last = tx.Last(); return nil })
	if last != 0 {
		t.Fatalf("the intent never committed, yet the journal has event %d", last)
	}
	if _, err := e.Apply(ctx, &replay.Batch{Changes: []replay.Change{{Path: "one.txt", Data: []byte("after\n")}}}); err != nil {
		t.Fatal(err)
	}
}

// TestCrashSealChild is the child process of TestCrash_AcknowledgedBeforeSeal:
// it applies one batch and, as soon as Apply has returned (the seal is
// deferred), kills itself; with JOURNAL_CRASH_SEAL_OUTSIDE set, a file of the
// batch is first changed by "someone else".
func TestCrashSealChild(t *testing.T) {
	dir := os.Getenv("JOURNAL_CRASH_SEAL_ROOT")
	if dir == "" {
		t.Skip("child process of TestCrash_AcknowledgedBeforeSeal")
	}
	e, err := replay.Open(replay.Options{Roots: []string{dir}})
	if err != nil {
		os.Exit(3)
	}
	_, err = e.Apply(ctx, &replay.Batch{Tool: "crash", Changes: []replay.Change{
		{Path: "one.txt", Data: []byte("one, edited\n")},
		{Path: "new/two.txt", Data: []byte("two\n")},
		{Path: "gone.txt", Delete: true},
	}})
	if err != nil {
		os.Exit(5)
	}
	if os.Getenv("JOURNAL_CRASH_SEAL_OUTSIDE") != "" {
		os.WriteFile(filepath.Join(dir, "one.txt"), []byte("changed by someone else\n"), 0o644)
	}
	syscall.Kill(os.Getpid(), syscall.SIGKILL)
}

// TestCrash_AcknowledgedBeforeSeal: a batch that returned success is never
// undone by recovery, even though its process died before the deferred seal:
// recovery seals it committed (the lock file's note says its files were in
// place; without the note, finding them all in place is enough).
func TestCrash_AcknowledgedBeforeSeal(t *testing.T) {
	if os.Getenv("JOURNAL_CRASH_SEAL_ROOT") != "" {
		t.Skip("in child")
	}
	for _, c := range []struct {
		name             string
		outside, unnoted bool
	}{{"in-place", false, false}, {"changed-since", true, false}, {"note-lost", false, true}} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, "one.txt", "one\n")
			write(t, dir, "gone.txt", "gone\n")
			cmd := exec.Command(os.Args[0], "-test.run=^TestCrashSealChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), "JOURNAL_CRASH_SEAL_ROOT="+dir)
			if c.outside {
				cmd.Env = append(cmd.Env, "JOURNAL_CRASH_SEAL_OUTSIDE=1")
			}
			err := cmd.Run()
			if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
				t.Fatalf("child was not killed: %v", err)
			}
			lock := replay.DefaultJournalPath(dir) + ".lock"
			if c.unnoted { // as after a power failure: the note was never written back
				if err := os.WriteFile(lock, nil, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			e, err := replay.Open(replay.Options{Roots: []string{dir}}) // recovers
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			want := map[string]string{"one.txt": "one, edited\n", "new/two.txt": "two\n"}
			if c.outside {
				want["one.txt"] = "changed by someone else\n"
			}
			if k, ok := equalMaps(want, snapshotDir(t, dir)); !ok {
				t.Fatalf("disk differs at %s: %v", k, snapshotDir(t, dir))
			}
			var ev *journal.Event
			e.Journal().View(func(tx *journal.Tx) (err error) { ev, err = tx.Event(tx.Last()); return })
			if ev == nil || ev.Status != journal.StatusCommitted || ev.Tool != "crash" {
				t.Fatalf("last event %+v, want the batch committed", ev)
			}
			verifyChain(t, e)
			// The outside change is recorded before the next batch overwrites it.
			res, err := e.Apply(ctx, &replay.Batch{Changes: []replay.Change{{Path: "one.txt", Data: []byte("next\n")}}})
			if err != nil {
				t.Fatal(err)
			}
			if got := len(res.Observed); (got == 1) != c.outside {
				t.Fatalf("observed %v (outside change: %v)", res.Observed, c.outside)
			}
		})
	}
}
