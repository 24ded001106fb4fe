package agents

// Codex CLI's command hooks (developers.openai.com/codex/hooks; the wire
// schemas in openai/codex codex-rs/hooks/schema/generated/): Claude Code's
// shape, with model on every event and turn_id (the prompt's turn) on the
// turn's events. Bash and apply_patch send tool_input {"command": ...}.
// There is no SessionEnd. Codex runs a hook only once the user trusted it
// in /hooks.
func init() {
	Register(&Adapter{Name: "codex", Aliases: []string{"codex-cli"},
		Parse: func(raw []byte, _ string) (Hook, error) { return parseClaudeStyle(raw, "") }})
}
