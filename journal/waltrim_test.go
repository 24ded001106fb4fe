package journal_test

import (
	"os"
	"testing"

	"github.com/journalfs/journal/journal"
)

// TestLogTrim: the log is emptied only when the bbolt file holds every
// event of its run; a handle that saw the log at its old size (another
// process) writes its next run into the emptied file, which is made again,
// and the record reads back.
func TestLogTrim(t *testing.T) {
	j := create(t)
	other, err := journal.Open(j.Path(), journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	wal := j.Path() + ".wal"
	rec := func(seq uint64) *journal.LogRecord {
		return &journal.LogRecord{Events: []*journal.Event{{Seq: seq, Kind: journal.KindApply, Status: journal.StatusPending,
			Actor: journal.Actor{Kind: "mcp", Session: "s"}, Files: []journal.FileChange{{Path: "a"}}}}}
	}
	size := func() int64 {
		fi, err := os.Stat(wal)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	// the other handle logs a record the bbolt file does not have
	if err := other.Do(func(db *journal.DB) error { _, err := db.LogAppend(0, rec(1)); return err }); err != nil {
		t.Fatal(err)
	}
	if err := j.Do(func(db *journal.DB) error { return db.LogTrim() }); err != nil {
		t.Fatal(err)
	}
	if size() == 0 {
		t.Fatal("the log was emptied with a record the bbolt file lacks")
	}
	// once the bbolt file has it, the log goes
	appendN(t, j, 1, "s")
	if err := j.Do(func(db *journal.DB) error { return db.LogTrim() }); err != nil {
		t.Fatal(err)
	}
	if n := size(); n != 0 {
		t.Fatalf("log of %d bytes after the trim", n)
	}
	// reading an emptied log finds nothing and does not make it again
	if err := j.Do(func(db *journal.DB) error {
		recs, err := db.LogRead(0)
		if err != nil || len(recs) != 0 {
			t.Errorf("read of the emptied log: %d records, %v", len(recs), err)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if n := size(); n != 0 {
		t.Fatalf("log of %d bytes after a read", n)
	}
	// the other handle, which last saw it at 1 MiB, starts a run
	if err := other.Do(func(db *journal.DB) error { _, err := db.LogAppend(0, rec(2)); return err }); err != nil {
		t.Fatal(err)
	}
	if n := size(); n != 1<<20 {
		t.Errorf("log of %d bytes after a new run, want it made again (1 MiB of zeros)", n)
	}
	if err := j.Do(func(db *journal.DB) error {
		recs, err := db.LogRead(1)
		if err != nil || len(recs) != 1 || recs[0].First() != 2 {
			t.Errorf("the new run: %d records, %v", len(recs), err)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}
