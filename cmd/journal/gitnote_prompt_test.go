package main_test

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"testing"
)

// promptedCall runs script in dir as Claude Code Bash call toolu_9 of
// session S3 (model claude-sonnet-5) under prompt promptID, through
// `journal hook claude-code` around it.
func promptedCall(t *testing.T, dir, promptID, script string) {
	t.Helper()
	for _, in := range []string{
		fmt.Sprintf(`{"session_id":"S3","cwd":%q,"hook_event_name":"SessionStart","model":"claude-sonnet-5"}`, dir),
		fmt.Sprintf(`{"session_id":"S3","cwd":%q,"hook_event_name":"UserPromptSubmit","prompt_id":%q,"prompt":"write g.txt"}`, dir, promptID),
		fmt.Sprintf(`{"session_id":"S3","cwd":%q,"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"w"},"tool_use_id":"toolu_9"}`, dir),
		"",
		fmt.Sprintf(`{"session_id":"S3","cwd":%q,"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"w"},"tool_use_id":"toolu_9"}`, dir),
	} {
		if in == "" {
			bash(t, dir, script)
			continue
		}
		cmd := exec.Command(bin, "hook", "claude-code")
		cmd.Dir = t.TempDir()
		cmd.Stdin = strings.NewReader(in)
		if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
			t.Fatalf("hook: %v %s", err, out)
		}
	}
}

// A Claude Code session's model (SessionStart) and prompt (UserPromptSubmit)
// reach the git note of a commit holding its Bash call's lines: the
// session record's agent_id.model and custom_attributes.prompt (the
// prompt's id; its text stays in the journal, where redact reaches it).
func TestGitNote_PromptAndModel(t *testing.T) {
	dir := gitRepo(t)
	promptedCall(t, dir, "p-77", "printf 'g1\\n' > g.txt")
	gitEnvIn(t, dir, nil, "add", "g.txt")
	gitEnvIn(t, dir, nil, "commit", "-qm", "g")
	note := gitOut(t, dir, "notes", "--ref=ai", "show", "HEAD")
	_, meta, _ := strings.Cut(note, "\n---\n")
	var m struct {
		Sessions map[string]struct {
			AgentID          struct{ Tool, ID, Model string } `json:"agent_id"`
			CustomAttributes map[string]string                `json:"custom_attributes"`
		}
	}
	if err := json.Unmarshal([]byte(meta), &m); err != nil || len(m.Sessions) != 1 {
		t.Fatalf("note: %v\n%s", err, note)
	}
	// the line's call: its trace id, the second half of its key
	att, _, _ := strings.Cut(note, "\n---\n")
	_, key, _ := strings.Cut(att, "\n  ")
	_, trace, _ := strings.Cut(strings.Fields(key)[0], "::")
	for _, s := range m.Sessions {
		if s.AgentID.ID != "S3" || s.AgentID.Model != "claude-sonnet-5" || s.CustomAttributes["prompt"] != "p-77" ||
			s.CustomAttributes["prompt:"+trace] != "p-77" {
			t.Fatalf("the session's record: %+v (trace %q)\n%s", s, trace, note)
		}
	}
	if out := ok(t, dir, "git", "blame", "--json", "g.txt"); !strings.Contains(out, `"prompt": "p-77"`) {
		t.Fatalf("journal git blame does not name the line's prompt:\n%s", out)
	}
}

// A commit made inside an agent's tool call (a git commit in its Bash
// call) with no watcher running: the post-commit hook records the
// committed files the journal has not yet seen, named for the call its
// before-hook left open (not as an outside change), so the commit's note
// gives its lines to the agent's session; the call's after-hook then
// finds nothing left and records no second event. Once the call is over,
// a commit's new lines are untracked again.
func TestGitNote_CommitInsideAgentCall(t *testing.T) {
	dir := gitRepo(t)
	hook := func(in string) {
		t.Helper()
		cmd := exec.Command(bin, "hook", "claude-code")
		cmd.Dir = t.TempDir()
		cmd.Stdin = strings.NewReader(in)
		if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
			t.Fatalf("hook: %v %s", err, out)
		}
	}
	const command = "printf 'g1\\n' > g.txt && git add g.txt && git commit -qm g"
	call := func(event string) string {
		return fmt.Sprintf(`{"session_id":"S4","cwd":%q,"hook_event_name":%q,"tool_name":"Bash","tool_input":{"command":%q},"tool_use_id":"toolu_c1"}`, dir, event, command)
	}
	hook(fmt.Sprintf(`{"session_id":"S4","cwd":%q,"hook_event_name":"UserPromptSubmit","prompt_id":"p-c1","prompt":"commit g.txt"}`, dir))
	hook(call("PreToolUse"))
	bash(t, dir, "printf 'g1\\n' > g.txt")
	gitEnvIn(t, dir, nil, "add", "g.txt")
	gitEnvIn(t, dir, nil, "commit", "-qm", "g")
	hook(call("PostToolUse"))
	note := gitOut(t, dir, "notes", "--ref=ai", "show", "HEAD")
	att, meta, _ := strings.Cut(note, "\n---\n")
	var m struct {
		Sessions map[string]struct {
			AgentID struct{ Tool, ID string } `json:"agent_id"`
		}
	}
	if err := json.Unmarshal([]byte(meta), &m); err != nil || len(m.Sessions) != 1 || !strings.HasPrefix(att, "g.txt\n  ") {
		t.Fatalf("the commit's note gives g.txt to no session: %v\n%s", err, note)
	}
	for _, s := range m.Sessions {
		if s.AgentID.ID != "S4" {
			t.Fatalf("the note's session: %+v\n%s", s, note)
		}
	}
	var bashEvents int
	for _, e := range logJSON(t, dir) {
		if e["tool"] == "Bash" {
			bashEvents++
			if f := eventFiles(e); strings.Join(f, " ") != "g.txt" {
				t.Errorf("the call's event holds %v", f)
			}
		}
	}
	if bashEvents != 1 {
		t.Errorf("%d events of the call, want 1", bashEvents)
	}
	// the call is over: a person's commit is untracked
	bash(t, dir, "printf 'h1\\n' > h.txt")
	gitEnvIn(t, dir, nil, "add", "h.txt")
	gitEnvIn(t, dir, nil, "commit", "-qm", "h")
	if note := gitOut(t, dir, "notes", "--ref=ai", "show", "HEAD"); strings.Contains(note, "h.txt\n  ") {
		t.Errorf("a commit after the call gives its lines to someone:\n%s", note)
	}
}
