package agents

import (
	"encoding/json"
	"strings"
)

// Cursor's hooks.json (version 1, flat entries; cursor.com/docs/hooks): one
// JSON object on stdin, sometimes after a UTF-8 BOM, with conversation_id
// (the session), generation_id (one user message: the prompt), model and
// workspace_roots. A shell command is beforeShellExecution /
// afterShellExecution ({command, cwd}, no call id), and also preToolUse /
// postToolUse / postToolUseFailure with tool_name "Shell": both pairs name
// one call (the generation and the command), so a hooks.json with both
// records it once. afterFileEdit has no before-hook: it closes a call that
// never opened: its End names that file's change if the watcher has not
// recorded it yet.
func init() {
	Register(&Adapter{Name: "cursor", Env: []string{"CURSOR_PROJECT_DIR"}, Parse: parseCursor})
}

type cursorHook struct {
	Event          string          `json:"hook_event_name"`
	ConversationID string          `json:"conversation_id"`
	GenerationID   string          `json:"generation_id"`
	Model          string          `json:"model"`
	Version        string          `json:"cursor_version"`
	WorkspaceRoots []string        `json:"workspace_roots"`
	Cwd            string          `json:"cwd"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	ToolUseID      string          `json:"tool_use_id"`
	Command        string          `json:"command"`    // before/afterShellExecution
	FilePath       string          `json:"file_path"`  // afterFileEdit
	Edits          json.RawMessage `json:"edits"`      // afterFileEdit
	SessionID      string          `json:"session_id"` // sessionStart, sessionEnd
	Prompt         string          `json:"prompt"`     // beforeSubmitPrompt
}

func parseCursor(raw []byte, event string) (Hook, error) {
	var p cursorHook
	if err := json.Unmarshal(raw, &p); err != nil {
		return Hook{}, err
	}
	h := Hook{Event: first(p.Event, event), Dir: first(p.Cwd, firstRoot(p.WorkspaceRoots))}
	c := &h.Call
	c.Session, c.Prompt, c.Model, c.Version = first(p.ConversationID, p.SessionID), p.GenerationID, p.Model, p.Version
	shell := func(command, cwd string) {
		c.Tool = "Shell"
		c.Input = marshalNoEscape(map[string]string{"command": command, "cwd": cwd})
		c.ID = madeID(*c) // one id for preToolUse and beforeShellExecution
	}
	switch norm(h.Event) {
	case "beforesubmitprompt":
		h.Op, h.Text = Prompt, p.Prompt
	case "beforeshellexecution", "aftershellexecution":
		shell(p.Command, p.Cwd)
		h.Op = End
		if strings.HasPrefix(norm(h.Event), "before") {
			h.Op = Begin
		}
	case "pretooluse", "posttooluse", "posttoolusefailure":
		h.Op = End
		if norm(h.Event) == "pretooluse" {
			h.Op = Begin
		}
		var in struct {
			Command string `json:"command"`
			Dir     string `json:"working_directory"`
		}
		if json.Unmarshal(p.ToolInput, &in); p.ToolName == "Shell" && in.Command != "" {
			shell(in.Command, first(in.Dir, p.Cwd))
			break
		}
		c.ID, c.Tool, c.Input = p.ToolUseID, p.ToolName, object(p.ToolInput)
	case "afterfileedit", "aftertabfileedit":
		h.Op = End
		c.Tool = "Write"
		if norm(h.Event) == "aftertabfileedit" {
			c.Tool = "Tab"
		}
		c.Input = marshalNoEscape(map[string]any{"file_path": p.FilePath, "edits": p.Edits})
		if p.FilePath != "" {
			c.Files = []string{p.FilePath}
		}
	}
	return h, nil
}
