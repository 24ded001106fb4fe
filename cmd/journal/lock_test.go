package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/journalfs/journal/journal"
)

// TestCLI_SaysItWaits: a command that waits more than a second for the
// journal's lock (another process's batch) says so on stderr, then runs
// when the lock is let go: exit 0, its output intact; one behind a holder
// that makes no progress at all gives up with BUSY and a hint.
func TestCLI_SaysItWaits(t *testing.T) {
	dir := damageWorkspace(t, 3)
	lockPath := filepath.Join(dir, journal.DirName, journal.FileName) + ".lock"
	hold := func() func() {
		f, err := os.OpenFile(lockPath, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
			t.Fatal(err)
		}
		return func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }
	}
	for _, args := range [][]string{{"log", "-n", "2"}, {"undo"}} {
		release := hold()
		go func() { time.Sleep(1500 * time.Millisecond); release() }()
		r := run(t, dir, args...)
		if r.code != 0 || !strings.Contains(r.stderr, "waiting for another process using this journal") {
			t.Fatalf("journal %s behind a 1.5 s batch: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
		}
		if args[0] == "log" && !strings.Contains(r.stdout, "edit_file") || args[0] == "undo" && !strings.Contains(r.stdout, "undid event") {
			t.Fatalf("journal %s: %s", strings.Join(args, " "), r.stdout)
		}
	}
	release := hold()
	defer release()
	r := run(t, dir, "log")
	if r.code == 0 || !strings.Contains(r.stderr, "BUSY") || !strings.Contains(r.stderr, "no progress") {
		t.Fatalf("behind a stuck holder: exit %d\nstdout:%s\nstderr:%s", r.code, r.stdout, r.stderr)
	}
}
