package replay

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/journalfs/journal/journal"
)

// EditHistory gives the file path of e a history to blame: 2,000 lines
// as long as source lines are, then 1,000 one-line edits on it.
func EditHistory(tb testing.TB, e *Engine, path string) {
	tb.Helper()
	lines := make([]string, 2000)
	for i := range lines {
		lines[i] = fmt.Sprintf("\tline %d of a source file, as long as lines in source files are: %d\n", i, i*i)
	}
	for k := 0; k <= 1000; k++ {
		if k > 0 {
			lines[k*7%2000] = fmt.Sprintf("\tline %d, edit %d\n", k*7%2000, k)
		}
		if _, err := e.Apply(context.Background(), &Batch{Tool: "edit", Changes: []Change{{Path: path, Data: []byte(strings.Join(lines, ""))}}}); err != nil {
			tb.Fatal(err)
		}
	}
}

// BenchmarkRedact_Lines: journal redact --path of a 2,000-line file with
// 1,000 one-line edits on it (1,001 versions taken out), reporting the
// part that records the versions' line owners and digests
// (redactedLinesFor: one blame replay, a digest per line, a secret scan per
// version) beside the whole redaction.
func BenchmarkRedact_Lines(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		dir := b.TempDir()
		e, err := Open(Options{Roots: []string{dir}, Actor: journal.Actor{Kind: "mcp", Name: "test", Session: "s1"}})
		if err != nil {
			b.Fatal(err)
		}
		EditHistory(b, e, "f.go")
		sel := RedactSelect{Paths: []string{"f.go"}, Why: "bench"}
		b.StartTimer()
		start := time.Now()
		var recs int
		err = e.Journal().View(func(tx *journal.Tx) error {
			res := &RedactResult{}
			if err := planRedaction(tx, sel, res); err != nil {
				return err
			}
			m, err := redactedLinesFor(tx, res.paths, res.Plan.Contents, sel)
			recs = len(m)
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
		lines1 := time.Since(start)
		start = time.Now()
		if _, err := e.Redact(sel); err != nil {
			b.Fatal(err)
		}
		whole := time.Since(start)
		b.ReportMetric(lines1.Seconds(), "records-s")
		b.ReportMetric(whole.Seconds(), "redact-s")
		b.ReportMetric(float64(recs), "records")
		b.StopTimer()
		e.Close()
		b.StartTimer()
	}
}
