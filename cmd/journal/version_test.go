package main_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestVersion: a binary built from this checkout with VCS stamping (the go
// command's default outside this machine's GOFLAGS) reports the checkout's
// revision, "+dirty" when the tree has changes, in `journal --version`,
// `journal version` and the head of every export; `go install` from the
// local module path does the same; without VCS stamping (or in a git
// worktree, which the go command does not stamp) it says "dev".
func TestVersion(t *testing.T) {
	dir := t.TempDir()
	// without VCS stamping
	plain := filepath.Join(dir, "plain")
	build := exec.Command("go", "build", "-buildvcs=false", "-o", plain, "./cmd/journal")
	build.Dir = repoRoot
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	if out, _ := exec.Command(plain, "--version").Output(); strings.TrimSpace(string(out)) != "journal dev" {
		t.Fatalf("unstamped: %q", out)
	}
	rev, err := exec.Command("git", "-C", repoRoot, "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		t.Fatalf("TestVersion compares the binary's version with the checkout's revision: it needs a git checkout and git (%v)", err)
	}
	// the revision, and "+dirty" when tracked files changed; untracked ones
	// (which tests running beside this one may create) make the go command
	// say +dirty too, so a clean tree allows either
	rv := strings.TrimSpace(string(rev))
	st, _ := exec.Command("git", "-C", repoRoot, "status", "--porcelain", "--untracked-files=no").Output()
	dirty := len(st) > 0
	// The go command stamps a checkout only where .git is a directory
	// (cmd/go/internal/vcs's root rule): in a git worktree or a submodule,
	// whose .git is a file, even -buildvcs=true builds an unstamped binary,
	// which must then say "dev" everywhere.
	fi, err := os.Stat(filepath.Join(repoRoot, ".git"))
	stamps := err == nil && fi.IsDir()
	is := func(v string) bool {
		v = strings.TrimSuffix(v, `"}`)
		if !stamps {
			return strings.HasSuffix(v, " dev") || v == "dev"
		}
		if strings.HasSuffix(v, "+dirty") {
			return strings.HasSuffix(strings.TrimSuffix(v, "+dirty"), rv)
		}
		return !dirty && strings.HasSuffix(v, rv)
	}
	want := rv
	stamped := filepath.Join(dir, "journal")
	build = exec.Command("go", "build", "-buildvcs=true", "-o", stamped, "./cmd/journal")
	build.Dir = repoRoot
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	gobin := filepath.Join(dir, "bin")
	install := exec.Command("go", "install", "-buildvcs=true", "./cmd/journal")
	install.Dir = repoRoot
	install.Env = append(os.Environ(), "GOBIN="+gobin)
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("install: %v\n%s", err, out)
	}
	for _, b := range []string{stamped, filepath.Join(gobin, "journal")} {
		for _, args := range [][]string{{"--version"}, {"version"}} {
			out, err := exec.Command(b, args...).Output()
			if v := strings.TrimSpace(string(out)); err != nil || !strings.HasPrefix(v, "journal ") || !is(v) {
				t.Fatalf("%s %s: %q %v, want the revision %s", b, args[0], v, err, want)
			}
		}
	}
	// the export's head names the binary
	ws := t.TempDir()
	e := engine(t, ws)
	apply(t, e, "edit_file", "a.txt", "one\n")
	e.Close()
	exp := filepath.Join(ws, "audit.jsonl")
	cmd := exec.Command(stamped, "export", "-o", exp)
	cmd.Dir = ws
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("export: %v %s", err, out)
	}
	b, _ := os.ReadFile(exp)
	head := string(b)[strings.LastIndex(strings.TrimSpace(string(b)), "\n")+1:]
	if !strings.Contains(head, `"producer":"journal `) || !is(strings.TrimSpace(head)) {
		t.Fatalf("export head:\n%s", b)
	}
	if out, err := exec.Command(stamped, "verify", "--export", exp).CombinedOutput(); err != nil {
		t.Fatalf("verify --export: %v %s", err, out)
	}
	// and the server's serverInfo
	serve := exec.Command(stamped, "serve")
	serve.Dir = ws
	serve.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n")
	out, err := serve.Output()
	var init struct {
		Result struct {
			ServerInfo struct{ Name, Version string }
		}
	}
	if err != nil || json.Unmarshal([]byte(strings.SplitN(string(out), "\n", 2)[0]), &init) != nil || !is(init.Result.ServerInfo.Version) {
		t.Fatalf("serve: %v %s", err, out)
	}
}

// TestTypoSuggestions: an unknown command lists the similar ones on their
// own lines, as git does, and exits 2.
func TestTypoSuggestions(t *testing.T) {
	r := run(t, t.TempDir(), "lgo")
	if r.code != 2 || !strings.Contains(r.stderr, "The most similar commands are\n\tlog\n") {
		t.Fatalf("exit %d:\n%s", r.code, r.stderr)
	}
	r = run(t, t.TempDir(), "xyzzy")
	if r.code != 2 || !strings.Contains(r.stderr, "hint: `journal --help` lists the commands") {
		t.Fatalf("exit %d:\n%s", r.code, r.stderr)
	}
}

// TestLog_ObserveCounts: a change made outside the journal, recorded as an
// observe event before the next edit, shows its line counts.
func TestLog_ObserveCounts(t *testing.T) {
	ws := t.TempDir()
	e := engine(t, ws)
	apply(t, e, "edit_file", "a.txt", "one\ntwo\nthree\n")
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("one\nTWO\nthree\nfour\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	apply(t, e, "edit_file", "a.txt", "one\nTWO\nthree\nfour\nfive\n")
	e.Close()
	log := ok(t, ws, "log")
	i := strings.Index(log, "outside change")
	if i < 0 || !strings.HasPrefix(strings.TrimSpace(log[i+len("outside change"):]), "M  a.txt  +2 -1") {
		t.Fatalf("the observe event's counts:\n%s", log)
	}
}
