package mcp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"slices"
	"sync"
	"time"
	"unsafe"

	"github.com/mark3labs/mcp-go/server"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay"
	"github.com/journalfs/journal/replay/lsp"
	"github.com/journalfs/journal/replay/watch"
	"github.com/journalfs/journal/snapshot"
)

// Toolsets, one per seed plus the journal's own tools.
const (
	ToolsetMutate    = "mutate"    // seed 003: file_create_new, file_replace, file_insert_text, file_copy_paste_text, edit_move_text
	ToolsetClassic   = "classic"   // seed 001: ai_code_editing.edit_file, ai_get_code_context
	ToolsetLargefile = "largefile" // seed 004: get_overview, search_content, read_content, edit_content
	ToolsetSemantic  = "semantic"  // seed 000: file_read, file_edit
	ToolsetForms     = "forms"     // seed 002: replace_top_level_form, insert_top_level_form, insert_comment_at_line
	ToolsetHistory   = "history"   // revert_edit, undo, redo, journal_log, journal_status
)

// AllToolsets lists every toolset name.
var AllToolsets = []string{ToolsetMutate, ToolsetClassic, ToolsetLargefile, ToolsetSemantic, ToolsetForms, ToolsetHistory}

// Options configure a Server.
type Options struct {
	Toolsets  []string // enabled toolsets; nil means all
	Preset    string   // one of Presets; "" means PresetFull (preset.go)
	ReadOnly  bool     // hide every mutating tool
	ResultCap int      // maximum bytes of text in one result (default 60,000 ≈ 15k tokens)
	Version   string   // reported in initialize
	Origin    string   // "stdio" or "http", recorded on events
	// LSP, if set, runs language servers for the safety layer (rename
	// propagation, type diagnostics, quick fixes) and the diagnostics and
	// rename_symbol tools; nil means none is configured. The caller closes it.
	LSP *lsp.Manager
	// LSPTimeout bounds one consultation of the language servers (default
	// 15s): a server still loading a large workspace, or hung, makes the
	// edit go on without it, saying so, instead of blocking the agent.
	LSPTimeout time.Duration
	// Session names the stdio session (default: a new random id). A serve
	// that takes over a relayed session keeps the id its client's events
	// were recorded under (share.go).
	Session string
	// SessionEnded, if set, is called with a session's id when it ends: a
	// relayed stdio client gone (ServeFollower), an HTTP session closed
	// (DELETE, or idle), the process's own stdio client gone. serve signs a
	// checkpoint then (--checkpoint-every session). It runs on the
	// transport's goroutine: it must return quickly.
	SessionEnded func(session string)
}

// Server adapts the engine to MCP. Handlers decode, call the engine, encode.
type Server struct {
	eng  *replay.Engine
	srv  *server.MCPServer
	opts Options

	tools []ToolInfo

	// processSession names the stdio session: one server process is one session.
	processSession string

	mu        sync.Mutex                      // guards seen and viewWatch
	seen      map[string]map[string]*fileView // session → path key → what it knows of the file (rebase.go)
	viewWatch map[string]func(SharedView)     // session → told of each change of its views (share.go)
	reads     readCache                       // contents sessions read, for rebasing line numbers

	// lspMu serializes consultations of the language servers: their view of
	// a file (an overlay) is shared by every call, so one edit at a time
	// shows its planned contents. Taken before the journal's lock, never after.
	lspMu sync.Mutex

	subs subscriptions // resource subscriptions (subscribe.go)

	// spill holds long arguments decoded at the transport (wire.go);
	// toolNames are the registered tools whose calls it lightens.
	spill     *spills
	toolNames map[string]bool

	// hookDir is the watcher's directory, where agents' hooks leave the
	// notes of their open calls of these tools (agentCall).
	hookDir string
}

// New builds the MCP server for an engine.
func New(eng *replay.Engine, o Options) *Server {
	if err := CheckPreset(o.Preset); err != nil {
		panic("mcp.New: " + err.Error()) // callers check user input with CheckPreset
	}
	if o.ResultCap <= 0 {
		o.ResultCap = 60000
	}
	if o.Version == "" {
		o.Version = journal.BuildVersion()
	}
	if o.Origin == "" {
		o.Origin = "stdio"
	}
	if o.LSPTimeout <= 0 {
		o.LSPTimeout = 15 * time.Second
	}
	var b [8]byte
	rand.Read(b[:])
	if o.Session == "" {
		o.Session = "stdio-" + hex.EncodeToString(b[:])
	}
	s := &Server{eng: eng, opts: o, processSession: o.Session, seen: map[string]map[string]*fileView{},
		spill: newSpills(), toolNames: map[string]bool{}, hookDir: watch.Dir(eng)}
	hooks := s.subscriptionHooks()
	if o.SessionEnded != nil {
		hooks.AddOnUnregisterSession(func(_ context.Context, sess server.ClientSession) { o.SessionEnded(sess.SessionID()) })
	}
	s.srv = server.NewMCPServer("journal", o.Version,
		server.WithToolCapabilities(false),
		server.WithResourceCapabilities(true, false),
		server.WithHooks(hooks),
		server.WithLogging(),
		server.WithRecovery(),
		server.WithInstructions(instructions),
	)
	s.srv.EnableSampling()
	for _, r := range registrars {
		r(s)
	}
	for _, t := range s.tools {
		s.toolNames[t.Name] = true
	}
	return s
}

// registrars add toolsets; each toolset file appends its own in init, so
// toolsets live in one file each and the server needs no edit to gain one.
var registrars []func(*Server)

const instructions = `Every change is a journal event; undo or revert_edit takes any back, keeping later work.
Paths: absolute in a workspace root, or relative to the first root. Lines count from 1; line ranges are inclusive.
Reads return the file's version: pass it as expected_version(s). Line numbers count from your last read: lines only moved since are edited where they are now, changed ones are refused (EDIT_CONFLICT).
An edit already made answers already_applied, writing nothing. Batches are all-or-nothing.
A read-only file is refused unless allow_read_only: true.
A refusal has a code and a hint; its candidates resemble your request (nothing was applied there); a retry is a corrected call to send as it is.`

// MCP returns the underlying mcp-go server (for transports and in-process clients).
func (s *Server) MCP() *server.MCPServer { return s.srv }

// Tools lists the registered tools in registration order.
func (s *Server) Tools() []ToolInfo { return slices.Clone(s.tools) }

// call is one tool invocation: who made it and with which arguments.
type call struct {
	tool    string
	session string
	actor   journal.Actor
	args    json.RawMessage // as journaled (long strings shrunk to a hash)
	input   any             // as sent, for the corrected calls of refusals
	// spilled are the long strings of input decoded at the transport, by
	// placeholder (wire.go).
	spilled map[string]string
	// progress reports a long operation's advance and says when the client
	// cancelled the call (progress.go).
	progress *progress
	// allowReadOnly: the call's allow_read_only (readonly.go).
	allowReadOnly bool
}

// inputArgs returns a deep copy of the call's arguments as sent.
func (c *call) inputArgs() (map[string]any, bool) {
	b, err := json.Marshal(c.input)
	if err != nil {
		return nil, false
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil || m == nil {
		return nil, false
	}
	fill(m, c.spilled)
	return m, true
}

func (s *Server) newCall(ctx context.Context, tool string, rawArgs any, spilled map[string]string) *call {
	c := &call{tool: tool, session: s.processSession}
	c.actor = journal.Actor{Kind: "mcp", Origin: s.opts.Origin, User: s.eng.Actor().User, Host: s.eng.Actor().Host}
	if cs := server.ClientSessionFromContext(ctx); cs != nil {
		if _, relayed := cs.(*followerSession); relayed || (s.opts.Origin == "http" && cs.SessionID() != "") {
			c.session = cs.SessionID()
		}
		if ci, ok := cs.(server.SessionWithClientInfo); ok {
			info := ci.GetClientInfo()
			c.actor.Name, c.actor.Version = info.Name, info.Version
		}
	}
	c.actor.Session = c.session
	c.args = auditArgs(rawArgs, spilled)
	c.input = rawArgs
	c.spilled = spilled
	s.agentCall(c)
	return c
}

// agentCall names in c the agent's call it is, when the agent's hook left
// the note of that open call (watch.MatchMCP: the same tool, the same
// arguments): its event names the call, its prompt and the agent's hook
// session (call.session), so that it serves the agent's prompt as the
// agent's own tools' edits do. The event stays the MCP session's (the
// client's undo and redo find its edits there). Without an exact match
// nothing is named.
func (s *Server) agentCall(c *call) {
	hc := watch.MatchMCP(s.hookDir, c.tool, func() json.RawMessage {
		m, ok := c.inputArgs()
		if !ok {
			return nil
		}
		b, _ := json.Marshal(m)
		return b
	}, time.Now())
	if hc == nil {
		return
	}
	if c.actor.Name == "" {
		c.actor.Name = hc.Agent
	}
	c.args = hc.MCPArgs(c.args)
}

// auditArgs returns the arguments as recorded in the journal: string values
// longer than 256 bytes (spilled ones by what they stand for) are replaced
// by their content hash and size.
func auditArgs(raw any, spilled map[string]string) json.RawMessage {
	b, err := json.Marshal(raw)
	if err != nil {
		return nil
	}
	var v any
	if json.Unmarshal(b, &v) != nil {
		return b
	}
	// the long values' hashes, several at once (a batch can carry
	// megabytes in each of many contents)
	keys := make([]string, 0, len(spilled))
	for k := range spilled {
		keys = append(keys, k)
	}
	ids := make([]snapshot.ID, len(keys))
	snapshot.Parallel(len(keys), func(i int) { ids[i] = sumString(spilled[keys[i]]) })
	digests := make(map[string]digest, len(keys))
	for i, k := range keys {
		digests[k] = digest{ids[i], len(spilled[k])}
	}
	out, _ := json.Marshal(shrink(v, digests))
	return out
}

// digest is what the audit record keeps of a long string: its hash and size.
type digest struct {
	id snapshot.ID
	n  int
}

// sumString hashes s in place: a content argument can be megabytes.
func sumString(s string) snapshot.ID {
	return snapshot.Sum(unsafe.Slice(unsafe.StringData(s), len(s)))
}

// shrink replaces in v every string longer than 256 bytes by its hash and
// size; spilled has those of the spilled values (always that long), by
// their placeholders.
func shrink(v any, spilled map[string]digest) any {
	switch x := v.(type) {
	case string:
		d, ok := spilled[x]
		if !ok && len(x) > 256 {
			d, ok = digest{sumString(x), len(x)}, true
		}
		if ok {
			return map[string]any{"blake3": d.id.String(), "bytes": d.n}
		}
	case []any:
		for i := range x {
			x[i] = shrink(x[i], spilled)
		}
	case map[string]any:
		for k := range x {
			x[k] = shrink(x[k], spilled)
		}
	}
	return v
}

// saw records that a session read a file at a version: the version its line
// numbers count from.
func (s *Server) saw(session, key string, id snapshot.ID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := &fileView{read: id, cur: id}
	s.views(session)[key] = v
	s.viewChanged(session, key, v)
}

// views returns a session's file views, made on first use; s.mu is held.
func (s *Server) views(session string) map[string]*fileView {
	m := s.seen[session]
	if m == nil {
		m = map[string]*fileView{}
		s.seen[session] = m
	}
	return m
}

// wrote records that a session's own edit left a file at a version, and
// whether its reply showed the session the lines it wrote. Its line numbers
// still count from its last read (rebase.go), those lines from the write.
func (s *Server) wrote(session, key string, id snapshot.ID, shown bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.views(session)
	v := m[key]
	if v != nil {
		v.cur, v.wrote = id, v.wrote || v.read != id
		if shown {
			v.shown = id
		}
	} else {
		// no read: the numbers the session knows count from what it wrote
		v = &fileView{read: id, cur: id}
		m[key] = v
	}
	s.viewChanged(session, key, v)
}

// stale reports whether a file changed since the session last saw it (read
// or wrote it): the check of line-based requests rebase.go has no read
// version for (never read through this server, or its content no longer
// kept). A session that never saw the file
// through this server is not stale: line edits then rely on their own
// validation (context lines, expected_version).
func (s *Server) stale(session, key string, cur snapshot.ID) (snapshot.ID, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.seen[session][key]
	if v == nil {
		return snapshot.ID{}, false
	}
	return v.cur, v.cur != cur
}
