package otlp

import (
	"context"
	"testing"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/journaltest"
	"github.com/journalfs/journal/replay/otlp/otlptest"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// BenchmarkBuild: the spans of 10,000 MCP events (2,500 sessions of 4),
// made in one walk, handed to an emit that keeps nothing. Reported as
// events/s (RELIABILITY.md has no figure of it; the commit message does).
func BenchmarkBuild(b *testing.B) {
	j := journaltest.Create(b)
	journaltest.Timed(b, j, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), 10000)
	b.ResetTimer()
	for b.Loop() {
		spans := 0
		err := j.View(func(tx *journal.Tx) error {
			sum, err := Build(tx, Options{}, func(s []sdktrace.ReadOnlySpan) error { spans += len(s); return nil })
			if err == nil && sum.Tools != 10000 {
				b.Fatalf("%+v", sum)
			}
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
		if spans != 12500 {
			b.Fatalf("%d spans", spans)
		}
	}
	b.ReportMetric(float64(10000*b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkSend: the same 10,000 events' spans posted to a real collector
// (otlptest: the OTLP receiver and the file exporter), 512 spans a request;
// it ends when the collector answered for the last batch.
func BenchmarkSend(b *testing.B) {
	j := journaltest.Create(b)
	journaltest.Timed(b, j, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), 10000)
	col := otlptest.Start(b)
	s, err := NewSender(context.Background(), col.URL, 30*time.Second)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close(context.Background())
	b.ResetTimer()
	for b.Loop() {
		err := j.View(func(tx *journal.Tx) error {
			_, err := Build(tx, Options{}, func(spans []sdktrace.ReadOnlySpan) error { return s.Send(context.Background(), spans) })
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(10000*b.N)/b.Elapsed().Seconds(), "events/s")
}
