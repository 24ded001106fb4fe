package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/journalfs/journal/bench/report"
)

// workload is one scenario run on every target that supports it.
type workload struct {
	id, title string
	// na names the targets the workload does not apply to, with why.
	na map[string]string
	// mutates: the workload changes files (history per edit is reported).
	mutates bool
	// prepare writes the workload's files into the fresh workspace ws
	// (before the server starts) and returns the run, which does the timed
	// operations on s and then checks every file against the model.
	prepare func(ws string) (run func(s *session) error, err error)
	// method says how each target does the operation; completed with the
	// tools actually used.
	method []string
}

// replacement returns the deterministic new text of edit i of line k; the
// same on every target.
func replacement(rng *rand.Rand, tag string, i, k int) string {
	return fmt.Sprintf("%s edit %d replaced line %d (%08x)", tag, i, k, rng.Uint32())
}

func newRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)) }

// editSeries makes n one-line edits of m at target lines pick(i), timed as op.
func editSeries(s *session, path string, m *lines, n int, pick func(i int) int, tag, op string) error {
	rng := newRNG(uint64(len(tag)*1000 + n))
	for i := 0; i < n; i++ {
		k := pick(i)
		nw := replacement(rng, tag, i, k)
		d, err := s.editLine(path, k, m.line(k), nw)
		if err != nil {
			return fmt.Errorf("edit %d (line %d): %w", i, k+1, err)
		}
		m.set(k, nw)
		s.record(op, d)
	}
	return m.check(path)
}

func (b *bench) workloads() []workload {
	c := b.cfg
	readsNA := map[string]string{report.RefGit: "read-only workload: the same as the reference"}
	ws := []workload{
		{
			id: "small_edits", title: fmt.Sprintf("%d edits, %d-line file", c.smallEdits, c.smallLines), mutates: true,
			prepare: func(ws string) (func(*session) error, error) {
				path := filepath.Join(ws, "small.txt")
				m := newLines(c.smallLines, smallLine)
				return func(s *session) error {
					return editSeries(s, path, m, c.smallEdits, func(i int) int { return i * 7 % c.smallLines }, "small", "edit")
				}, m.write(path)
			},
			method: []string{"One line replaced per call, sequentially; the file is checked line by line afterwards."},
		},
		{
			id: "big_edits", title: fmt.Sprintf("%d edits, %d MB file", c.bigEdits, c.bigMB), mutates: true,
			prepare: func(ws string) (func(*session) error, error) {
				path := filepath.Join(ws, "big.txt")
				m := newLines(c.bigMB*1_000_000/50, bigLine)
				return func(s *session) error {
					return editSeries(s, path, m, c.bigEdits, func(i int) int { return (2*i + 1) * m.n / (2 * c.bigEdits) }, "big", "edit")
				}, m.write(path)
			},
			method: []string{"One line replaced per call at evenly spaced lines of a file of 50-byte lines."},
		},
	}
	for _, mb := range c.readMB {
		ws = append(ws, b.readWorkload(mb, readsNA))
	}
	ws = append(ws, workload{
		id: "batch", title: fmt.Sprintf("%d-file atomic batch", c.batchFiles), mutates: true,
		prepare: func(ws string) (func(*session) error, error) {
			dir := filepath.Join(ws, "pkg")
			if err := os.Mkdir(dir, 0o755); err != nil {
				return nil, err
			}
			paths := make([]string, c.batchFiles)
			models := make([]*lines, c.batchFiles)
			for f := range paths {
				paths[f] = filepath.Join(dir, fmt.Sprintf("file%02d.go", f))
				models[f] = newLines(c.batchLines, batchLine(f))
				if err := models[f].write(paths[f]); err != nil {
					return nil, err
				}
			}
			return func(s *session) error { return runBatch(s, paths, models, c.batches) }, nil
		},
		method: []string{fmt.Sprintf("One line changed in each of %d files, %d times.", c.batchFiles, c.batches),
			"Ours: one `file_replace` call with one line-range op per file (all-or-nothing).",
			fmt.Sprintf("The reference has no batch: %d `edit_file` calls, timed together (not atomic);", c.batchFiles),
			"`reference+git` adds one checkpoint after the whole batch."},
	}, workload{
		id: "revert", title: "revert of the last edit", mutates: true,
		prepare: func(ws string) (func(*session) error, error) {
			path := filepath.Join(ws, "small.txt")
			m := newLines(c.smallLines, smallLine)
			return func(s *session) error { return runRevert(s, path, m, c.reverts) }, m.write(path)
		},
		method: []string{fmt.Sprintf("%d times: a one-line edit (untimed), then its revert (timed), then the file is checked.", c.reverts),
			"Ours: `revert_edit {absolute_file_path}` (the session's newest edit of the file).",
			"The reference has no undo: the client sends the inverse `edit_file` (it must have kept the old text).",
			"`reference+git`: `git checkout HEAD~1 -- FILE && git commit` in the shadow repository."},
	}, workload{
		id: "log", title: fmt.Sprintf("%d edits, then log of 20", c.logEdits), mutates: true,
		na: map[string]string{},
		prepare: func(ws string) (func(*session) error, error) {
			path := filepath.Join(ws, "small.txt")
			m := newLines(c.smallLines, smallLine)
			return func(s *session) error {
				if err := editSeries(s, path, m, c.logEdits, func(i int) int { return i * 13 % c.smallLines }, "log", "edit"); err != nil {
					return err
				}
				return b.runLog(s, c.logRuns)
			}, m.write(path)
		},
		method: []string{fmt.Sprintf("%d one-line edits of the %d-line file (latency over all of them), then %d listings of the last 20 changes, with the server still running:", c.logEdits, c.smallLines, c.logRuns),
			"ours `journal log -n 20 --no-pager` (cwd = workspace),",
			"`reference+git` `git log -n 20 --stat` on the shadow repository; the reference keeps no history to list."},
	})
	for _, kb := range c.writeKB {
		ws = append(ws, b.writeWorkload(kb))
	}
	ws = append(ws, b.writeBatchWorkload())
	for _, mb := range c.memMB {
		ws = append(ws, b.memWorkload(mb))
	}
	return ws
}

// readWorkload reads a span of lines from the middle of an mb-megabyte file.
func (b *bench) readWorkload(mb int, na map[string]string) workload {
	c := b.cfg
	return workload{
		id: fmt.Sprintf("read_%dmb", mb), title: fmt.Sprintf("read %d lines mid-file, %s file", c.readSpan, sizeName(mb)), na: na,
		prepare: func(ws string) (func(*session) error, error) {
			path, m, err := b.fixtureCopy(mb, ws)
			if err != nil {
				return nil, err
			}
			return func(s *session) error {
				for r := 0; r < c.reads; r++ {
					if err := readMiddle(s, path, m, c.readSpan); err != nil {
						return fmt.Errorf("read %d: %w", r, err)
					}
				}
				return m.check(path)
			}, nil
		},
		method: []string{fmt.Sprintf("%d reads of lines [n/2, n/2+%d) of a file of 50-byte lines.", c.reads, c.readSpan),
			"Ours: `read_content {absolute_file_path, target, mode:\"lines\", max_lines}`, or where it is missing `ai_get_code_context {file_path, start_line, end_line}`.",
			fmt.Sprintf("The reference has no ranged read: `read_text_file {path, head: n/2+%d}`, the least it can return that contains the range; the client keeps the last %d lines.", c.readSpan, c.readSpan),
			"The reply must contain the expected lines."},
	}
}

func sizeName(mb int) string {
	if mb >= 1024 && mb%1024 == 0 {
		return fmt.Sprintf("%d GB", mb/1024)
	}
	return fmt.Sprintf("%d MB", mb)
}

// readMiddle reads span lines from the middle of path and checks the reply.
func readMiddle(s *session, path string, m *lines, span int) error {
	mid := m.n / 2 // 0-based first line of the span
	var tool string
	var args map[string]any
	if s.target == report.Ours {
		var err error
		if tool, err = s.need("read_content", "ai_get_code_context"); err != nil {
			return err
		}
		if tool == "read_content" {
			args = map[string]any{"absolute_file_path": path, "target": mid + 1, "mode": "lines"}
			s.used["read"] = "read_content {absolute_file_path, target, mode:\"lines\"}"
			if s.hasParam(tool, "max_lines") {
				args["max_lines"] = span
				s.used["read"] = "read_content {absolute_file_path, target, mode:\"lines\", max_lines}"
			}
		} else {
			args = map[string]any{"file_path": path, "start_line": mid + 1, "end_line": mid + span, "include_outline": false}
			s.used["read"] = "ai_get_code_context {file_path, start_line, end_line, include_outline:false} (read_content not available)"
		}
	} else {
		tool = "read_text_file"
		args = map[string]any{"path": path, "head": mid + span}
		s.used["read"] = "read_text_file {path, head}"
	}
	res, d, err := s.call(tool, args)
	if err != nil {
		return err
	}
	text := res.Text()
	switch {
	case tool == "read_text_file":
		got := strings.Split(strings.TrimRight(text, "\n"), "\n")
		if len(got) < span {
			return fmt.Errorf("read_text_file returned %d lines, want at least %d", len(got), span)
		}
		got = got[len(got)-span:]
		for i, l := range got {
			if l != m.line(mid+i) {
				return fmt.Errorf("reply line %d is %q, want %q", mid+i+1, l, m.line(mid+i))
			}
		}
	case tool == "read_content" && args["max_lines"] == nil:
		if want := m.line(mid); !strings.Contains(text, want) {
			return fmt.Errorf("read_content reply lacks line %d %q: %.200q", mid+1, want, text)
		}
	default:
		for i := 0; i < span; i++ {
			if want := m.line(mid + i); !strings.Contains(text, want) {
				return fmt.Errorf("%s reply lacks line %d %q: %.200q", tool, mid+i+1, want, text)
			}
		}
	}
	s.record("read", d)
	s.reply = s.p.LastReplyBytes
	return nil
}

// runBatch changes one line in every file, n times; one sample per batch.
func runBatch(s *session, paths []string, models []*lines, n int) error {
	rng := newRNG(uint64(len(paths)))
	for b := 0; b < n; b++ {
		k := (b*13 + 7) % models[0].n
		news := make([]string, len(paths))
		for f := range paths {
			news[f] = replacement(rng, fmt.Sprintf("batch f%02d", f), b, k)
		}
		var d time.Duration
		if s.target == report.Ours {
			ops := make([]map[string]any, len(paths))
			for f, p := range paths {
				ops[f] = map[string]any{"path": p, "content": news[f], "start_line": k + 1, "end_line": k + 1}
			}
			var err error
			if d, err = s.fileReplace(ops); err != nil {
				return fmt.Errorf("batch %d: %w", b, err)
			}
			s.used["batch"] = "file_replace {ops: [one line range per file]}"
		} else {
			for f, p := range paths {
				_, df, err := s.call("edit_file", map[string]any{"path": p, "edits": []map[string]string{{"oldText": models[f].line(k), "newText": news[f]}}})
				if err != nil {
					return fmt.Errorf("batch %d file %d: %w", b, f, err)
				}
				d += df
			}
			if s.target == report.RefGit {
				t0 := time.Now()
				if err := s.checkpoint("batch"); err != nil {
					return err
				}
				d += time.Since(t0)
			}
			s.used["batch"] = fmt.Sprintf("%d × edit_file", len(paths))
		}
		for f := range paths {
			models[f].set(k, news[f])
		}
		s.edits += len(paths)
		s.record("batch", d)
	}
	for f, p := range paths {
		if err := models[f].check(p); err != nil {
			return err
		}
	}
	return nil
}

// runRevert edits a line and reverts it, n times, timing the revert.
func runRevert(s *session, path string, m *lines, n int) error {
	rng := newRNG(uint64(n))
	rel, _ := filepath.Rel(s.dir, path)
	for i := 0; i < n; i++ {
		k := i * 11 % m.n
		old := m.line(k)
		nw := replacement(rng, "revert", i, k)
		if _, err := s.editLine(path, k, old, nw); err != nil {
			return fmt.Errorf("edit %d: %w", i, err)
		}
		var d time.Duration
		switch s.target {
		case report.Ours:
			tool, err := s.need("revert_edit")
			if err != nil {
				return err
			}
			if _, d, err = s.call(tool, map[string]any{"absolute_file_path": path}); err != nil {
				return fmt.Errorf("revert %d: %w", i, err)
			}
			s.used["revert"] = "revert_edit {absolute_file_path}"
		case report.Ref:
			var err error
			if _, d, err = s.call("edit_file", map[string]any{"path": path, "edits": []map[string]string{{"oldText": nw, "newText": old}}}); err != nil {
				return fmt.Errorf("revert %d: %w", i, err)
			}
			s.used["revert"] = "edit_file with old and new swapped"
		case report.RefGit:
			t0 := time.Now()
			if err := s.git("checkout", "HEAD~1", "--", rel); err != nil {
				return err
			}
			if err := s.git("commit", "-q", "--no-verify", "-m", "revert"); err != nil {
				return err
			}
			d = time.Since(t0)
			s.used["revert"] = "git checkout HEAD~1 -- FILE && git commit"
		}
		s.edits++
		s.record("revert", d)
		if err := m.check(path); err != nil {
			return fmt.Errorf("after revert %d: %w", i, err)
		}
	}
	return nil
}

// runLog lists the last 20 changes n times (timed), then checks once that
// 20 are listed.
func (b *bench) runLog(s *session, n int) error {
	var run func(args ...string) ([]byte, error)
	switch s.target {
	case report.Ref:
		return nil // keeps no history
	case report.Ours:
		run = func(args ...string) ([]byte, error) {
			out, _, err := b.journalCLI(s.dir, b.cfg.timeout, args...)
			return out, err
		}
		s.used["log"] = "journal log -n 20 --no-pager"
	case report.RefGit:
		run = s.gitOut
		s.used["log"] = "git log -n 20 --stat"
	}
	for i := 0; i < n; i++ {
		t0 := time.Now()
		var out []byte
		var err error
		if s.target == report.Ours {
			out, err = run("log", "-n", "20", "--no-pager")
		} else {
			out, err = run("log", "-n", "20", "--stat")
		}
		d := time.Since(t0)
		if err != nil {
			return err
		}
		if !bytes.Contains(out, []byte("small.txt")) {
			return fmt.Errorf("log output does not name small.txt: %.300q", out)
		}
		s.record("log", d)
	}
	// untimed: exactly 20 entries
	var count int
	if s.target == report.Ours {
		out, err := run("log", "-n", "20", "--json", "--no-pager")
		if err != nil {
			return err
		}
		dec := json.NewDecoder(bytes.NewReader(out))
		for dec.More() {
			var e map[string]any
			if err := dec.Decode(&e); err != nil {
				return fmt.Errorf("journal log --json: %w", err)
			}
			count++
		}
	} else {
		out, err := run("log", "-n", "20", "--format=%H")
		if err != nil {
			return err
		}
		count = len(strings.Fields(string(out)))
	}
	if count != 20 {
		return fmt.Errorf("log listed %d entries, want 20", count)
	}
	return nil
}

// journalCLI runs our binary's CLI on the journal in dir (no colour), for
// at most timeout: its standard output, its process state (for its rusage),
// and an error that carries its standard error.
func (b *bench) journalCLI(dir string, timeout time.Duration, args ...string) ([]byte, *os.ProcessState, error) {
	return b.journalCLIUnder(nil, dir, timeout, args...)
}

// journalCLIUnder is journalCLI with our binary started by the command
// wrapper (GNU time, say), if any.
func (b *bench) journalCLIUnder(wrapper []string, dir string, timeout time.Duration, args ...string) ([]byte, *os.ProcessState, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	argv := append(append(slices.Clone(wrapper), b.sv.journalBin), args...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "JOURNAL_PATH=", "NO_COLOR=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, cmd.ProcessState, fmt.Errorf("journal %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, cmd.ProcessState, nil
}
