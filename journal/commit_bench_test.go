package journal

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/journalfs/journal/snapshot"
)

// BenchmarkCommitRecord times the durable step of each way a batch can
// commit, one of each per iteration so that machine noise hits them alike
// (issue 40: what the intent path would cost as a write-ahead record), with
// a 12 KiB content that differs every time:
//
//   - intent: one bbolt transaction storing the content and appending the
//     event pending, sealing the one before (the unlogged path, back to back);
//   - stored-then-record: one bbolt transaction storing the content, then a
//     write-ahead record naming it (the intent path as a record whose
//     contents are stored first);
//   - record: a write-ahead record carrying the content (the logged path).
func BenchmarkCommitRecord(b *testing.B) {
	j, err := Open(filepath.Join(b.TempDir(), "j.db"), Options{Create: true})
	if err != nil {
		b.Fatal(err)
	}
	defer j.Close()
	content := func(i int) []byte {
		c := bytes.Repeat([]byte("\tfmt.Println(\"a line of a typical source file\")\n"), 250)
		copy(c[100:], fmt.Sprintf("%08d", i))
		return c
	}
	ev := func(seq uint64, id snapshot.ID, st Status) *Event {
		return &Event{Seq: seq, Time: time.Now().UTC(), Kind: KindApply, Status: st, Tool: "bench",
			Actor: Actor{Kind: "mcp", Session: "s1"}, Files: []FileChange{{Path: "f.go", After: id}}}
	}
	var intent, stored, record []time.Duration
	err = j.Do(func(db *DB) error {
		var pending uint64
		var off int64
		seq := uint64(1 << 40) // record numbers: the log is only written here, never read
		appendRec := func(r *LogRecord) {
			var err error
			if off, err = db.LogAppend(off, r); err != nil {
				off = 0
				if off, err = db.LogAppend(off, r); err != nil {
					b.Fatal(err)
				}
			}
		}
		for i := 0; b.Loop(); i++ {
			c := content(3 * i)
			t0 := time.Now()
			err := db.Update(func(tx *Tx) error {
				if pending != 0 {
					if _, err := tx.Seal(pending, StatusCommitted, ""); err != nil {
						return err
					}
				}
				id, err := snapshot.PutTx(tx.Bolt(), c)
				if err != nil {
					return err
				}
				e := ev(0, id, StatusPending)
				if err := tx.Append(e); err != nil {
					return err
				}
				pending = e.Seq
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
			c = content(3*i + 1)
			t1 := time.Now()
			var id snapshot.ID
			if err := db.Update(func(tx *Tx) (err error) { id, err = snapshot.PutTx(tx.Bolt(), c); return }); err != nil {
				b.Fatal(err)
			}
			seq++
			appendRec(&LogRecord{Events: []*Event{ev(seq, id, StatusCommitted)}})
			c = content(3*i + 2)
			t2 := time.Now()
			seq++
			id = snapshot.Sum(c)
			appendRec(&LogRecord{Events: []*Event{ev(seq, id, StatusCommitted)}, Contents: []LogContent{{ID: id, Data: c}}})
			t3 := time.Now()
			intent, stored, record = append(intent, t1.Sub(t0)), append(stored, t2.Sub(t1)), append(record, t3.Sub(t2))
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	med := func(d []time.Duration) float64 {
		s := slices.Clone(d)
		slices.Sort(s)
		return float64(s[len(s)/2].Microseconds())
	}
	b.ReportMetric(med(intent), "intent-µs")
	b.ReportMetric(med(stored), "stored-then-record-µs")
	b.ReportMetric(med(record), "record-µs")
}
