package journal_test

import (
	"fmt"
	"testing"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/snapshot"
)

// BenchmarkRedact_100k: one redaction (an event's arguments and the
// content it wrote) in a journal of 100,000 events with arguments, each
// writing a small content: the transaction (sweep included) and the
// compaction that leaves the values on no free page. Each iteration
// redacts another event of the same journal.
func BenchmarkRedact_100k(b *testing.B) {
	const n = 100000
	j := create(b)
	err := j.Do(func(db *journal.DB) error {
		for lo := 0; lo < n; lo += 10000 {
			err := db.Update(func(tx *journal.Tx) error {
				for i := lo; i < lo+10000; i++ {
					id, err := snapshot.PutTx(tx.Bolt(), fmt.Appendf(nil, "package p\n\nconst token%d = %q\n", i, fmt.Sprint(i*7919)))
					if err != nil {
						return err
					}
					ev := &journal.Event{Kind: journal.KindApply, Status: journal.StatusCommitted, Tool: "file_create_new",
						Args:  fmt.Appendf(nil, `{"ops":[{"path":"f%d.go","content":"const token%d = %d"}]}`, i, i, i*7919),
						Files: []journal.FileChange{{Path: fmt.Sprintf("f%d.go", i), After: id}}}
					if err := tx.Append(ev); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := range b.N {
		seq := uint64(1 + i*997%n)
		var after snapshot.ID
		j.View(func(tx *journal.Tx) error {
			e, err := tx.Event(seq)
			if err == nil {
				after = e.Files[0].After
			}
			return err
		})
		err := j.Do(func(db *journal.DB) error {
			_, err := db.Redact(journal.RedactRequest{Events: []uint64{seq}, Contents: []snapshot.ID{after}, Why: "bench"})
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}
