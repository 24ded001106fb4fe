package audit_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/audit"
	"github.com/journalfs/journal/snapshot"
	"golang.org/x/mod/sumdb/note"
)

// BenchmarkVerifyExport_10k verifies a 10,000-event export (in memory).
func BenchmarkVerifyExport_10k(b *testing.B) {
	j := create(b)
	appendN(b, j, 10000, "s1")
	var buf bytes.Buffer
	j.View(func(tx *journal.Tx) error {
		_, err := audit.Export(tx, &buf, "jsonl", audit.ExportFilter{}, nil)
		return err
	})
	b.SetBytes(int64(buf.Len()))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := audit.VerifyExport(bytes.NewReader(buf.Bytes()), snapshot.ID{}, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(10000*b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkExport_10k exports a 10,000-event journal as jsonl.
func BenchmarkExport_10k(b *testing.B) {
	j := create(b)
	appendN(b, j, 10000, "s1")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var buf bytes.Buffer
		j.View(func(tx *journal.Tx) error {
			_, err := audit.Export(tx, &buf, "jsonl", audit.ExportFilter{}, nil)
			return err
		})
	}
	b.ReportMetric(float64(10000*b.N)/b.Elapsed().Seconds(), "events/s")
}

// oneLineEdits makes a journal of n one-line edits of 50 files of 300
// lines, stored as the engine stores them (each version against the one
// before); with every > 0, s signs a checkpoint after each every events, as
// serve --checkpoint-every does.
func oneLineEdits(b *testing.B, n, every int, s note.Signer) *journal.Journal {
	const files = 50
	j := create(b)
	texts := make([][]string, files)
	for f := range texts {
		texts[f] = make([]string, 300)
		for i := range texts[f] {
			texts[f][i] = fmt.Sprintf("\tline %d of file %d, as long as a line of source code is: %d\n", i, f, i*i)
		}
	}
	prev := make([][]byte, files)
	prevID := make([]snapshot.ID, files)
	for done := 0; done < n; {
		err := j.Do(func(db *journal.DB) error {
			return db.Update(func(tx *journal.Tx) error {
				for k := 0; k < 2000 && done < n && (every == 0 || k == 0 || done%every != 0); k, done = k+1, done+1 {
					f := done % files
					texts[f][done*7%300] = fmt.Sprintf("\tline %d, edit %d\n", done*7%300, done)
					data := []byte(strings.Join(texts[f], ""))
					id := snapshot.Sum(data)
					if _, err := snapshot.PutDelta(tx.Bolt(), id, data, prev[f]); err != nil {
						return err
					}
					path := fmt.Sprintf("src/f%02d.go", f)
					ev := &journal.Event{Time: time.Now().UTC(), Kind: journal.KindApply, Actor: journal.Actor{Kind: "mcp", Name: "bench", Session: "s1"},
						Tool: "edit_content", Status: journal.StatusCommitted, Args: []byte(`{"path":"` + path + `"}`),
						Files: []journal.FileChange{{Path: path, Before: prevID[f], After: id, AfterMode: 0o644, Added: 1, Removed: 1}}}
					if err := tx.Append(ev); err != nil {
						return err
					}
					prev[f], prevID[f] = data, id
				}
				return nil
			})
		})
		if err != nil {
			b.Fatal(err)
		}
		if every > 0 && done%every == 0 {
			if _, _, err := audit.Sign(j, s, time.Now()); err != nil {
				b.Fatal(err)
			}
		}
	}
	return j
}

// BenchmarkVerify_OneLineEdits verifies (events and contents) a journal of
// 20,000 one-line edits of 50 files of 300 lines, stored as the engine
// stores them (each version against the one before), as `journal verify`
// does (issue #23: at least 50,000 events/s).
func BenchmarkVerify_OneLineEdits(b *testing.B) {
	const n = 20000
	j := oneLineEdits(b, n, 0, nil)
	for b.Loop() {
		err := j.View(func(tx *journal.Tx) error {
			r, err := tx.Verify(true, nil)
			if err == nil && r.Events != n {
				err = fmt.Errorf("%d events verified", r.Events)
			}
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "events/s")
}
