package main_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// BenchmarkHook_Session300 replays a 300-call Claude Code session through
// the binary beside a running `journal watch` in a tree of 10,000 files:
// each call a PreToolUse hook, the call's change (a file written by this
// process, as a tool would), a PostToolUse hook. Per hook call it reports
// the wall time's p50 and p99, beside the spawn floors (true, `journal
// version`) measured in the same loop, and checks afterwards that every
// call's change is in its own event.
//
//	go test ./cmd/journal -run '^$' -bench 'Hook_' -benchtime 1x
func BenchmarkHook_Session300(b *testing.B) {
	for i := 0; i < b.N; i++ {
		dir := b.TempDir()
		tree10k(b, dir)
		stop := startWatchArgs(b, dir, "--settle", "200ms")
		floors := map[string][]time.Duration{}
		var hooks []time.Duration
		const calls = 300
		for c := 0; c < calls; c++ {
			id := fmt.Sprintf("toolu_%03d", c)
			f := fmt.Sprintf("src/d%02d/call%03d.txt", c%100, c)
			hooks = append(hooks, timedHook(b, dir, claudeCall(dir, "PreToolUse", "bench", id, "edit "+f)))
			if err := os.WriteFile(filepath.Join(dir, f), []byte(id+"\n"), 0o644); err != nil {
				b.Fatal(err)
			}
			hooks = append(hooks, timedHook(b, dir, claudeCall(dir, "PostToolUse", "bench", id, "edit "+f)))
			if c%10 == 0 { // the floors, in the same loop (the machine's load drifts)
				floors["true"] = append(floors["true"], timed(b, dir, "true"))
				floors["journal version"] = append(floors["journal version"], timed(b, dir, bin, "version"))
			}
		}
		b.StopTimer()
		p50, p99 := pct(hooks, 50), pct(hooks, 99)
		b.ReportMetric(ms(p50), "hook-p50-ms")
		b.ReportMetric(ms(p99), "hook-p99-ms")
		b.ReportMetric(ms(pct(floors["true"], 50)), "true-p50-ms")
		b.ReportMetric(ms(pct(floors["journal version"], 50)), "version-p50-ms")
		b.ReportMetric(ms(p50-pct(floors["true"], 50)), "beyond-spawn-p50-ms")
		b.ReportMetric(ms(p99-pct(floors["true"], 50)), "beyond-spawn-p99-ms")
		evs := logJSON(b, dir)
		stop()
		named := map[string]string{}
		for _, e := range evs {
			args, _ := e["args"].(map[string]any)
			call, _ := args["call"].(map[string]any)
			if id, _ := call["id"].(string); id != "" {
				named[id] = strings.Join(eventFiles(e), " ")
			}
		}
		for c := 0; c < calls; c++ {
			id, f := fmt.Sprintf("toolu_%03d", c), fmt.Sprintf("src/d%02d/call%03d.txt", c%100, c)
			if named[id] != f {
				b.Fatalf("call %s: its event holds %q, want %q", id, named[id], f)
			}
		}
		b.StartTimer()
	}
}

// BenchmarkHook_NoWatcher: the same calls with no watcher running (each
// hook walks the 10,000-file tree itself), 50 calls.
func BenchmarkHook_NoWatcher(b *testing.B) {
	for i := 0; i < b.N; i++ {
		dir := b.TempDir()
		tree10k(b, dir)
		ok(b, dir, "exec", "--", "true") // the journal and its baseline
		var hooks, floor []time.Duration
		for c := 0; c < 50; c++ {
			id := fmt.Sprintf("toolu_%03d", c)
			f := fmt.Sprintf("src/d%02d/call%03d.txt", c%100, c)
			hooks = append(hooks, timedHook(b, dir, claudeCall(dir, "PreToolUse", "bench", id, "edit "+f)))
			os.WriteFile(filepath.Join(dir, f), []byte(id+"\n"), 0o644)
			hooks = append(hooks, timedHook(b, dir, claudeCall(dir, "PostToolUse", "bench", id, "edit "+f)))
			floor = append(floor, timed(b, dir, "true"))
		}
		b.ReportMetric(ms(pct(hooks, 50)), "hook-p50-ms")
		b.ReportMetric(ms(pct(hooks, 99)), "hook-p99-ms")
		b.ReportMetric(ms(pct(floor, 50)), "true-p50-ms")
	}
}

// tree10k makes 10,000 files in 100 directories under dir/src.
func tree10k(b *testing.B, dir string) {
	b.Helper()
	for d := 0; d < 100; d++ {
		p := filepath.Join(dir, "src", fmt.Sprintf("d%02d", d))
		if err := os.MkdirAll(p, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := 0; f < 100; f++ {
			os.WriteFile(filepath.Join(p, fmt.Sprintf("f%03d.go", f)), []byte(fmt.Sprintf("package d%02d // %d\n", d, f)), 0o644)
		}
	}
}

func timedHook(b *testing.B, dir, in string) time.Duration {
	b.Helper()
	cmd := exec.Command(bin, "hook", "claude-code")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(in)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	d := time.Since(start)
	if err != nil || len(out) > 0 {
		b.Fatalf("hook: %v %s", err, out)
	}
	return d
}

func timed(b *testing.B, dir, name string, args ...string) time.Duration {
	b.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("%s: %v %s", name, err, out)
	}
	return time.Since(start)
}

func pct(ds []time.Duration, p int) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[min(len(s)-1, len(s)*p/100)]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
