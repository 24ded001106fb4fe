package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

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
	gitEnvInAllow(t, dir, "init", "-q", "-b", "main")
	files(t, dir, map[string]string{"config.py": "retries = 3\n", "legacy.py": "old = True\n", "app.py": "def main():\n    pass\n"})
	gitEnvInAllow(t, dir, "add", "-A")
	gitEnvInAllow(t, dir, "commit", "-qm", "start")
	ok(t, dir, "exec", "--", "true") // the journal, with its baseline
	watching(t, dir)

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
	gitEnvInAllow(t, dir, "add", "-A")
	gitEnvInAllow(t, dir, "commit", "-qm", "agent work")
	recorded(t, dir, func() { gitEnvInAllow(t, dir, "checkout", "-q", "HEAD~1") })
	recorded(t, dir, func() { gitEnvInAllow(t, dir, "checkout", "-q", "main") })
	check("a checkout round trip")

	// a person's edit, stashed and popped
	recorded(t, dir, func() { bash(t, dir, `printf '# by hand\n' >> app.py`) })
	recorded(t, dir, func() { gitEnvInAllow(t, dir, "stash", "-q") })
	recorded(t, dir, func() { gitEnvInAllow(t, dir, "stash", "pop", "-q") })
	check("a stash and its pop")
	recorded(t, dir, func() { gitEnvInAllow(t, dir, "checkout", "-q", "--", "app.py") })

	// the agent's commit rebased onto a change of another file
	recorded(t, dir, func() { gitEnvInAllow(t, dir, "checkout", "-q", "-b", "side", "HEAD~1") })
	recorded(t, dir, func() { files(t, dir, map[string]string{"config.py": "retries = 4\n"}) })
	gitEnvInAllow(t, dir, "commit", "-qam", "side")
	recorded(t, dir, func() { gitEnvInAllow(t, dir, "checkout", "-q", "main") })
	recorded(t, dir, func() { gitEnvInAllow(t, dir, "rebase", "-q", "side") })
	check("a rebase")
	if data, _ := os.ReadFile(filepath.Join(dir, "config.py")); string(data) != "retries = 4\n" {
		t.Fatalf("the rebase did not take the side commit: %q", data)
	}
}
