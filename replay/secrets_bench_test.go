package replay_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/audit"
	"github.com/journalfs/journal/journal/secrets"
	"github.com/journalfs/journal/replay"
)

// BenchmarkApply_SecretScan: one-line edits of a 300-line file by two
// engines side by side, one detecting secrets (Options.ScanSecrets, as
// serve runs), one not, each going first every other time; a pause after
// each pair (gap) lets the timed checkpoint, and with it the detector, run
// as it does between an agent's calls. The edit's latency excludes the
// pause. "key" edits a file holding an AWS key, so each pass also stores
// findings (one bbolt commit); "tight" has no pause: the detector then
// waits for the engine to be idle.
func BenchmarkApply_SecretScan(b *testing.B) {
	for _, c := range []struct {
		name string
		key  bool
		gap  time.Duration
	}{{"plain", false, 60 * time.Millisecond}, {"key", true, 60 * time.Millisecond}, {"tight", true, 0}} {
		b.Run(c.name, func(b *testing.B) { applyScanned(b, c.key, c.gap) })
	}
}

func applyScanned(b *testing.B, key bool, gap time.Duration) {
	data := lines300()
	if key {
		data = append([]byte("var awsKey = \"AKIALALEMEL33243OLIB\"\n"), data...) // gitleaks:allow (made up for the test)
	}
	var es [2]*replay.Engine
	for k := range es {
		ws := filepath.Join(b.TempDir(), fmt.Sprint(k))
		os.Mkdir(ws, 0o755)
		os.WriteFile(filepath.Join(ws, "f.go"), data, 0o644)
		e, err := replay.Open(replay.Options{Roots: []string{ws}, Actor: journal.Actor{Kind: "mcp", Name: "bench"}, ScanSecrets: k == 1})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { e.Close() })
		es[k] = e
	}
	var took [2]time.Duration
	n := 0
	for i := 0; b.Loop(); i++ {
		for j := range es {
			k := (i + j) % 2
			next := bytes.Clone(data)
			copy(next[len(next)-200:], fmt.Sprintf("%06d", i))
			t0 := time.Now()
			if _, err := es[k].Apply(ctx, &replay.Batch{Tool: "edit", Args: []byte(`{"path":"f.go"}`), Changes: []replay.Change{{Path: "f.go", Data: next}}}); err != nil {
				b.Fatal(err)
			}
			took[k] += time.Since(t0)
		}
		n++
		if gap > 0 {
			b.StopTimer()
			time.Sleep(gap)
			b.StartTimer()
		}
	}
	plain, with := took[0]/time.Duration(n), took[1]/time.Duration(n)
	b.ReportMetric(float64(plain.Microseconds()), "off-µs")
	b.ReportMetric(float64(with.Microseconds()), "on-µs")
	b.ReportMetric(100*(float64(with)/float64(plain)-1), "overhead-%")
	// the detector's own cost per event, measured alone: reading an
	// event's texts under the lock, and scanning them
	var texts []audit.ScanText
	t0 := time.Now()
	if err := es[1].Journal().View(func(tx *journal.Tx) (err error) {
		texts, _, err = new(audit.Collector).CollectSecretTexts(tx, 0, 1<<30)
		return err
	}); err != nil {
		b.Fatal(err)
	}
	read := time.Since(t0) / time.Duration(len(texts))
	t0 = time.Now()
	for i := range texts {
		if _, err := audit.ScanSecretTexts(nil, texts[i:i+1], es[1].Journal().View); err != nil {
			b.Fatal(err)
		}
	}
	scan := time.Since(t0) / time.Duration(len(texts))
	c := secrets.NewCache() // as the engine scans: each version after the one before
	t0 = time.Now()
	for i := range texts {
		if _, err := audit.ScanSecretTexts(c, texts[i:i+1], es[1].Journal().View); err != nil {
			b.Fatal(err)
		}
	}
	cached := time.Since(t0) / time.Duration(len(texts))
	b.ReportMetric(float64(read.Microseconds()), "read-µs/event")
	b.ReportMetric(float64(scan.Microseconds()), "scan-µs/event")
	b.ReportMetric(float64(cached.Microseconds()), "cached-scan-µs/event")
	b.ReportMetric(100*float64(read+cached)/float64(plain), "amortized-%")
}
