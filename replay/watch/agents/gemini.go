package agents

// Gemini CLI's command hooks (google-gemini/gemini-cli docs/hooks/reference.md,
// packages/core/src/hooks/hookEventHandler.ts): snake_case like Claude Code,
// its own event names: BeforeTool and AfterTool around a tool call (no call
// id: the call is named by its session, tool and command or file), BeforeAgent
// for a prompt, AfterAgent at a turn's end, SessionStart, SessionEnd.
func init() {
	Register(&Adapter{Name: "gemini", Aliases: []string{"gemini-cli"}, Env: []string{"GEMINI_PROJECT_DIR", "GEMINI_CWD"},
		Parse: func(raw []byte, _ string) (Hook, error) { return parseClaudeStyle(raw, "") }})
}
