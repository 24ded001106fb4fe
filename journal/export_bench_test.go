package journal_test

import (
	"bytes"
	"testing"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/snapshot"
)

// BenchmarkVerifyExport_10k verifies a 10,000-event export (in memory).
func BenchmarkVerifyExport_10k(b *testing.B) {
	j := create(b)
	appendN(b, j, 10000, "s1")
	var buf bytes.Buffer
	j.View(func(tx *journal.Tx) error {
		_, err := tx.Export(&buf, "jsonl", journal.ExportFilter{}, nil)
		return err
	})
	b.SetBytes(int64(buf.Len()))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := journal.VerifyExport(bytes.NewReader(buf.Bytes()), snapshot.ID{}, nil); err != nil {
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
			_, err := tx.Export(&buf, "jsonl", journal.ExportFilter{}, nil)
			return err
		})
	}
	b.ReportMetric(float64(10000*b.N)/b.Elapsed().Seconds(), "events/s")
}
