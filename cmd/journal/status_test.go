package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/snapshot"
)

// TestStatus_FinishesPending: `journal status` reports the batch a stopped
// process left pending as it found it, and what finishing it did: sealed
// committed when its file was in place (a server killed before its deferred
// seal), rolled back otherwise (a crash in the middle); afterwards nothing is
// pending.
func TestStatus_FinishesPending(t *testing.T) {
	for _, c := range []struct {
		name, disk, want string
		status           journal.Status
	}{
		{"in-place", "after\n", "sealed committed now", journal.StatusCommitted},
		{"midway", "before\n", "rolled back now", journal.StatusRolledBack},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte(c.disk), 0o644); err != nil {
				t.Fatal(err)
			}
			j, err := journal.Open(filepath.Join(dir, journal.DirName, journal.FileName), journal.Options{Create: true})
			if err != nil {
				t.Fatal(err)
			}
			ev := &journal.Event{Time: time.Now().UTC(), Kind: journal.KindApply, Actor: agent, Tool: "edit_file",
				Status: journal.StatusPending, Files: []journal.FileChange{{Path: "a.txt",
					Before: snapshot.Sum([]byte("before\n")), After: snapshot.Sum([]byte("after\n")), BeforeMode: 0o644, AfterMode: 0o644}}}
			err = j.Do(func(db *journal.DB) error {
				return db.Update(func(tx *journal.Tx) error {
					for _, s := range []string{"before\n", "after\n"} {
						if _, err := snapshot.PutTx(tx.Bolt(), []byte(s)); err != nil {
							return err
						}
					}
					return tx.Append(ev)
				})
			})
			if err != nil {
				t.Fatal(err)
			}
			out := ok(t, dir, "status")
			if want := "pending   1 batch(es) a stopped process left: event 1 ("; !strings.Contains(out, want) || !strings.Contains(out, c.want) {
				t.Fatalf("status does not report the pending batch as %q:\n%s", c.want, out)
			}
			var got journal.Status
			j.View(func(tx *journal.Tx) error { e, err := tx.Event(1); got = e.Status; return err })
			if got != c.status {
				t.Fatalf("event 1 is %s, want %s", got, c.status)
			}
			if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != c.disk {
				t.Fatalf("a.txt = %q, want %q", b, c.disk)
			}
			if out := ok(t, dir, "status"); !strings.Contains(out, "pending   none") {
				t.Fatalf("still pending:\n%s", out)
			}
		})
	}
}

// TestStatus_FinishesLogged: a batch committed by its write-ahead log record
// whose process stopped before moving it into the journal file (here, before
// its rename: the file still holds its before-content) is completed by
// status — the file gets its after-content, the event is committed — and
// reported.
func TestStatus_FinishesLogged(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("before\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	j, err := journal.Open(filepath.Join(dir, journal.DirName, journal.FileName), journal.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	ev := &journal.Event{Seq: 1, Time: time.Now().UTC(), Kind: journal.KindApply, Actor: agent, Tool: "edit_file",
		Status: journal.StatusCommitted, Files: []journal.FileChange{{Path: "a.txt",
			Before: snapshot.Sum([]byte("before\n")), After: snapshot.Sum([]byte("after\n")), BeforeMode: 0o644, AfterMode: 0o644}}}
	rec := &journal.LogRecord{Events: []*journal.Event{ev}, Contents: []journal.LogContent{
		{ID: snapshot.Sum([]byte("before\n")), Data: []byte("before\n")}, {ID: snapshot.Sum([]byte("after\n")), Data: []byte("after\n")}}}
	if err := j.Do(func(db *journal.DB) error { _, err := db.LogAppend(0, rec); return err }); err != nil {
		t.Fatal(err)
	}
	j.Close()
	out := ok(t, dir, "status")
	if want := "logged    events 1–1 were committed through the write-ahead log"; !strings.Contains(out, want) || !strings.Contains(out, "pending   none") {
		t.Fatalf("status does not report the logged batch:\n%s", out)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "after\n" {
		t.Fatalf("a.txt = %q", b)
	}
	var got *journal.Event
	j.View(func(tx *journal.Tx) (err error) { got, err = tx.Event(1); return })
	if got == nil || got.Status != journal.StatusCommitted || got.Tool != "edit_file" {
		t.Fatalf("event 1: %+v", got)
	}
	if out := ok(t, dir, "status"); strings.Contains(out, "logged") || !strings.Contains(out, "no file changed outside") {
		t.Fatalf("second status:\n%s", out)
	}
	if out := ok(t, dir, "verify"); !strings.Contains(out, "ok: 1 events, chain intact") {
		t.Fatalf("verify:\n%s", out)
	}
}

// TestStatus_TrustsTheStamp: on a journal its last check (or write) left as
// it is, status reports the check's word and the free pages without walking
// the file; once the file changes behind its back, status walks it again,
// and names damage.
func TestStatus_TrustsTheStamp(t *testing.T) {
	dir := damageWorkspace(t, 20)
	jp := filepath.Join(dir, journal.DirName, journal.FileName)
	time.Sleep(1100 * time.Millisecond) // past the stamp's margin
	first := ok(t, dir, "status")
	if !strings.Contains(first, "pages of 4096 bytes walked") && !strings.Contains(first, "unchanged since its last check") {
		t.Fatalf("status:\n%s", first)
	}
	if second := ok(t, dir, "status"); !strings.Contains(second, "structure ok (unchanged since its last check") {
		t.Fatalf("second status:\n%s", second)
	}
	// a byte of both meta pages' txid flipped behind the journal's back
	b, err := os.ReadFile(jp)
	if err != nil {
		t.Fatal(err)
	}
	ps := os.Getpagesize()
	b[64] ^= 0x01
	b[ps+64] ^= 0x01
	if err := os.WriteFile(jp, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if r := run(t, dir, "status"); r.code == 0 || !strings.Contains(r.stderr, "JOURNAL_DAMAGED") {
		t.Fatalf("status on a damaged file: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestStatus_ListsNewFiles: with no watcher running, `journal status` names the files made since the
// journal last looked (which the next watcher records as first seen) beside the changed and deleted ones,
// and leaves out what the ignore rules leave out.
func TestStatus_ListsNewFiles(t *testing.T) {
	dir := t.TempDir()
	files(t, dir, map[string]string{"a.txt": "a\n", "gone.txt": "g\n", ".gitignore": "*.log\n"})
	ok(t, dir, "exec", "--", "true") // the journal and its baseline
	bash(t, dir, `echo b >> a.txt && rm gone.txt && printf 'new\n' > new.txt && mkdir -p sub/deep && printf 'x\n' > sub/deep/n.go && echo noise > run.log`)
	out := ok(t, dir, "status")
	for _, want := range []string{"changed outside the journal (4):", "M  a.txt", "D  gone.txt", "A  new.txt  new: never journaled", "A  sub/deep/n.go  new: never journaled"} {
		if !strings.Contains(out, want) {
			t.Errorf("status does not say %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "run.log") {
		t.Errorf("status lists an ignored file:\n%s", out)
	}
}

// TestStatus_NamesAChmod: a chmod made outside the journal is listed by
// `journal status` as a mode change, and once recorded (here by `journal
// exec`, which looks at the tree before and after its command) the status
// is clean again.
func TestStatus_NamesAChmod(t *testing.T) {
	dir := t.TempDir()
	files(t, dir, map[string]string{"run.sh": "echo hi\n", "b.txt": "b\n"})
	os.Chmod(filepath.Join(dir, "run.sh"), 0o644)
	ok(t, dir, "exec", "--", "true") // the journal and its baseline
	bash(t, dir, `chmod 755 run.sh && echo more >> b.txt && chmod 600 b.txt`)
	out := ok(t, dir, "status")
	for _, want := range []string{"changed outside the journal (2):", "M  run.sh  mode 644 -> 755; content as the journal has it", ", mode 644 -> 600"} {
		if !strings.Contains(out, want) {
			t.Errorf("status does not say %q:\n%s", want, out)
		}
	}
	ok(t, dir, "exec", "--", "true")
	if out := ok(t, dir, "status"); !strings.Contains(out, "no file changed outside the journal") {
		t.Fatalf("status after the chmod was recorded:\n%s", out)
	}
}
