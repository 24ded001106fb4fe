package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/journalfs/journal/bench/mcpclient"
	"github.com/journalfs/journal/bench/report"
)

// servers knows how to start each target's server.
type servers struct {
	journalBin string   // our binary
	refEntry   string   // the reference server's dist/index.js
	refArgv    []string // the reference's command before the workspace (default: node refEntry)
	oursArgs   []string // more arguments for `journal serve` (-robustness: --lsp=false)
	timeout    time.Duration
}

// argv returns the command that serves workspace dir for target.
func (sv *servers) argv(target, dir string) []string {
	if target == report.Ours {
		return append([]string{sv.journalBin, "serve", "--root", dir}, sv.oursArgs...)
	}
	if sv.refArgv != nil {
		return append(append([]string(nil), sv.refArgv...), dir)
	}
	return []string{"node", sv.refEntry, dir}
}

// session is one server process serving one fresh workspace for one run.
type session struct {
	target string
	dir    string // the workspace (absolute, symlinks resolved)
	gitDir string // the shadow git dir (reference+git only)
	p      *mcpclient.Process
	info   string // serverInfo name/version
	tools  map[string]mcpclient.Tool

	// series holds the latency samples by operation, in order of first use.
	series map[string][]time.Duration
	order  []string
	// edits counts file-line changes made, for history per edit.
	edits int
	// used records which tool (or command) each operation went through.
	used map[string]string
	// reply is the size of the last read reply, in bytes.
	reply int

	histDir  string
	histBase int64

	// hang is the server's stderr after a call timed out: for our server,
	// the goroutine dump SIGQUIT made it print.
	hang string
}

// start launches target's server on dir. For reference+git it also makes
// the shadow repository and commits the initial files (untimed; its bytes
// count as history).
func (sv *servers) start(target, dir string) (*session, error) {
	s := &session{target: target, dir: dir, series: map[string][]time.Duration{}, used: map[string]string{}}
	switch target {
	case report.Ours:
		s.histDir = filepath.Join(dir, ".journal")
	case report.RefGit:
		s.gitDir = dir + ".shadow.git"
		s.histDir = s.gitDir
		if err := s.git("init", "-q"); err != nil {
			return nil, err
		}
		s.histBase = du(s.gitDir)
		if err := s.checkpoint("initial"); err != nil {
			return nil, err
		}
	}
	p, err := mcpclient.Start(sv.argv(target, dir), dir, []string{"JOURNAL_PATH="}, sv.timeout)
	if err != nil {
		return nil, err
	}
	s.p = p
	init, err := p.Initialize("mcpbench")
	if err != nil {
		p.Close()
		return nil, fmt.Errorf("initialize: %w; stderr: %s", err, lastLines(p.Stderr(), 5))
	}
	s.info = init.ServerInfo.Name + " " + init.ServerInfo.Version
	list, err := p.ListTools()
	if err != nil {
		p.Close()
		return nil, fmt.Errorf("tools/list: %w", err)
	}
	s.tools = map[string]mcpclient.Tool{}
	for _, t := range list {
		s.tools[t.Name] = t
	}
	if target == report.Ours {
		s.histBase = du(s.histDir)
	}
	return s, nil
}

// close samples the server's peak RSS, then stops it.
func (s *session) close() (rss int64) {
	if s.p == nil {
		return 0
	}
	rss, _ = s.p.PeakRSS()
	s.p.Close()
	s.p = nil
	return rss
}

// history returns the bytes of history stored by the run (0 for the
// reference, which keeps none).
func (s *session) history() int64 {
	if s.histDir == "" {
		return 0
	}
	return du(s.histDir) - s.histBase
}

// record adds a latency sample to series op.
func (s *session) record(op string, d time.Duration) {
	if _, ok := s.series[op]; !ok {
		s.order = append(s.order, op)
	}
	s.series[op] = append(s.series[op], d)
}

// call times one tool call.
func (s *session) call(tool string, args any) (*mcpclient.CallResult, time.Duration, error) {
	t0 := time.Now()
	res, err := s.p.CallTool(tool, args)
	d := time.Since(t0)
	if err != nil {
		if errors.Is(err, mcpclient.ErrTimeout) {
			s.hang = s.p.StderrAfterTimeout()
		}
		if s.p.Exited() {
			err = fmt.Errorf("%w; server exited; stderr: %s", err, lastLines(s.p.Stderr(), 5))
		}
		return res, d, err
	}
	return res, d, nil
}

// need returns the first of the named tools the server has, or fails loudly.
func (s *session) need(names ...string) (string, error) {
	for _, n := range names {
		if _, ok := s.tools[n]; ok {
			return n, nil
		}
	}
	return "", fmt.Errorf("%s has none of the tools %s", s.target, strings.Join(names, ", "))
}

// hasParam reports whether tool's input schema has property p.
func (s *session) hasParam(tool, p string) bool { return s.tools[tool].Properties()[p] }

// editLine replaces line idx (0-based) of file, whose current text is old,
// by new: one tool call, plus a checkpoint for reference+git. It returns the
// time of both together.
func (s *session) editLine(file string, idx int, old, new string) (time.Duration, error) {
	tool, args, err := s.editArgs(file, idx, old, new)
	if err != nil {
		return 0, err
	}
	_, d, err := s.call(tool, args)
	if err != nil {
		return d, err
	}
	s.edits++
	if s.target == report.RefGit {
		t0 := time.Now()
		if err := s.checkpoint("edit"); err != nil {
			return 0, err
		}
		d += time.Since(t0)
	}
	return d, nil
}

// editArgs builds the call that changes one line on s's server.
func (s *session) editArgs(file string, idx int, old, new string) (string, any, error) {
	if s.target != report.Ours {
		s.used["edit"] = "edit_file {path, edits:[{oldText,newText}]}"
		if s.target == report.RefGit {
			s.used["edit"] += " + checkpoint"
		}
		return "edit_file", map[string]any{"path": file, "edits": []map[string]string{{"oldText": old, "newText": new}}}, nil
	}
	tool, err := s.need("edit_content", "file_replace")
	if err != nil {
		return "", nil, err
	}
	if tool == "file_replace" {
		s.used["edit"] = "file_replace {ops:[{path, content, start_line, end_line}]} (edit_content not available)"
		return tool, map[string]any{"ops": []map[string]any{{"path": file, "content": new, "start_line": idx + 1, "end_line": idx + 1}}}, nil
	}
	args := map[string]any{"absolute_file_path": file, "search_text": old, "replace_text": new, "preview": false}
	s.used["edit"] = "edit_content {absolute_file_path, search_text, replace_text, preview:false}"
	if s.hasParam(tool, "fuzzy") {
		args["fuzzy"] = false
		s.used["edit"] = "edit_content {absolute_file_path, search_text, replace_text, preview:false, fuzzy:false}"
	}
	return tool, args, nil
}

// git runs git on the shadow repository (separate git dir, the workspace as
// work tree), with no user or system configuration.
func (s *session) git(args ...string) error {
	_, err := s.gitOut(args...)
	return err
}

func (s *session) gitOut(args ...string) ([]byte, error) {
	cmd := exec.Command("git", append([]string{"--git-dir=" + s.gitDir, "--work-tree=" + s.dir}, args...)...)
	cmd.Dir = s.dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@localhost", "GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=bench@localhost")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// checkpoint is the shadow-git undo point: git add -A && git commit.
func (s *session) checkpoint(msg string) error {
	if err := s.git("add", "-A"); err != nil {
		return err
	}
	return s.git("commit", "-q", "--no-verify", "-m", msg)
}

func lastLines(s string, n int) string {
	ls := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return strings.Join(ls, " | ")
}

// errNoOp is returned when a target has no way to do a workload's operation.
var errNoOp = errors.New("no such operation")
