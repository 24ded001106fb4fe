package agents

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
)

// Some agents say a session's model once (Claude Code on SessionStart),
// and most name a prompt only on its own hook (Gemini CLI, Copilot CLI,
// Cline, Kiro): Remember keeps the model and the latest prompt's id, in a
// small file per session under dir (the watcher's directory), and Recall
// gives them to the session's later calls — so that every call's event
// names its prompt (its arguments' call.prompt), as the agents that send
// the id on every call have it.
type memo struct {
	Model  string `json:"model,omitempty"`
	Prompt string `json:"prompt,omitempty"`
}

func memoPath(dir string, c *memoKey) string {
	sum := sha256.Sum256([]byte(c.agent + "\x00" + c.session))
	return filepath.Join(dir, "sessions", hex.EncodeToString(sum[:12]))
}

type memoKey struct{ agent, session string }

// Remember keeps what h says of its session for its later hooks: its model,
// and for a prompt's hook (Prompt) the prompt's id; it reports whether there
// was anything new to keep. Errors are the caller's to report (a hook goes
// on without).
func Remember(dir string, h Hook) (bool, error) {
	if h.Call.Session == "" || h.Call.Model == "" && h.Op != Prompt {
		return false, nil
	}
	p := memoPath(dir, &memoKey{h.Call.Agent, h.Call.Session})
	var m memo
	if b, err := os.ReadFile(p); err == nil {
		json.Unmarshal(b, &m)
	}
	was := m
	if h.Call.Model != "" {
		m.Model = h.Call.Model
	}
	if h.Op == Prompt {
		m.Prompt = h.Call.Prompt
	}
	if m == was {
		return false, nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return false, err
	}
	b, _ := json.Marshal(m)
	tmp := p + "." + strconv.Itoa(os.Getpid())
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return false, err
	}
	return true, os.Rename(tmp, p)
}

// Recall fills what h does not say of its session (its model, its prompt's
// id) from what Remember kept.
func Recall(dir string, h *Hook) {
	if h.Call.Session == "" || h.Call.Model != "" && h.Call.Prompt != "" {
		return
	}
	b, err := os.ReadFile(memoPath(dir, &memoKey{h.Call.Agent, h.Call.Session}))
	if err != nil {
		return
	}
	var m memo
	if json.Unmarshal(b, &m) == nil {
		if h.Call.Model == "" {
			h.Call.Model = m.Model
		}
		if h.Call.Prompt == "" && h.Op != Prompt {
			h.Call.Prompt = m.Prompt
		}
	}
}
