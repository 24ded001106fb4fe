package main_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// promptCase is an agent's prompt sample, the call after it, and what the
// prompt event must say.
type promptCase struct {
	agent          string
	before         []string // samples before the prompt (a session's start, giving the model)
	prompt         string   // its sample
	pre, post      string   // a call's before- and after-hook
	id, text       string   // the prompt's id ("made-": made up) and text
	session, model string
}

var promptCases = []promptCase{
	{"claude-code", []string{"session-start"}, "prompt", "pre-bash", "post-bash", "550e8400-e29b-41d4-a716-446655440000", "Make one.txt and capitalise a.txt", "00893aaf-19fa-41d2-8238-13269b9b3ca0", "claude-sonnet-5"},
	{"codex", []string{"session-start"}, "prompt", "pre-bash", "post-bash", "019d036d-c7fa-72d2-b6fd-78878bfe34e4", "fix the failing test in src/lib.rs", "019d036d-a1b2-7c3d-8e4f-0123456789ab", "gpt-5.5-codex"},
	{"cursor", []string{"session-start"}, "before-submit-prompt", "before-shell", "after-shell", "5f1a7e20-8c3d-4b9a-a6e1-2d7c9f0b4e88", "Make one.txt", "b9c0f2de-3a41-4c8e-9d2b-0f4e7a1c6d35", "claude-sonnet-4-20250514"},
	{"gemini", []string{"session-start"}, "before-agent", "before-tool-shell", "after-tool-shell", "made-", "Make one.txt", "7f3e2a10-4b5c-4d6e-8f90-1a2b3c4d5e6f", ""},
	{"copilot", []string{"session-start"}, "user-prompt-submitted", "pre-tool-use", "post-tool-use", "made-", "Make one.txt", "c0ffee00-1234-4abc-9def-0123456789ab", ""},
	{"windsurf", nil, "pre-user-prompt", "pre-run-command", "post-run-command", "xyz-456", "can you make one.txt", "abc-123", ""},
	{"cline", []string{"task-start"}, "user-prompt-submit", "pre-tool-use", "post-tool-use", "made-", "Make one.txt", "1762500000000", "anthropic/claude-sonnet-4-5"},
	{"kiro", nil, "user-prompt-submit", "pre-tool-use", "post-tool-use", "made-", "add a health endpoint", "sess_01JKIRO", ""},
}

// Every agent's prompt sample through the real `journal hook` binary,
// beside a running `journal watch` (its socket) and with none: a person's
// change made before the prompt is recorded before it, then one prompt
// event (kind prompt, no file) with the prompt's text, id (the agent's, or
// one made up), agent, session and model where the agent says it; the
// call after it names it in args.call.prompt, and `log --prompts --json`,
// which derives each event's prompt from its session at read time, puts
// the call under the same prompt — both ways agree.
func TestHook_Prompts(t *testing.T) {
	for _, c := range promptCases {
		for _, watcher := range []bool{true, false} {
			name := c.agent + "/watcher"
			if !watcher {
				name = c.agent + "/alone"
			}
			t.Run(name, func(t *testing.T) {
				dir := t.TempDir()
				files(t, dir, map[string]string{"a.txt": "a\n", "c.txt": "c\n"})
				if watcher {
					defer startWatch(t, dir)()
				} else {
					ok(t, dir, "exec", "--", "true") // the journal, and its baseline
				}
				feed := func(s string) {
					t.Helper()
					r := hookRun(t, dir, c.agent == "windsurf", sample(t, c.agent, s, dir), "hook", c.agent)
					if r.code != 0 || r.stdout != "" || r.stderr != "" {
						t.Fatalf("%s: exit %d, stdout %q, stderr %q", s, r.code, r.stdout, r.stderr)
					}
				}
				for _, s := range c.before {
					feed(s)
				}
				bash(t, dir, "echo person > c.txt")
				feed(c.prompt)
				feed(c.pre)
				bash(t, dir, cmdOne)
				feed(c.post)
				evs := logJSON(t, dir)
				pi := -1
				for i, e := range evs {
					if e["kind"] == "prompt" {
						if pi >= 0 {
							t.Fatalf("two prompt events: %v", evs)
						}
						pi = i
					}
				}
				if pi < 0 || pi+1 >= len(evs) {
					t.Fatalf("no prompt event, or none after it: %v", evs)
				}
				pe, call := evs[pi], evs[len(evs)-1]
				actor, _ := pe["actor"].(map[string]any)
				var args struct{ ID, Text, Model, Event string }
				b, _ := json.Marshal(pe["args"])
				json.Unmarshal(b, &args)
				if pe["tool"] != "prompt" || len(eventFiles(pe)) != 0 || actor["kind"] != "agent" || actor["name"] != c.agent || actor["session"] != c.session || actor["origin"] != "hook" {
					t.Errorf("the prompt event: %v", pe)
				}
				if args.Text != c.text || args.Model != c.model || !(args.ID == c.id || c.id == "made-" && strings.HasPrefix(args.ID, "made-")) {
					t.Errorf("the prompt's arguments: %+v, want id %s text %q model %q", args, c.id, c.text, c.model)
				}
				// the person's change before the prompt is recorded before it
				before := false
				for _, e := range evs[:pi] {
					if strings.Join(eventFiles(e), " ") == "c.txt" {
						before = true
					}
				}
				if !before {
					t.Errorf("the change made before the prompt is not recorded before it: %v", evs)
				}
				cargs, _ := call["args"].(map[string]any)
				about, _ := cargs["call"].(map[string]any)
				if call["kind"] != "observe" || about["prompt"] != args.ID || strings.Join(eventFiles(call), " ") != "a.txt one.txt" {
					t.Errorf("the call's event does not name the prompt %s: %v", args.ID, call)
				}
				// read at read time: the call is under its prompt
				out := ok(t, dir, "log", "--prompts", "--json")
				var under string
				for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
					var g struct {
						Prompt *struct {
							Seq uint64
							ID  string
						}
						Events []struct{ Seq uint64 }
					}
					if err := json.Unmarshal([]byte(l), &g); err != nil {
						t.Fatal(err)
					}
					for _, e := range g.Events {
						if fmt.Sprint(e.Seq) == fmt.Sprint(call["seq"]) && g.Prompt != nil {
							under = fmt.Sprintf("%s@%d", g.Prompt.ID, g.Prompt.Seq)
						}
					}
				}
				if want := fmt.Sprintf("%s@%v", args.ID, pe["seq"]); under != want {
					t.Errorf("log --prompts puts the call under %q, want %q:\n%s", under, want, out)
				}
				if txt := ok(t, dir, "log", "--prompts"); !strings.Contains(txt, "> "+c.text) {
					t.Errorf("log --prompts:\n%s", txt)
				}
			})
		}
	}
}
