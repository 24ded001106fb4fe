package journal

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/journalfs/journal/snapshot"
)

func logRec(first uint64, n int, contents ...string) *LogRecord {
	r := &LogRecord{}
	for i := 0; i < n; i++ {
		r.Events = append(r.Events, &Event{Seq: first + uint64(i), Time: time.Unix(1700000000, 0).UTC(), Kind: KindApply,
			Status: StatusCommitted, Files: []FileChange{{Path: "f.txt", After: snapshot.Sum([]byte(contents[0]))}}})
	}
	for _, c := range contents {
		r.Contents = append(r.Contents, LogContent{ID: snapshot.Sum([]byte(c)), Data: []byte(c)})
	}
	return r
}

func openWAL(t *testing.T) *Journal {
	t.Helper()
	j, err := Open(filepath.Join(t.TempDir(), "j.db"), Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	return j
}

// TestLog_AppendRead: records round-trip, in order, each numbered after the
// one before; the file is preallocated to WALSize.
func TestLog_AppendRead(t *testing.T) {
	j := openWAL(t)
	var ends []int64
	err := j.Do(func(db *DB) error {
		off := int64(0)
		for i, r := range []*LogRecord{logRec(1, 2, "a", "b\x00\r\n"), logRec(3, 1, ""), logRec(4, 1, string(bytes.Repeat([]byte("x"), 100_000)))} {
			var err error
			if off, err = db.LogAppend(off, r); err != nil {
				t.Fatalf("append %d: %v", i, err)
			}
			ends = append(ends, off)
		}
		recs, err := db.LogRead(0)
		if err != nil {
			return err
		}
		if len(recs) != 3 || recs[0].First() != 1 || recs[0].Last() != 2 || recs[2].First() != 4 {
			t.Fatalf("read %d records", len(recs))
		}
		if d, ok := recs[0].Content(snapshot.Sum([]byte("b\x00\r\n"))); !ok || string(d) != "b\x00\r\n" {
			t.Fatalf("content %q %v", d, ok)
		}
		if d, ok := recs[1].Content(snapshot.Sum(nil)); !ok || len(d) != 0 {
			t.Fatalf("empty content %q %v", d, ok)
		}
		if len(recs[2].Contents[0].Data) != 100_000 || recs[0].Events[1].Files[0].Path != "f.txt" {
			t.Fatal("contents or events differ")
		}
		// Wanted only past event 4: the run is in the bbolt file.
		if recs, err := db.LogRead(4); err != nil || len(recs) != 0 {
			t.Fatalf("after 4: %d records, %v", len(recs), err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(j.Path() + ".wal"); err != nil || fi.Size() != walGrow {
		t.Fatalf("log file: %v %v", fi, err)
	}
	if ends[0] <= 0 || ends[1] <= ends[0] || ends[2] <= ends[1]+100_000 {
		t.Fatalf("offsets %v", ends)
	}
}

// TestLog_TornAndStale: a record whose bytes are damaged (a torn write) ends
// the run, as does a voided record and a record of an earlier run numbered
// lower; a new run from offset 0 hides the old one.
func TestLog_TornAndStale(t *testing.T) {
	j := openWAL(t)
	err := j.Do(func(db *DB) error {
		off1, _ := db.LogAppend(0, logRec(10, 1, "one"))
		off2, _ := db.LogAppend(off1, logRec(11, 1, "two"))
		if _, err := db.LogAppend(off2, logRec(12, 1, "three")); err != nil {
			return err
		}
		// Damage the second record's payload: the run ends before it.
		f, _ := os.OpenFile(j.Path()+".wal", os.O_RDWR, 0)
		f.WriteAt([]byte{'X'}, off2-2)
		f.Close()
		if recs, _ := db.LogRead(0); len(recs) != 1 || recs[0].First() != 10 {
			t.Fatalf("torn: %d records", len(recs))
		}
		// Void the first: nothing is left.
		if err := db.LogVoid(0); err != nil {
			return err
		}
		if recs, _ := db.LogRead(0); len(recs) != 0 {
			t.Fatalf("voided: %d records", len(recs))
		}
		// A new run at 0 whose record is shorter than the old first one: the
		// old records after it (numbered lower) are not part of the run.
		if _, err := db.LogAppend(0, logRec(20, 1, "o")); err != nil {
			return err
		}
		if recs, _ := db.LogRead(0); len(recs) != 1 || recs[0].First() != 20 {
			t.Fatalf("new run: %d records", len(recs))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestLog_Bounds: a record that would not fit is refused before anything is
// written; a record whose events are not consecutive is refused; the commit
// hook runs first and its failure writes nothing.
func TestLog_Bounds(t *testing.T) {
	j := openWAL(t)
	err := j.Do(func(db *DB) error {
		big := logRec(1, 1, string(make([]byte, MaxLogRecord)))
		if _, err := db.LogAppend(0, big); !errors.Is(err, ErrState) {
			t.Fatalf("oversized: %v", err)
		}
		if _, err := db.LogAppend(WALSize-100, logRec(1, 1, "x")); !errors.Is(err, ErrState) {
			t.Fatalf("past the end: %v", err)
		}
		bad := logRec(1, 2, "x")
		bad.Events[1].Seq = 5
		if _, err := db.LogAppend(0, bad); !errors.Is(err, ErrState) {
			t.Fatalf("gap: %v", err)
		}
		if LogFits(WALSize-100, 200) || !LogFits(0, 200) || LogFits(0, MaxLogRecord+1) {
			t.Fatal("LogFits")
		}
		boom := errors.New("boom")
		db.SetCommitHook(func() error { return boom })
		if _, err := db.LogAppend(0, logRec(1, 1, "x")); !errors.Is(err, boom) {
			t.Fatalf("hook: %v", err)
		}
		db.SetCommitHook(nil)
		if recs, _ := db.LogRead(0); len(recs) != 0 {
			t.Fatalf("%d records after refusals", len(recs))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestLog_NoFile: a journal that never logged has no records and no log file
// is made by reading.
func TestLog_NoFile(t *testing.T) {
	j := openWAL(t)
	err := j.Do(func(db *DB) error {
		recs, err := db.LogRead(0)
		if err != nil || len(recs) != 0 {
			t.Fatalf("%d records, %v", len(recs), err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(j.Path() + ".wal"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("log file made by a read: %v", err)
	}
}

// TestLog_Grows: the file starts at 1 MiB and is extended, 1 MiB at a time,
// when a record would not fit; every record stays readable.
func TestLog_Grows(t *testing.T) {
	j := openWAL(t)
	err := j.Do(func(db *DB) error {
		off := int64(0)
		for i := 0; i < 3; i++ {
			var err error
			if off, err = db.LogAppend(off, logRec(uint64(i+1), 1, string(bytes.Repeat([]byte{'a' + byte(i)}, 600_000)))); err != nil {
				return err
			}
		}
		recs, err := db.LogRead(0)
		if err != nil || len(recs) != 3 || recs[2].Contents[0].Data[0] != 'c' {
			t.Fatalf("%d records, %v", len(recs), err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(j.Path() + ".wal"); err != nil || fi.Size() != 2*walGrow {
		t.Fatalf("log file: %d bytes, %v", fi.Size(), err)
	}
}

// TestFormat: a new journal is format 1; MarkFormat raises it, never lowers
// it; Open refuses a journal marked newer than Format with ErrFormat.
func TestFormat(t *testing.T) {
	j := openWAL(t)
	format := func() byte {
		var v byte
		j.View(func(tx *Tx) error { v = tx.Bolt().Bucket(bucketMeta).Get([]byte("format"))[0]; return nil })
		return v
	}
	if v := format(); v != 1 {
		t.Fatalf("new journal: format %d", v)
	}
	mark := func(v byte) {
		if err := j.Do(func(db *DB) error { return db.Update(func(tx *Tx) error { return tx.MarkFormat(v) }) }); err != nil {
			t.Fatal(err)
		}
	}
	mark(Format)
	mark(1)
	if v := format(); v != Format {
		t.Fatalf("after marking: format %d", v)
	}
	if err := j.View(func(*Tx) error { return nil }); err != nil {
		t.Fatalf("view at format %d: %v", Format, err)
	}
	mark(Format + 1)
	if err := j.View(func(*Tx) error { return nil }); !errors.Is(err, ErrFormat) {
		t.Fatalf("view of a newer format: %v", err)
	}
	if err := j.Do(func(*DB) error { return nil }); !errors.Is(err, ErrFormat) {
		t.Fatalf("do on a newer format: %v", err)
	}
}

// TestLogAhead: a reader learns that the log holds events past the bbolt
// file's last one, also when the run's first records are in the bbolt file
// already.
func TestLogAhead(t *testing.T) {
	j := openWAL(t)
	if j.LogAhead(0) {
		t.Fatal("no log file, yet ahead")
	}
	err := j.Do(func(db *DB) error {
		off, _ := db.LogAppend(0, logRec(5, 2, "a"))
		_, err := db.LogAppend(off, logRec(7, 1, "b"))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for last, want := range map[uint64]bool{4: true, 6: true, 7: false, 9: false} {
		if got := j.LogAhead(last); got != want {
			t.Errorf("LogAhead(%d) = %v, want %v", last, got, want)
		}
	}
}

// TestLog_AppendWith: meanwhile runs exactly once, after the record is
// written (a reader of the log sees it whole) and before LogAppendWith
// returns; also when the record is refused or the commit hook fails; and
// once only when it panics.
func TestLog_AppendWith(t *testing.T) {
	j := openWAL(t)
	err := j.Do(func(db *DB) error {
		runs, seen := 0, 0
		end, err := db.LogAppendWith(0, logRec(1, 1, "a"), func() {
			runs++
			recs, err := db.LogRead(0)
			if err != nil {
				t.Errorf("read meanwhile: %v", err)
			}
			seen = len(recs)
		})
		if err != nil || end == 0 || runs != 1 || seen != 1 {
			t.Fatalf("append: end %d, err %v, meanwhile ran %d times, saw %d records", end, err, runs, seen)
		}
		runs = 0
		if _, err := db.LogAppendWith(end, &LogRecord{}, func() { runs++ }); !errors.Is(err, ErrState) || runs != 1 {
			t.Fatalf("refused record: err %v, meanwhile ran %d times", err, runs)
		}
		boom := errors.New("boom")
		db.SetCommitHook(func() error { return boom })
		runs = 0
		if _, err := db.LogAppendWith(end, logRec(2, 1, "b"), func() { runs++ }); !errors.Is(err, boom) || runs != 1 {
			t.Fatalf("failed hook: err %v, meanwhile ran %d times", err, runs)
		}
		db.SetCommitHook(nil)
		runs = 0
		func() {
			defer func() { recover() }()
			db.LogAppendWith(end, logRec(2, 1, "b"), func() { runs++; panic("meanwhile") })
		}()
		if runs != 1 {
			t.Fatalf("a panicking meanwhile ran %d times", runs)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
