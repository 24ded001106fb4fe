package main_test

import (
	"bytes"
	"fmt"
	"github.com/journalfs/journal/journal"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// wall runs the binary b.N times and reports the mean wall time per run.
func wall(b *testing.B, dir string, args ...string) time.Duration {
	b.Helper()
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
	}
	d := time.Since(start) / time.Duration(b.N)
	b.ReportMetric(float64(d.Microseconds())/1000, "ms/run")
	return d
}

// BenchmarkLog100k: `journal log -n 20` on a 100,000-event journal (target < 100 ms wall)
// that was last written more than a second ago: the structural check's stamp holds.
func BenchmarkLog100k(b *testing.B) {
	dir := b.TempDir()
	bigJournal(b, dir, 100000)
	time.Sleep(1100 * time.Millisecond) // past the stamp's margin
	if out, err := exec.Command(bin, "--journal", filepath.Join(dir, ".journal", "journal.db"), "log", "-n", "1").CombinedOutput(); err != nil {
		b.Fatalf("%v %s", err, out)
	}
	wall(b, dir, "log", "-n", "20", "--no-pager")
}

// BenchmarkLog100kAfterWrite: the same, on a journal written just before each
// run (its times touched): every run pays the structural check.
func BenchmarkLog100kAfterWrite(b *testing.B) {
	dir := b.TempDir()
	p := bigJournal(b, dir, 100000)
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		now := time.Now()
		if err := os.Chtimes(p, now, now); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		cmd := exec.Command(bin, "log", "-n", "20", "--no-pager")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
	}
	b.ReportMetric(float64(time.Since(start).Microseconds())/1000/float64(b.N), "ms/run")
}

// BenchmarkExport100k: `journal export -o FILE` throughput (target ≥ 20,000 events/s).
func BenchmarkExport100k(b *testing.B) {
	dir := b.TempDir()
	bigJournal(b, dir, 100000)
	d := wall(b, dir, "export", "-o", filepath.Join(dir, "audit.jsonl"))
	b.ReportMetric(100000/d.Seconds(), "events/s")
	if fi, err := os.Stat(filepath.Join(dir, "audit.jsonl")); err == nil {
		b.ReportMetric(float64(fi.Size())/1e6, "MB-export")
	}
}

var reHashed = regexp.MustCompile(`(\d+) contents re-hashed`)

// BenchmarkVerify: `journal verify` on 2,000 events of 32 KiB contents (64 MB), in MB/s of content.
func BenchmarkVerify(b *testing.B) {
	dir := b.TempDir()
	bigJournalPadded(b, dir, 2000, 32<<10)
	d := wall(b, dir, "verify")
	out, _ := exec.Command(bin, "--journal", filepath.Join(dir, ".journal", "journal.db"), "verify").Output()
	if m := reHashed.FindSubmatch(out); m != nil {
		n, _ := strconv.Atoi(string(m[1]))
		b.ReportMetric(float64(n)*32768/1e6/d.Seconds(), "MB/s")
	}
}

// BenchmarkVerifyExport100k: `journal verify --export` on a 100,000-event export.
func BenchmarkVerifyExport100k(b *testing.B) {
	dir := b.TempDir()
	bigJournal(b, dir, 100000)
	exp := filepath.Join(dir, "audit.jsonl")
	if out, err := exec.Command(bin, "--journal", filepath.Join(dir, ".journal", "journal.db"), "export", "-o", exp).CombinedOutput(); err != nil {
		b.Fatalf("%v %s", err, out)
	}
	d := wall(b, dir, "verify", "--export", exp)
	b.ReportMetric(100000/d.Seconds(), "events/s")
}

// BenchmarkCheck100k: the structural check (journal.Check: every page in
// use read and walked) on a 100,000-event journal, which `journal status`
// and the first write of every process pay; beside it `journal log -n 20`
// for scale.
func BenchmarkCheck100k(b *testing.B) {
	dir := b.TempDir()
	p := bigJournal(b, dir, 100000)
	j, err := journal.Open(p, journal.Options{})
	if err != nil {
		b.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	var r *journal.CheckReport
	for i := 0; i < b.N; i++ {
		if r, err = j.Check(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(r.Pages), "pages")
	b.ReportMetric(float64(fi.Size())/1e6, "MB-file")
}

// BenchmarkBlame: `journal blame` of a 2,000-line file with 1,000 events on
// it (issue #18: at most 200 ms).
func BenchmarkBlame(b *testing.B) {
	dir := blameWorkspace(b)
	wall(b, dir, "blame", "--porcelain", "big.go")
}

// BenchmarkStatus100k: `journal status` on a 100,000-event journal whose
// 200 files are on disk as the journal last saw them (issue #23: ≤ 20 ms).
func BenchmarkStatus100k(b *testing.B) {
	dir := b.TempDir()
	bigJournal(b, dir, 100000)
	// the files as their last events left them
	for f := 0; f < 200; f++ {
		last := 100000 - 200 + f
		p := filepath.Join(dir, "src", fmt.Sprintf("f%03d.go", f))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, fmt.Appendf(nil, "package f\n\n// version %d\nfunc F() int { return %d }\n", last, last), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	time.Sleep(1100 * time.Millisecond) // past the structural check stamp's margin
	if out, err := exec.Command(bin, "--journal", filepath.Join(dir, ".journal", "journal.db"), "status").CombinedOutput(); err != nil || !strings.Contains(string(out), "no file changed outside the journal") {
		b.Fatalf("%v %s", err, out)
	}
	wall(b, dir, "status")
}

// BenchmarkCheckpoints100k: on a 100,000-event journal with a checkpoint
// every 10,000 events and one at the end, the binary's wall time (process
// start included) of `journal checkpoint` after 10,000 new events, of
// `journal prove` of an event (target ≤ 50 ms) and of `journal verify
// --key` (chain, contents, tree and every signature) and `journal verify
// --export --key` in events/s (target ≥ 50,000).
func BenchmarkCheckpoints100k(b *testing.B) {
	dir, jp, key := signedBig100k(b)
	start := time.Now()
	if out, err := exec.Command(bin, "--journal", jp, "checkpoint", "--key", key).CombinedOutput(); err != nil {
		b.Fatalf("%v %s", err, out)
	}
	sign := time.Since(start)
	exp := filepath.Join(dir, "audit.jsonl")
	if out, err := exec.Command(bin, "--journal", jp, "export", "-o", exp).CombinedOutput(); err != nil {
		b.Fatalf("%v %s", err, out)
	}
	prove := wallOnce(b, dir, "prove", "54321", "--key", key+".pub")
	verify := wallOnce(b, dir, "verify", "--key", key+".pub")
	verifyExport := wallOnce(b, dir, "verify", "--export", exp, "--key", key+".pub")
	plain := wallOnce(b, dir, "verify")
	plainExport := wallOnce(b, dir, "verify", "--export", exp)
	b.ReportMetric(float64(sign.Microseconds())/1000, "checkpoint-ms")
	b.ReportMetric(float64(prove.Microseconds())/1000, "prove-ms")
	b.ReportMetric(100000/verify.Seconds(), "verify-events/s")
	b.ReportMetric(100000/plain.Seconds(), "verify-unsigned-events/s")
	b.ReportMetric(100000/verifyExport.Seconds(), "verify-export-events/s")
	b.ReportMetric(100000/plainExport.Seconds(), "verify-export-unsigned-events/s")
}

// signedBig100k makes bigJournal's 100,000 events with a checkpoint signed
// after every 10,000 but the last 10,000 (a key of its own, in a config
// directory of its own). It returns the workspace, the journal and the
// signer key file.
func signedBig100k(b *testing.B) (dir, jp, key string) {
	b.Setenv("XDG_CONFIG_HOME", filepath.Join(b.TempDir(), "config"))
	dir = b.TempDir()
	jp = filepath.Join(dir, journal.DirName, journal.FileName)
	key = filepath.Join(b.TempDir(), "k")
	if out, err := exec.Command(bin, "key", "generate", "--out", key).CombinedOutput(); err != nil {
		b.Fatalf("%v %s", err, out)
	}
	for n := 10000; n <= 100000; n += 10000 {
		bigJournalFrom(b, dir, n-10000, 10000)
		if n == 100000 {
			break // the caller signs the last one
		}
		if out, err := exec.Command(bin, "--journal", jp, "checkpoint", "--key", key).CombinedOutput(); err != nil {
			b.Fatalf("%v %s", err, out)
		}
	}
	return dir, jp, key
}

// BenchmarkVerifyExportSigned100k: `journal verify --export FILE --key
// FILE.pub` of 100,000 events whose head carries 10 checkpoints, wall time
// of the binary (target ≥ 50,000 events/s). With JOURNAL_BENCH_BASE naming
// another build of the binary (an earlier commit's), each iteration runs
// that one too, alternating, so that both meet the same load: a side by
// side comparison on a shared machine.
func BenchmarkVerifyExportSigned100k(b *testing.B) {
	dir, jp, key := signedBig100k(b)
	if out, err := exec.Command(bin, "--journal", jp, "checkpoint", "--key", key).CombinedOutput(); err != nil {
		b.Fatalf("%v %s", err, out)
	}
	exp := filepath.Join(dir, "audit.jsonl")
	if out, err := exec.Command(bin, "--journal", jp, "export", "-o", exp).CombinedOutput(); err != nil {
		b.Fatalf("%v %s", err, out)
	}
	base := os.Getenv("JOURNAL_BENCH_BASE")
	args := []string{"verify", "--export", exp, "--key", key + ".pub"}
	var mine, theirs time.Duration
	timed := func(binary string) time.Duration {
		cmd := exec.Command(binary, args...)
		cmd.Dir = dir
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil || !bytes.Contains(out, []byte("10 checkpoint(s) match")) {
			b.Fatalf("%s %v: %v %s", binary, args, err, out)
		}
		return time.Since(start)
	}
	for i := 0; b.Loop(); i++ {
		if base != "" && i%2 == 1 { // the other first every other time
			theirs += timed(base)
		}
		mine += timed(bin)
		if base != "" && i%2 == 0 {
			theirs += timed(base)
		}
	}
	b.ReportMetric(float64(100000*b.N)/mine.Seconds(), "events/s")
	if base != "" {
		b.ReportMetric(float64(100000*b.N)/theirs.Seconds(), "base-events/s")
	}
}

// wallOnce is the mean wall time of b.N runs of the binary, without
// touching the benchmark's timer.
func wallOnce(b *testing.B, dir string, args ...string) time.Duration {
	b.Helper()
	start := time.Now()
	for range b.N {
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	return time.Since(start) / time.Duration(b.N)
}
