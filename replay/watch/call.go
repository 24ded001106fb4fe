package watch

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay"
)

// Call is one tool call of an agent (a Claude Code Bash call) or one command
// run by journal exec: the changes made while it runs are recorded as one
// event named for it.
type Call struct {
	ID      string          `json:"id"`                // the agent's id of the call (tool_use_id), or one made up
	Agent   string          `json:"agent"`             // "claude-code", "exec", ...
	Session string          `json:"session,omitempty"` // the agent's session id
	Tool    string          `json:"tool"`              // the agent's tool ("Bash"), or "exec"
	Input   json.RawMessage `json:"input,omitempty"`   // what the call was given ({"command": ...})
	User    string          `json:"user,omitempty"`
	Host    string          `json:"host,omitempty"`
	Origin  string          `json:"origin,omitempty"` // "hook" or "exec"

	// What an agent's hook says besides, where it says it (each may be
	// empty): the agent's version, its model, the id of the prompt (turn)
	// the call serves, and the subagent that made it (its id and type).
	Version   string `json:"version,omitempty"`
	Model     string `json:"model,omitempty"`
	Prompt    string `json:"prompt,omitempty"`
	Subagent  string `json:"subagent,omitempty"`
	AgentType string `json:"agent_type,omitempty"`
	// Closed says why a call closed without its after-hook: "prompt" (the
	// session's next prompt came), "stop" (its turn ended), "session-end",
	// "exited" (the agent's process is gone: Proc), "timeout" (its tool's
	// limit, limitOf, at most Options.CallMax); "" for a call its
	// after-hook closed. Nothing changed in such a call's window is tied
	// to it (tie).
	Closed string `json:"closed,omitempty"`
	// Dir is the directory the agent works in (its hook's cwd), for the
	// relative paths a file-edit call's input names (scopeOf).
	Dir string `json:"dir,omitempty"`
	// Proc is the agent's process, as the before-hook found it
	// (AgentProc): once it is gone the call is over, whatever after-hook
	// was due. nil: not known (another system, an older hook).
	Proc *Proc `json:"proc,omitempty"`
	// Files are, for an after-hook with no before-hook (Cursor's
	// afterFileEdit), the absolute paths it says it changed: its End names
	// only their changes (Watcher.End).
	Files []string `json:"files,omitempty"`
	// Start is when the call opened: its before-hook reached the running
	// watcher, or (no watcher) left its note; zero when no before-hook
	// came (an after-hook alone). Not on the wire: the watcher sets it.
	Start time.Time `json:"-"`
	// HookSession is, for an agent's call of this project's MCP tool that
	// the MCP server recorded (MatchMCP) as its own session's event, the
	// agent's session as its hooks name it.
	HookSession string `json:"-"`
}

// About is what an event records of a hook's call beside its input, under
// the key "call" of the event's arguments (no journal format change: the
// arguments are the call's to say): the call's id and what the agent said
// of it.
type About struct {
	ID        string `json:"id"`
	Model     string `json:"model,omitempty"`
	Prompt    string `json:"prompt,omitempty"`
	Subagent  string `json:"subagent,omitempty"`
	AgentType string `json:"agent_type,omitempty"`
	Closed    string `json:"closed,omitempty"` // why it closed without its after-hook (Call.Closed)
	// Session: the call was of this project's MCP tool, recorded by the
	// MCP server as its own session's event (the client's undo, redo and
	// log --session find it there); this is the agent's session as its
	// hooks name it, whose prompts the call serves (replay.CallSession).
	Session string `json:"session,omitempty"`
	// Start is when the call opened (Call.Start, RFC 3339 UTC), where a
	// before-hook opened it: the event's own time is when its changes
	// were recorded, after the call.
	Start string `json:"start,omitempty"`
}

// about is c's About, nil for a call that is not a hook's.
func (c Call) about() *About {
	if c.Origin != "hook" {
		return nil
	}
	ab := &About{ID: c.ID, Model: c.Model, Prompt: c.Prompt, Subagent: c.Subagent, AgentType: c.AgentType, Closed: c.Closed, Session: c.HookSession}
	if !c.Start.IsZero() {
		ab.Start = c.Start.UTC().Format(time.RFC3339Nano)
	}
	return ab
}

// args is what an event named for c alone records as its arguments: the
// input, and for a hook's call its About under "call" (the input wrapped
// as {"input": ...} when it is not an object or has a "call" of its own).
func (c Call) args() json.RawMessage {
	ab := c.about()
	if ab == nil {
		return c.Input
	}
	var obj map[string]json.RawMessage
	if len(c.Input) > 0 && json.Unmarshal(c.Input, &obj) == nil && obj != nil {
		if _, taken := obj["call"]; !taken {
			b, _ := json.Marshal(ab)
			obj["call"] = b
			return marshal(obj)
		}
	}
	m := map[string]any{"call": ab}
	if len(c.Input) > 0 {
		m["input"] = c.Input
	}
	return marshal(m)
}

// marshal is JSON without HTML escapes (a command's "&&" stays as typed).
func marshal(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return nil
	}
	return json.RawMessage(bytes.TrimSpace(b.Bytes()))
}

// fill sets c's empty fields from b, the same call as its before-hook
// told it (an after-hook may send less: Kiro's an empty input).
func (c *Call) fill(b Call) {
	for _, f := range []struct {
		to   *string
		from string
	}{
		{&c.Agent, b.Agent}, {&c.Session, b.Session}, {&c.Tool, b.Tool}, {&c.User, b.User}, {&c.Host, b.Host},
		{&c.Origin, b.Origin}, {&c.Version, b.Version}, {&c.Model, b.Model}, {&c.Prompt, b.Prompt},
		{&c.Subagent, b.Subagent}, {&c.AgentType, b.AgentType},
	} {
		if *f.to == "" {
			*f.to = f.from
		}
	}
	if len(c.Input) == 0 || string(c.Input) == "{}" || string(c.Input) == "null" {
		c.Input = b.Input
	}
	if c.Start.IsZero() {
		c.Start = b.Start
	}
}

// untied names an event for changes made while calls were open that none
// of them can claim (tie): the watcher's own (untracked: no actor), its
// arguments listing those calls, each with why it closed, under
// "unproven".
func untied(calls []Call) (string, json.RawMessage, *journal.Actor) {
	if len(calls) == 0 {
		return journal.ToolWatch, nil, nil
	}
	return journal.ToolWatch, marshal(map[string]any{"unproven": listed(calls)}), nil
}

// listedCall is one of several calls an event names.
type listedCall struct {
	Tool    string          `json:"tool"`
	Agent   string          `json:"agent,omitempty"`
	Session string          `json:"session,omitempty"`
	Input   json.RawMessage `json:"input,omitempty"`
	Call    *About          `json:"call,omitempty"`
}

func listed(calls []Call) []listedCall {
	all := make([]listedCall, 0, len(calls))
	for _, x := range calls {
		all = append(all, listedCall{x.Tool, x.Agent, x.Session, x.Input, x.about()})
	}
	return all
}

// attribution names an event for calls: one call's tool, input and agent;
// several at once (their changes cannot be told apart) their tools and
// inputs listed, the first's agent — of one session; of several sessions
// no actor (the changes are no one session's). No call: the watcher's own, from
// another process it cannot name.
func attribution(calls []Call) (string, json.RawMessage, *journal.Actor) {
	if len(calls) == 0 {
		return journal.ToolWatch, nil, nil
	}
	c := calls[0]
	actor := &journal.Actor{Kind: "agent", Name: c.Agent, Version: c.Version, Session: c.Session, User: c.User, Host: c.Host, Origin: c.Origin}
	if c.Origin == "exec" {
		actor.Kind = "cli"
	}
	if len(calls) == 1 {
		return c.Tool, c.args(), actor
	}
	for _, x := range calls {
		if x.Agent != c.Agent || x.Session != c.Session {
			// calls of several sessions: what changed is none of theirs
			// to claim (blame, notes, undo --session), never the first's
			actor = nil
		}
	}
	return c.Tool, marshal(map[string]any{"calls": listed(calls)}), actor
}

// request is one message to a watcher's socket; reply its answer.
type request struct {
	Op   string `json:"op"` // "begin", "end", "turn", "prompt", "flush", "wait" or "calls"
	Call *Call  `json:"call,omitempty"`
	// Hand: answer once the call's changes are taken, before they are
	// stored (end, turn): the hook returns, the watcher records them.
	Hand   bool          `json:"hand,omitempty"`
	Reason string        `json:"reason,omitempty"` // turn: "prompt", "stop", "session-end"
	Prompt *PromptRecord `json:"prompt,omitempty"`
}

type reply struct {
	Taken   bool          `json:"taken,omitempty"` // a hand-over: the changes are taken, to be stored
	Events  []uint64      `json:"events,omitempty"`
	Files   int           `json:"files"`
	Skipped []replay.Skip `json:"skipped,omitempty"`
	Prompt  uint64        `json:"prompt,omitempty"` // the prompt event
	Calls   []OpenCall    `json:"calls,omitempty"`  // "calls": the calls open
	Error   string        `json:"error,omitempty"`
}

// OpenCall is a call open in the running watcher: what changes while it
// is open waits for its end (its after-hook, or one of the signals that
// close it without: Call.Closed) to be named.
type OpenCall struct {
	Call  Call          `json:"call"`
	Start time.Time     `json:"start"`
	Limit time.Duration `json:"limit"` // closed as "timeout" at Start+Limit
	// Waiting is how many changed files wait for calls to close.
	Waiting int `json:"waiting"`
}

// OpenCalls asks the running watcher of the journal at journalPath which
// calls are open (closing first those whose agent is gone or whose time
// is up); ErrNoWatcher when none answers.
func OpenCalls(ctx context.Context, journalPath string) ([]OpenCall, error) {
	conn, err := dial(ctx, filepath.Join(filepath.Dir(journalPath), "watch"))
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	r, err := exchange(ctx, conn, request{Op: "calls"})
	if err != nil {
		return nil, err
	}
	return r.Calls, nil
}

// server answers requests on <dir>/sock.
type server struct {
	ln   net.Listener
	wg   sync.WaitGroup
	once sync.Once
}

func listen(w *Watcher) (*server, error) {
	sock := filepath.Join(w.dir, "sock")
	os.Remove(sock) // the watch lock is held: a socket left there is a dead watcher's
	ln, err := net.Listen("unix", sock)
	if err != nil {
		return nil, err
	}
	os.Chmod(sock, 0o600)
	s := &server{ln: ln}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				defer c.Close()
				serveConn(w, c)
			}()
		}
	}()
	return s, nil
}

func (s *server) close() {
	s.once.Do(func() { s.ln.Close() })
	s.wg.Wait()
}

func serveConn(w *Watcher, c net.Conn) {
	c.SetDeadline(time.Now().Add(10 * time.Minute))
	var req request
	if err := json.NewDecoder(bufio.NewReader(c)).Decode(&req); err != nil {
		json.NewEncoder(c).Encode(reply{Error: "bad request: " + err.Error()})
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var ob *replay.Observed
	var err error
	var rec func() (*replay.Observed, error)
	switch {
	case req.Op == "flush":
		// what changed while agents' calls are open is theirs (as far as
		// tie allows): a reader's or a git hook's flush (a commit inside
		// an agent's call) names them — once the calls whose agent is
		// gone or whose time is up are closed
		if err = w.reap(ctx); err == nil {
			ob, err = w.Flush(ctx, w.openCallList())
		}
	case req.Op == "calls":
		if err = w.reap(ctx); err == nil {
			json.NewEncoder(c).Encode(reply{Calls: w.Open()})
			return
		}
	case req.Op == "wait": // the recordings handed over before this are done
		w.record.Lock()
		done := w.lastDone
		w.record.Unlock()
		<-done
		ob = &replay.Observed{}
	case req.Op == "begin" && req.Call != nil:
		rec, err = w.beginTake(ctx, *req.Call)
	case req.Op == "end" && req.Call != nil:
		rec, err = w.endTake(ctx, *req.Call)
	case req.Op == "turn" && req.Call != nil:
		rec, err = w.turnTake(ctx, req.Call.Agent, req.Call.Session, req.Reason)
		if rec == nil && err == nil {
			ob = &replay.Observed{}
		}
	case req.Op == "prompt" && req.Prompt != nil:
		var seq uint64
		ob, seq, err = w.Prompt(ctx, *req.Prompt)
		r := toReply(ob, err)
		r.Prompt = seq
		json.NewEncoder(c).Encode(r)
		return
	default:
		err = fmt.Errorf("unknown request %q", req.Op)
	}
	if rec == nil {
		json.NewEncoder(c).Encode(toReply(ob, err))
		return
	}
	if req.Hand {
		json.NewEncoder(c).Encode(reply{Taken: true})
		c.Close()
		if _, err := rec(); err != nil {
			w.o.Logf("journal watch: recording a call's changes: %v (tried again at the next change)", err)
		}
		return
	}
	ob, err = rec()
	json.NewEncoder(c).Encode(toReply(ob, err))
}

func toReply(ob *replay.Observed, err error) reply {
	if err != nil {
		return reply{Error: err.Error()}
	}
	if ob == nil {
		return reply{}
	}
	return reply{Events: ob.Events, Files: ob.Count, Skipped: ob.Skipped}
}

// ErrNoWatcher: no watcher answers on the journal's socket.
var ErrNoWatcher = errors.New("watch: no watcher runs on this journal")

// Result is what a Begin, End or Flush recorded, wherever it ran.
type Result struct {
	Events  []uint64      `json:"events,omitempty"`
	Files   int           `json:"files"`
	Skipped []replay.Skip `json:"skipped,omitempty"`
	// Watcher says a running watcher recorded it (else this process
	// scanned the workspace itself).
	Watcher bool `json:"watcher"`
	// Taken: handed over (HandEnd, HandTurn): the watcher took the
	// changes and records them after answering (no events to say yet).
	Taken bool `json:"taken,omitempty"`
	// Prompt is, for a Prompt, its prompt event.
	Prompt uint64 `json:"prompt,omitempty"`
}

// ask sends op to the watcher of the journal whose watch directory is dir.
func ask(ctx context.Context, dir, op string, c *Call) (*Result, error) {
	return send(ctx, dir, request{Op: op, Call: c})
}

func send(ctx context.Context, dir string, req request) (*Result, error) {
	conn, err := dial(ctx, dir)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	r, err := exchange(ctx, conn, req)
	if err != nil {
		return nil, err
	}
	return &Result{Events: r.Events, Files: r.Files, Skipped: r.Skipped, Watcher: true, Taken: r.Taken, Prompt: r.Prompt}, nil
}

// dial connects to the watcher whose watch directory is dir.
func dial(ctx context.Context, dir string) (net.Conn, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", filepath.Join(dir, "sock"))
	if err != nil {
		if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED) {
			return nil, ErrNoWatcher
		}
		return nil, fmt.Errorf("watch: %w", err)
	}
	return conn, nil
}

// exchange sends req on conn and reads the watcher's answer.
func exchange(ctx context.Context, conn net.Conn, req request) (*reply, error) {
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	if err := json.NewEncoder(conn).Encode(req); err != nil {
		return nil, fmt.Errorf("watch: %w", err)
	}
	var r reply
	if err := json.NewDecoder(conn).Decode(&r); err != nil {
		return nil, fmt.Errorf("watch: the watcher did not answer: %w", err)
	}
	if r.Error != "" {
		return nil, fmt.Errorf("watch: %s", r.Error)
	}
	return &r, nil
}

// AskBegin is Begin asked of the running watcher of the journal whose
// watch directory is dir (Dir), without opening the journal: ErrNoWatcher
// when none answers there.
func AskBegin(ctx context.Context, dir string, c Call) (*Result, error) {
	return ask(ctx, dir, "begin", &c)
}

// AskEnd is End asked of the running watcher, as AskBegin.
func AskEnd(ctx context.Context, dir string, c Call) (*Result, error) {
	return ask(ctx, dir, "end", &c)
}

// HandBegin is AskBegin answered as soon as the watcher has taken (and
// read) what changed before the call and opened it, before that is
// stored, as HandEnd.
func HandBegin(ctx context.Context, dir string, c Call) (*Result, error) {
	return send(ctx, dir, request{Op: "begin", Call: &c, Hand: true})
}

// HandEnd is AskEnd answered as soon as the watcher has taken the call's
// changes and read them (after its barrier), before they are stored:
// what a hook waits for. The recording stores what was read, in order
// after the recordings before it, so the call's changes are all in its
// event whatever the agent's next call does meanwhile.
func HandEnd(ctx context.Context, dir string, c Call) (*Result, error) {
	return send(ctx, dir, request{Op: "end", Call: &c, Hand: true})
}

// HandTurn tells the running watcher that agent's session ended a turn or
// began a prompt (reason "prompt", "stop", "session-end"): its calls still
// open close (Watcher.Turn). Answered once their changes are taken.
func HandTurn(ctx context.Context, dir string, c Call, reason string) (*Result, error) {
	return send(ctx, dir, request{Op: "turn", Call: &c, Hand: true, Reason: reason})
}

// Begin opens call c: the running watcher (if any) records what changed
// before it, and names for c what changes until End. With no watcher
// running, this process walks the workspace and records what changed
// since the journal last saw it (files it never knew as a baseline).
func Begin(ctx context.Context, eng *replay.Engine, c Call) (*Result, error) {
	r, err := ask(ctx, Dir(eng), "begin", &c)
	if !errors.Is(err, ErrNoWatcher) {
		return r, err
	}
	if r, err = scan(ctx, eng, true, journal.ToolCatchUp, nil); err != nil {
		return r, err
	}
	// no process keeps the call open: its note does, for a git hook's
	// record meanwhile (ObserveOpen)
	return r, noteOpen(Dir(eng), c, time.Now())
}

// End records what changed since c's Begin as one event named for c.
func End(ctx context.Context, eng *replay.Engine, c Call) (*Result, error) {
	if c.Start.IsZero() {
		c.Start = openedAt(Dir(eng), c)
	}
	if err := CloseOpen(Dir(eng), c); err != nil {
		return nil, err
	}
	r, err := ask(ctx, Dir(eng), "end", &c)
	if !errors.Is(err, ErrNoWatcher) {
		return r, err
	}
	return scan(ctx, eng, false, journal.ToolWatch, []Call{c})
}

// scan is Begin and End without a watcher: one walk, compared with the
// journal through the watcher's cache, recorded. It takes the watch lock
// for its duration, so that a watcher starting meanwhile does not record
// the same changes under another name.
func scan(ctx context.Context, eng *replay.Engine, baseline bool, tool string, calls []Call) (*Result, error) {
	dir := Dir(eng)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("watch: %w", err)
	}
	unlock, err := lockWait(ctx, filepath.Join(dir, "lock"))
	if err != nil {
		return nil, err
	}
	defer unlock()
	o := Options{}
	o.defaults()
	// the heads are read while the tree is walked (a hook waits for both)
	w := newWatcher(eng, dir, o)
	w.walked = true
	t, heads, err := w.walkKnown(nil)
	if err != nil {
		return nil, err
	}
	ob, err := w.catchUpHeads(ctx, t, heads, baseline, tool, calls, nil)
	if err != nil {
		return nil, err
	}
	return &Result{Events: ob.Events, Files: ob.Count, Skipped: ob.Skipped}, nil
}

// WaitRunning returns once the recordings handed to the watcher of the
// journal at journalPath (HandEnd, HandTurn) before it was called are
// committed; ErrNoWatcher when none answers.
func WaitRunning(ctx context.Context, journalPath string) error {
	_, err := ask(ctx, filepath.Join(filepath.Dir(journalPath), "watch"), "wait", nil)
	return err
}

// FlushRunning asks the watcher of the journal at journalPath, if one runs,
// to record now every change made before the call (as its own changes);
// ErrNoWatcher when none answers. It opens no engine: a caller that must
// record the changes itself without a watcher opens one then.
func FlushRunning(ctx context.Context, journalPath string) (*Result, error) {
	return ask(ctx, filepath.Join(filepath.Dir(journalPath), "watch"), "flush", nil)
}
