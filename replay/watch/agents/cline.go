package agents

import (
	"encoding/json"
	"strings"

	"github.com/journalfs/journal/replay/watch"
)

// Cline's hooks are executables named for their event (PreToolUse,
// PostToolUse, TaskStart, UserPromptSubmit, ...) in ~/Documents/Cline/Hooks/,
// .clinerules/hooks/ (and for the CLI ~/.cline/hooks/, .cline/hooks/); each
// gets one camelCase JSON object on stdin (cline/cline apps/vscode/proto/cline/hooks.proto,
// sdk/packages/shared/src/hooks/events.ts). Two shapes:
//
//   - the VS Code extension: hookName "PreToolUse", taskId (the session),
//     model {provider, slug}, clineVersion, and one data key: preToolUse
//     {toolName, parameters} (parameters' values are strings), postToolUse
//     {toolName, parameters, result, success}; no call id.
//   - the CLI/SDK: hookName "tool_call" / "tool_result" (the file is still
//     PreToolUse / PostToolUse), tool_call {id, name, input} / tool_result
//     {id, name, input, ...}, agent_id and parent_agent_id (a subagent),
//     no model; it keeps the preToolUse / postToolUse blocks as well.
func init() {
	Register(&Adapter{Name: "cline", Parse: parseCline})
}

type clineTool struct {
	ToolName   string          `json:"toolName"`
	Parameters json.RawMessage `json:"parameters"`
}

type clineCall struct {
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

type clineHook struct {
	HookName       string   `json:"hookName"`
	TaskID         string   `json:"taskId"`
	Version        string   `json:"clineVersion"`
	WorkspaceRoots []string `json:"workspaceRoots"`
	Model          struct {
		Provider string `json:"provider"`
		Slug     string `json:"slug"`
	} `json:"model"`
	SessionContext struct {
		RootSessionID string `json:"rootSessionId"`
	} `json:"sessionContext"`
	AgentID       string     `json:"agent_id"`
	ParentAgentID *string    `json:"parent_agent_id"`
	PreToolUse    *clineTool `json:"preToolUse"`
	PostToolUse   *clineTool `json:"postToolUse"`
	ToolCall      *clineCall `json:"tool_call"`
	ToolResult    *clineCall `json:"tool_result"`
	Prompt        *struct {
		Prompt string `json:"prompt"`
	} `json:"userPromptSubmit"`
}

func parseCline(raw []byte, event string) (Hook, error) {
	var p clineHook
	if err := json.Unmarshal(raw, &p); err != nil {
		return Hook{}, err
	}
	h := Hook{Event: first(p.HookName, event), Dir: firstRoot(p.WorkspaceRoots)}
	c := &h.Call
	c.Session, c.Version = first(p.TaskID, p.SessionContext.RootSessionID), p.Version
	if p.Model.Slug != "" && p.Model.Slug != "unknown" {
		c.Model = p.Model.Slug
		if p.Model.Provider != "" && !strings.Contains(p.Model.Slug, "/") {
			c.Model = p.Model.Provider + "/" + p.Model.Slug
		}
	}
	if p.ParentAgentID != nil && *p.ParentAgentID != "" {
		c.Subagent = p.AgentID
	}
	var tool *clineTool
	var call *clineCall
	switch norm(h.Event) {
	case "pretooluse", "toolcall":
		h.Op, tool, call = Begin, p.PreToolUse, p.ToolCall
	case "posttooluse", "toolresult":
		h.Op, tool, call = End, p.PostToolUse, p.ToolResult
	case "userpromptsubmit":
		h.Op = Prompt
		if p.Prompt != nil {
			h.Text = p.Prompt.Prompt
		}
		return h, nil
	default:
		return h, nil
	}
	switch {
	case call != nil:
		c.ID, c.Tool, c.Input = call.ID, call.Name, object(call.Input)
		h.MCP = clineMCP(c.Tool, c.Input, false)
	case tool != nil:
		c.Tool, c.Input = tool.ToolName, object(tool.Parameters)
		h.MCP = clineMCP(c.Tool, c.Input, true)
	}
	return h, nil
}

// clineMCP is the MCP call a Cline tool call is, nil for none. Cline names
// an MCP server's tool two ways: the extension before its SDK (3.x, the
// hooks of late 2025 on: src/core/task/StreamResponseHandler.ts) calls
// use_mcp_tool with the parameters server_name, tool_name and arguments —
// the tool's arguments as JSON text; the SDK (the CLI and the 4.x
// extension: sdk/packages/core/src/extensions/mcp/name-transform.ts) names
// it SERVER__TOOL (with a hash past 64 characters, which then matches
// nothing), its arguments the call's input — in the extension's
// preToolUse.parameters each value a string (strings: hooks-adapter.ts's
// toStringRecord), in the CLI's tool_call.input as given.
func clineMCP(tool string, input json.RawMessage, asStrings bool) *watch.MCPCall {
	if tool == "use_mcp_tool" {
		var p struct {
			Server string `json:"server_name"`
			Tool   string `json:"tool_name"`
			Args   string `json:"arguments"`
		}
		if json.Unmarshal(input, &p) != nil || p.Server == "" || p.Tool == "" {
			return nil
		}
		args := json.RawMessage(p.Args)
		if strings.TrimSpace(p.Args) == "" {
			args = json.RawMessage("{}")
		}
		return &watch.MCPCall{Tool: "mcp__" + p.Server + "__" + p.Tool, Args: args}
	}
	if i := strings.Index(tool, "__"); i > 0 && len(tool) > i+2 {
		return &watch.MCPCall{Tool: "mcp__" + tool, Args: input, Strings: asStrings}
	}
	return nil
}
