package agents

import "encoding/json"

// Windsurf's Cascade hooks (docs.windsurf.com/windsurf/cascade/hooks; also
// Devin Desktop): agent_action_name is the event, trajectory_id the
// conversation (the session), execution_id one agent turn (the prompt),
// tool_info the event's data. There is no generic tool event: commands are
// pre_run_command / post_run_command (tool_info {command_line, cwd}), file
// writes pre_write_code / post_write_code ({file_path, edits}), MCP tools
// pre_mcp_tool_use / post_mcp_tool_use; no call id (the call is named by
// its turn and its command or file). No session start or end event.
func init() {
	Register(&Adapter{Name: "windsurf", Aliases: []string{"devin"}, Parse: parseWindsurf})
}

type windsurfHook struct {
	Event      string `json:"agent_action_name"`
	Trajectory string `json:"trajectory_id"`
	Execution  string `json:"execution_id"`
	Model      string `json:"model_name"` // seen in later payloads, not in the doc
	ToolInfo   struct {
		CommandLine string          `json:"command_line"`
		Cwd         string          `json:"cwd"`
		FilePath    string          `json:"file_path"`
		Edits       json.RawMessage `json:"edits"`
		Server      string          `json:"mcp_server_name"`
		Tool        string          `json:"mcp_tool_name"`
		Arguments   json.RawMessage `json:"mcp_tool_arguments"`
		UserPrompt  string          `json:"user_prompt"`
	} `json:"tool_info"`
}

func parseWindsurf(raw []byte, event string) (Hook, error) {
	var p windsurfHook
	if err := json.Unmarshal(raw, &p); err != nil {
		return Hook{}, err
	}
	t := p.ToolInfo
	h := Hook{Event: first(p.Event, event), Dir: t.Cwd}
	c := &h.Call
	c.Session, c.Prompt, c.Model = p.Trajectory, p.Execution, p.Model
	switch h.Event {
	case "pre_user_prompt":
		h.Op, h.Text = Prompt, t.UserPrompt
		return h, nil
	case "pre_run_command", "post_run_command":
		c.Tool = "run_command"
		c.Input = marshalNoEscape(map[string]string{"command": t.CommandLine, "cwd": t.Cwd})
	case "pre_write_code", "post_write_code":
		c.Tool = "write_code"
		c.Input = marshalNoEscape(map[string]any{"file_path": t.FilePath, "edits": t.Edits})
	case "pre_mcp_tool_use", "post_mcp_tool_use":
		c.Tool = "mcp__" + t.Server + "__" + t.Tool
		c.Input = object(t.Arguments)
	default:
		return h, nil
	}
	h.Op = End
	if h.Event[:4] == "pre_" {
		h.Op = Begin
	}
	return h, nil
}
