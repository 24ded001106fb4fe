// Command mcpbench is the comparison harness of issue 9: it runs the same
// workloads against our server (`journal serve`), the reference MCP
// filesystem server (@modelcontextprotocol/server-filesystem, installed by
// bench/setup.sh), and the reference plus a shadow-git checkpoint after each
// change, through one minimal stdio JSON-RPC client, and writes the results
// as JSON and as the "Comparison harness (issue 9)" section of BENCHMARKS.md.
//
// Usage, from the repository root:
//
//	bash bench/setup.sh
//	go run ./bench/cmd/mcpbench -json bench/results/full.json -md BENCHMARKS.md
//	go run ./bench/cmd/mcpbench -short          # under two minutes; what CI runs
//	go run ./bench/cmd/mcpbench -robustness -json bench/results/robustness.json -md BENCHMARKS.md
//	go run ./bench/cmd/mcpbench -history -json bench/results/history.json -md BENCHMARKS.md
//
// -robustness (issue #16) runs the corpus of imperfect edit requests in
// testdata/robustness instead of the workloads: every case on our server as
// the corpus says, and the cases the reference's edit_file can express on
// the reference, one fresh server and workspace per case, classified
// correct / refused-usable / refused-bare / wrong per family (the rules are
// in robustness.go), into the "Edit robustness (issue #16)" section. It
// exits 1 when ours made a wrong edit or failed, never for the reference.
//
// -history (issue #23) measures years of history instead (history.go): N
// one-line edits through our server, the CLI on that journal (time and peak
// RSS), and git's best packed size of the same history, into the "History
// at scale (issue #23)" section.
//
// Every run starts a fresh server on a fresh workspace. Rounds alternate the
// order of the targets (A B C, then C B A, ...) so drift hits all alike.
// After each run every file is compared with the expected content (and read
// replies with the expected lines); a run that does not match is FAILED and
// its timings are dropped.
//
// Exit status: 0 when every run was correct; 1 when a run of our server
// failed (in -short mode: any run failed); 2 when the harness could not run.
// Timings never change the exit status.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/journalfs/journal/bench/report"
)

// config sizes the workloads.
type config struct {
	smallLines, smallEdits          int
	bigMB, bigEdits                 int
	readMB                          []int
	reads, readSpan                 int
	batchFiles, batchLines, batches int
	reverts                         int
	logEdits, logRuns               int
	writeKB                         []int // whole-file write sizes (issue #17)
	writes                          int   // writes per size
	wbatchFiles, wbatchKB, wbatches int   // the whole-file batch
	memMB                           []int // file sizes of the memory workload (issue #17)
	rounds                          int
	floorN                          int
	timeout                         time.Duration
}

var (
	full = config{smallLines: 300, smallEdits: 200, bigMB: 50, bigEdits: 10, readMB: []int{50, 1024}, reads: 3, readSpan: 100,
		batchFiles: 50, batchLines: 200, batches: 10, reverts: 20, logEdits: 1000, logRuns: 5,
		writeKB: []int{10, 100, 1000, 10000}, writes: 11, wbatchFiles: 20, wbatchKB: 512, wbatches: 5,
		memMB: []int{50, 200, 1024}, rounds: 2, floorN: 500, timeout: 3 * time.Minute}
	short = config{smallLines: 300, smallEdits: 30, bigMB: 5, bigEdits: 3, readMB: []int{2, 10}, reads: 2, readSpan: 100,
		batchFiles: 50, batchLines: 200, batches: 3, reverts: 5, logEdits: 40, logRuns: 2,
		writeKB: []int{10, 1000}, writes: 3, wbatchFiles: 20, wbatchKB: 64, wbatches: 2,
		memMB: []int{20}, rounds: 2, floorN: 100, timeout: 60 * time.Second}
)

// bench is one invocation of the harness.
type bench struct {
	cfg     config
	sv      servers
	targets []string
	workdir string
	keep    bool
	// kill ends -history's server with SIGKILL after the edits (-kill)
	kill     bool
	log      io.Writer
	fixtures map[int]fixture // read-workload files by size in MB
	infos    map[string]string
	// retry makes a run that timed out run once more (-short, in CI: a
	// server stalled by the machine, not by a wrong result, should not fail
	// the build; the stall is still printed and reported). retried lists them.
	retry   bool
	retried []string
}

type fixture struct {
	path string
	m    *lines
}

func main() {
	os.Exit(run(os.Args[1:], os.Stderr))
}

func run(args []string, stderr io.Writer) int {
	fl := flag.NewFlagSet("mcpbench", flag.ContinueOnError)
	fl.SetOutput(stderr)
	shortMode := fl.Bool("short", false, "small files and counts; finishes in under two minutes (CI)")
	jsonOut := fl.String("json", "", "write the results as JSON to this file")
	mdOut := fl.String("md", "", "replace the \"Comparison harness (issue 9)\" section of this Markdown file (BENCHMARKS.md)")
	journalBin := fl.String("journal", "", "our server's binary (default: go build ./cmd/journal into the work dir)")
	refEntry := fl.String("ref", "", "the reference server's dist/index.js (default: where bench/setup.sh installs it)")
	targets := fl.String("targets", strings.Join([]string{report.Ours, report.Ref, report.RefGit}, ","), "targets to run")
	only := fl.String("workloads", "", "comma-separated workload ids to run (default: all)")
	rounds := fl.Int("rounds", 0, "rounds per workload (default: 2)")
	workdir := fl.String("workdir", "", "where workspaces go (default: a new temp dir, removed afterwards)")
	keep := fl.Bool("keep", false, "keep the work dir")
	kill := fl.Bool("kill", false, "-history: end the server with SIGKILL after the edits, as a client that kills its servers at exit leaves the journal (the write-ahead log not moved into the journal file, the secret scan not stored); the CLI then meets that journal")
	robust := fl.Bool("robustness", false, "instead of the workloads, run the edit-robustness corpus (issue #16) on ours and on the reference's edit_file (-targets journal,reference); -md replaces the \"Edit robustness (issue #16)\" section")
	corpus := fl.String("corpus", filepath.Join("testdata", "robustness"), "the edit-robustness corpus (-robustness)")
	parallel := fl.Int("parallel", runtime.NumCPU(), "cases run at once, each with its own server (-robustness)")
	history := fl.Bool("history", false, "instead of the workloads, measure years of history (issue #23): N one-line edits through our server, the CLI on that journal, and git's packed size of the same history; -md replaces the \"History at scale (issue #23)\" section")
	events := fl.String("events", "10000,100000", "edit counts of -history")
	conc := fl.Bool("concurrency", false, "instead of the workloads, measure several agents on one workspace (issue #17): 1, 2, 4 stdio servers editing their own files, with the CLI running in the last run; -md replaces the \"Several agents on one workspace (issue #17)\" section")
	servers := fl.String("servers", "1,2,4", "server counts of -concurrency")
	sessions := fl.String("sessions", "1,2,4,8", "HTTP session counts of -concurrency (\"\" for none)")
	concSeconds := fl.Float64("seconds", 5, "length of each -concurrency run")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if *conc {
		return runConcurrency(args, stderr, *journalBin, *workdir, *keep, *servers, *sessions, *concSeconds, *jsonOut, *mdOut)
	}
	if *history {
		return runHistory(args, stderr, *journalBin, *workdir, *keep, *kill, *events, *jsonOut, *mdOut)
	}
	if *robust {
		return runRobustness(args, stderr, *journalBin, *refEntry, *targets, *workdir, *keep, *corpus, *parallel, *jsonOut, *mdOut)
	}
	b := &bench{cfg: full, log: stderr, fixtures: map[int]fixture{}, infos: map[string]string{}, keep: *keep}
	mode := "full"
	if *shortMode {
		b.cfg, mode = short, "short"
		b.retry = true
	}
	if *rounds > 0 {
		b.cfg.rounds = *rounds
	}
	b.sv.timeout = b.cfg.timeout
	for _, t := range strings.Split(*targets, ",") {
		if t = strings.TrimSpace(t); t == "" {
			continue
		}
		if t != report.Ours && t != report.Ref && t != report.RefGit {
			fmt.Fprintf(stderr, "mcpbench: unknown target %q\n", t)
			return 2
		}
		b.targets = append(b.targets, t)
	}
	if err := b.setup(*workdir, *journalBin, *refEntry); err != nil {
		fmt.Fprintf(stderr, "mcpbench: %v\n", err)
		return 2
	}
	if !b.keep {
		defer os.RemoveAll(b.workdir)
	}
	start, load0 := time.Now(), loadAvg()
	rep := &report.Report{Mode: mode, Date: start.UTC(), Rounds: b.cfg.rounds, Machine: machine(b.workdir)}
	rep.Commands = []string{"bash bench/setup.sh", "go run ./bench/cmd/mcpbench " + strings.Join(args, " ")}

	floor, err := measureFloor(b.workdir, b.cfg.floorN)
	if err != nil {
		fmt.Fprintf(stderr, "mcpbench: durability floor: %v\n", err)
		return 2
	}
	rep.Floor = floor
	for _, f := range floor {
		b.logf("floor %-15s median %.3f ms  p95 %.3f ms", f.Name, f.Latency.Median, f.Latency.P95)
	}

	for _, w := range b.workloads() {
		if *only != "" && !slices.Contains(strings.Split(*only, ","), w.id) {
			continue
		}
		wr, failed := b.runWorkload(w)
		rep.Workloads = append(rep.Workloads, wr)
		rep.Failed = append(rep.Failed, failed...)
		rep.Retried = b.retried
	}
	for _, t := range []string{report.Ours, report.Ref, report.RefGit} {
		tg := report.Target{ID: t, Command: strings.Join(b.sv.argv(t, "{WORKSPACE}"), " "), ServerInfo: b.infos[t]}
		if t == report.Ours {
			tg.Command = "journal serve --root {WORKSPACE}"
		} else {
			tg.Command = "node .../@modelcontextprotocol/server-filesystem/dist/index.js {WORKSPACE}"
		}
		if t == report.RefGit {
			tg.Note = "the reference server, plus `git add -A && git commit` into a separate --git-dir after each change, timed with it"
		}
		if !slices.Contains(b.targets, t) {
			tg.Note = "not run (-targets)"
		}
		rep.Targets = append(rep.Targets, tg)
	}
	rep.Duration = time.Since(start).Seconds()
	rep.Machine.Load = load0 + " → " + loadAvg()
	rep.ComputeRatios()

	if err := saveReport(rep, *jsonOut, *mdOut, report.Heading, rep.Markdown(displayPath(*jsonOut))); err != nil {
		fmt.Fprintf(stderr, "mcpbench: %v\n", err)
		return 2
	}
	b.logf("done in %.0f s", rep.Duration)
	for _, f := range rep.Failed {
		b.logf("FAILED %s", f)
	}
	if rep.OursFailed() || (*shortMode && len(rep.Failed) > 0) {
		return 1
	}
	return 0
}

// runRobustness is the -robustness mode: the targets are ours and the
// reference only (reference+git edits as the reference does).
func runRobustness(args []string, stderr io.Writer, journalBin, refEntry, targets, workdir string, keep bool, corpus string, parallel int, jsonOut, mdOut string) int {
	b := &bench{log: stderr, keep: keep, infos: map[string]string{}}
	b.sv.timeout = short.timeout
	b.sv.oursArgs = []string{"--lsp=false"}
	for _, t := range strings.Split(targets, ",") {
		switch t = strings.TrimSpace(t); t {
		case "", report.RefGit:
		case report.Ours, report.Ref:
			b.targets = append(b.targets, t)
		default:
			fmt.Fprintf(stderr, "mcpbench: unknown target %q\n", t)
			return 2
		}
	}
	if err := b.setup(workdir, journalBin, refEntry); err != nil {
		fmt.Fprintf(stderr, "mcpbench: %v\n", err)
		return 2
	}
	if !b.keep {
		defer os.RemoveAll(b.workdir)
	}
	return b.robustness(corpus, parallel, jsonOut, mdOut, args)
}

// loadAvg returns the 1-minute load average.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	if f := strings.Fields(string(b)); len(f) > 0 {
		return f[0]
	}
	return "?"
}

func displayPath(p string) string {
	if p == "" {
		return "the JSON the run printed"
	}
	return p
}

func (b *bench) logf(format string, a ...any) {
	fmt.Fprintf(b.log, "mcpbench: "+format+"\n", a...)
}

// setup makes the work dir, builds our server and finds the reference.
func (b *bench) setup(workdir, journalBin, refEntry string) error {
	var err error
	if workdir == "" {
		workdir, err = os.MkdirTemp("", "mcpbench-")
	} else {
		err = os.MkdirAll(workdir, 0o755)
	}
	if err != nil {
		return err
	}
	if b.workdir, err = filepath.EvalSymlinks(workdir); err != nil {
		return err
	}
	if slices.Contains(b.targets, report.Ours) {
		if journalBin == "" {
			journalBin = filepath.Join(b.workdir, "journal")
			b.logf("building ./cmd/journal")
			cmd := exec.Command("go", "build", "-o", journalBin, "./cmd/journal")
			cmd.Stdout, cmd.Stderr = b.log, b.log
			if err := cmd.Run(); err != nil {
				return fmt.Errorf("go build ./cmd/journal (run from the repository root): %w", err)
			}
		}
		if b.sv.journalBin, err = filepath.Abs(journalBin); err != nil {
			return err
		}
		if out, err := exec.Command(b.sv.journalBin, "serve", "--help").CombinedOutput(); err != nil {
			return fmt.Errorf("%s serve --help: %w: %s", journalBin, err, out)
		}
	}
	if slices.Contains(b.targets, report.Ref) || slices.Contains(b.targets, report.RefGit) {
		if refEntry == "" {
			home := os.Getenv("BENCH_PEERS")
			if home == "" {
				home = os.Getenv("PEERS_HOME")
			}
			if home == "" {
				h, _ := os.UserHomeDir()
				home = filepath.Join(h, ".cache", "mcp-peers")
			}
			refEntry = filepath.Join(home, "node_modules", "@modelcontextprotocol", "server-filesystem", "dist", "index.js")
		}
		if _, err := os.Stat(refEntry); err != nil {
			return fmt.Errorf("reference server not found (%v): run bash bench/setup.sh", err)
		}
		if _, err := exec.LookPath("node"); err != nil {
			return errors.New("node is not installed: the reference server needs it")
		}
		b.sv.refEntry = refEntry
	}
	if slices.Contains(b.targets, report.RefGit) {
		if _, err := exec.LookPath("git"); err != nil {
			return errors.New("git is not installed: reference+git needs it")
		}
	}
	return nil
}

// saveReport writes rep as indented JSON to jsonOut (if set, making its
// directory) and md, a Markdown section under heading, into the file mdOut
// (replacing that section, or appending it), or on standard output.
func saveReport(rep any, jsonOut, mdOut, heading, md string) error {
	if jsonOut != "" {
		data, err := json.MarshalIndent(rep, "", "  ")
		if err == nil {
			err = os.MkdirAll(filepath.Dir(jsonOut), 0o755)
		}
		if err == nil {
			err = os.WriteFile(jsonOut, append(data, '\n'), 0o644)
		}
		if err != nil {
			return err
		}
	}
	if mdOut == "" {
		_, err := fmt.Fprint(os.Stdout, strings.TrimRight(md, "\n")+"\n")
		return err
	}
	old, err := os.ReadFile(mdOut)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return os.WriteFile(mdOut, []byte(report.ReplaceSection(string(old), heading, md)), 0o644)
}

// fixtureCopy copies the shared file of mb megabytes into the workspace ws
// as big.txt and returns its path and model.
func (b *bench) fixtureCopy(mb int, ws string) (string, *lines, error) {
	src, m, err := b.fixture(mb)
	if err != nil {
		return "", nil, err
	}
	path := filepath.Join(ws, "big.txt")
	return path, m, copyFile(src, path)
}

// fixture returns the shared read-only file of mb megabytes, making it once.
func (b *bench) fixture(mb int) (string, *lines, error) {
	if f, ok := b.fixtures[mb]; ok {
		return f.path, f.m, nil
	}
	dir := filepath.Join(b.workdir, "fixtures")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", nil, err
	}
	f := fixture{path: filepath.Join(dir, fmt.Sprintf("read-%dmb.txt", mb)), m: newLines(mb*1_000_000/50, bigLine)}
	if mb >= 1024 {
		f.m.n = mb / 1024 * 1_000_000_000 / 50
	}
	t0 := time.Now()
	if err := f.m.write(f.path); err != nil {
		return "", nil, err
	}
	b.logf("fixture %s written in %.1f s", filepath.Base(f.path), time.Since(t0).Seconds())
	b.fixtures[mb] = f
	return f.path, f.m, nil
}
