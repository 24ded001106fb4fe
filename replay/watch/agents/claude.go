package agents

import "encoding/json"

// Claude Code's command hooks (code.claude.com/docs/en/hooks): one JSON
// object on stdin, snake_case, the event in hook_event_name. A tool call is
// PreToolUse, then PostToolUse — or PostToolUseFailure when it failed —
// with the same tool_use_id (an async after-hook may come after the next
// call's before-hook). prompt_id names the prompt (v2.1.196+); inside a
// subagent, agent_id and agent_type name it; model comes on SessionStart
// only (the hook command remembers it for the session, see Remember).
//
// VS Code's Copilot agent and Cursor run the hooks of Claude Code's
// settings files too, with payloads of their own: those are read as theirs
// and named for them (VS Code's by its hookEventName, Cursor's by its
// conversation_id), with the ids their own hooks give the same call, so
// that a call hooked both ways is recorded once.
func init() {
	Register(&Adapter{Name: "claude-code", Aliases: []string{"claude", "claudecode"}, Env: []string{"CLAUDE_PROJECT_DIR"}, Parse: parseClaude})
}

func parseClaude(raw []byte, event string) (Hook, error) {
	var probe struct {
		VSCode       string `json:"hookEventName"`
		Conversation string `json:"conversation_id"`
	}
	json.Unmarshal(raw, &probe)
	var h Hook
	var err error
	switch {
	case probe.VSCode != "":
		h, err = parseCopilot(raw, event)
		h.Call.Agent = "copilot"
	case probe.Conversation != "":
		h, err = parseCursor(raw, event)
		h.Call.Agent = "cursor"
	default:
		h, err = parseClaudeStyle(raw, event)
	}
	return h, err
}

// claudeStyle is Claude Code's payload, and the fields of the agents that
// copied it (Codex CLI, Gemini CLI, Kiro, Copilot CLI's PascalCase mode).
type claudeStyle struct {
	Event     string          `json:"hook_event_name"`
	SessionID string          `json:"session_id"`
	PromptID  string          `json:"prompt_id"`
	TurnID    string          `json:"turn_id"` // Codex
	Cwd       string          `json:"cwd"`
	Model     string          `json:"model"`  // Claude Code: SessionStart only; Codex: every event
	Prompt    string          `json:"prompt"` // UserPromptSubmit, BeforeAgent: the prompt's text
	ToolName  string          `json:"tool_name"`
	ToolInput json.RawMessage `json:"tool_input"`
	ToolUseID string          `json:"tool_use_id"`
	AgentID   string          `json:"agent_id"`
	AgentType string          `json:"agent_type"`
}

// parseClaudeStyle reads a Claude-style payload; event, when set, is the
// event's name if the payload has none.
func parseClaudeStyle(raw []byte, event string) (Hook, error) {
	var p claudeStyle
	if err := json.Unmarshal(raw, &p); err != nil {
		return Hook{}, err
	}
	h := Hook{Event: first(p.Event, event), Dir: p.Cwd}
	h.Call.Session, h.Call.Model, h.Call.Prompt = p.SessionID, p.Model, first(p.PromptID, p.TurnID)
	h.Call.Subagent, h.Call.AgentType = p.AgentID, p.AgentType
	switch norm(h.Event) {
	case "pretooluse", "beforetool":
		h.Op = Begin
	case "posttooluse", "posttoolusefailure", "aftertool":
		h.Op = End
	case "userpromptsubmit", "beforeagent":
		h.Op, h.Text = Prompt, p.Prompt
		return h, nil
	default:
		return h, nil
	}
	h.Call.ID, h.Call.Tool, h.Call.Input = p.ToolUseID, p.ToolName, object(p.ToolInput)
	return h, nil
}
