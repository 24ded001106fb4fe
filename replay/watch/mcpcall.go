package watch

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// An agent calls this project's MCP tools as it calls its own, and hooks
// them as its own (Claude Code's PreToolUse with tool_name
// "mcp__journal__edit_content"). The MCP server records the edit itself,
// as the server's client's session — which is not the agent's hook
// session, so the edit would serve no prompt. OpenMCP, on the call's
// before-hook, leaves a note of the open call under the watcher's
// directory (mcp/, one small file: the hook's cost is that write, with or
// without a watcher); the server's MatchMCP finds it — the same tool, a
// digest of the same arguments, the call still open (its after-hook,
// CloseMCP, removes the note) and younger than MCPMax — and names the
// agent, its session, the call and its prompt in its event. A note that
// does not match exactly, or two open calls of different sessions or
// prompts that both match, name nothing: a wrong prompt would be a wrong
// attribution.

// MCPMax bounds how long an open MCP call's note is believed: an agent
// killed in the call leaves it behind (the watcher's CallMax, by default).
const MCPMax = 10 * time.Minute

// mcpNote is what OpenMCP leaves for the MCP server.
type mcpNote struct {
	Call   Call      `json:"call"`   // the call, its input left out
	Digest string    `json:"digest"` // ArgsDigest of its input (StringValues of it when Strings)
	Time   time.Time `json:"time"`
	// Strings: the agent's hook sent every argument's value as a string
	// (MCPCall.Strings); the server compares the digest of its arguments
	// made alike (StringValues).
	Strings bool `json:"strings,omitempty"`
}

// MCPCall is an agent's call of an MCP server's tool as the server sees
// it, where the agent's hook names it otherwise than IsMCPTool's forms
// (agents.Hook.MCP): Cline's use_mcp_tool, whose server, tool and
// arguments are its parameters, and SERVER__TOOL; Copilot CLI's
// SERVER-TOOL.
type MCPCall struct {
	Tool string          // mcp__SERVER__TOOL, as Claude Code names it
	Args json.RawMessage // the arguments the server is given
	// Strings: the hook gives each argument's value as a string, JSON
	// text for a value that is not one (Cline's VS Code extension, which
	// JSON.stringify-s them): the match is on StringValues of both sides.
	Strings bool
}

// IsMCPTool reports whether an agent's name of a tool is one of an MCP
// server's: mcp__SERVER__TOOL (Claude Code, Codex CLI), mcp_SERVER_TOOL
// (Gemini CLI), MCP:TOOL (Cursor), @SERVER/TOOL (Kiro).
func IsMCPTool(name string) bool {
	return strings.HasPrefix(name, "mcp_") || strings.HasPrefix(name, "MCP:") || strings.HasPrefix(name, "@") && strings.Contains(name, "/")
}

// mcpToolIs reports whether the agent's name of an MCP tool (IsMCPTool)
// names the server's tool called tool. Gemini CLI's mcp_SERVER_TOOL does
// not say where a server's name that holds "_" ends: there any SERVER
// will do (the arguments' digest must match besides).
func mcpToolIs(name, tool string) bool {
	if tool == "" {
		return false
	}
	switch {
	case strings.HasPrefix(name, "mcp__"):
		_, t, ok := strings.Cut(strings.TrimPrefix(name, "mcp__"), "__")
		return ok && t == tool
	case strings.HasPrefix(name, "MCP:"):
		return strings.TrimPrefix(name, "MCP:") == tool
	case strings.HasPrefix(name, "@"):
		_, t, ok := strings.Cut(name, "/")
		return ok && t == tool
	case strings.HasPrefix(name, "mcp_"):
		server, ok := strings.CutSuffix(strings.TrimPrefix(name, "mcp_"), "_"+tool)
		return ok && server != ""
	}
	return false
}

// StringValues is args, a JSON object, with each value that is not a
// string replaced by its JSON text (as JavaScript's JSON.stringify writes
// a number, a boolean or null; an object's keys sorted, which JavaScript
// does not do: such arguments may then not match, and nothing is named);
// nil for arguments that are not an object.
func StringValues(args json.RawMessage) json.RawMessage {
	var m map[string]any
	if json.Unmarshal(args, &m) != nil || m == nil {
		return nil
	}
	for k, v := range m {
		if _, ok := v.(string); !ok {
			m[k] = string(marshal(v))
		}
	}
	return marshal(m)
}

// ArgsDigest is the digest of a tool call's arguments both sides compute
// alike: the SHA-256 of their JSON with objects' keys sorted (as
// encoding/json writes a decoded value); "" for arguments that are not
// JSON.
func ArgsDigest(args json.RawMessage) string {
	var v any
	if json.Unmarshal(args, &v) != nil {
		return ""
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// OpenMCP leaves the note of c, an agent's open call of an MCP tool
// (IsMCPTool), under dir (the watcher's directory), for the MCP server's
// MatchMCP. A call of no session or id, or whose input is no JSON, leaves
// none.
func OpenMCP(dir string, c Call, now time.Time) error {
	return OpenMCPCall(dir, c, MCPCall{Tool: c.Tool, Args: c.Input}, now)
}

// OpenMCPCall is OpenMCP for a call whose hook names the MCP tool and its
// arguments otherwise (m): the note names m's tool and arguments.
func OpenMCPCall(dir string, c Call, m MCPCall, now time.Time) error {
	args := m.Args
	if m.Strings {
		args = StringValues(args)
	}
	d := ArgsDigest(args)
	if c.Session == "" || c.ID == "" || d == "" {
		return nil
	}
	c.Tool, c.Input, c.Files = m.Tool, nil, nil
	return writeNote(callNotePath(dir, "mcp", c), mcpNote{Call: c, Digest: d, Time: now.UTC(), Strings: m.Strings})
}

// CloseMCP removes c's note (its after-hook came: the call is over).
func CloseMCP(dir string, c Call) error {
	return removeNote(callNotePath(dir, "mcp", c))
}

// CloseMCPSessions removes the notes of the agent's session's calls (its
// next prompt came, or its turn or session ended: no call of it is open).
func CloseMCPSessions(dir, agent, session string) error {
	es, err := os.ReadDir(filepath.Join(dir, "mcp"))
	if err != nil {
		return nil // none
	}
	var errs []error
	for _, e := range es {
		p := filepath.Join(dir, "mcp", e.Name())
		b, err := os.ReadFile(p)
		var n mcpNote
		if err != nil || json.Unmarshal(b, &n) != nil || n.Call.Agent != agent || n.Call.Session != session {
			continue
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// MatchMCP is the agent's open call (OpenMCP) of the MCP tool called tool
// with the arguments args returns (asked only when a note is there), as of
// now: nil when no note matches, and when the notes that match disagree on
// the agent, session or prompt. Notes older than MCPMax are removed.
func MatchMCP(dir, tool string, args func() json.RawMessage, now time.Time) *Call {
	es, err := os.ReadDir(filepath.Join(dir, "mcp"))
	if err != nil || len(es) == 0 {
		return nil
	}
	var digest, strDigest string
	var found *Call
	for _, e := range es {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		p := filepath.Join(dir, "mcp", e.Name())
		b, err := os.ReadFile(p)
		var n mcpNote
		if err != nil || json.Unmarshal(b, &n) != nil {
			continue
		}
		if age := now.Sub(n.Time); age > MCPMax {
			os.Remove(p)
			continue
		} else if age < -time.Minute { // a clock stepped back: not within the call's window
			continue
		}
		if !mcpToolIs(n.Call.Tool, tool) {
			continue
		}
		if digest == "" {
			if digest = ArgsDigest(args()); digest == "" {
				return nil
			}
		}
		want := digest
		if n.Strings {
			if strDigest == "" {
				strDigest = ArgsDigest(StringValues(args()))
			}
			want = strDigest
		}
		if n.Digest != want {
			continue
		}
		if found != nil && (found.Agent != n.Call.Agent || found.Session != n.Call.Session || found.Prompt != n.Call.Prompt) {
			return nil // two agents' calls alike: whose is it?
		}
		if found == nil {
			c := n.Call
			found = &c
		}
	}
	return found
}

// MCPArgs are the arguments the MCP server's event of the tool call c
// matched (MatchMCP) records: the tool's own (args), and what the agent's
// hook said of the call under "call" as a hook's event has it, with the
// agent's session (call.session: the event is the server's session's).
func (c Call) MCPArgs(args json.RawMessage) json.RawMessage {
	c.Input, c.Origin, c.HookSession = args, "hook", c.Session
	return c.args()
}
