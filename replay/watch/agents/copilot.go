package agents

import (
	"encoding/json"
	"strings"

	"github.com/journalfs/journal/replay/watch"
)

// GitHub Copilot CLI's hooks (docs.github.com/en/copilot/reference/copilot-cli-reference/cli-hooks-reference;
// ~/.copilot/hooks/*.json, .github/hooks/*.json). The casing of the event's
// key in the hooks file selects the payload:
//
//   - camelCase keys (preToolUse): camelCase fields, sessionId, toolName,
//     toolArgs — a JSON string in the older reference, any value in the
//     newer: both are read —, toolResult on postToolUse, error on
//     postToolUseFailure, and no event name: give it with --event (or it is
//     told from the fields: a toolResult or an error is an after-hook, a
//     toolName alone a before-hook).
//   - PascalCase keys (PreToolUse): snake_case, hook_event_name, session_id,
//     tool_name, tool_input, like Claude Code's.
//
// VS Code's Copilot agent hooks (.github/hooks, Claude-style, "mixed
// casing": sessionId, hookEventName, tool_name, tool_input, tool_use_id)
// are read here too. No model, no prompt id.
func init() {
	Register(&Adapter{Name: "copilot", Aliases: []string{"copilot-cli", "github-copilot", "vscode"}, Parse: parseCopilot})
}

type copilotHook struct {
	// camelCase mode
	SessionID  string          `json:"sessionId"`
	Cwd        string          `json:"cwd"`
	ToolName   string          `json:"toolName"`
	ToolArgs   json.RawMessage `json:"toolArgs"`
	ToolResult json.RawMessage `json:"toolResult"`
	Error      json.RawMessage `json:"error"`
	Prompt     *string         `json:"prompt"`
	// PascalCase mode and VS Code
	Event     string          `json:"hook_event_name"`
	EventVS   string          `json:"hookEventName"`
	Session   string          `json:"session_id"`
	Tool      string          `json:"tool_name"`
	ToolInput json.RawMessage `json:"tool_input"`
	ToolUseID string          `json:"tool_use_id"`
}

func parseCopilot(raw []byte, event string) (Hook, error) {
	var p copilotHook
	if err := json.Unmarshal(raw, &p); err != nil {
		return Hook{}, err
	}
	h := Hook{Event: first(p.Event, p.EventVS, event), Dir: p.Cwd}
	c := &h.Call
	c.Session = first(p.SessionID, p.Session)
	if h.Event == "" && p.ToolName == "" && p.Prompt != nil { // camelCase without --event
		h.Event = "userPromptSubmitted"
	}
	if h.Event == "" && p.ToolName != "" { // camelCase without --event
		h.Event = "preToolUse"
		if len(p.ToolResult) > 0 || len(p.Error) > 0 {
			h.Event = "postToolUse"
		}
	}
	switch norm(h.Event) {
	case "pretooluse":
		h.Op = Begin
	case "posttooluse", "posttoolusefailure":
		h.Op = End
	case "userpromptsubmitted", "userpromptsubmit":
		h.Op = Prompt
		if p.Prompt != nil {
			h.Text = *p.Prompt
		}
		return h, nil
	default:
		return h, nil
	}
	c.ID, c.Tool, c.Input = p.ToolUseID, first(p.ToolName, p.Tool), object(p.ToolArgs)
	if c.Input == nil {
		c.Input = object(p.ToolInput)
	}
	if p.EventVS == "" {
		h.MCP = copilotMCP(c.Tool, c.Input)
	}
	return h, nil
}

// copilotMCP is the MCP call a Copilot CLI tool call is, nil for none.
// Copilot CLI names an MCP server's tool SERVER-TOOL
// ("github-mcp-server-get_file_contents": its session events' toolName
// beside mcpServerName and mcpToolName, and the toolName its preToolUse
// hooks are given, in public hook fixtures); its own tools' names have no
// "-" (bash, view, edit, create, ...). The name does not say where a
// server's name holding "-" ends: it is cut at the last "-", right for
// any tool whose own name has none, as this project's tools' do.
func copilotMCP(tool string, input json.RawMessage) *watch.MCPCall {
	i := strings.LastIndex(tool, "-")
	if i <= 0 || i == len(tool)-1 {
		return nil
	}
	return &watch.MCPCall{Tool: "mcp__" + tool[:i] + "__" + tool[i+1:], Args: input}
}
