package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/journalfs/journal/bench/report"
	bolt "go.etcd.io/bbolt"
)

// -history (issue #23): years of history in little space. For each count N
// (-events, default 10000,100000): N one-line edit_content calls on 50 files
// of 300 lines through one `journal serve` (the harness's own stdio client),
// then the CLI on that journal — status, log -n 20, verify, export, and a gc
// that drops the oldest 95 % of the events — each timed, with its peak RSS
// (getrusage of the child). Beside it, git holds the same history: every
// version of every file committed in order through `git fast-import`, then
// `git gc --aggressive`, its best packed size. Written as the "History at
// scale (issue #23)" section of BENCHMARKS.md.

// HistoryHeading is the section -history replaces.
const HistoryHeading = "## History at scale (issue #23)"

const (
	historyFiles = 50
	historyLines = 300
)

// HistoryRun is one count's measurements.
type HistoryRun struct {
	Events       int              `json:"events"`
	EditSeconds  float64          `json:"edit_seconds"` // the N calls, end to end
	ServerRSSMiB float64          `json:"server_rss_mib"`
	ServerKilled bool             `json:"server_killed,omitempty"` // -kill: SIGKILL after the edits
	JournalBytes int64            `json:"journal_bytes"`           // du of .journal after the edits
	GitBytes     int64            `json:"git_bytes"`               // du of the packed repository
	GitSeconds   float64          `json:"git_seconds"`             // fast-import + gc --aggressive
	Commands     []HistoryCommand `json:"commands"`
	AfterGCBytes int64            `json:"after_gc_bytes"`
	GCDropped    string           `json:"gc_dropped"`
	// Buckets is what each of the journal file's buckets takes (bbolt's
	// pages allocated to it), after the edits.
	Buckets map[string]int64 `json:"buckets,omitempty"`
}

// bucketBytes returns the pages bbolt allocates to each bucket of the
// journal file at path (a bucket small enough to live inline in its
// parent's page counts its bytes in use).
func bucketBytes(path string) (map[string]int64, error) {
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: 5 * time.Second})
	if err != nil {
		return nil, err
	}
	defer db.Close()
	out := map[string]int64{}
	err = db.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, b *bolt.Bucket) error {
			st := b.Stats()
			out[string(name)] = int64(st.LeafAlloc + st.BranchAlloc + st.InlineBucketInuse)
			return nil
		})
	})
	return out, err
}

// HistoryCommand is one CLI command's time and peak RSS.
type HistoryCommand struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"seconds"`
	RSSMiB  float64 `json:"rss_mib"`
	// WithHarness says RSSMiB may be the harness's own (no GNU time: timed)
	WithHarness bool `json:"rss_with_harness,omitempty"`
}

// HistoryReport is the -history result.
type HistoryReport struct {
	Date     time.Time      `json:"date"`
	Commit   string         `json:"commit"`
	Machine  report.Machine `json:"machine"`
	Runs     []HistoryRun   `json:"runs"`
	Commands []string       `json:"commands"`
}

func runHistory(args []string, stderr io.Writer, journalBin, workdir string, keep, kill bool, counts string, jsonOut, mdOut string) int {
	b := &bench{cfg: full, log: stderr, fixtures: map[int]fixture{}, infos: map[string]string{}, keep: keep, kill: kill, targets: []string{report.Ours}}
	b.sv.timeout = time.Minute
	if err := b.setup(workdir, journalBin, ""); err != nil {
		fmt.Fprintf(stderr, "mcpbench: %v\n", err)
		return 2
	}
	if !b.keep {
		defer os.RemoveAll(b.workdir)
	}
	if _, err := exec.LookPath("git"); err != nil {
		fmt.Fprintf(stderr, "mcpbench: -history builds git's packed history of the same edits and needs git: %v\n", err)
		return 2
	}
	rep := &HistoryReport{Date: time.Now().UTC(), Commit: commitOf(), Machine: machine(b.workdir),
		Commands: []string{"bash bench/setup.sh", "go run ./bench/cmd/mcpbench " + strings.Join(args, " ")}}
	for _, f := range strings.Split(counts, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 100 {
			fmt.Fprintf(stderr, "mcpbench: -events: %q is not a count of at least 100\n", f)
			return 2
		}
		run, err := b.history(n)
		if err != nil {
			fmt.Fprintf(stderr, "mcpbench: history of %d edits: %v\n", n, err)
			return 1
		}
		rep.Runs = append(rep.Runs, run)
	}
	if err := saveReport(rep, jsonOut, mdOut, HistoryHeading, rep.Markdown()); err != nil {
		fmt.Fprintf(stderr, "mcpbench: %v\n", err)
		return 2
	}
	return 0
}

// history measures one count.
func (b *bench) history(n int) (HistoryRun, error) {
	run := HistoryRun{Events: n}
	dir := filepath.Join(b.workdir, fmt.Sprintf("history-%d", n))
	if err := os.MkdirAll(filepath.Join(dir, "src"), 0o755); err != nil {
		return run, err
	}
	dir, _ = filepath.EvalSymlinks(dir)
	models := make([]*lines, historyFiles)
	paths := make([]string, historyFiles)
	for f := range models {
		models[f] = newLines(historyLines, batchLine(f))
		paths[f] = filepath.Join(dir, "src", fmt.Sprintf("f%02d.go", f))
		if err := models[f].write(paths[f]); err != nil {
			return run, err
		}
	}
	// git's copy of the same history, as a fast-import stream written
	// while the edits run
	stream, err := os.Create(filepath.Join(b.workdir, fmt.Sprintf("history-%d.fi", n)))
	if err != nil {
		return run, err
	}
	defer os.Remove(stream.Name())
	fi := bufio.NewWriterSize(stream, 1<<20)
	commit := func(i int, files []int) {
		fmt.Fprintf(fi, "commit refs/heads/main\ncommitter bench <bench@localhost> %d +0000\ndata 0\n", 1700000000+i)
		for _, f := range files {
			var content bytes.Buffer
			for k := 0; k < historyLines; k++ {
				content.Write(models[f].appendLine(nil, k))
				content.WriteByte('\n')
			}
			fmt.Fprintf(fi, "M 100644 inline src/f%02d.go\ndata %d\n", f, content.Len())
			fi.Write(content.Bytes())
			fi.WriteByte('\n')
		}
		fi.WriteByte('\n')
	}
	all := make([]int, historyFiles)
	for f := range all {
		all[f] = f
	}
	commit(0, all)

	s, err := b.sv.start(report.Ours, dir)
	if err != nil {
		return run, err
	}
	rng := newRNG(uint64(n))
	var cutoff time.Time
	start := time.Now()
	for i := 0; i < n; i++ {
		f := i % historyFiles
		k := (i / historyFiles * 7) % historyLines
		if i == n*95/100 {
			cutoff = time.Now()
		}
		nw := replacement(rng, "history", i, k)
		if _, err := s.editLine(paths[f], k, models[f].line(k), nw); err != nil {
			s.close()
			return run, fmt.Errorf("edit %d: %w", i, err)
		}
		models[f].set(k, nw)
		commit(i+1, []int{f})
		if (i+1)%10000 == 0 {
			b.logf("history %d: %d edits, %.0f s", n, i+1, time.Since(start).Seconds())
		}
	}
	run.EditSeconds = time.Since(start).Seconds()
	var rss int64
	if b.kill { // as a client that kills its servers at exit
		rss, _ = s.p.PeakRSS()
		_ = s.p.Cmd.Process.Kill()
		s.close()
		run.ServerKilled = true
	} else {
		rss = s.close()
	}
	run.ServerRSSMiB = float64(rss) / (1 << 20)
	for f, m := range models {
		if err := m.check(paths[f]); err != nil {
			return run, fmt.Errorf("after the edits: %w", err)
		}
	}
	run.JournalBytes = du(filepath.Join(dir, ".journal"))
	if run.Buckets, err = bucketBytes(filepath.Join(dir, ".journal", "journal.db")); err != nil {
		return run, fmt.Errorf("bucket sizes: %w", err)
	}
	b.logf("history %d: journal %d B (%d B/edit); by bucket %v", n, run.JournalBytes, run.JournalBytes/int64(n), run.Buckets)
	if err := fi.Flush(); err != nil {
		return run, err
	}
	stream.Close()

	if b.keep { // -keep keeps the journal as the edits left it too, beside the one gc leaves
		if err := exec.Command("cp", "-a", filepath.Join(dir, ".journal"), filepath.Join(dir, "journal-before-gc")).Run(); err != nil {
			return run, fmt.Errorf("keeping the journal before gc: %w", err)
		}
	}
	time.Sleep(1100 * time.Millisecond) // past the structural check's stamp margin, as a user would be
	for _, c := range [][]string{{"status"}, {"log", "-n", "20", "--no-pager"}, {"verify"}, {"export", "-o", filepath.Join(b.workdir, "history.jsonl")},
		{"gc", "--keep", ""}} {
		if c[0] == "gc" {
			c[2] = strconv.FormatInt(int64(time.Since(cutoff)/time.Millisecond)+1, 10) + "ms"
		}
		hc, out, err := b.timed(dir, c...)
		if err != nil {
			return run, err
		}
		if c[0] == "gc" {
			if i := strings.Index(out, "dropped "); i >= 0 {
				run.GCDropped = strings.TrimSpace(strings.SplitN(out[i:], "\n", 2)[0])
			}
		}
		run.Commands = append(run.Commands, hc)
		b.logf("history %d: journal %-6s %.3f s, %.1f MiB", n, c[0], hc.Seconds, hc.RSSMiB)
	}
	os.Remove(filepath.Join(b.workdir, "history.jsonl"))
	run.AfterGCBytes = du(filepath.Join(dir, ".journal"))
	if _, _, err := b.timed(dir, "verify"); err != nil {
		return run, fmt.Errorf("verify after gc: %w", err)
	}
	// git's copy of the same history, built after the CLI ran on the
	// journal as a user would find it (git's gc, run first, would evict the
	// journal's pages from the page cache)
	gitDir := filepath.Join(b.workdir, fmt.Sprintf("history-%d.git", n))
	defer os.RemoveAll(gitDir)
	t0 := time.Now()
	if err := gitRun(gitDir, nil, "init", "-q", "--bare"); err != nil {
		return run, err
	}
	in, err := os.Open(stream.Name())
	if err != nil {
		return run, err
	}
	err = gitRun(gitDir, in, "fast-import", "--quiet")
	in.Close()
	if err != nil {
		return run, err
	}
	if err := gitRun(gitDir, nil, "gc", "--aggressive", "--prune=now", "--quiet"); err != nil {
		return run, err
	}
	run.GitSeconds = time.Since(t0).Seconds()
	run.GitBytes = du(gitDir)
	b.logf("history %d: journal %d B (%d B/edit), git packed %d B (%d B/edit)", n, run.JournalBytes, run.JournalBytes/int64(n), run.GitBytes, run.GitBytes/int64(n))

	if !b.keep { // -keep keeps the workspace, its journal as the gc left it
		os.RemoveAll(dir)
	}
	return run, nil
}

// historyTimeout bounds one CLI command of -history (verify of a million
// events takes minutes).
const historyTimeout = 30 * time.Minute

// timed runs the journal CLI in dir and returns its wall time and peak RSS.
//
// The peak RSS is the child's own only when something small starts it: a
// process Go's os/exec starts shares the harness's memory until it execs
// (vfork), and Linux counts that memory's high-water mark in the child's
// ru_maxrss — at 100,000 events every command "peaked" at the harness's 77
// MiB. So the command runs under GNU time (/usr/bin/time, Debian's time
// package, a small process that forks), which reports the peak; without
// it, the harness's own rusage is used and marked.
func (b *bench) timed(dir string, args ...string) (HistoryCommand, string, error) {
	hc := HistoryCommand{Name: args[0]}
	if _, err := os.Stat(gnuTime); err == nil {
		f, err := os.CreateTemp("", "rss-*")
		if err != nil {
			return hc, "", err
		}
		f.Close()
		defer os.Remove(f.Name())
		t0 := time.Now()
		out, _, err := b.journalCLIUnder([]string{gnuTime, "-f", "%M", "-o", f.Name()}, dir, historyTimeout, args...)
		hc.Seconds = time.Since(t0).Seconds()
		if err != nil {
			return hc, string(out), err
		}
		kb, err := os.ReadFile(f.Name())
		if err != nil {
			return hc, string(out), err
		}
		n, err := strconv.ParseFloat(strings.TrimSpace(string(kb)), 64)
		if err != nil {
			return hc, string(out), fmt.Errorf("GNU time's peak RSS %q: %w", kb, err)
		}
		hc.RSSMiB = n / 1024
		return hc, string(out), nil
	}
	t0 := time.Now()
	out, st, err := b.journalCLI(dir, historyTimeout, args...)
	hc.Seconds = time.Since(t0).Seconds()
	if err != nil {
		return hc, string(out), err
	}
	if ru, ok := st.SysUsage().(*syscall.Rusage); ok {
		hc.RSSMiB = float64(ru.Maxrss) / 1024
		hc.WithHarness = true
	}
	return hc, string(out), nil
}

// gnuTime is GNU time, which timed runs the CLI under to measure its peak
// RSS.
const gnuTime = "/usr/bin/time"

// gitRun runs git on the bare repository gitDir, with no user or system
// configuration.
func gitRun(gitDir string, stdin io.Reader, args ...string) error {
	cmd := exec.Command("git", append([]string{"--git-dir=" + gitDir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	cmd.Stdin = stdin
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return nil
}

// Markdown renders the report as the section HistoryHeading.
func (r *HistoryReport) Markdown() string {
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	p("%s\n\n", HistoryHeading)
	p("<!-- Generated by bench/cmd/mcpbench -history; do not edit by hand. -->\n\n")
	p("N one-line `edit_content` calls on %d files of %d lines through one `journal serve` (the harness's stdio client), "+
		"then the CLI on that journal (wall time and peak RSS of the process; `gc` drops the oldest 95 %% of the events: it copies what it keeps into a fresh file). "+
		"Git holds the same history — every version of every file committed in order by `git fast-import`, then "+
		"`git gc --aggressive --prune=now` — its best packed size. Bytes are allocated blocks on disk (`du`).\n\n", historyFiles, historyLines)
	if len(r.Runs) > 0 && r.Runs[0].ServerKilled {
		p("The server was ended with SIGKILL after the edits (`-kill`), as a client that kills its servers at exit leaves it: " +
			"the CLI's first command moves the write-ahead log into the journal file and `status` scans what the detector had not.\n\n")
	}
	m := r.Machine
	p("- **Date:** %s; **commit:** %s; %s\n", r.Date.Format("2006-01-02 15:04 UTC"), r.Commit, r.Machine.Git)
	p("- **Machine:** %s, %d cores, %d GiB RAM, Linux %s, work dir on %s; %s\n", m.CPU, m.Cores, m.MemoryGiB, m.Kernel, m.Disk, m.Go)
	p("- **Reproduce:**\n\n```sh\n%s\n```\n\n", strings.Join(r.Commands, "\n"))
	p("| events | `.journal/` | per edit | git packed | per edit | journal/git | edits (s) | git fast-import + gc (s) | server RSS (MiB) |\n|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, run := range r.Runs {
		ratio := "—"
		if run.GitBytes > 0 {
			ratio = fmt.Sprintf("%.2f×", float64(run.JournalBytes)/float64(run.GitBytes))
		}
		p("| %d | %s | %d B | %s | %d B | %s | %.0f | %.0f | %.0f |\n", run.Events, mib(run.JournalBytes), run.JournalBytes/int64(run.Events),
			mib(run.GitBytes), run.GitBytes/int64(run.Events), ratio, run.EditSeconds, run.GitSeconds, run.ServerRSSMiB)
	}
	if len(r.Runs) > 0 && r.Runs[0].Buckets != nil {
		p("\nWhat each part of the journal file takes per edit (bbolt's pages allocated to each bucket, after the edits):\n\n")
		p("| events | event records | chunks | manifests | indexes (by path, by session) | the rest | all buckets |\n|--:|--:|--:|--:|--:|--:|--:|\n")
		for _, run := range r.Runs {
			var rest, total int64
			for name, n := range run.Buckets {
				total += n
				switch name {
				case "events", "chunks", "contents", "by_path", "by_session":
				default:
					rest += n
				}
			}
			per := func(n int64) string { return fmt.Sprintf("%d B", n/int64(run.Events)) }
			bk := run.Buckets
			p("| %d | %s | %s | %s | %s | %s | %s |\n", run.Events, per(bk["events"]), per(bk["chunks"]), per(bk["contents"]),
				per(bk["by_path"]+bk["by_session"]), per(rest), per(total))
		}
	}
	p("\n| events | command | time (s) | peak RSS (MiB) |\n|--:|---|--:|--:|\n")
	for _, run := range r.Runs {
		for _, c := range run.Commands {
			name := "`journal " + c.Name + "`"
			if c.Name == "gc" {
				name += fmt.Sprintf(" (%s; `.journal/` %s → %s)", run.GCDropped, mib(run.JournalBytes), mib(run.AfterGCBytes))
			}
			rss := fmt.Sprintf("%.1f", c.RSSMiB)
			if c.WithHarness {
				rss += " (or the harness's)"
			}
			p("| %d | %s | %.3f | %s |\n", run.Events, name, c.Seconds, rss)
		}
	}
	return b.String()
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
