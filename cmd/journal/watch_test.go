package main_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// logJSON returns the journal's events, oldest first.
func logJSON(t testing.TB, dir string) []map[string]any {
	t.Helper()
	var evs []map[string]any
	dec := json.NewDecoder(strings.NewReader(ok(t, dir, "log", "--json")))
	for dec.More() {
		var e map[string]any
		if err := dec.Decode(&e); err != nil {
			t.Fatal(err)
		}
		evs = append([]map[string]any{e}, evs...)
	}
	return evs
}

// hook runs `journal hook claude-code` on a fixture of testdata/hooks, its
// cwd set to dir, from another directory (as Claude Code runs hooks).
func hook(t *testing.T, dir, fixture string) result {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "testdata", "hooks", fixture))
	if err != nil {
		t.Fatal(err)
	}
	in := strings.ReplaceAll(string(raw), "$CWD", dir)
	cmd := exec.Command(bin, "hook", "claude-code")
	cmd.Dir = t.TempDir()
	cmd.Stdin = strings.NewReader(in)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("hook %s: %v\n%s", fixture, err, errb.String())
	}
	return result{stdout: out.String(), stderr: errb.String()}
}

func files(t *testing.T, dir string, m map[string]string) {
	t.Helper()
	for n, c := range m {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func bash(t *testing.T, dir, script string) {
	t.Helper()
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
}

// The hook fed what Claude Code sends around a Bash call, with no watcher
// running: the call's changes are one event naming the session and the
// command, undone at once; the hook prints nothing on stdout (Claude Code
// would read it as a decision) and a workspace without a journal is left
// alone.
func TestHook_ClaudeCodeBash(t *testing.T) {
	dir := t.TempDir()
	files(t, dir, map[string]string{"config.py": "retries = 3\n", "legacy.py": "old = True\n"})
	if r := hook(t, dir, "claude-code/pre-bash-readme.json"); r.stdout != "" || r.stderr != "" {
		t.Fatalf("no journal: the hook said %q %q", r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, ".journal")); err == nil {
		t.Fatal("the hook made a journal in a workspace without one")
	}
	ok(t, dir, "exec", "--", "true") // makes the journal: a baseline of config.py and legacy.py
	if r := hook(t, dir, "claude-code/pre-bash-readme.json"); r.stdout != "" {
		t.Fatalf("pre: stdout %q", r.stdout)
	}
	bash(t, dir, `sed -i 's/retries = 3/retries = 5/' config.py && rm legacy.py && printf 'x = 1\n' > new.py`)
	if r := hook(t, dir, "claude-code/post-bash-readme.json"); r.stdout != "" {
		t.Fatalf("post: stdout %q", r.stdout)
	}
	evs := logJSON(t, dir)
	last := evs[len(evs)-1]
	actor := last["actor"].(map[string]any)
	if last["kind"] != "observe" || last["tool"] != "Bash" || actor["session"] != "8c35adc1-6f0e-4d1b-9a53-2f7c1c0e9b41" || actor["name"] != "claude-code" {
		t.Fatalf("the call's event: %v", last)
	}
	if args, _ := json.Marshal(last["args"]); !strings.Contains(string(args), "retries = 5") {
		t.Fatalf("the event does not name the command: %s", args)
	}
	if n := len(last["files"].([]any)); n != 3 {
		t.Fatalf("the event has %d files, want 3", n)
	}
	out := ok(t, dir, "log", "-n", "1")
	if !strings.Contains(out, "claude-code/8c35adc1-6f0e-4d1b-9a53-2f7c1c0e9b41  Bash: sed -i") {
		t.Fatalf("log:\n%s", out)
	}
	ok(t, dir, "undo")
	got, _ := os.ReadFile(filepath.Join(dir, "config.py"))
	legacy, err := os.ReadFile(filepath.Join(dir, "legacy.py"))
	if string(got) != "retries = 3\n" || err != nil || string(legacy) != "old = True\n" {
		t.Fatalf("after undo: config.py %q, legacy.py %q (%v)", got, legacy, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "new.py")); err == nil {
		t.Fatal("after undo: new.py is still there")
	}
	// a bad input never blocks the agent
	cmd := exec.Command(bin, "hook", "claude-code")
	cmd.Stdin = strings.NewReader("{not json")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Run(); err != nil || !strings.Contains(errb.String(), "journal hook:") {
		t.Fatalf("bad JSON: %v %q", err, errb.String())
	}
}

// journal exec runs a command, records its changes as one event naming it,
// keeps what changed before apart, and exits with the command's status.
func TestExec_OneEventPerCommand(t *testing.T) {
	dir := t.TempDir()
	files(t, dir, map[string]string{"a.txt": "a\n"})
	ok(t, dir, "exec", "--", "true")
	files(t, dir, map[string]string{"a.txt": "before\n"}) // not the command's
	r := run(t, dir, "exec", "--", "sh", "-c", "echo new > b.txt; echo A >> a.txt; exit 3")
	if r.code != 3 || !strings.Contains(r.stderr, "as event") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	evs := logJSON(t, dir)
	if len(evs) != 3 {
		t.Fatalf("%d events, want baseline, catch-up, the command", len(evs))
	}
	if evs[1]["tool"] != "watch.catch-up" || evs[2]["tool"] != "exec" {
		t.Fatalf("tools %v, %v", evs[1]["tool"], evs[2]["tool"])
	}
	if args, _ := evs[2]["args"].(map[string]any); args == nil || !strings.Contains(args["command"].(string), `echo new > b.txt`) {
		t.Fatalf("args %v", evs[2]["args"])
	}
	ok(t, dir, "undo")
	got, _ := os.ReadFile(filepath.Join(dir, "a.txt"))
	if string(got) != "before\n" {
		t.Fatalf("undo of the command: a.txt %q", got)
	}
}

// journal watch records shell changes within a second, names them in the
// log, and a second watcher on the workspace is refused with a hint.
func TestWatch_CLI(t *testing.T) {
	dir := t.TempDir()
	files(t, dir, map[string]string{"a.txt": "a\n"})
	cmd := exec.Command(bin, "watch")
	cmd.Dir = dir
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() }()
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	wait := func(s string) {
		t.Helper()
		timeout := time.After(15 * time.Second)
		for {
			select {
			case l := <-lines:
				if strings.Contains(l, s) {
					return
				}
			case <-timeout:
				t.Fatalf("no %q from journal watch", s)
			}
		}
	}
	wait("watching")
	bash(t, dir, `sed -i s/a/b/ a.txt`)
	start := time.Now()
	wait("recorded 1 file(s)")
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("recorded after %v", d)
	}
	if out := ok(t, dir, "log", "-n", "1"); !strings.Contains(out, "outside change (watcher)") {
		t.Fatalf("log:\n%s", out)
	}
	if st := ok(t, dir, "status"); !strings.Contains(st, "watcher   running") {
		t.Fatalf("status while watching:\n%s", st)
	}
	r := run(t, dir, "watch")
	if r.code == 0 || !strings.Contains(r.stderr, "another watcher") || !strings.Contains(r.stderr, "hint:") {
		t.Fatalf("second watcher: exit %d %q", r.code, r.stderr)
	}
}
