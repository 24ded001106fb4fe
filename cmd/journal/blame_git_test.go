package main_test

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// watcher starts `journal watch` in dir; recorded waits for its next
// "recorded" line.
type watcher struct {
	t     *testing.T
	lines chan string
}

func startWatcher(t *testing.T, dir string) *watcher {
	t.Helper()
	cmd := exec.Command(bin, "watch")
	cmd.Dir = dir
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() })
	w := &watcher{t: t, lines: make(chan string, 100)}
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			w.lines <- sc.Text()
		}
		close(w.lines)
	}()
	w.wait("watching")
	return w
}

func (w *watcher) wait(s string) {
	w.t.Helper()
	timeout := time.After(15 * time.Second)
	for {
		select {
		case l, ok := <-w.lines:
			if !ok {
				w.t.Fatalf("journal watch stopped before %q", s)
			}
			if strings.Contains(l, s) {
				return
			}
		case <-timeout:
			w.t.Fatalf("no %q from journal watch", s)
		}
	}
}

// newest returns the journal's newest event number.
func newest(t *testing.T, dir string) float64 {
	t.Helper()
	var ev struct{ Seq float64 }
	if err := json.Unmarshal([]byte(ok(t, dir, "log", "-n", "1", "--json")), &ev); err != nil {
		t.Fatal(err)
	}
	return ev.Seq
}

// recorded runs op and waits until the watcher has recorded an event after
// it: one event per git operation, as a person running them one by one
// makes them.
func recorded(t *testing.T, dir string, op func()) {
	t.Helper()
	before := newest(t, dir)
	op()
	deadline := time.Now().Add(15 * time.Second)
	for newest(t, dir) == before {
		if time.Now().After(deadline) {
			t.Fatal("the watcher recorded nothing in 15 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// gitIn runs git in dir as a person, with fixed identities and dates.
func gitIn(t *testing.T, dir string, args ...string) string {
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

// blameOwners returns, per line of path, "<event> <tool> <session>" from
// journal blame --porcelain.
func blameOwners(t *testing.T, dir, path string) []string {
	t.Helper()
	out := ok(t, dir, "blame", "--porcelain", path)
	var owners []string
	tools := map[string]string{}
	var cur string
	for _, l := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(l, "\t"):
			owners = append(owners, cur+" "+tools[cur])
		case strings.HasPrefix(l, "tool "):
			tools[cur] = strings.TrimPrefix(l, "tool ")
		case l != "" && !strings.Contains(l, " ") || strings.Count(l, " ") == 1 && !strings.HasPrefix(l, "time ") && !strings.HasPrefix(l, "kind ") && !strings.HasPrefix(l, "actor "):
			cur, _, _ = strings.Cut(l, " ")
		}
	}
	return owners
}

// TestBlame_ThroughGit (issue 45): an agent's Bash call writes lines beside a
// running watcher; the person commits, checks out the commit before and
// back, stashes and pops, rebases: the agent's lines keep its call in
// journal blame through every one of them.
func TestBlame_ThroughGit(t *testing.T) {
	dir := t.TempDir()
	gitIn(t, dir, "init", "-q", "-b", "main")
	files(t, dir, map[string]string{"config.py": "retries = 3\n", "legacy.py": "old = True\n", "app.py": "def main():\n    pass\n"})
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "commit", "-qm", "start")
	ok(t, dir, "exec", "--", "true") // the journal, with its baseline
	startWatcher(t, dir)

	hook(t, dir, "claude-code/pre-bash-readme.json")
	bash(t, dir, `printf 'def main():\n    pass\n\ndef agent_one():\n    return "agent"\n' > app.py`)
	hook(t, dir, "claude-code/post-bash-readme.json")
	agent := blameOwners(t, dir, "app.py")
	if len(agent) != 5 || !strings.HasSuffix(agent[3], " Bash") || agent[3] != agent[4] {
		t.Fatalf("after the agent's call: %q", agent)
	}
	check := func(step string) {
		t.Helper()
		got := blameOwners(t, dir, "app.py")
		if len(got) < 5 || got[3] != agent[3] || got[4] != agent[4] {
			t.Fatalf("after %s: the agent's lines are %q, want %q (all: %q)", step, got[3:min(5, len(got))], agent[3:], got)
		}
	}
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "commit", "-qm", "agent work")
	recorded(t, dir, func() { gitIn(t, dir, "checkout", "-q", "HEAD~1") })
	recorded(t, dir, func() { gitIn(t, dir, "checkout", "-q", "main") })
	check("a checkout round trip")

	// a person's edit, stashed and popped
	recorded(t, dir, func() { bash(t, dir, `printf '# by hand\n' >> app.py`) })
	recorded(t, dir, func() { gitIn(t, dir, "stash", "-q") })
	recorded(t, dir, func() { gitIn(t, dir, "stash", "pop", "-q") })
	check("a stash and its pop")
	recorded(t, dir, func() { gitIn(t, dir, "checkout", "-q", "--", "app.py") })

	// the agent's commit rebased onto a change of another file
	recorded(t, dir, func() { gitIn(t, dir, "checkout", "-q", "-b", "side", "HEAD~1") })
	recorded(t, dir, func() { files(t, dir, map[string]string{"config.py": "retries = 4\n"}) })
	gitIn(t, dir, "commit", "-qam", "side")
	recorded(t, dir, func() { gitIn(t, dir, "checkout", "-q", "main") })
	recorded(t, dir, func() { gitIn(t, dir, "rebase", "-q", "side") })
	check("a rebase")
	if data, _ := os.ReadFile(filepath.Join(dir, "config.py")); string(data) != "retries = 4\n" {
		t.Fatalf("the rebase did not take the side commit: %q", data)
	}
}
