// Command watchbench measures the workspace watcher (journal watch, which
// journal serve runs too) as a user meets it, on the built binary in a
// process of its own:
//
//   - latency: single files written by another process one at a time,
//     from the end of each write to the watcher's report of its event
//     (p50, p99);
//
//   - burst: 10,000 new files written as fast as this process can (a
//     checkout), from the end of the burst until every file is recorded,
//     the watcher's peak RSS, and the store's growth against the bytes;
//
//   - start: a repository of 100,000 files in 20,000 directories, from the
//     process's start to "watching" (the catch-up done): the first start
//     (which records the baseline) and a restart (nothing changed);
//
//   - idle: the watcher's CPU over 10 s with nothing changing.
//
//     go run ./bench/cmd/watchbench [-journal BIN] [-md BENCHMARKS.md]
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

func main() {
	bin := flag.String("journal", "", "journal binary (default: build ./cmd/journal)")
	files := flag.Int("start-files", 100000, "files of the start workload")
	dirs := flag.Int("start-dirs", 20000, "directories of the start workload")
	burst := flag.Int("burst", 10000, "files of the burst workload")
	samples := flag.Int("samples", 100, "writes of the latency workload")
	flag.Parse()
	if *bin == "" {
		dir, _ := os.MkdirTemp("", "watchbench-bin")
		*bin = filepath.Join(dir, "journal")
		if out, err := exec.Command("go", "build", "-o", *bin, "./cmd/journal").CombinedOutput(); err != nil {
			fatal("build: %v\n%s", err, out)
		}
	}
	fmt.Printf("watchbench %s, %s\n", time.Now().UTC().Format(time.RFC3339), machine())
	lat := latency(*bin, *samples)
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	fmt.Printf("latency (write -> event, %d single-file writes): p50 %v, p99 %v, max %v\n", len(lat),
		pct(lat, 50), pct(lat, 99), lat[len(lat)-1])
	d, rss, stored, written := burstRun(*bin, *burst)
	fmt.Printf("burst of %d files: recorded %v after the burst ended; peak RSS %d MiB; store grew %s for %s written\n",
		*burst, d.Round(time.Millisecond), rss>>10, human(stored), human(written))
	first, again, rss1, rss2 := startRun(*bin, *files, *dirs)
	fmt.Printf("start in %d files / %d dirs: first start (baseline) %v (peak RSS %d MiB); restart %v (peak RSS %d MiB)\n",
		*files, *dirs, first.Round(time.Millisecond), rss1>>10, again.Round(time.Millisecond), rss2>>10)
	cpu := idle(*bin)
	fmt.Printf("idle: %.2f %% of one CPU over 10 s\n", cpu)
}

func fatal(f string, a ...any) {
	fmt.Fprintf(os.Stderr, "watchbench: "+f+"\n", a...)
	os.Exit(2)
}

func machine() string {
	b, _ := os.ReadFile("/proc/cpuinfo")
	n := strings.Count(string(b), "processor\t:")
	return fmt.Sprintf("%d CPUs", n)
}

func pct(d []time.Duration, p int) time.Duration {
	i := (len(d)*p + 99) / 100
	if i < 1 {
		i = 1
	}
	return d[i-1].Round(time.Millisecond)
}

func human(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// watcher is a running `journal watch` whose reports arrive on lines.
type watcher struct {
	cmd   *exec.Cmd
	lines chan line
}

type line struct {
	text string
	at   time.Time
}

func startWatch(bin, dir string) (*watcher, time.Time) {
	cmd := exec.Command(bin, "watch", "--root", dir)
	cmd.Dir = dir
	stderr, _ := cmd.StderrPipe()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		fatal("%v", err)
	}
	w := &watcher{cmd: cmd, lines: make(chan line, 100000)}
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			w.lines <- line{sc.Text(), time.Now()}
		}
		close(w.lines)
	}()
	return w, start
}

// until waits for a line containing s.
func (w *watcher) until(s string) line {
	for l := range w.lines {
		if strings.Contains(l.text, s) {
			return l
		}
	}
	fatal("the watcher stopped before %q", s)
	return line{}
}

func (w *watcher) stop() int64 {
	rss := hwm(w.cmd.Process.Pid)
	w.cmd.Process.Signal(os.Interrupt)
	w.cmd.Wait()
	return rss
}

// hwm is a process's peak resident set, in KiB.
func hwm(pid int) int64 {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmHWM:") {
			n, _ := strconv.ParseInt(strings.Fields(l)[1], 10, 64)
			return n
		}
	}
	return 0
}

func cpuTicks(pid int) int64 {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return u + s
}

var recorded = regexp.MustCompile(`recorded (\d+) file\(s\)`)

func latency(bin string, n int) []time.Duration {
	dir, _ := os.MkdirTemp("", "watchbench-lat")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "seed.txt"), []byte("seed\n"), 0o644)
	w, _ := startWatch(bin, dir)
	w.until("watching")
	var out []time.Duration
	for i := 0; i < n; i++ {
		name := filepath.Join(dir, fmt.Sprintf("f%d.txt", i%10))
		if err := os.WriteFile(name, []byte(fmt.Sprintf("sample %d\n", i)), 0o644); err != nil {
			fatal("%v", err)
		}
		done := time.Now()
		l := w.until("recorded")
		out = append(out, l.at.Sub(done))
		time.Sleep(50 * time.Millisecond)
	}
	w.stop()
	return out
}

func burstRun(bin string, n int) (time.Duration, int64, int64, int64) {
	dir, _ := os.MkdirTemp("", "watchbench-burst")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "seed.txt"), []byte("seed\n"), 0o644)
	w, _ := startWatch(bin, dir)
	w.until("watching")
	before := dirSize(filepath.Join(dir, ".journal"))
	var written int64
	for i := 0; i < n; i++ {
		d := filepath.Join(dir, "src", fmt.Sprintf("d%d", i%100))
		os.MkdirAll(d, 0o755)
		body := []byte(strings.Repeat(fmt.Sprintf("line %d of a source file of the checkout\n", i%37), 40+i%60))
		written += int64(len(body))
		if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("f%d.go", i)), body, 0o644); err != nil {
			fatal("%v", err)
		}
	}
	end := time.Now()
	got := 0
	var last time.Time
	for got < n {
		l := w.until("recorded")
		m := recorded.FindStringSubmatch(l.text)
		k, _ := strconv.Atoi(m[1])
		got += k
		last = l.at
	}
	rss := w.stop()
	return last.Sub(end), rss, dirSize(filepath.Join(dir, ".journal")) - before, written
}

func dirSize(d string) int64 {
	var n int64
	filepath.Walk(d, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			n += fi.Size()
		}
		return nil
	})
	return n
}

func startRun(bin string, files, dirs int) (time.Duration, time.Duration, int64, int64) {
	dir, _ := os.MkdirTemp("", "watchbench-start")
	defer os.RemoveAll(dir)
	var wg sync.WaitGroup
	per := files / dirs
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := g; i < dirs; i += 4 {
				d := filepath.Join(dir, fmt.Sprintf("m%d", i/200), fmt.Sprintf("p%d", i))
				os.MkdirAll(d, 0o755)
				for j := 0; j < per; j++ {
					os.WriteFile(filepath.Join(d, fmt.Sprintf("f%d.txt", j)), []byte(fmt.Sprintf("package p%d // file %d\n", i, j)), 0o644)
				}
			}
		}(g)
	}
	wg.Wait()
	w, start := startWatch(bin, dir)
	first := w.until("watching").at.Sub(start)
	rss1 := w.stop()
	w, start = startWatch(bin, dir)
	again := w.until("watching").at.Sub(start)
	rss2 := w.stop()
	return first, again, rss1, rss2
}

func idle(bin string) float64 {
	dir, _ := os.MkdirTemp("", "watchbench-idle")
	defer os.RemoveAll(dir)
	for i := 0; i < 1000; i++ {
		d := filepath.Join(dir, fmt.Sprintf("d%d", i%50))
		os.MkdirAll(d, 0o755)
		os.WriteFile(filepath.Join(d, fmt.Sprintf("f%d", i)), []byte("x\n"), 0o644)
	}
	w, _ := startWatch(bin, dir)
	w.until("watching")
	time.Sleep(time.Second)
	pid := w.cmd.Process.Pid
	t0 := cpuTicks(pid)
	time.Sleep(10 * time.Second)
	t1 := cpuTicks(pid)
	w.stop()
	return float64(t1-t0) / 100 / 10 * 100 // ticks are 1/100 s
}
