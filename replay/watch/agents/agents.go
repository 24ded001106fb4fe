// Package agents reads what coding agents' hooks send on stdin and turns it
// into the watcher's calls: a tool call's before-hook opens a watch.Call, its
// after-hook (done or failed) closes it, a prompt's hook records the prompt
// (watch.Prompt), and every other event (a session's start or end, a turn's
// end) changes nothing.
//
// One file per agent registers its Adapter from init; its real payloads,
// each with its source, are in testdata/hooks/<agent>/ at the module root.
// Adding an agent is one file and its samples.
//
// # What a hook is normalized to
//
// A Hook: the operation (Begin, End, Other), the agent's event name as sent,
// the directory the agent works in (when the payload or the agent's
// environment says), and the call: its id (the agent's, else one made of the
// session, the tool and what it acts on, so that a before-hook and its
// after-hook name the same call), the agent, session, tool, input, and where
// the payload has them the agent's version, the model, the prompt's id and
// the subagent. A prompt's hook (Prompt) carries the prompt's text, and its
// id in Call.Prompt: the agent's (Claude Code's prompt_id, Codex's turn_id,
// Cursor's generation_id, Windsurf's execution_id), else one made up, which
// the hook command remembers for the session's later calls (Remember).
package agents

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/journalfs/journal/replay/watch"
)

// Op is what a hook says happened.
type Op int

const (
	// Other changes nothing: a session starts or ends, a turn ends.
	Other Op = iota
	// Begin: a tool call is about to run.
	Begin
	// End: a tool call ran (done, failed or interrupted).
	End
	// Prompt: the user gave the agent a prompt (Hook.Text; its id is
	// Call.Prompt).
	Prompt
)

func (o Op) String() string {
	switch o {
	case Begin:
		return "begin"
	case End:
		return "end"
	case Prompt:
		return "prompt"
	}
	return "other"
}

// Hook is one hook's payload, normalized.
type Hook struct {
	Op    Op
	Event string // the agent's name of the event, as sent ("PreToolUse", "beforeShellExecution")
	// Dir is the directory the agent works in: the payload's cwd or first
	// workspace root, else the agent's environment's project directory;
	// "" when neither says (the hook's own working directory then).
	Dir  string
	Call watch.Call // Begin, End: the call; Other, Prompt: its Agent, Session, Model, Prompt as far as given
	// Text is a prompt's text (Prompt).
	Text string
	// MCP is, for Begin and End, the call of an MCP server's tool the
	// call is, where the agent names it otherwise than watch.IsMCPTool's
	// forms (Cline, Copilot CLI); nil otherwise (Call.Tool then says).
	MCP *watch.MCPCall
}

// Adapter reads one agent's hooks.
type Adapter struct {
	Name    string   // the agent's name, as events record it ("claude-code")
	Aliases []string // other names accepted for it ("claude")
	// Env lists environment variables naming the project directory, tried
	// in order when the payload names none.
	Env []string
	// Parse reads one payload (a JSON object, a leading BOM taken off).
	// event is the event's name when the command line gives it (--event),
	// for agents whose payloads do not carry it; else "".
	Parse func(raw []byte, event string) (Hook, error)
}

var adapters = map[string]*Adapter{}
var names = map[string]*Adapter{} // names and aliases

// Register adds a; each agent's file calls it from init.
func Register(a *Adapter) {
	adapters[a.Name] = a
	names[a.Name] = a
	for _, n := range a.Aliases {
		names[n] = a
	}
}

// Names are the agents' names, sorted.
func Names() []string {
	var out []string
	for n := range adapters {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Lookup returns the adapter of the agent named name (or one of its aliases).
func Lookup(name string) (*Adapter, bool) {
	a, ok := names[strings.ToLower(name)]
	return a, ok
}

// Errors.
var (
	// ErrUnknownAgent: no adapter has that name.
	ErrUnknownAgent = errors.New("agents: unknown agent")
	// ErrNotJSON: the payload is not a JSON object.
	ErrNotJSON = errors.New("agents: the hook's input is not a JSON object")
)

// Parse reads one payload of agent's hook. The Hook's Call has its Agent set
// (the adapter's name, or the agent whose payload it is when one agent runs
// another's hooks) and its Origin "hook".
func Parse(agent string, raw []byte, event string) (Hook, error) {
	a, ok := Lookup(agent)
	if !ok {
		return Hook{}, fmt.Errorf("%w %q (want one of %s)", ErrUnknownAgent, agent, strings.Join(Names(), ", "))
	}
	raw = bytes.TrimSpace(bytes.TrimPrefix(bytes.TrimSpace(raw), []byte("\xef\xbb\xbf")))
	if len(raw) == 0 || raw[0] != '{' || !json.Valid(raw) {
		what := "nothing"
		if len(raw) > 0 {
			what = fmt.Sprintf("%d bytes", len(raw))
		}
		return Hook{}, fmt.Errorf("%w (read %s)", ErrNotJSON, what)
	}
	h, err := a.Parse(raw, event)
	if err != nil {
		return Hook{}, fmt.Errorf("agents: %s: %w", a.Name, err)
	}
	if h.Call.Agent == "" { // else another agent's payload, read as its own
		h.Call.Agent = a.Name
	}
	h.Call.Origin = "hook"
	if h.Dir == "" {
		for _, v := range a.Env {
			if d := os.Getenv(v); d != "" {
				h.Dir = d
				break
			}
		}
	}
	if (h.Op == Begin || h.Op == End) && h.Call.ID == "" {
		h.Call.ID = madeID(h.Call)
	}
	if h.Op == Prompt && h.Call.Prompt == "" {
		h.Call.Prompt = madePromptID(h)
	}
	return h, nil
}

// madePromptID names a prompt whose agent gives it no id: its session, its
// text and the moment it came (two prompts of the same text are two).
func madePromptID(h Hook) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "%s\x00%s\x00%s\x00%d", h.Call.Agent, h.Call.Session, h.Text, time.Now().UnixNano()))
	return "made-" + hex.EncodeToString(sum[:8])
}

// madeID names a call whose agent gives it no id: its session, prompt, tool
// and what it acts on (a command, a path), which its before- and
// after-hooks both send.
func madeID(c watch.Call) string {
	sum := sha256.Sum256([]byte(c.Session + "\x00" + c.Prompt + "\x00" + c.Subagent + "\x00" + c.Tool + "\x00" + subject(c.Input)))
	return "made-" + hex.EncodeToString(sum[:8])
}

// subject is what an input acts on: its command, else its file path, else
// "" (the input may differ between the before- and the after-hook).
func subject(input json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(input, &m) != nil {
		return ""
	}
	for _, k := range []string{"command", "commands", "command_line", "file_path", "filePath", "path", "file"} {
		switch v := m[k].(type) {
		case string:
			if v != "" {
				return v
			}
		case []any:
			b, _ := json.Marshal(v)
			return string(b)
		}
	}
	return ""
}

// object returns v as a JSON object: an object as it is, a string holding
// one decoded (Copilot's toolArgs), anything else wrapped as {"value": v};
// nil for nothing or null.
func object(v json.RawMessage) json.RawMessage {
	v = bytes.TrimSpace(v)
	if len(v) == 0 || string(v) == "null" {
		return nil
	}
	if v[0] == '{' {
		return v
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		if t := strings.TrimSpace(s); strings.HasPrefix(t, "{") && json.Valid([]byte(t)) {
			return json.RawMessage(t)
		}
	}
	b, _ := json.Marshal(map[string]json.RawMessage{"value": v})
	return b
}

// first returns the first non-empty string.
func first(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// firstRoot is the first of a payload's workspace roots.
func firstRoot(roots []string) string {
	if len(roots) > 0 {
		return roots[0]
	}
	return ""
}

// norm is an event name compared across casings and styles: "PreToolUse",
// "preToolUse" and "pre_tool_use" are all "pretooluse".
func norm(event string) string {
	return strings.ToLower(strings.ReplaceAll(event, "_", ""))
}

// marshalNoEscape is JSON without HTML escapes (a command's "&&" as typed).
func marshalNoEscape(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return nil
	}
	return json.RawMessage(bytes.TrimSpace(b.Bytes()))
}
