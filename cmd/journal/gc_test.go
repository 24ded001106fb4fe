package main_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
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

// TestGC_GivesDiskBack: a gc that drops most of 10,000 events compacts the
// journal file to a fraction of its size; it verifies, and an engine opened
// before the gc (a connected server) goes on editing without a restart.
func TestGC_GivesDiskBack(t *testing.T) {
	dir := t.TempDir()
	p := bigJournal(t, dir, 10000)
	e := engine(t, dir) // connected before the gc
	before, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	out := ok(t, dir, "gc", "--keep", "1h")
	after, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s; %d → %d bytes", strings.TrimSpace(grepLines(out, "went from")), before.Size(), after.Size())
	if after.Size() > before.Size()*15/100 || !strings.Contains(out, "the journal file went from") {
		t.Fatalf("after a gc of nearly every event the file is %d of %d bytes:\n%s", after.Size(), before.Size(), out)
	}
	ok(t, dir, "verify")
	seq := apply(t, e, "edit_file", "src/new.go", "package f\n")
	if log := ok(t, dir, "log", "-n", "1", "--oneline"); !strings.HasPrefix(log, fmt.Sprint(seq)) {
		t.Fatalf("the connected engine's edit after the gc: %d, log:\n%s", seq, log)
	}
	ok(t, dir, "verify")
}

// TestGC_KilledAnywhere: gc killed with SIGKILL at moments spread over its
// run (the drop, the compaction, the rename) leaves a journal that
// verifies, with every event either kept or dropped by a gc event; the next
// gc completes.
func TestGC_KilledAnywhere(t *testing.T) {
	src := t.TempDir()
	bigJournal(t, src, 10000)
	start := time.Now()
	probe := t.TempDir()
	copyTree(t, src, probe)
	ok(t, probe, "gc", "--keep", "1h")
	full := time.Since(start)
	t.Logf("a whole gc takes %v", full)
	for i := 1; i <= 8; i++ {
		delay := full * time.Duration(i) / 9
		t.Run(fmt.Sprint(delay.Round(time.Millisecond)), func(t *testing.T) {
			dir := t.TempDir()
			copyTree(t, src, dir)
			cmd := exec.Command(bin, "gc", "--keep", "1h")
			cmd.Dir = dir
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(delay)
			cmd.Process.Kill()
			cmd.Wait()
			ok(t, dir, "verify")
			log := ok(t, dir, "log", "--oneline")
			if n := strings.Count(log, "\n"); n != 10000 && !strings.Contains(log, " gc") {
				t.Fatalf("%d events and no gc event", n)
			}
			ok(t, dir, "gc", "--keep", "1h")
			ok(t, dir, "verify")
			if _, err := os.Stat(filepath.Join(dir, ".journal", "journal.db.compact")); err == nil {
				t.Fatal("a crashed compaction's file is left after the next gc")
			}
		})
	}
}

// TestGC_CompactsWhatAnEarlierGCLeft: a journal whose file is mostly free
// pages (as a gc by a binary that did not compact leaves it) shows them in
// status, and a gc with nothing to drop compacts them away.
func TestGC_CompactsWhatAnEarlierGCLeft(t *testing.T) {
	dir := t.TempDir()
	p := bigJournal(t, dir, 2000)
	db, err := bolt.Open(p, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	junk := make([]byte, 1<<20)
	if err := db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucket([]byte("dropped-by-an-old-gc"))
		for i := 0; err == nil && i < 24; i++ {
			err = b.Put([]byte(fmt.Sprint(i)), junk)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error { return tx.DeleteBucket([]byte("dropped-by-an-old-gc")) }); err != nil {
		t.Fatal(err)
	}
	db.Close()
	before, _ := os.Stat(p)
	if st := ok(t, dir, "status"); !strings.Contains(st, "free pages") {
		t.Fatalf("status does not show the free pages:\n%s", st)
	}
	out := ok(t, dir, "gc", "--keep", "100000h")
	after, _ := os.Stat(p)
	t.Logf("%s", strings.TrimSpace(out))
	if after.Size()*2 > before.Size() {
		t.Fatalf("gc left the file at %d of %d bytes:\n%s", after.Size(), before.Size(), out)
	}
	ok(t, dir, "verify")
	if n := strings.Count(ok(t, dir, "log", "--oneline"), "\n"); n != 2000 {
		t.Fatalf("%d events after a gc that dropped none", n)
	}
}

// TestGC_DryRunSaysWhatTheRunDoes: `gc --keep D --dry-run` reports the very counts the real run just after
// reports (small contents stored as one whole chunk were counted as chunks only by the dry run: "would
// drop 7 contents", then "dropped 10"), and the size line never reads "from 1.0 MiB to 1.0 MiB": bytes
// when the rounded sizes are equal, and why when the file did not shrink.
func TestGC_DryRunSaysWhatTheRunDoes(t *testing.T) {
	for _, c := range []struct {
		name                string
		files, size, rounds int
	}{{"small", 6, 8, 3}, {"1MiB", 40, 24 << 10, 3}, {"1MiB-little-dropped", 40, 24 << 10, 1}} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			e := engine(t, dir)
			rnd := rand.New(rand.NewPCG(1, 2))
			content := func(n int) string {
				b := make([]byte, n)
				for i := range b {
					b[i] = byte('a' + rnd.IntN(26))
				}
				return string(b) + "\n"
			}
			for round := 0; round < c.rounds; round++ {
				for i := 0; i < c.files; i++ {
					apply(t, e, "write_file", fmt.Sprintf("f%d.txt", i), content(c.size))
				}
			}
			apply(t, e, "write_file", "f0.txt", content(c.size))
			time.Sleep(1100 * time.Millisecond)
			apply(t, e, "write_file", "f1.txt", content(c.size))
			e.Close()
			counts := func(out string) string {
				for _, l := range strings.Split(out, "\n") {
					if strings.Contains(l, " contents, ") {
						return strings.TrimPrefix(strings.TrimPrefix(l, "would drop "), "dropped ")
					}
				}
				t.Fatalf("no counts in:\n%s", out)
				return ""
			}
			dry := ok(t, dir, "gc", "--keep", "1s", "--dry-run")
			real := ok(t, dir, "gc", "--keep", "1s")
			t.Logf("dry run:\n%sreal run:\n%s", dry, real)
			if counts(dry) != counts(real) {
				t.Errorf("the dry run said %q, the run did %q", counts(dry), counts(real))
			}
			if m := regexp.MustCompile(`went from (\S+ \S+) to (\S+ \S+)`).FindStringSubmatch(real); m != nil && m[1] == m[2] {
				t.Errorf("the size line says nothing: %s", m[0])
			}
			ok(t, dir, "verify")
		})
	}
}
