package mcp_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/journalfs/journal/bench/floor"
	"github.com/journalfs/journal/replay"
)

// benchMB is the size of the large benchmark file (JOURNAL_LARGE_MB, default 1024).
func benchMB() int64 {
	if v, _ := strconv.Atoi(os.Getenv("JOURNAL_LARGE_MB")); v > 0 {
		return int64(v)
	}
	return 1024
}

// benchEnv generates the large file once per benchmark; the read benchmarks
// warm the version and line-index caches with one overview.
func benchEnv(b *testing.B, size int64) (*env, string, int, int) {
	dir := b.TempDir()
	path := filepath.Join(dir, "big.log")
	marker, lines := genLarge(b, path, size, "\n")
	// The engine's version cache does not keep the hash of a file changed
	// within 100 ms of hashing it (a later change in the same timestamp tick
	// could go unseen): without this pause the first timed call of a read
	// benchmark would hash the whole file again.
	time.Sleep(200 * time.Millisecond)
	e := newThresholdEnv(b, dir, 0)
	return e, path, marker, lines
}

// BenchmarkLargefile_ReadMiddle reads 50 lines from the middle of a 1 GB
// file (streamed: over the mmap limit), caches warm.
func BenchmarkLargefile_ReadMiddle(b *testing.B) {
	e, path, marker, _ := benchEnv(b, benchMB()<<20)
	e.ok("get_overview", map[string]any{"absolute_file_path": path}, nil)
	args := map[string]any{"absolute_file_path": path, "target": marker, "max_lines": 50}
	b.ResetTimer()
	for b.Loop() {
		e.ok("read_content", args, nil)
	}
}

// BenchmarkLargefile_SearchExact searches a 1 GB file for a line near its
// end (exact, fuzzy off); bytes/s is the scan rate.
func BenchmarkLargefile_SearchExact(b *testing.B) {
	size := benchMB() << 20
	e, path, _, lines := benchEnv(b, size)
	pattern := fmt.Sprintf("%09d the quick", lines-1)
	e.ok("get_overview", map[string]any{"absolute_file_path": path}, nil)
	args := map[string]any{"absolute_file_path": path, "pattern": pattern, "fuzzy": false, "max_results": 1}
	b.SetBytes(size)
	b.ResetTimer()
	for b.Loop() {
		var out struct {
			Results []struct{} `json:"results"`
		}
		e.ok("search_content", args, &out)
		if len(out.Results) != 1 {
			b.Fatal("not found")
		}
	}
}

// BenchmarkLargefile_Edit50MB applies (preview=false) a one-line edit to a
// 50 MB file, journaled with fsync; each iteration flips the line back and forth.
func BenchmarkLargefile_Edit50MB(b *testing.B) {
	e, path, marker, _ := benchEnv(b, 50_000_000)
	lines := []string{fmt.Sprintf("    func middle() { return %d }", marker), "    func middle() { return -1 }"}
	i := 0
	b.ResetTimer()
	for b.Loop() {
		e.ok("edit_content", map[string]any{"absolute_file_path": path, "search_text": lines[i%2], "replace_text": lines[(i+1)%2], "preview": false}, nil)
		i++
	}
}

// BenchmarkLargefile_EditStreamed applies a one-line edit to a 1 GB file
// (JOURNAL_LARGE_MB; streamed: over the mmap limit), journaled with fsync,
// after a first untimed edit stored the file's content; each iteration flips
// the line back and forth.
func BenchmarkLargefile_EditStreamed(b *testing.B) {
	e, path, marker, _ := benchEnv(b, benchMB()<<20)
	lines := []string{fmt.Sprintf("    func middle() { return %d }", marker), "    func middle() { return -1 }"}
	edit := func(i int) {
		var out struct {
			Access string `json:"access"`
		}
		e.ok("edit_content", map[string]any{"absolute_file_path": path, "search_text": lines[i%2], "replace_text": lines[(i+1)%2], "preview": false}, &out)
		if want := "stream"; benchMB()<<20 > 500<<20 && out.Access != want {
			b.Fatalf("access %s, want %s", out.Access, want)
		}
	}
	edit(0)
	i := 1
	b.ResetTimer()
	for b.Loop() {
		edit(i)
		i++
	}
}

// BenchmarkLargefile_Edit300Lines alternates, on a 300-line file, one
// durability-floor operation (temp + fsync + rename + dir fsync, then one
// bbolt update; bench/floor), one one-line edit applied by the engine alone,
// and one applied through edit_content (preview=false, fuzzy=false, the
// in-process client: the harness's small edit without the stdio transport),
// so machine noise hits the three alike, and reports the medians and ratios.
func BenchmarkLargefile_Edit300Lines(b *testing.B) {
	dir := b.TempDir()
	var sb strings.Builder
	for i := range 300 {
		fmt.Fprintf(&sb, "line %03d: the quick brown fox jumps over the lazy dog, and so on to about ninety bytes\n", i)
	}
	data := []byte(sb.String())
	tool, raw := filepath.Join(dir, "tool.txt"), filepath.Join(dir, "engine.txt")
	for _, p := range []string{tool, raw} {
		if err := os.WriteFile(p, data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	fl, err := floor.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { fl.Close() })
	e := newThresholdEnv(b, dir, 0)
	prev := "line 150: the quick"
	var floors, applies, tools []time.Duration
	var engineCPU, toolCPU floor.CPU
	for i := 0; b.Loop(); i++ {
		t0 := time.Now()
		if err := fl.Replace(data); err != nil {
			b.Fatal(err)
		}
		if err := fl.Update(data[:200]); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		c1 := floor.CPUNow()
		next := bytes.Clone(data)
		copy(next[100:], fmt.Sprintf("%06d", i))
		if _, err := e.eng.Apply(ctx, &replay.Batch{Changes: []replay.Change{{Path: raw, Data: next}}}); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		c2 := floor.CPUNow()
		cur := fmt.Sprintf("line 150: %06d quick", i) // a new content each time, as for the engine
		e.ok("edit_content", map[string]any{"absolute_file_path": tool, "search_text": prev, "replace_text": cur, "preview": false, "fuzzy": false}, nil)
		prev = cur
		engineCPU, toolCPU = engineCPU.Add(c2, c1), toolCPU.Add(floor.CPUNow(), c2)
		floors, applies, tools = append(floors, t1.Sub(t0)), append(applies, t2.Sub(t1)), append(tools, time.Since(t2))
	}
	fm, am, tm := medianOf(floors), medianOf(applies), medianOf(tools)
	b.ReportMetric(float64(fm.Microseconds()), "floor-µs")
	b.ReportMetric(float64(am.Microseconds()), "engine-µs")
	b.ReportMetric(float64(tm.Microseconds()), "tool-µs")
	b.ReportMetric(float64(tm)/float64(fm), "tool/floor")
	b.ReportMetric(float64(tm)/float64(am), "tool/engine")
	engineCPU.Report(b, "engine", len(tools))
	toolCPU.Report(b, "tool", len(tools))
}

func medianOf(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}
