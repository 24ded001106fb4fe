package agents_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/journalfs/journal/replay/watch"
	"github.com/journalfs/journal/replay/watch/agents"
)

// Every agent has samples in testdata/hooks/<agent>/ and every sample
// directory an agent; each sample parses, a prompt's hook to Prompt (with
// its text and an id), a before-hook (pre-, before-) to Begin, an
// after-hook (post-, after-) to End, the rest to Other, each call with an
// id, a tool and a session where the payload has one.
func TestParse_EverySample(t *testing.T) {
	root := filepath.Join("..", "..", "..", "testdata", "hooks")
	dirs, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	other := map[string]bool{"gemini/after-agent": true, "windsurf/post-cascade-response": true}
	// the prompts, and the id each agent gives it ("" made up)
	prompts := map[string]string{"claude-code/prompt": "550e8400-e29b-41d4-a716-446655440000", "codex/prompt": "019d036d-c7fa-72d2-b6fd-78878bfe34e4",
		"cursor/before-submit-prompt": "5f1a7e20-8c3d-4b9a-a6e1-2d7c9f0b4e88", "gemini/before-agent": "", "copilot/user-prompt-submitted": "",
		"windsurf/pre-user-prompt": "xyz-456", "cline/user-prompt-submit": "", "cline/v3-user-prompt-submit": "", "kiro/user-prompt-submit": ""}
	seenPrompt := map[string]bool{}
	noSession := map[string]bool{"kiro/cli2-pre-tool-use": true, "kiro/cli2-post-tool-use": true}
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		if _, ok := agents.Lookup(d.Name()); !ok {
			t.Errorf("testdata/hooks/%s: no agent of that name", d.Name())
			continue
		}
		seen[d.Name()] = true
		samples, _ := filepath.Glob(filepath.Join(root, d.Name(), "*.json"))
		for _, p := range samples {
			name := d.Name() + "/" + strings.TrimSuffix(filepath.Base(p), ".json")
			raw, _ := os.ReadFile(p)
			h, err := agents.Parse(d.Name(), raw, "")
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			base := filepath.Base(name)
			want := agents.Other
			if id, ok := prompts[name]; ok {
				seenPrompt[d.Name()] = true
				if h.Op != agents.Prompt || h.Text == "" || (id != "" && h.Call.Prompt != id) || (id == "" && !strings.HasPrefix(h.Call.Prompt, "made-")) || h.Call.Session == "" {
					t.Errorf("%s: %v %+v text %q, want a prompt of id %q", name, h.Op, h.Call, h.Text, id)
				}
				continue
			}
			switch {
			case other[name]:
			case strings.HasPrefix(base, "pre-") || strings.HasPrefix(base, "before-") || strings.Contains(base, "-pre-"):
				want = agents.Begin
			case strings.HasPrefix(base, "post-") || strings.HasPrefix(base, "after-") || strings.Contains(base, "-post-"):
				want = agents.End
			case strings.HasPrefix(base, "cli-tool-call"):
				want = agents.Begin
			case strings.HasPrefix(base, "cli-tool-result"):
				want = agents.End
			}
			if h.Op != want {
				t.Errorf("%s: %v, want %v (event %q)", name, h.Op, want, h.Event)
			}
			if h.Call.Agent != d.Name() || h.Call.Origin != "hook" {
				t.Errorf("%s: agent %q origin %q", name, h.Call.Agent, h.Call.Origin)
			}
			if h.Op != agents.Other && (h.Call.ID == "" || h.Call.Tool == "" || len(h.Call.Input) == 0 || h.Call.Input[0] != '{') {
				t.Errorf("%s: call %+v", name, h.Call)
			}
			if h.Call.Session == "" && !noSession[name] {
				t.Errorf("%s: no session", name)
			}
		}
	}
	for _, n := range agents.Names() {
		if !seen[n] {
			t.Errorf("agent %s has no samples in testdata/hooks/%s/", n, n)
		}
		if !seenPrompt[n] {
			t.Errorf("agent %s has no prompt's sample", n)
		}
	}
}

// Each agent's before-hook of a call of this project's MCP tool
// edit_content, however the agent names it (mcp__journal__edit_content,
// Cline 3.x's use_mcp_tool, Cline 4.x's and its CLI's journal__edit_content,
// Copilot CLI's journal-edit_content), leaves the note the MCP server's
// MatchMCP finds for that tool and the arguments the server is given (as
// JSON types, whatever the hook sent): the same agent, session and call.
// Other arguments, or another tool, find nothing.
func TestParse_MCPCallsMatch(t *testing.T) {
	root := filepath.Join("..", "..", "..", "testdata", "hooks")
	samples, _ := filepath.Glob(filepath.Join(root, "*", "*pre-mcp.json"))
	if len(samples) < 6 {
		t.Fatalf("%d samples of MCP calls: %v", len(samples), samples)
	}
	for _, p := range samples {
		agent := filepath.Base(filepath.Dir(p))
		t.Run(agent+"/"+filepath.Base(p), func(t *testing.T) {
			raw, _ := os.ReadFile(p)
			raw = []byte(strings.ReplaceAll(string(raw), "$CWD", "/w"))
			h, err := agents.Parse(agent, raw, "")
			if err != nil || h.Op != agents.Begin {
				t.Fatalf("%v %v", h.Op, err)
			}
			m := watch.MCPCall{Tool: h.Call.Tool, Args: h.Call.Input}
			if h.MCP != nil {
				m = *h.MCP
			}
			if !watch.IsMCPTool(m.Tool) {
				t.Fatalf("%q is not an MCP tool", m.Tool)
			}
			dir := t.TempDir()
			now := time.Now()
			if err := watch.OpenMCPCall(dir, h.Call, m, now); err != nil {
				t.Fatal(err)
			}
			server := json.RawMessage(`{"absolute_file_path": "/w/m.txt", "search_text": "m", "replace_text": "M by MCP", "preview": false}`)
			got := watch.MatchMCP(dir, "edit_content", func() json.RawMessage { return server }, now)
			if got == nil || got.Agent != agent || got.Session != h.Call.Session || got.ID != h.Call.ID || got.ID == "" {
				t.Errorf("matched %+v, want the call %+v", got, h.Call)
			}
			other := json.RawMessage(`{"absolute_file_path": "/w/m.txt", "search_text": "m", "replace_text": "M by MCP", "preview": true}`)
			if got := watch.MatchMCP(dir, "edit_content", func() json.RawMessage { return other }, now); got != nil {
				t.Errorf("other arguments matched %+v", got)
			}
			if got := watch.MatchMCP(dir, "write_file", func() json.RawMessage { return server }, now); got != nil {
				t.Errorf("another tool matched %+v", got)
			}
		})
	}
}

// A leading BOM (Cursor) is taken off; anything not a JSON object is
// ErrNotJSON; an unknown agent ErrUnknownAgent.
func TestParse_Errors(t *testing.T) {
	if _, err := agents.Parse("cursor", []byte("\xef\xbb\xbf{\"hook_event_name\":\"stop\"}"), ""); err != nil {
		t.Fatalf("BOM: %v", err)
	}
	for _, in := range []string{"", "  ", "[1]", "null", "{", "\"x\""} {
		if _, err := agents.Parse("claude-code", []byte(in), ""); err == nil || !strings.Contains(err.Error(), "not a JSON object") {
			t.Errorf("%q: %v", in, err)
		}
	}
	if _, err := agents.Parse("claudee", []byte("{}"), ""); err == nil || !strings.Contains(err.Error(), "unknown agent") {
		t.Errorf("unknown agent: %v", err)
	}
	if a, ok := agents.Lookup("claude"); !ok || a.Name != "claude-code" {
		t.Errorf("alias claude: %v %v", a, ok)
	}
}

// Copilot CLI's toolArgs: a JSON string holding an object and an object
// read alike; --event names a camelCase payload's event.
func TestParse_CopilotToolArgs(t *testing.T) {
	s, err := agents.Parse("copilot", []byte(`{"sessionId":"s","toolName":"bash","toolArgs":"{\"command\":\"ls\"}"}`), "")
	if err != nil {
		t.Fatal(err)
	}
	o, err := agents.Parse("copilot", []byte(`{"sessionId":"s","toolName":"bash","toolArgs":{"command":"ls"}}`), "preToolUse")
	if err != nil {
		t.Fatal(err)
	}
	if string(s.Call.Input) != `{"command":"ls"}` || string(o.Call.Input) != `{"command":"ls"}` || s.Call.ID != o.Call.ID || s.Op != agents.Begin || o.Op != agents.Begin {
		t.Fatalf("string %+v\nobject %+v", s, o)
	}
	e, _ := agents.Parse("copilot", []byte(`{"sessionId":"s","toolName":"bash","toolArgs":{"command":"ls"}}`), "postToolUseFailure")
	if e.Op != agents.End || e.Call.ID != s.Call.ID {
		t.Fatalf("failure %+v", e)
	}
}

// Parse never panics, whatever the agent is sent; what it accepts is a
// call with an id, a prompt with its id, or another event.
func FuzzParse(f *testing.F) {
	samples, _ := filepath.Glob(filepath.Join("..", "..", "..", "testdata", "hooks", "*", "*.json"))
	for _, p := range samples {
		raw, _ := os.ReadFile(p)
		f.Add(filepath.Base(filepath.Dir(p)), raw, "")
	}
	f.Add("copilot", []byte(`{"toolName":"bash","toolArgs":"{\"command\":1}"}`), "postToolUse")
	f.Fuzz(func(t *testing.T, agent string, raw []byte, event string) {
		h, err := agents.Parse(agent, raw, event)
		if err == nil && (h.Op == agents.Begin || h.Op == agents.End) && h.Call.ID == "" {
			t.Fatalf("a call without an id: %+v", h)
		}
		if err == nil && h.Op == agents.Prompt && h.Call.Prompt == "" {
			t.Fatalf("a prompt without an id: %+v", h)
		}
	})
}

// VS Code's Copilot agent and Cursor run Claude Code's hooks with their own
// payloads: `journal hook claude-code` reads them as theirs, with the ids
// their own hooks give, so a call hooked both ways is one call.
func TestParse_ClaudeCodeHooksRunByOthers(t *testing.T) {
	root := filepath.Join("..", "..", "..", "testdata", "hooks")
	for _, c := range []struct{ agent, sample string }{{"copilot", "vscode-pre-tool-use"}, {"cursor", "before-shell"}, {"cursor", "pre-tool-shell"}} {
		raw, err := os.ReadFile(filepath.Join(root, c.agent, c.sample+".json"))
		if err != nil {
			t.Fatal(err)
		}
		own, err1 := agents.Parse(c.agent, raw, "")
		viaClaude, err2 := agents.Parse("claude-code", raw, "")
		if err1 != nil || err2 != nil || viaClaude.Call.Agent != c.agent || viaClaude.Call.ID != own.Call.ID || viaClaude.Op != agents.Begin {
			t.Errorf("%s/%s through claude-code: %+v (%v), own %+v (%v)", c.agent, c.sample, viaClaude, err2, own, err1)
		}
	}
}
