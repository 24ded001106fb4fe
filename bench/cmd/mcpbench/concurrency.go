package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/journalfs/journal/bench/mcpclient"
	"github.com/journalfs/journal/bench/report"
	"github.com/journalfs/journal/bench/stats"
)

// ConcurrencyHeading is the BENCHMARKS.md section -concurrency replaces.
const ConcurrencyHeading = "## Several agents on one workspace (issue #17)"

// ConcurrencyReport is the result of -concurrency.
type ConcurrencyReport struct {
	Date     time.Time      `json:"date"`
	Commit   string         `json:"commit"`
	Machine  report.Machine `json:"machine"`
	Seconds  float64        `json:"seconds_per_run"`
	Runs     []ConcRun      `json:"runs"`
	CLI      []CLIRun       `json:"cli"`
	Commands []string       `json:"commands"`
}

// ConcRun is n stdio servers (or n sessions of one HTTP server) editing
// one file each for a while.
type ConcRun struct {
	Transport   string  `json:"transport"` // "stdio" (n servers) or "http" (n sessions of one)
	Servers     int     `json:"servers"`
	Edits       int     `json:"edits"`
	Seconds     float64 `json:"seconds"`
	EditsPerSec float64 `json:"edits_per_second"`
	Lost        int     `json:"lost_edits"`
	Verified    bool    `json:"verified"`
	Events      int     `json:"events"`
	// CLI says the CLI ran meanwhile (cliWhileWriting).
	CLI bool `json:"cli,omitempty"`
	// CPUPerEdit is the CPU time (user and system) of the server
	// processes divided by the edits, in milliseconds: what one edit costs
	// the machine, whatever the number of processes.
	CPUPerEdit float64 `json:"server_cpu_ms_per_edit"`
}

// CLIRun is one CLI command run again and again while the writers run.
type CLIRun struct {
	Command  string  `json:"command"`
	Runs     int     `json:"runs"`
	MedianMS float64 `json:"median_ms"`
	P95MS    float64 `json:"p95_ms"`
	MaxMS    float64 `json:"max_ms"`
	Failed   int     `json:"failed"`
	Busy     int     `json:"busy"`
}

// concLines is the size of each writer's file.
const concLines = 300

func runConcurrency(args []string, stderr io.Writer, journalBin, workdir string, keep bool, counts, sessions string, seconds float64, jsonOut, mdOut string) int {
	b := &bench{cfg: full, log: stderr, fixtures: map[int]fixture{}, infos: map[string]string{}, keep: keep, targets: []string{report.Ours}}
	b.sv.timeout = time.Minute
	b.sv.oursArgs = []string{"--lsp=false"}
	if err := b.setup(workdir, journalBin, ""); err != nil {
		fmt.Fprintf(stderr, "mcpbench: %v\n", err)
		return 2
	}
	if !b.keep {
		defer os.RemoveAll(b.workdir)
	}
	rep := &ConcurrencyReport{Date: time.Now().UTC(), Commit: commitOf(), Machine: machine(b.workdir), Seconds: seconds,
		Commands: []string{"go run ./bench/cmd/mcpbench " + strings.Join(args, " ")}}
	ks, err := parseCounts(sessions)
	if err != nil {
		fmt.Fprintf(stderr, "mcpbench: -sessions: %v\n", err)
		return 2
	}
	ns, err := parseCounts(counts)
	if err == nil && len(ns) == 0 {
		err = errors.New("no server count")
	}
	if err != nil {
		fmt.Fprintf(stderr, "mcpbench: -servers: %v\n", err)
		return 2
	}
	for _, k := range ks {
		run, err := b.concurrencyHTTP(k, time.Duration(seconds*float64(time.Second)))
		if err != nil {
			fmt.Fprintf(stderr, "mcpbench: %d HTTP sessions: %v\n", k, err)
			return 1
		}
		b.logf("%d HTTP sessions: %d edits in %.1f s (%.0f/s), lost %d, verified %v", k, run.Edits, run.Seconds, run.EditsPerSec, run.Lost, run.Verified)
		rep.Runs = append(rep.Runs, run)
	}
	// Each count alone, then the last one again with the CLI running.
	for i, n := range append(ns, ns[len(ns)-1]) {
		withCLI := i == len(ns)
		run, cli, err := b.concurrency(n, time.Duration(seconds*float64(time.Second)), withCLI)
		if err != nil {
			fmt.Fprintf(stderr, "mcpbench: %d servers: %v\n", n, err)
			return 1
		}
		b.logf("%d servers (CLI %v): %d edits in %.1f s (%.0f/s, %.2f ms CPU each), lost %d, verified %v", n, withCLI, run.Edits, run.Seconds, run.EditsPerSec, run.CPUPerEdit, run.Lost, run.Verified)
		rep.Runs = append(rep.Runs, run)
		rep.CLI = append(rep.CLI, cli...)
	}
	if err := saveReport(rep, jsonOut, mdOut, ConcurrencyHeading, rep.Markdown()); err != nil {
		fmt.Fprintf(stderr, "mcpbench: %v\n", err)
		return 2
	}
	bad := false
	for _, r := range rep.Runs {
		bad = bad || r.Lost > 0 || !r.Verified
	}
	for _, c := range rep.CLI {
		bad = bad || c.Failed > 0
	}
	if bad {
		fmt.Fprintln(stderr, "mcpbench: FAILED: lost edits, a journal that does not verify, or a CLI command that failed")
		return 1
	}
	return 0
}

// concurrency runs n servers on one workspace, each editing its own file
// for d; with cli, the CLI runs `log` and `revert` meanwhile.
func (b *bench) concurrency(n int, d time.Duration, cli bool) (ConcRun, []CLIRun, error) {
	ws := filepath.Join(b.workdir, fmt.Sprintf("conc-%d", n))
	if err := os.MkdirAll(ws, 0o755); err != nil {
		return ConcRun{}, nil, err
	}
	ws, _ = filepath.EvalSymlinks(ws)
	paths, models, err := writerFiles(ws, n)
	if err != nil {
		return ConcRun{}, nil, err
	}
	// the file the CLI reverts back and forth: one edit made before the run
	side := filepath.Join(ws, "side.txt")
	sm := newLines(concLines, smallLine)
	if err := sm.write(side); err != nil {
		return ConcRun{}, nil, err
	}
	s0, err := b.sv.start(report.Ours, ws)
	if err != nil {
		return ConcRun{}, nil, err
	}
	if _, err := s0.editLine(side, 0, sm.line(0), "side edit"); err != nil {
		s0.close()
		return ConcRun{}, nil, err
	}
	s0.close()
	sessions := make([]*session, n)
	callers := make([]caller, n)
	for i := range sessions {
		if sessions[i], err = b.sv.start(report.Ours, ws); err != nil {
			return ConcRun{}, nil, err
		}
		callers[i] = sessions[i].p.Client
	}
	defer func() {
		for _, s := range sessions {
			s.close()
		}
	}()
	stop := make(chan struct{})
	t0 := time.Now()
	_, wait := runWriters(callers, paths, models, stop)
	var clis []CLIRun
	if cli {
		clis = b.cliWhileWriting(ws, d)
	} else {
		time.Sleep(d)
	}
	close(stop)
	edits, err := wait()
	elapsed := time.Since(t0).Seconds()
	if err != nil {
		return ConcRun{}, nil, err
	}
	run := ConcRun{Transport: "stdio", Servers: n, Edits: edits, Seconds: elapsed, EditsPerSec: float64(edits) / elapsed, CLI: cli}
	var cpu time.Duration
	for _, s := range sessions {
		p := s.p
		s.close()
		cpu += p.CPU()
	}
	run.CPUPerEdit = cpuPerEdit(cpu, edits)
	b.checkRun(ws, paths, models, &run)
	return run, clis, nil
}

// runWriters starts one goroutine per caller, each making one-line
// edit_content calls on its own file (paths[i], modelled by models[i])
// until stop is closed; wait returns the number of edits made, or the
// first error.
func runWriters(callers []caller, paths []string, models []*lines, stop chan struct{}) (total *atomic.Int64, wait func() (int, error)) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var errs []error
	total = new(atomic.Int64)
	for i, c := range callers {
		wg.Go(func() {
			rng := newRNG(uint64(i + 1))
			for k := 0; ; k++ {
				select {
				case <-stop:
					return
				default:
				}
				line := k * 7 % concLines
				nw := replacement(rng, fmt.Sprintf("agent %d", i), k, line)
				args := map[string]any{"absolute_file_path": paths[i], "search_text": models[i].line(line), "replace_text": nw, "preview": false, "fuzzy": false}
				if _, err := c.CallTool("edit_content", args); err != nil {
					mu.Lock()
					errs = append(errs, fmt.Errorf("writer %d edit %d: %w", i, k, err))
					mu.Unlock()
					return
				}
				models[i].set(line, nw)
				total.Add(1)
			}
		})
	}
	return total, func() (int, error) {
		wg.Wait()
		if len(errs) > 0 {
			return int(total.Load()), errs[0]
		}
		return int(total.Load()), nil
	}
}

// concurrencyHTTP runs k sessions of one `journal serve --http` on one
// workspace, each editing its own file for d.
func (b *bench) concurrencyHTTP(k int, d time.Duration) (ConcRun, error) {
	ws := filepath.Join(b.workdir, fmt.Sprintf("conc-http-%d", k))
	if err := os.MkdirAll(ws, 0o755); err != nil {
		return ConcRun{}, err
	}
	ws, _ = filepath.EvalSymlinks(ws)
	paths, models, err := writerFiles(ws, k)
	if err != nil {
		return ConcRun{}, err
	}
	addrFile := filepath.Join(b.workdir, fmt.Sprintf("conc-http-%d.addr", k))
	cmd := exec.Command(b.sv.journalBin, "serve", "--root", ws, "--http", "127.0.0.1:0", "--lsp=false")
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "JOURNAL_PATH=", "JOURNAL_ADDR_FILE="+addrFile)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return ConcRun{}, err
	}
	stopped := false
	stopServer := func() {
		if !stopped {
			stopped = true
			cmd.Process.Signal(os.Interrupt)
			cmd.Wait()
		}
	}
	defer stopServer()
	var addr []byte
	for deadline := time.Now().Add(20 * time.Second); len(addr) == 0; {
		if time.Now().After(deadline) {
			return ConcRun{}, fmt.Errorf("the HTTP server did not start: %s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
		addr, _ = os.ReadFile(addrFile)
	}
	callers := make([]caller, k)
	for i := range callers {
		c := mcpclient.DialHTTP("http://"+string(addr)+"/mcp", b.sv.timeout)
		if _, err := c.Initialize(fmt.Sprintf("mcpbench-%d", i)); err != nil {
			return ConcRun{}, fmt.Errorf("initialize session %d: %w", i, err)
		}
		callers[i] = c
	}
	stop := make(chan struct{})
	t0 := time.Now()
	_, wait := runWriters(callers, paths, models, stop)
	time.Sleep(d)
	close(stop)
	edits, err := wait()
	elapsed := time.Since(t0).Seconds()
	if err != nil {
		return ConcRun{}, err
	}
	stopServer()
	run := ConcRun{Transport: "http", Servers: k, Edits: edits, Seconds: elapsed, EditsPerSec: float64(edits) / elapsed}
	if ps := cmd.ProcessState; ps != nil {
		run.CPUPerEdit = cpuPerEdit(ps.UserTime()+ps.SystemTime(), edits)
	}
	b.checkRun(ws, paths, models, &run)
	return run, nil
}

// counts2 parses a comma-separated list of counts.
func parseCounts(list string) ([]int, error) {
	var ns []int
	for _, f := range strings.Split(list, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q is not a count", f)
		}
		ns = append(ns, n)
	}
	return ns, nil
}

// cpuPerEdit returns cpu per edit in milliseconds.
func cpuPerEdit(cpu time.Duration, edits int) float64 {
	if edits == 0 {
		return 0
	}
	return cpu.Seconds() * 1000 / float64(edits)
}

// writerFiles writes n files of concLines lines into ws, one per writer.
func writerFiles(ws string, n int) ([]string, []*lines, error) {
	paths := make([]string, n)
	models := make([]*lines, n)
	for i := range paths {
		paths[i] = filepath.Join(ws, fmt.Sprintf("agent%d.txt", i))
		models[i] = newLines(concLines, smallLine)
		if err := models[i].write(paths[i]); err != nil {
			return nil, nil, err
		}
	}
	return paths, models, nil
}

// checkRun checks every writer's file line by line (a file that differs
// counts as lost edits), verifies the journal and reads its last event.
func (b *bench) checkRun(ws string, paths []string, models []*lines, run *ConcRun) {
	for i := range paths {
		if err := models[i].check(paths[i]); err != nil {
			run.Lost++
			b.logf("%s %d: %v", run.Transport, run.Servers, err)
		}
	}
	if _, _, err := b.journalCLI(ws, 5*time.Minute, "verify"); err != nil {
		b.logf("%s %d: %v", run.Transport, run.Servers, err)
	} else {
		run.Verified = true
	}
	if out, _, err := b.journalCLI(ws, time.Minute, "log", "-n", "1", "--no-pager", "--json"); err == nil {
		var ev struct {
			Seq int `json:"seq"`
		}
		if json.Unmarshal(out, &ev) == nil {
			run.Events = ev.Seq
		}
	}
}

var asEventRE = regexp.MustCompile(`as event (\d+)`)

// cliWhileWriting runs `journal log -n 20` and `journal revert` (of the
// side file's edit, then of that revert, and so on) one after the other
// for d, timing each.
func (b *bench) cliWhileWriting(ws string, d time.Duration) []CLIRun {
	names := []string{"log -n 20", "revert N"}
	durs := make([][]time.Duration, len(names))
	runs := make([]CLIRun, len(names))
	// timed runs the CLI as command k and records its time and failure.
	timed := func(k int, args ...string) ([]byte, error) {
		t0 := time.Now()
		out, _, err := b.journalCLI(ws, time.Minute, args...)
		durs[k] = append(durs[k], time.Since(t0))
		if err != nil {
			runs[k].Failed++
			if strings.Contains(err.Error(), "BUSY") {
				runs[k].Busy++
			}
			b.logf("%v", err)
		}
		return out, err
	}
	target := 0 // the event the next revert reverts
	for end := time.Now().Add(d); time.Now().Before(end); {
		timed(0, "log", "-n", "20", "--no-pager", "--json")
		if target == 0 { // the side file's edit: by its path (the writers' edits push it out of the newest 20 at once)
			out, _, err := b.journalCLI(ws, time.Minute, "log", "-n", "1", "--no-pager", "--json", "side.txt")
			if target = sideEvent(out); err != nil || target == 0 {
				continue
			}
		}
		if rout, err := timed(1, "revert", strconv.Itoa(target)); err == nil {
			if m := asEventRE.FindSubmatch(rout); m != nil {
				target, _ = strconv.Atoi(string(m[1]))
			}
		}
	}
	for k := range runs {
		sum := stats.Of(durs[k])
		runs[k].Command, runs[k].Runs = "journal "+names[k], len(durs[k])
		runs[k].MedianMS, runs[k].P95MS, runs[k].MaxMS = sum.Median, sum.P95, sum.Max
	}
	return runs
}

// sideEvent finds, in `journal log --json` output (JSON lines, newest
// first), the newest event that changed side.txt.
func sideEvent(out []byte) int {
	for _, line := range strings.Split(string(out), "\n") {
		var e struct {
			Seq   int `json:"seq"`
			Files []struct {
				Path string `json:"path"`
			} `json:"files"`
		}
		if json.Unmarshal([]byte(line), &e) != nil {
			continue
		}
		for _, f := range e.Files {
			if f.Path == "side.txt" {
				return e.Seq
			}
		}
	}
	return 0
}

// Markdown renders the report as the section ConcurrencyHeading.
func (r *ConcurrencyReport) Markdown() string {
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	p("%s\n\n", ConcurrencyHeading)
	p("<!-- Generated by bench/cmd/mcpbench -concurrency; do not edit by hand. -->\n\n")
	p("Writers on one workspace, each making one-line `edit_content` calls on its own %d-line file, back to back, for %.0f s: N `journal serve` processes (stdio, the harness's client each; the first serves the others' sessions, which they relay to it: mcp/share.go), or N sessions of one `journal serve --http` (a Streamable HTTP client each); then every file is checked line by line (a lost edit is a line that differs) and `journal verify` runs. In the last stdio run (\"+ CLI\") the CLI runs meanwhile, one command after the other: `journal log -n 20` and `journal revert N` (of a side file's edit, then of that revert, and so on). CPU per edit is the servers' user and system time divided by the edits: on this 2-core machine the harness's clients share the cores with the servers, so edits/s can only grow with the writers where CPU per edit does not.\n\n", concLines, r.Seconds)
	m := r.Machine
	p("- **Date:** %s; **commit:** %s\n", r.Date.Format("2006-01-02 15:04 UTC"), r.Commit)
	p("- **Machine:** %s, %d cores, %d GiB RAM, Linux %s, work dir on %s; %s\n", m.CPU, m.Cores, m.MemoryGiB, m.Kernel, m.Disk, m.Go)
	p("- **Reproduce:**\n\n```sh\n%s\n```\n\n", strings.Join(r.Commands, "\n"))
	p("| transport | writers | edits | edits/s | vs one writer | server CPU per edit (ms) | lost edits | verify | events in the journal |\n|---|--:|--:|--:|--:|--:|--:|---|--:|\n")
	one := map[string]float64{}
	for _, run := range r.Runs {
		if run.Servers == 1 && !run.CLI {
			one[run.Transport] = run.EditsPerSec
		}
		ratio := "—"
		if o := one[run.Transport]; o > 0 {
			ratio = fmt.Sprintf("%.2f×", run.EditsPerSec/o)
		}
		v := "fails"
		if run.Verified {
			v = "ok"
		}
		what := plural(run.Servers, "stdio server")
		if run.Transport == "http" {
			what = "1 HTTP server, " + plural(run.Servers, "session")
		}
		if run.CLI {
			what += " + CLI"
		}
		p("| %s | %s | %d | %.0f | %s | %.2f | %d | %s | %d |\n", run.Transport, what, run.Edits, run.EditsPerSec, ratio, run.CPUPerEdit, run.Lost, v, run.Events)
	}
	if len(r.CLI) > 0 {
		p("\n| CLI command while %d stdio servers write | runs | median (ms) | p95 (ms) | max (ms) | failed | BUSY |\n|---|--:|--:|--:|--:|--:|--:|\n", r.Runs[len(r.Runs)-1].Servers)
		for _, c := range r.CLI {
			p("| `%s` | %d | %.1f | %.1f | %.1f | %d | %d |\n", c.Command, c.Runs, c.MedianMS, c.P95MS, c.MaxMS, c.Failed, c.Busy)
		}
	}
	return b.String()
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
