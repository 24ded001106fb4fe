package agents

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
)

// Some agents say a session's model once (Claude Code on SessionStart):
// Remember keeps it, in a small file per session under dir (the watcher's
// directory), and Recall gives it to the session's later calls.

type memo struct {
	Model string `json:"model,omitempty"`
}

func memoPath(dir string, c *memoKey) string {
	sum := sha256.Sum256([]byte(c.agent + "\x00" + c.session))
	return filepath.Join(dir, "sessions", hex.EncodeToString(sum[:12]))
}

type memoKey struct{ agent, session string }

// Remember keeps what h says of its session for its later hooks; it
// reports whether there was anything to keep. Errors are the caller's to
// report (a hook goes on without).
func Remember(dir string, h Hook) (bool, error) {
	if h.Call.Session == "" || h.Call.Model == "" {
		return false, nil
	}
	p := memoPath(dir, &memoKey{h.Call.Agent, h.Call.Session})
	if b, err := os.ReadFile(p); err == nil {
		var m memo
		if json.Unmarshal(b, &m) == nil && m.Model == h.Call.Model {
			return false, nil
		}
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return false, err
	}
	b, _ := json.Marshal(memo{Model: h.Call.Model})
	tmp := p + "." + strconv.Itoa(os.Getpid())
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return false, err
	}
	return true, os.Rename(tmp, p)
}

// Recall fills what h does not say of its session from what Remember kept.
func Recall(dir string, h *Hook) {
	if h.Call.Session == "" || h.Call.Model != "" {
		return
	}
	b, err := os.ReadFile(memoPath(dir, &memoKey{h.Call.Agent, h.Call.Session}))
	if err != nil {
		return
	}
	var m memo
	if json.Unmarshal(b, &m) == nil {
		h.Call.Model = m.Model
	}
}
