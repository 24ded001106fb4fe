package agents

import "github.com/journalfs/journal/replay/watch"

// Kiro's command hooks (kiro.dev/docs/hooks; payloads from the live captures
// in awslabs/aidlc-workflows docs/reference/kiro-ide-hook-payload.md): the
// IDE 1.x and CLI 3.x ("V3") send snake_case PreToolUse / PostToolUse with
// session_id and no call id; a PostToolUse may carry an empty tool_input
// (IDE 1.0.165), so the call is named by its session and tool, and the
// watcher takes the input from its before-hook. CLI 2.x sends camelCase
// event names (preToolUse) and no session.
func init() {
	Register(&Adapter{Name: "kiro", Aliases: []string{"kiro-cli"},
		Parse: func(raw []byte, _ string) (Hook, error) {
			h, err := parseClaudeStyle(raw, "")
			if err == nil && (h.Op == Begin || h.Op == End) && h.Call.ID == "" {
				h.Call.ID = madeID(watch.Call{Session: h.Call.Session, Tool: h.Call.Tool})
			}
			return h, err
		}})
}
