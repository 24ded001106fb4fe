package main_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// mcpCase is an agent whose hooks see its calls of this project's MCP
// tools: its samples and what the events must name.
type mcpCase struct {
	agent, session, prompt, text, call string // prompt, call: "" where the agent gives no id (one is made up)
	// names are the samples' names where not the step's own
	// (session-start, prompt, pre-bash, post-bash, pre-mcp, post-mcp)
	names map[string]string
}

// The cases of agents whose hooks name the MCP tool otherwise than
// mcp__SERVER__TOOL: Cline 3.x's use_mcp_tool, Cline 4.x's SERVER__TOOL
// with its arguments' values as strings, Copilot CLI's SERVER-TOOL.
var (
	clineV3MCP = mcpCase{"cline", "1769500000000", "", "Make one.txt and capitalise a.txt", "", map[string]string{
		"session-start": "v3-task-start", "prompt": "v3-user-prompt-submit", "pre-bash": "v3-pre-tool-use", "post-bash": "v3-post-tool-use",
		"pre-mcp": "v3-pre-mcp", "post-mcp": "v3-post-mcp"}}
	clineMCP = mcpCase{"cline", "1762500000000", "", "Make one.txt", "", map[string]string{
		"session-start": "task-start", "prompt": "user-prompt-submit", "pre-bash": "pre-tool-use", "post-bash": "post-tool-use"}}
	copilotMCP = mcpCase{"copilot", "c0ffee00-1234-4abc-9def-0123456789ab", "", "Make one.txt", "", map[string]string{
		"prompt": "user-prompt-submitted", "pre-bash": "pre-tool-use", "post-bash": "post-tool-use"}}
)

// An agent's edit through this project's MCP tool is under its prompt:
// the agent's PreToolUse/PostToolUse samples of mcp__journal__edit_content
// (Claude Code's, Codex's) fed through `journal hook AGENT` around the real
// call to a real `journal serve` (its watcher running, and none): the
// server's event stays the MCP session's and names the call, the prompt
// and the agent's hook session (call.session), log --prompts puts
// it under the prompt, and undo --prompt takes it back with the agent's
// Bash call, keeping a person's edit made in between. A call the hook did
// not see, or whose arguments differ from what the hook saw, stays the MCP
// session's.
func TestHook_MCPToolUnderPrompt(t *testing.T) {
	for _, mc := range []mcpCase{
		{"claude-code", "00893aaf-19fa-41d2-8238-13269b9b3ca0", "550e8400-e29b-41d4-a716-446655440000", "Make one.txt and capitalise a.txt", "toolu_01MCP", nil},
		{"codex", "019d036d-a1b2-7c3d-8e4f-0123456789ab", "019d036d-c7fa-72d2-b6fd-78878bfe34e4", "fix the failing test in src/lib.rs", "call_mcp1", nil},
		clineV3MCP, clineMCP, copilotMCP,
	} {
		for _, watcher := range []bool{true, false} {
			name := mc.agent + "-" + mc.session + map[bool]string{true: "/serve-watches", false: "/no-watcher"}[watcher]
			t.Run(name, func(t *testing.T) { mcpUnderPrompt(t, mc, watcher) })
		}
	}
}

func mcpUnderPrompt(t *testing.T, mc mcpCase, watcher bool) {
	s, p := mc.session, mc.prompt
	dir := t.TempDir()
	files(t, dir, map[string]string{"a.txt": "a\n", "c.txt": "c\n", "d.txt": "d\n", "m.txt": "m\n"})
	ok(t, dir, "exec", "--", "true")   // the journal, and its baseline
	flags := []string{"--watch=false"} // no watcher: the hooks walk the tree
	if watcher {
		flags = nil // the server's own watcher
	}
	c, stderr := serveStdio(t, dir, mc.agent, flags...)
	ctx := context.Background()
	edit := func(file, search, replace string) uint64 {
		t.Helper()
		req := mcp.CallToolRequest{}
		req.Params.Name = "edit_content"
		req.Params.Arguments = map[string]any{"absolute_file_path": filepath.Join(dir, file), "search_text": search, "replace_text": replace, "preview": false}
		res, err := c.CallTool(ctx, req)
		if err != nil || res.IsError {
			t.Fatalf("edit_content: %v %+v\n%s", err, res, stderr.String())
		}
		var out struct{ Event uint64 }
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &out)
		if out.Event == 0 {
			t.Fatalf("edit_content named no event: %+v", res)
		}
		return out.Event
	}
	feed := func(name string) {
		t.Helper()
		if n := mc.names[name]; n != "" {
			name = n
		}
		if r := hookRun(t, dir, false, sample(t, mc.agent, name, dir), "hook", mc.agent); r.code != 0 || r.stdout != "" || r.stderr != "" {
			t.Fatalf("%s: exit %d, stdout %q, stderr %q", name, r.code, r.stdout, r.stderr)
		}
	}
	early := edit("d.txt", "d", "D before any hook") // no note: the MCP session's
	feed("session-start")
	feed("prompt")
	feed("pre-bash")
	bash(t, dir, cmdOne) // one.txt, a.txt → A
	feed("post-bash")
	bash(t, dir, "echo person > c.txt")
	feed("pre-mcp")
	other := edit("d.txt", "D", "not what the hook saw") // other arguments: no match
	mine := edit("m.txt", "m", "M by MCP")               // what pre-mcp.json says
	feed("post-mcp")
	if n, _ := os.ReadDir(filepath.Join(dir, ".journal", "watch", "mcp")); len(n) != 0 {
		t.Errorf("the after-hook left %d notes", len(n))
	}
	after := edit("d.txt", "not", "after the call") // the call is over: no match
	c.Close()                                       // the server seals its events as it ends: the log reads them all
	evs := map[uint64]map[string]any{}
	for _, e := range logJSON(t, dir) {
		seq := uint64(e["seq"].(float64))
		evs[seq] = e
		if e["tool"] == "mcp__journal__edit_content" {
			t.Errorf("the hook recorded the MCP call as an event of its own: %v", e)
		}
	}
	actor := func(seq uint64) map[string]any { m, _ := evs[seq]["actor"].(map[string]any); return m }
	call := func(seq uint64) map[string]any {
		a, _ := evs[seq]["args"].(map[string]any)
		m, _ := a["call"].(map[string]any)
		return m
	}
	mcpSession := actor(early)["session"]
	if p == "" { // made up: the prompt event's
		for _, e := range evs {
			if a, _ := e["args"].(map[string]any); e["kind"] == "prompt" && a != nil {
				p, _ = a["id"].(string)
			}
		}
	}
	if mc.call == "" { // made up: the one the MCP event names
		if id, _ := call(mine)["id"].(string); strings.HasPrefix(id, "made-") {
			mc.call = id
		}
	}
	if a, cl := actor(mine), call(mine); a["session"] != mcpSession || a["kind"] != "mcp" || a["name"] != mc.agent ||
		cl["prompt"] != p || cl["id"] != mc.call || cl["session"] != s || mcpSession == "" {
		t.Errorf("the MCP edit the hook saw: actor %v, call %v (the MCP session %v)", a, cl, mcpSession)
	}
	for _, seq := range []uint64{early, other, after} {
		if actor(seq)["session"] != mcpSession || call(seq) != nil {
			t.Errorf("event %d names the agent's call: %v", seq, evs[seq])
		}
	}
	under := map[uint64]string{}
	for _, l := range strings.Split(strings.TrimSpace(ok(t, dir, "log", "--prompts", "--json")), "\n") {
		var g struct {
			Prompt *struct{ ID string }
			Events []struct{ Seq uint64 }
		}
		if err := json.Unmarshal([]byte(l), &g); err != nil {
			t.Fatal(err)
		}
		for _, e := range g.Events {
			if g.Prompt != nil {
				under[e.Seq] = g.Prompt.ID
			}
		}
	}
	if under[mine] != p || under[early] != "" || under[other] != "" || under[after] != "" {
		t.Errorf("log --prompts: the MCP edits under %q %q %q %q", under[mine], under[early], under[other], under[after])
	}
	// log --actor AGENT/SESSION, for the agent's hook session, lists the
	// MCP edit its call made (as log --prompts and undo --prompt find it),
	// and not the MCP session's edits no hook saw; the MCP session's own
	// name lists them all
	actorSeqs := func(who string) []uint64 {
		var seqs []uint64
		for _, l := range strings.Split(strings.TrimSpace(ok(t, dir, "log", "--json", "--actor", who)), "\n") {
			var e struct{ Seq uint64 }
			if l != "" && json.Unmarshal([]byte(l), &e) == nil {
				seqs = append(seqs, e.Seq)
			}
		}
		return seqs
	}
	if got := actorSeqs(mc.agent + "/" + s); !slices.Contains(got, mine) || slices.Contains(got, early) ||
		slices.Contains(got, other) || slices.Contains(got, after) {
		t.Errorf("log --actor %s/%s lists %v: want %d (the hook's MCP call) and not %d %d %d", mc.agent, s, got, mine, early, other, after)
	}
	if got := actorSeqs(fmt.Sprintf("%s/%s", mc.agent, mcpSession)); !slices.Contains(got, mine) || !slices.Contains(got, early) {
		t.Errorf("log --actor %s/%s lists %v: want %d and %d", mc.agent, mcpSession, got, mine, early)
	}
	if out := ok(t, dir, "log", "--oneline"); !strings.Contains(out, fmt.Sprintf("%d ", mine)) ||
		!strings.Contains(out, fmt.Sprintf("%s/%s edit_content m.txt  prompt %s: %q", mc.agent, mcpSession, p[:13], mc.text)) {
		t.Errorf("log --oneline:\n%s", out)
	}
	out := ok(t, dir, "show", fmt.Sprint(mine))
	for _, w := range []string{"actor    " + mc.agent + "/" + fmt.Sprint(mcpSession), "call     " + mc.call, "agent    " + s, "prompt   " + p + ": "} {
		if !strings.Contains(out, w) {
			t.Errorf("show %d lacks %q:\n%s", mine, w, out)
		}
	}
	ok(t, dir, "undo", "--prompt", p)
	want := map[string]string{"a.txt": "a\n", "m.txt": "m\n", "c.txt": "person\n", "d.txt": "after the call what the hook saw before any hook\n"}
	for f, w := range want {
		if b, _ := os.ReadFile(filepath.Join(dir, f)); string(b) != w {
			t.Errorf("after undo --prompt, %s is %q, want %q", f, b, w)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "one.txt")); err == nil {
		t.Errorf("undo --prompt left one.txt")
	}
}

// The MCP client's own undo takes back its newest edit, the one its agent's
// hook saw included: the event keeps the MCP session (the undo, redo and
// log --session of the client that made the call find it), and names the
// agent's hook session in its call (call.session), under which the
// prompt's readers — log --prompts, undo --prompt — find it.
func TestHook_MCPUndoIsTheClients(t *testing.T) {
	mc := mcpCase{"claude-code", "00893aaf-19fa-41d2-8238-13269b9b3ca0", "550e8400-e29b-41d4-a716-446655440000", "Make one.txt and capitalise a.txt", "toolu_01MCP", nil}
	dir := t.TempDir()
	files(t, dir, map[string]string{"d.txt": "d\n", "m.txt": "m\n"})
	ok(t, dir, "exec", "--", "true")
	c, stderr := serveStdio(t, dir, mc.agent, "--watch=false")
	ctx := context.Background()
	call := func(name string, args map[string]any) *mcp.CallToolResult {
		t.Helper()
		req := mcp.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = name, args
		res, err := c.CallTool(ctx, req)
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v\n%s", name, err, res, stderr.String())
		}
		return res
	}
	edit := func(file, search, replace string) {
		call("edit_content", map[string]any{"absolute_file_path": filepath.Join(dir, file), "search_text": search, "replace_text": replace, "preview": false})
	}
	feed := func(name string) {
		t.Helper()
		if r := hookRun(t, dir, false, sample(t, mc.agent, name, dir), "hook", mc.agent); r.code != 0 || r.stderr != "" {
			t.Fatalf("%s: exit %d, stderr %q", name, r.code, r.stderr)
		}
	}
	edit("d.txt", "d", "D before any hook")
	feed("session-start")
	feed("prompt")
	feed("pre-mcp")
	edit("m.txt", "m", "M by MCP")
	feed("post-mcp")
	call("undo", map[string]any{})
	for f, want := range map[string]string{"m.txt": "m\n", "d.txt": "D before any hook\n"} {
		if b, _ := os.ReadFile(filepath.Join(dir, f)); string(b) != want {
			t.Errorf("after the client's undo, %s is %q, want %q", f, b, want)
		}
	}
	call("redo", map[string]any{})
	if b, _ := os.ReadFile(filepath.Join(dir, "m.txt")); string(b) != "M by MCP\n" {
		t.Errorf("after the client's redo, m.txt is %q", b)
	}
	c.Close()
	ok(t, dir, "undo", "--prompt", mc.prompt)
	for f, want := range map[string]string{"m.txt": "m\n", "d.txt": "D before any hook\n"} {
		if b, _ := os.ReadFile(filepath.Join(dir, f)); string(b) != want {
			t.Errorf("after undo --prompt, %s is %q, want %q", f, b, want)
		}
	}
}
