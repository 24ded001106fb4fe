package main_test

import (
	"strings"
	"testing"
	"time"
)

// TestGC_ThroughBinary: retention drops old events but never a file's last
// state, records itself as an event, and leaves a journal that verifies.
func TestGC_ThroughBinary(t *testing.T) {
	dir := t.TempDir()
	e := engine(t, dir)
	apply(t, e, "write_file", "a.txt", "a1\n", "b.txt", "b1\n")
	apply(t, e, "edit_file", "a.txt", "a2\n")
	apply(t, e, "edit_file", "b.txt", "b2\n")
	time.Sleep(1500 * time.Millisecond)
	apply(t, e, "edit_file", "a.txt", "a3\n")
	before := ok(t, dir, "export")

	dry := ok(t, dir, "gc", "--keep", "1s", "--dry-run")
	if !strings.Contains(dry, "3") || ok(t, dir, "export") != before {
		t.Fatalf("dry run changed the journal or said nothing useful:\n%s", dry)
	}
	out := ok(t, dir, "gc", "--keep", "1s")
	t.Logf("gc: %s", out)
	ok(t, dir, "verify")
	log := ok(t, dir, "log", "--oneline")
	if !strings.Contains(log, "gc") || strings.Count(strings.TrimSpace(log), "\n")+1 != 2 {
		t.Fatalf("log after gc (want the a3 edit and the gc event):\n%s", log)
	}
	// b.txt's last state survived: the workspace is clean and b.txt can be restored after a change.
	if st := ok(t, dir, "status"); strings.Contains(st, "b.txt") {
		t.Fatalf("status after gc:\n%s", st)
	}
	apply(t, e, "edit_file", "b.txt", "b3\n")
	ok(t, dir, "undo")
	if got := readFile(t, dir, "b.txt"); got != "b2\n" {
		t.Fatalf("b.txt after undo %q", got)
	}
	// A second run with nothing old enough drops nothing and records nothing.
	n := strings.Count(ok(t, dir, "log", "--oneline"), "\n")
	ok(t, dir, "gc", "--keep", "1h")
	if strings.Count(ok(t, dir, "log", "--oneline"), "\n") != n {
		t.Fatal("a no-op gc recorded an event")
	}
}
