package watch

import (
	"bufio"
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
}

// attribution names an event for calls: one call's tool, input and agent;
// several at once (their changes cannot be told apart) their tools and
// inputs listed, the first's agent. No call: the watcher's own, from
// another process it cannot name.
func attribution(calls []Call) (string, json.RawMessage, *journal.Actor) {
	if len(calls) == 0 {
		return journal.ToolWatch, nil, nil
	}
	c := calls[0]
	actor := &journal.Actor{Kind: "agent", Name: c.Agent, Session: c.Session, User: c.User, Host: c.Host, Origin: c.Origin}
	if c.Origin == "exec" {
		actor.Kind = "cli"
	}
	if len(calls) == 1 {
		return c.Tool, c.Input, actor
	}
	type one struct {
		Tool    string          `json:"tool"`
		Session string          `json:"session,omitempty"`
		Input   json.RawMessage `json:"input,omitempty"`
	}
	var all []one
	for _, x := range calls {
		all = append(all, one{x.Tool, x.Session, x.Input})
	}
	args, _ := json.Marshal(map[string]any{"calls": all})
	return c.Tool, args, actor
}

// request is one message to a watcher's socket; reply its answer.
type request struct {
	Op   string `json:"op"` // "begin", "end" or "flush"
	Call *Call  `json:"call,omitempty"`
}

type reply struct {
	Events  []uint64      `json:"events,omitempty"`
	Files   int           `json:"files"`
	Skipped []replay.Skip `json:"skipped,omitempty"`
	Error   string        `json:"error,omitempty"`
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
	switch {
	case req.Op == "flush":
		ob, err = w.Flush(ctx, nil)
	case req.Op == "begin" && req.Call != nil:
		ob, err = w.Begin(ctx, *req.Call)
	case req.Op == "end" && req.Call != nil:
		ob, err = w.End(ctx, *req.Call)
	default:
		err = fmt.Errorf("unknown request %q", req.Op)
	}
	json.NewEncoder(c).Encode(toReply(ob, err))
}

func toReply(ob *replay.Observed, err error) reply {
	if err != nil {
		return reply{Error: err.Error()}
	}
	if ob == nil {
		return reply{}
	}
	return reply{Events: ob.Events, Files: len(ob.Files), Skipped: ob.Skipped}
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
}

// ask sends op to the watcher of the journal whose watch directory is dir.
func ask(ctx context.Context, dir, op string, c *Call) (*Result, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", filepath.Join(dir, "sock"))
	if err != nil {
		if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED) {
			return nil, ErrNoWatcher
		}
		return nil, fmt.Errorf("watch: %w", err)
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	if err := json.NewEncoder(conn).Encode(request{Op: op, Call: c}); err != nil {
		return nil, fmt.Errorf("watch: %w", err)
	}
	var r reply
	if err := json.NewDecoder(conn).Decode(&r); err != nil {
		return nil, fmt.Errorf("watch: the watcher did not answer: %w", err)
	}
	if r.Error != "" {
		return nil, fmt.Errorf("watch: %s", r.Error)
	}
	return &Result{Events: r.Events, Files: r.Files, Skipped: r.Skipped, Watcher: true}, nil
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
	return scan(ctx, eng, true, journal.ToolCatchUp, nil, nil)
}

// End records what changed since c's Begin as one event named for c.
func End(ctx context.Context, eng *replay.Engine, c Call) (*Result, error) {
	r, err := ask(ctx, Dir(eng), "end", &c)
	if !errors.Is(err, ErrNoWatcher) {
		return r, err
	}
	tool, args, actor := attribution([]Call{c})
	return scan(ctx, eng, false, tool, args, actor)
}

// scan is Begin and End without a watcher: one walk, compared with the
// journal through the watcher's cache, recorded. It takes the watch lock
// for its duration, so that a watcher starting meanwhile does not record
// the same changes under another name.
func scan(ctx context.Context, eng *replay.Engine, baseline bool, tool string, args json.RawMessage, actor *journal.Actor) (*Result, error) {
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
	w := newWatcher(eng, dir, o)
	t, err := walk(eng, nil)
	if err != nil {
		return nil, err
	}
	ob, err := w.catchUp(ctx, t, baseline, tool, args, actor)
	if err != nil {
		return nil, err
	}
	return &Result{Events: ob.Events, Files: len(ob.Files), Skipped: ob.Skipped}, nil
}

// FlushRunning asks the watcher of the journal at journalPath, if one runs,
// to record now every change made before the call (as its own changes);
// ErrNoWatcher when none answers. It opens no engine: a caller that must
// record the changes itself without a watcher opens one then.
func FlushRunning(ctx context.Context, journalPath string) (*Result, error) {
	return ask(ctx, filepath.Join(filepath.Dir(journalPath), "watch"), "flush", nil)
}
