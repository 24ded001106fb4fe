package watch_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/journalfs/journal/replay/watch"
)

// MatchMCP names an agent's open call of an MCP tool only when exactly
// what the hook saw is called: the same tool (each agent's way of naming
// an MCP server's tool), the same arguments (their keys in any order), the
// call still open and not older than MCPMax; two open calls alike of
// different sessions name nothing.
func TestMatchMCP(t *testing.T) {
	now := time.Date(2026, 12, 2, 1, 0, 0, 0, time.UTC)
	args := json.RawMessage(`{"search_text":"m","absolute_file_path":"/w/m.txt","n":1}`)
	same := func() json.RawMessage {
		return json.RawMessage(`{"absolute_file_path":"/w/m.txt","n":1.0,"search_text":"m"}`)
	}
	call := watch.Call{ID: "toolu_1", Agent: "claude-code", Session: "s1", Prompt: "p1", Tool: "mcp__journal__edit_content", Input: args, Origin: "hook"}
	for _, c := range []struct {
		name   string
		notes  []watch.Call
		at     time.Time
		tool   string
		args   func() json.RawMessage
		closed bool
		want   string // the session named, "" none
	}{
		{"claude-code", []watch.Call{call}, now, "edit_content", same, false, "s1"},
		{"gemini", []watch.Call{{ID: "g", Agent: "gemini", Session: "s2", Tool: "mcp_journal_edit_content", Input: args}}, now, "edit_content", same, false, "s2"},
		{"cursor", []watch.Call{{ID: "c", Agent: "cursor", Session: "s3", Tool: "MCP:edit_content", Input: args}}, now, "edit_content", same, false, "s3"},
		{"kiro", []watch.Call{{ID: "k", Agent: "kiro", Session: "s4", Tool: "@journal/edit_content", Input: args}}, now, "edit_content", same, false, "s4"},
		{"another tool", []watch.Call{call}, now, "file_edit", same, false, ""},
		{"a tool of the same ending", []watch.Call{call}, now, "content", same, false, ""},
		{"other arguments", []watch.Call{call}, now, "edit_content", func() json.RawMessage { return json.RawMessage(`{"search_text":"M"}`) }, false, ""},
		{"closed", []watch.Call{call}, now, "edit_content", same, true, ""},
		{"too old", []watch.Call{call}, now.Add(watch.MCPMax + time.Second), "edit_content", same, false, ""},
		{"two sessions alike", []watch.Call{call, {ID: "toolu_2", Agent: "claude-code", Session: "s9", Prompt: "p9", Tool: call.Tool, Input: args}}, now, "edit_content", same, false, ""},
		{"one session's two calls alike", []watch.Call{call, {ID: "toolu_2", Agent: "claude-code", Session: "s1", Prompt: "p1", Tool: call.Tool, Input: args}}, now, "edit_content", same, false, "s1"},
		{"no note", nil, now, "edit_content", same, false, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, n := range c.notes {
				if err := watch.OpenMCP(dir, n, now); err != nil {
					t.Fatal(err)
				}
				if c.closed {
					if err := watch.CloseMCP(dir, n); err != nil {
						t.Fatal(err)
					}
				}
			}
			got := ""
			if m := watch.MatchMCP(dir, c.tool, c.args, c.at); m != nil {
				got = m.Session
			}
			if got != c.want {
				t.Errorf("matched session %q, want %q", got, c.want)
			}
		})
	}
}

// A session's next prompt, or the end of its turn, closes its calls: their
// notes go (CloseMCPSessions), another session's stay.
func TestCloseMCPSessions(t *testing.T) {
	dir, now := t.TempDir(), time.Now()
	args := json.RawMessage(`{"a":1}`)
	for _, s := range []string{"s1", "s2"} {
		if err := watch.OpenMCP(dir, watch.Call{ID: "c-" + s, Agent: "claude-code", Session: s, Tool: "mcp__journal__undo", Input: args}, now); err != nil {
			t.Fatal(err)
		}
	}
	if m := watch.MatchMCP(dir, "undo", func() json.RawMessage { return args }, now); m != nil {
		t.Fatalf("two sessions' calls alike matched %s", m.Session)
	}
	if err := watch.CloseMCPSessions(dir, "claude-code", "s1"); err != nil {
		t.Fatal(err)
	}
	if m := watch.MatchMCP(dir, "undo", func() json.RawMessage { return args }, now); m == nil || m.Session != "s2" {
		t.Fatalf("after s1's calls closed: %v", m)
	}
}

// What an MCP tool's hook adds to the hook's work: the note written and
// removed, and what the server's MatchMCP costs a call.
func BenchmarkMCPNote(b *testing.B) {
	dir := b.TempDir()
	call := watch.Call{ID: "toolu_1", Agent: "claude-code", Session: "s1", Prompt: "p1", Tool: "mcp__journal__edit_content",
		Input: json.RawMessage(`{"absolute_file_path":"/w/m.txt","search_text":"m","replace_text":"M"}`)}
	args := func() json.RawMessage { return call.Input }
	b.Run("open-close", func(b *testing.B) {
		for b.Loop() {
			watch.OpenMCP(dir, call, time.Now())
			watch.CloseMCP(dir, call)
		}
	})
	b.Run("match-none", func(b *testing.B) {
		for b.Loop() {
			watch.MatchMCP(dir, "edit_content", args, time.Now())
		}
	})
	watch.OpenMCP(dir, call, time.Now())
	b.Run("match-one", func(b *testing.B) {
		for b.Loop() {
			if watch.MatchMCP(dir, "edit_content", args, time.Now()) == nil {
				b.Fatal("no match")
			}
		}
	})
}
