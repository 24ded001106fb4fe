// Package journaltest makes journals for tests: of n sealed events, or of
// events an hour apart. The store's tests and the audit's share it.
package journaltest

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/snapshot"
)

// Create makes a journal in a temporary directory.
func Create(t testing.TB) *journal.Journal {
	t.Helper()
	j, err := journal.Open(filepath.Join(t.TempDir(), journal.DirName, journal.FileName), journal.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// AppendN appends n sealed apply events of session, each storing a fresh
// content of f0..f2.
func AppendN(t testing.TB, j *journal.Journal, n int, session string) {
	t.Helper()
	err := j.Do(func(db *journal.DB) error {
		return db.Update(func(tx *journal.Tx) error {
			for i := 0; i < n; i++ {
				data := []byte(fmt.Sprintf("content %d\n", i))
				id, err := snapshot.PutTx(tx.Bolt(), data)
				if err != nil {
					return err
				}
				ev := &journal.Event{Kind: journal.KindApply, Actor: journal.Actor{Kind: "mcp", Session: session},
					Files: []journal.FileChange{{Path: fmt.Sprintf("f%d.txt", i%3), After: id}}}
				if err := tx.Append(ev); err != nil {
					return err
				}
				if _, err := tx.Seal(ev.Seq, journal.StatusCommitted, ""); err != nil {
					return err
				}
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Timed appends n events at t0, t0+1h, … touching f0..f2 with fresh contents.
func Timed(t testing.TB, j *journal.Journal, t0 time.Time, n int) {
	t.Helper()
	err := j.Do(func(db *journal.DB) error {
		return db.Update(func(tx *journal.Tx) error {
			for i := 0; i < n; i++ {
				path := fmt.Sprintf("f%d.txt", i%3)
				before, _ := tx.Head(path)
				id, err := snapshot.PutTx(tx.Bolt(), fmt.Appendf(nil, "content %d\n", i))
				if err != nil {
					return err
				}
				ev := &journal.Event{Time: t0.Add(time.Duration(i) * time.Hour), Kind: journal.KindApply, Status: journal.StatusCommitted,
					Actor: journal.Actor{Kind: "mcp", Session: fmt.Sprintf("s%d", i/4)}, Files: []journal.FileChange{{Path: path, Before: before.ID, After: id}}}
				if err := tx.Append(ev); err != nil {
					return err
				}
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
}
