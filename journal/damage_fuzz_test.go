package journal_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"sync"
	"testing"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/snapshot"
)

var (
	fuzzDBOnce sync.Once
	fuzzDB     []byte
	fuzzDBErr  error
)

// fuzzJournal returns the bytes of a small real journal: 40 events over 4
// paths with their contents (built once).
func fuzzJournal(tb testing.TB) []byte {
	fuzzDBOnce.Do(func() {
		dir, err := os.MkdirTemp("", "fuzzdb-")
		if err != nil {
			fuzzDBErr = err
			return
		}
		defer os.RemoveAll(dir)
		p := filepath.Join(dir, "journal.db")
		j, err := journal.Open(p, journal.Options{Create: true})
		if err != nil {
			fuzzDBErr = err
			return
		}
		fuzzDBErr = j.Do(func(db *journal.DB) error {
			return db.Update(func(tx *journal.Tx) error {
				prev := map[string]snapshot.ID{}
				for i := 0; i < 40; i++ {
					path := fmt.Sprintf("f%d.txt", i%4)
					id, err := snapshot.PutTx(tx.Bolt(), fmt.Appendf(nil, "version %d of %s\n", i, path))
					if err != nil {
						return err
					}
					ev := &journal.Event{Time: time.Unix(1700000000+int64(i), 0).UTC(), Kind: journal.KindApply, Status: journal.StatusCommitted,
						Actor: journal.Actor{Kind: "mcp", Name: "c", Session: fmt.Sprintf("s%d", i%3)}, Tool: "file_replace",
						Files: []journal.FileChange{{Path: path, Before: prev[path], After: id, AfterMode: 0o644}}}
					if err := tx.Append(ev); err != nil {
						return err
					}
					prev[path] = id
				}
				return nil
			})
		})
		if fuzzDBErr == nil {
			fuzzDB, fuzzDBErr = os.ReadFile(p)
		}
	})
	if fuzzDBErr != nil {
		tb.Fatal(fuzzDBErr)
	}
	return fuzzDB
}

// FuzzJournalFile damages a real journal file — bytes overwritten at an
// offset, or the file cut — and runs the structural check, then lists it
// around the damage, verifies it and writes to it: never a panic (the
// process would die) nor a hang, and every failure is ErrDamaged,
// ErrCorrupt or snapshot.ErrCorrupt/ErrNotFound; a write to a file the
// check found damaged is refused.
func FuzzJournalFile(f *testing.F) {
	db := fuzzJournal(f)
	ps := os.Getpagesize()
	for p := 0; p*ps < len(db); p++ {
		f.Add(uint32(p*ps), []byte{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}, uint32(0))
		f.Add(uint32(p*ps+8), []byte{0x00, 0x00}, uint32(0))
		f.Add(uint32(p*ps+20), []byte{0x7F, 0x7F, 0x7F, 0x7F}, uint32(0))
		f.Add(uint32(p*ps+ps/2), []byte("garbage!"), uint32(0))
	}
	f.Add(uint32(0), []byte{}, uint32(len(db)/2))
	f.Add(uint32(0), []byte{}, uint32(ps+100))
	f.Fuzz(func(t *testing.T, off uint32, patch []byte, cut uint32) {
		// a hang is a failure too: show where (the fuzzer would only say "hung")
		watch := time.AfterFunc(8*time.Second, func() {
			w := io.Writer(os.Stderr)
			if p := os.Getenv("JOURNAL_FUZZ_HANG"); p != "" { // the fuzzer does not show a worker's stderr
				if f, err := os.Create(p); err == nil {
					w = f
				}
			}
			fmt.Fprintf(w, "hung on off=%d patch=%x cut=%d\n", off, patch, cut)
			pprof.Lookup("goroutine").WriteTo(w, 2)
			panic(fmt.Sprintf("hung on off=%d patch=%x cut=%d", off, patch, cut))
		})
		defer watch.Stop()
		b := append([]byte(nil), db...)
		if int(off) < len(b) {
			copy(b[off:], patch)
		}
		if cut > 0 && int(cut) < len(b) {
			b = b[:cut]
		}
		p := filepath.Join(t.TempDir(), "journal.db")
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		j, err := journal.Open(p, journal.Options{Timeout: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		check := func(what string, err error) {
			if err != nil && !errors.Is(err, journal.ErrDamaged) && !errors.Is(err, journal.ErrCorrupt) &&
				!errors.Is(err, snapshot.ErrCorrupt) && !errors.Is(err, snapshot.ErrNotFound) && !errors.Is(err, journal.ErrFormat) {
				t.Fatalf("%s: %v is not a damage error", what, err)
			}
		}
		_, cerr := j.Check()
		check("check", cerr)
		if cerr != nil && !errors.Is(cerr, journal.ErrDamaged) {
			t.Fatalf("check: %v", cerr)
		}
		check("scan", j.View(func(tx *journal.Tx) error {
			return tx.Scan(0, true, func(*journal.Event) error { return nil }, func(uint64, uint64, error) error { return nil })
		}))
		check("verify", j.View(func(tx *journal.Tx) error {
			_, err := tx.Verify(true, nil)
			return err
		}))
		werr := j.Do(func(db *journal.DB) error {
			return db.Update(func(tx *journal.Tx) error {
				return tx.Append(&journal.Event{Time: time.Unix(1800000000, 0).UTC(), Kind: journal.KindApply, Status: journal.StatusCommitted,
					Actor: journal.Actor{Kind: "mcp", Session: "s9"}, Tool: "file_replace"})
			})
		})
		check("write", werr)
		if cerr != nil && werr == nil {
			t.Fatalf("a write to a journal the check found damaged (%v) went through", cerr)
		}
	})
}
