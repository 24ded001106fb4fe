package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// hookClaude feeds one Claude Code hook payload to `journal hook
// claude-code`, as Claude Code runs it (from another directory, the payload
// naming the workspace), and fails on anything but a silent exit 0.
func hookClaude(t *testing.T, root string, payload map[string]any) {
	t.Helper()
	payload["session_id"], payload["cwd"] = "sess-e2e", root
	b, _ := json.Marshal(payload)
	cmd := exec.Command(binary, "hook", "claude-code")
	cmd.Dir = t.TempDir()
	cmd.Stdin = strings.NewReader(string(b))
	out, err := cmd.CombinedOutput()
	if err != nil || len(out) != 0 {
		t.Fatalf("journal hook %s: %v %q", payload["hook_event_name"], err, out)
	}
}

// bashCall is one Bash call of the agent: its before-hook, the command run
// in the workspace, its after-hook.
func bashCall(t *testing.T, root, prompt, id, sub, command string) {
	t.Helper()
	p := map[string]any{"hook_event_name": "PreToolUse", "prompt_id": prompt, "tool_name": "Bash", "tool_use_id": id, "tool_input": map[string]any{"command": command}}
	if sub != "" {
		p["agent_id"], p["agent_type"] = sub, "general-purpose"
	}
	hookClaude(t, root, p)
	bash(t, root, command)
	p["hook_event_name"] = "PostToolUse"
	hookClaude(t, root, p)
}

// `journal undo --prompt` end to end, with the TypeScript SDK client
// connected to `journal serve` (whose watcher answers the hooks): two
// prompts of a Claude Code session, each with Bash calls (one a
// subagent's); between them a person's edit and the SDK client's own edit
// of another file. Undoing the first prompt takes back both prompts'
// calls — the subagent's too — as one event, and keeps the person's edit
// and the other session's; a dry run changes nothing; journal redo takes
// it back; an overlap with a later person's edit is refused, showing the
// lines, and changes nothing; restore --before-prompt gives the exact
// state before the second prompt.
func TestSDK_UndoPrompt(t *testing.T) {
	root := t.TempDir()
	bash(t, root, `printf 'a = 1\n' > a.py; printf 'b = 1\n' > b.py; printf 'notes\n' > notes.md`)
	d := startDriver(t, root)
	waitClean(t, root)
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			return "<absent>"
		}
		return string(b)
	}
	hookClaude(t, root, map[string]any{"hook_event_name": "SessionStart", "model": "claude-sonnet-5"})
	hookClaude(t, root, map[string]any{"hook_event_name": "UserPromptSubmit", "prompt_id": "p-one", "prompt": "set a to 2 and add one.py"})
	bashCall(t, root, "p-one", "toolu_1", "", `sed -i 's/a = 1/a = 2/' a.py && printf 'one = 1\n' > one.py`)
	bashCall(t, root, "p-one", "toolu_2", "agent-sub", `printf 'sub = 1\n' > sub.py`)
	// between the prompts: a person's edit, and the SDK client's (another session)
	bash(t, root, `printf 'notes\nmine\n' > notes.md`)
	waitClean(t, root)
	if s := d.call("edit_content", map[string]any{"absolute_file_path": filepath.Join(root, "b.py"), "search_text": "b = 1", "replace_text": "b = 2", "preview": false}); s.IsError {
		t.Fatalf("edit_content: %s", s.Text)
	}
	hookClaude(t, root, map[string]any{"hook_event_name": "UserPromptSubmit", "prompt_id": "p-two", "prompt": "now set a to 3"})
	bashCall(t, root, "p-two", "toolu_3", "", `sed -i 's/a = 2/a = 3/' a.py`)

	grouped := runJournal(t, root, "log", "--prompts", "--no-pager")
	for _, want := range []string{"prompt p-one", "> set a to 2 and add one.py", "prompt p-two", "model claude-sonnet-5", "Bash (subagent general-purpose agent-sub)"} {
		if !strings.Contains(grouped, want) {
			t.Fatalf("log --prompts lacks %q:\n%s", want, grouped)
		}
	}
	state := func() string {
		return strings.Join([]string{read("a.py"), read("b.py"), read("notes.md"), read("one.py"), read("sub.py")}, "|")
	}
	before := state()
	dry := runJournal(t, root, "undo", "--prompt", "p-one", "--dry-run")
	if !strings.Contains(dry, "dry run") || !strings.Contains(dry, "a.py") || !strings.Contains(dry, "sub.py") || state() != before {
		t.Fatalf("dry run:\n%s\nstate %q, was %q", dry, state(), before)
	}
	out := runJournal(t, root, "undo", "--prompt", "p-one")
	if want := "a = 1\n|b = 2\n|notes\nmine\n|<absent>|<absent>"; state() != want {
		t.Fatalf("after undo --prompt p-one:\n%s\nstate %q, want %q", out, state(), want)
	}
	evs := lastEvents(t, root, 1)
	if evs[0].Kind != "undo" || evs[0].Tool != "undo_prompt" || len(evs[0].Files) != 3 {
		t.Fatalf("the undo is not one event of the 3 files: %+v", evs)
	}
	// the SDK client sees it in the journal, and the file as it is
	if s := d.call("journal_log", map[string]any{"limit": 3}); s.IsError || !strings.Contains(s.Text+string(s.Structured), "undo_prompt") {
		t.Fatalf("journal_log through the SDK: %s %s", s.Text, s.Structured)
	}
	waitClean(t, root)
	runJournal(t, root, "redo")
	if state() != before {
		t.Fatalf("after redo: %q, want %q", state(), before)
	}
	// a person's later edit overlapping the prompt's change: refused, lines shown, nothing changed
	bash(t, root, `printf 'a = 4  # mine\n' > a.py`)
	waitClean(t, root)
	held := state()
	cmd := exec.Command(binary, "undo", "--prompt", "p-one")
	cmd.Dir = root
	refused, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(refused), "a.py lines 1-1 now:") || !strings.Contains(string(refused), "a = 4  # mine") || state() != held {
		t.Fatalf("the overlap: %v\n%s\nstate %q, want %q", err, refused, state(), held)
	}
	// the exact state before the second prompt
	runJournal(t, root, "restore", "--before-prompt", "p-two")
	if want := "a = 2\n|b = 2\n|notes\nmine\n|one = 1\n|sub = 1\n"; state() != want {
		t.Fatalf("after restore --before-prompt p-two: %q, want %q", state(), want)
	}
	runJournal(t, root, "verify")
}
