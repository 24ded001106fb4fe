package main_test

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// agentBinEnv, set, makes the test binary an agent that runs one hook
// (`$agentBinEnv hook claude-code`, its stdin the payload) and exits: the
// hook's parent process, gone once the hook returns, as an agent killed
// right after its before-hook.
const agentBinEnv = "JOURNALTEST_AGENT_BIN"

func actAsAgent(journalBin string) int {
	cmd := exec.Command(journalBin, "hook", "claude-code")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// hookByAgentThatDies runs the hook with payload in from an agent process
// that exits right after it.
func hookByAgentThatDies(t *testing.T, in string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self)
	cmd.Dir = t.TempDir()
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "JOURNAL_") && !strings.Contains(kv, "_PROJECT_DIR=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, agentBinEnv+"="+bin)
	cmd.Stdin = strings.NewReader(in)
	if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
		t.Fatalf("the agent's hook: %v %s", err, out)
	}
}

// noteLines returns, for each file of HEAD's git note, the attestation
// lines under it ("<key> <lines>").
func noteLines(t *testing.T, dir string) map[string][]string {
	t.Helper()
	cmd := exec.Command("git", "notes", "--ref=ai", "show", "HEAD")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return nil // no note: nothing attributed
	}
	att, _, _ := strings.Cut("\n"+string(out), "\n---\n")
	got := map[string][]string{}
	var file string
	for _, l := range strings.Split(att, "\n") {
		switch {
		case strings.HasPrefix(l, "  "):
			got[file] = append(got[file], strings.TrimSpace(l))
		case l != "":
			file = l
		}
	}
	return got
}

// TestHook_KilledCallIsNoOnes (issue 59, the repro): a watcher runs, a
// Claude Code session's prompt comes, its Bash call's before-hook, and
// the agent is killed (its after-hook never comes); a person appends a
// line to a tracked file and commits. The call closes as soon as its
// agent's process is seen gone: the person's line is in no session's
// note, journal git blame names no agent for it, undo --prompt of the
// prompt would not take it away; the journal's event of it is the
// watcher's own, listing the call it cannot be tied to.
func TestHook_KilledCallIsNoOnes(t *testing.T) {
	dir := gitRepo(t)
	stop := startWatch(t, dir)
	defer stop()
	step := func(in string) {
		t.Helper()
		if r := hookRun(t, dir, false, in, "hook", "claude-code"); r.code != 0 || r.stderr != "" || r.stdout != "" {
			t.Fatalf("hook: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
		}
	}
	step(fmt.Sprintf(`{"session_id":"K1","cwd":%q,"hook_event_name":"UserPromptSubmit","prompt_id":"p-1","prompt":"run the tests"}`, dir))
	hookByAgentThatDies(t, claudeCall(dir, "PreToolUse", "K1", "toolu_K", "go test ./..."))
	bash(t, dir, "echo 'a person wrote this' >> base.txt")
	gitEnvIn(t, dir, nil, "commit", "-qam", "by a person")
	for f, ls := range noteLines(t, dir) {
		t.Errorf("the note attributes %s %v: the person's line is named for an agent", f, ls)
	}
	out := ok(t, dir, "git", "blame", "--json", "base.txt")
	if strings.Contains(out, "K1") || strings.Contains(out, "claude") {
		t.Errorf("journal git blame names the agent for the person's line:\n%s", out)
	}
	// undo of the prompt would not take the person's line away
	if r := run(t, dir, "undo", "--prompt", "p-1", "--dry-run"); strings.Contains(r.stdout+r.stderr, "a person wrote this") {
		t.Errorf("journal undo --prompt p-1 would take the person's line away:\n%s%s", r.stdout, r.stderr)
	}
	var last map[string]any
	for _, e := range logJSON(t, dir) {
		if fs := eventFiles(e); len(fs) == 1 && fs[0] == "base.txt" {
			last = e
		}
	}
	args, _ := last["args"].(map[string]any)
	actor, _ := last["actor"].(map[string]any)
	if last["tool"] != "watch" || actor["kind"] == "agent" || args["unproven"] == nil ||
		!strings.Contains(compact(args["unproven"]), `"closed":"exited"`) {
		t.Errorf("the person's change: want the watcher's own, listing the call closed as exited: %s", compact(last))
	}
}

// TestStatus_NamesOpenCall (issue 59): while an agent's call is open, the
// changes made meanwhile wait for it: journal status and journal doctor
// name the call and its age, and say so. The hook runs as agents run it,
// through a shell that ends with it: the agent is this test's process,
// above the shell, alive, so the call stays open.
func TestStatus_NamesOpenCall(t *testing.T) {
	dir := gitRepo(t)
	stop := startWatch(t, dir)
	defer stop()
	hook := exec.Command("sh", "-c", bin+" hook claude-code; true")
	hook.Stdin = strings.NewReader(claudeCall(dir, "PreToolUse", "S9", "toolu_OPEN", "make test"))
	if out, err := hook.CombinedOutput(); err != nil || len(out) > 0 {
		t.Fatalf("hook: %v %s", err, out)
	}
	bash(t, dir, "echo more >> base.txt")
	out := ok(t, dir, "status")
	for _, want := range []string{"call      ", "claude-code Bash", "toolu_OPEN", "session S9", "open for", "make test", "wait for it"} {
		if !strings.Contains(out, want) {
			t.Errorf("journal status does not say %q:\n%s", want, out)
		}
	}
	r := run(t, dir, "doctor")
	if !strings.Contains(r.stdout, "toolu_OPEN") || !strings.Contains(r.stdout, "open for") {
		t.Errorf("journal doctor does not name the open call:\n%s%s", r.stdout, r.stderr)
	}
}

// TestHook_EditCallOwnsOnlyItsFile (issue 59): a person saves a file while
// an agent's Write call (which names its file in tool_input.file_path) is
// open: at its after-hook the call's event holds its file alone; the
// person's file is the watcher's own, listing the call it was made
// beside, and the commit's note attributes only the agent's file. With a
// watcher, and without (the hooks walk the workspace themselves).
func TestHook_EditCallOwnsOnlyItsFile(t *testing.T) {
	t.Run("watcher", func(t *testing.T) { editCallOwnsOnlyItsFile(t, true) })
	t.Run("alone", func(t *testing.T) { editCallOwnsOnlyItsFile(t, false) })
}

func editCallOwnsOnlyItsFile(t *testing.T, watcher bool) {
	dir := gitRepo(t)
	if watcher {
		stop := startWatch(t, dir)
		defer stop()
	}
	write := func(event string) string {
		return fmt.Sprintf(`{"session_id":"W1","cwd":%q,"hook_event_name":%q,"tool_name":"Write","tool_input":{"file_path":%q,"content":"agent\n"},"tool_use_id":"toolu_W"}`,
			dir, event, dir+"/w.txt")
	}
	for _, in := range []string{write("PreToolUse"), "echo 'a person wrote this' >> base.txt", "echo agent > w.txt", write("PostToolUse")} {
		if !strings.HasPrefix(in, "{") {
			bash(t, dir, in)
			continue
		}
		if r := hookRun(t, dir, false, in, "hook", "claude-code"); r.code != 0 || r.stderr != "" {
			t.Fatalf("hook: %d %s", r.code, r.stderr)
		}
	}
	byFile := map[string]map[string]any{}
	for _, e := range logJSON(t, dir) {
		for _, f := range eventFiles(e) {
			byFile[f] = e
		}
	}
	if e := byFile["w.txt"]; e["tool"] != "Write" || len(eventFiles(e)) != 1 {
		t.Errorf("the agent's file: want the Write call's event of it alone: %s", compact(e))
	}
	e := byFile["base.txt"]
	args, _ := e["args"].(map[string]any)
	if e["tool"] != "watch" || !strings.Contains(compact(args["unproven"]), "toolu_W") {
		t.Errorf("the person's file: want the watcher's own, listing the call: %s", compact(e))
	}
	gitEnvIn(t, dir, nil, "add", "-A")
	gitEnvIn(t, dir, nil, "commit", "-qm", "both")
	got := noteLines(t, dir)
	if len(got) != 1 || got["w.txt"] == nil {
		t.Errorf("the note: want w.txt alone attributed, got %v", got)
	}
}
