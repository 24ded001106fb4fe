package main_test

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/journalfs/journal/journal"
)

// snapshotFiles is every file under dirs of dir (and .git/config): bytes and mode.
func snapshotFiles(t *testing.T, dir string, dirs ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	cfg, err := os.ReadFile(filepath.Join(dir, ".git", "config"))
	if err != nil {
		t.Fatal(err)
	}
	out[".git/config"] = string(cfg)
	for _, d := range dirs {
		filepath.WalkDir(filepath.Join(dir, d), func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return nil
			}
			data, _ := os.ReadFile(p)
			fi, _ := e.Info()
			rel, _ := filepath.Rel(dir, p)
			out[rel] = fmt.Sprintf("%v %s", fi.Mode(), data)
			return nil
		})
	}
	return out
}

func script(t *testing.T, p, body string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
}

// journal git install chains the hooks a repository has — a plain hook
// script, a core.hooksPath directory, husky's layout — and uninstall leaves
// hooks and config byte-identical.
func TestGitInstall_ChainsAndUninstalls(t *testing.T) {
	layouts := map[string]func(t *testing.T, dir string) []string{
		"plain": func(t *testing.T, dir string) []string {
			script(t, filepath.Join(dir, ".git/hooks/post-commit"), "#!/bin/sh\necho user-post-commit >> \"$(git rev-parse --git-common-dir)/../user.log\"\n")
			script(t, filepath.Join(dir, ".git/hooks/commit-msg"), "#!/bin/sh\necho user-commit-msg >> user.log\n")
			return []string{".git/hooks"}
		},
		"hooksPath": func(t *testing.T, dir string) []string {
			script(t, filepath.Join(dir, ".githooks/post-commit"), "#!/bin/sh\necho user-post-commit >> user.log\n")
			script(t, filepath.Join(dir, ".githooks/commit-msg"), "#!/bin/sh\necho user-commit-msg >> user.log\n")
			gitEnvInAllow(t, dir, "config", "core.hooksPath", ".githooks")
			return []string{".git/hooks", ".githooks"}
		},
		"husky": func(t *testing.T, dir string) []string {
			// husky v9: .husky/_ holds one stub per hook running .husky/<hook>
			script(t, filepath.Join(dir, ".husky/_/h"), "#!/usr/bin/env sh\nn=$(basename \"$0\")\ns=$(dirname \"$(dirname \"$0\")\")/$n\n[ ! -f \"$s\" ] && exit 0\nsh -e \"$s\" \"$@\"\n")
			for _, h := range []string{"post-commit", "commit-msg", "pre-commit", "post-rewrite", "pre-push"} {
				script(t, filepath.Join(dir, ".husky/_", h), "#!/usr/bin/env sh\n. \"$(dirname \"$0\")/h\"\n")
			}
			script(t, filepath.Join(dir, ".husky/post-commit"), "echo user-post-commit >> user.log\n")
			script(t, filepath.Join(dir, ".husky/commit-msg"), "echo user-commit-msg >> user.log\n")
			gitEnvInAllow(t, dir, "config", "core.hooksPath", ".husky/_")
			return []string{".git/hooks", ".husky"}
		},
	}
	for name, setup := range layouts {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			gitEnvInAllow(t, dir, "init", "-q", "-b", "main")
			gitEnvInAllow(t, dir, "remote", "add", "origin", filepath.Join(dir, "nowhere"))
			files(t, dir, map[string]string{".gitignore": ".journal/\nuser.log\n", "a.txt": "a\n"})
			dirs := setup(t, dir)
			before := snapshotFiles(t, dir, dirs...)
			ok(t, dir, "exec", "--", "true")
			ok(t, dir, "git", "install")
			if out := ok(t, dir, "git", "install"); !strings.Contains(out, "already installed") {
				t.Fatalf("a second install: %s", out)
			}
			write(t, dir, agent, "a.txt", "a\nagent\n")
			gitEnvIn(t, dir, nil, "add", "-A")
			gitEnvIn(t, dir, nil, "commit", "-qm", "one")
			log, _ := os.ReadFile(filepath.Join(dir, "user.log"))
			if string(log) != "user-commit-msg\nuser-post-commit\n" {
				t.Fatalf("the user's hooks ran: %q", log)
			}
			n := readSpecNote(t, dir, "HEAD")
			if n == nil || n.labels(t)["a.txt"][2] != lA {
				t.Fatalf("no note of the agent's line: %+v", n)
			}
			if !strings.Contains(gitOut(t, dir, "config", "--get-all", "remote.origin.fetch"), "refs/notes/ai-remote/origin") {
				t.Fatal("no fetch refspec for the notes")
			}
			ok(t, dir, "git", "uninstall")
			if after := snapshotFiles(t, dir, dirs...); !reflect.DeepEqual(before, after) {
				for k := range after {
					if before[k] != after[k] {
						t.Errorf("%s changed:\n%q\n%q", k, before[k], after[k])
					}
				}
				t.Fatal("uninstall left hooks or config changed")
			}
			os.Remove(filepath.Join(dir, "user.log"))
			files(t, dir, map[string]string{"a.txt": "a\nagent\nmore\n"})
			gitEnvIn(t, dir, nil, "commit", "-qam", "two")
			if log, _ := os.ReadFile(filepath.Join(dir, "user.log")); string(log) != "user-commit-msg\nuser-post-commit\n" {
				t.Fatalf("after uninstall the user's hooks ran: %q", log)
			}
			if readSpecNote(t, dir, "HEAD") != nil {
				t.Fatal("a note after uninstall")
			}
		})
	}
}

// commitErr commits in dir and returns git's combined output; the commit
// must succeed.
func commitErr(t *testing.T, dir, msg string) string {
	t.Helper()
	return gitEnvInAllow(t, dir, "commit", "-qam", msg)
}

func gitEnvInAllow(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Alice", "GIT_AUTHOR_EMAIL=alice@example.com",
		"GIT_COMMITTER_NAME=Alice", "GIT_COMMITTER_EMAIL=alice@example.com", "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// A busy, damaged or missing journal lets git commit with one line on
// stderr; the commit is pending, and journal git note writes its note.
func TestGitHook_BusyDamagedMissingJournal(t *testing.T) {
	dir := gitRepo(t)
	jpath := filepath.Join(dir, ".journal", "journal.db")
	step := 0
	check := func(name string, breakIt func() (restore func())) {
		t.Helper()
		step++
		write(t, dir, agent, "base.txt", fmt.Sprintf("base1\nbase2\nline %d\n", step))
		restore := breakIt()
		out := commitErr(t, dir, name)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != 1 || !strings.HasPrefix(lines[0], "journal git: post-commit") {
			t.Fatalf("%s: git said %q, want one line", name, out)
		}
		if readSpecNote(t, dir, "HEAD") != nil {
			t.Fatalf("%s: a note was written", name)
		}
		head := strings.TrimSpace(gitOut(t, dir, "rev-parse", "HEAD"))
		if p, _ := os.ReadFile(filepath.Join(dir, ".git/journal/pending")); !strings.Contains(string(p), head) {
			t.Fatalf("%s: not pending: %q", name, p)
		}
		restore()
		ok(t, dir, "git", "note")
		wantNote(t, dir, "HEAD", map[string]map[int]string{"base.txt": {3: lA}})
		if p, _ := os.ReadFile(filepath.Join(dir, ".git/journal/pending")); len(p) > 0 {
			t.Fatalf("%s: still pending: %q", name, p)
		}
	}
	check("busy", func() func() {
		j, err := journal.Open(jpath, journal.Options{})
		if err != nil {
			t.Fatal(err)
		}
		held, release := make(chan struct{}), make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			j.Do(func(*journal.DB) error { close(held); <-release; return nil })
		}()
		<-held
		return func() { close(release); wg.Wait() }
	})
	check("damaged", func() func() {
		good, err := os.ReadFile(jpath)
		if err != nil {
			t.Fatal(err)
		}
		bad := []byte(strings.Repeat("damaged!", len(good)/8))
		os.WriteFile(jpath, bad, 0o644)
		return func() { // as a repair would
			os.WriteFile(jpath, good, 0o644)
			if j, err := journal.Open(jpath, journal.Options{}); err != nil || j.ClearDamaged() != nil {
				t.Fatal(err)
			}
		}
	})
	check("no binary", func() func() {
		cp := filepath.Join(t.TempDir(), "journal")
		data, err := os.ReadFile(bin)
		if err != nil || os.WriteFile(cp, data, 0o755) != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(cp, "git", "install")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("install: %v %s", err, out)
		}
		os.Remove(cp)
		return func() { ok(t, dir, "git", "install") }
	})
	check("missing", func() func() {
		os.Rename(filepath.Join(dir, ".journal"), filepath.Join(dir, ".journal-away"))
		return func() { os.Rename(filepath.Join(dir, ".journal-away"), filepath.Join(dir, ".journal")) }
	})
}

// Two worktrees committing at once lose no note.
func TestGitNote_ConcurrentCommitters(t *testing.T) {
	dir := gitRepo(t)
	files(t, dir, map[string]string{".gitignore": ".journal/\nwt/\n"})
	gitEnvInAllow(t, dir, "commit", "-qam", "ignore wt")
	other := filepath.Join(dir, "wt")
	gitEnvInAllow(t, dir, "worktree", "add", "-q", "-b", "other", other)
	var wg sync.WaitGroup
	for w, d := range []string{dir, other} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 8; i++ {
				os.WriteFile(filepath.Join(d, fmt.Sprintf("w%d-%d.txt", w, i)), []byte(fmt.Sprintf("%d %d\n", w, i)), 0o644)
				cmd := exec.Command("git", "add", "-A")
				cmd.Dir = d
				cmd.Run()
				cmd = exec.Command("git", "commit", "-qm", fmt.Sprint(i))
				cmd.Dir = d
				cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=A", "GIT_AUTHOR_EMAIL=a@x", "GIT_COMMITTER_NAME=A", "GIT_COMMITTER_EMAIL=a@x")
				if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
					t.Errorf("commit: %v %s", err, out)
				}
			}
		}()
	}
	wg.Wait()
	for _, b := range []string{"main", "other"} {
		for _, c := range strings.Fields(gitOut(t, dir, "rev-list", "HEAD~0.."+b, "--not", "main~8")) {
			if readSpecNote(t, dir, c) == nil {
				t.Errorf("%s has no note", c)
			}
		}
	}
	if n := notesCount(t, dir); n != 17 { // and the commit of .gitignore
		t.Fatalf("%d notes, want 17", n)
	}
}

// Notes travel: a push carries refs/notes/ai beside what it pushes, a
// fetch brings another machine's into a tracking ref that the next hook
// merges; notes of one commit from two machines merge.
func TestGitNote_NotesTravel(t *testing.T) {
	remote := filepath.Join(t.TempDir(), "remote.git")
	gitEnvInAllow(t, t.TempDir(), "init", "-q", "--bare", "-b", "main", remote)
	a := gitRepo(t)
	gitEnvInAllow(t, a, "remote", "add", "origin", remote)
	ok(t, a, "git", "install") // the new remote's fetch refspec
	write(t, a, agent, "a.txt", "from a\n")
	gitEnvIn(t, a, nil, "add", "a.txt")
	gitEnvIn(t, a, nil, "commit", "-qm", "a")
	gitEnvIn(t, a, nil, "push", "-q", "-u", "origin", "main")
	if strings.TrimSpace(gitOut(t, remote, "rev-parse", "refs/notes/ai")) != strings.TrimSpace(gitOut(t, a, "rev-parse", "refs/notes/ai")) {
		t.Fatal("the push did not carry the notes")
	}
	if refs := gitOut(t, remote, "for-each-ref", "--format=%(refname)"); strings.Count(refs, "\n") != 2 {
		t.Fatalf("the remote has refs %q, want main and the notes", refs)
	}

	// another machine: its own journal, its own commit
	b := filepath.Join(t.TempDir(), "b")
	gitEnvInAllow(t, t.TempDir(), "clone", "-q", remote, b)
	files(t, b, map[string]string{".gitignore": ".journal/\n"})
	ok(t, b, "exec", "--", "true")
	ok(t, b, "git", "install")
	gitEnvIn(t, b, nil, "fetch", "-q")
	write(t, b, human, "b.txt", "from b\n")
	gitEnvIn(t, b, nil, "add", "b.txt")
	gitEnvIn(t, b, nil, "commit", "-qm", "b")
	wantNote(t, b, "HEAD~1", map[string]map[int]string{"a.txt": {1: lA}}) // a's, merged by b's hook
	wantNote(t, b, "HEAD", map[string]map[int]string{"b.txt": {1: lH}})
	gitEnvIn(t, b, nil, "push", "-q", "origin", "main")

	// a's own commit meanwhile: pull --rebase rewrites it onto b's
	write(t, a, agent, "c.txt", "a again\n")
	gitEnvIn(t, a, nil, "add", "c.txt")
	gitEnvIn(t, a, nil, "commit", "-qm", "c")
	gitEnvIn(t, a, nil, "pull", "-q", "--rebase")
	wantNote(t, a, "HEAD", map[string]map[int]string{"c.txt": {1: lA}})
	wantNote(t, a, "HEAD~1", map[string]map[int]string{"b.txt": {1: lH}})
	wantNote(t, a, "HEAD~2", map[string]map[int]string{"a.txt": {1: lA}})
}
