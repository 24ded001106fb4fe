package agents

import (
	"encoding/json"
	"strings"
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
	case tool != nil:
		c.Tool, c.Input = tool.ToolName, object(tool.Parameters)
	}
	return h, nil
}
