package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/journalfs/journal/snapshot"
)

// Sharing one server process among the stdio servers of a workspace.
//
// Every MCP client starts its own `journal serve`; several on one workspace
// used to be several processes taking the journal's lock in turn, and four
// made fewer edits a second together than one alone (each adopts the
// others' records and pays its own lock handover). Now the first serve of a
// workspace is its writer: it listens on a unix socket beside the journal,
// and a later serve with the same configuration relays its client's session
// there (Relay) instead of opening the journal itself. The writer serves
// each relayed session as a session of its own (ServeFollower), exactly as
// it serves several HTTP sessions.
//
// The socket carries the client's newline-delimited JSON-RPC messages as
// they are, plus control lines starting with shareTag, which no JSON-RPC
// message starts with:
//
//   - the relay's hello (shareHello): the configuration it would serve
//     with, its session id and the session's file views; the writer answers
//     ok, or refused when its configuration differs (the relay then serves
//     on its own, as before);
//   - a view (the writer, before a response): the session read or wrote a
//     file at a version — the line numbers it knows count from there. The
//     relay keeps them, so that the session's next writer maps and checks
//     line numbers exactly as this one would;
//   - closing (the writer, last): it stopped reading after N messages and
//     answered every one it could. The relay sends the messages after the
//     Nth to the next writer, which is another serve or itself.
//
// The writer's own client ending (or a signal) ends the writer: it stops
// accepting, stops reading its followers, waits for their calls in flight
// (shareDrain at most), says closing and exits. One of the followers takes
// the socket over (replaying its client's initialize to the new writer;
// the client sees nothing). A writer that dies without closing (killed)
// leaves its followers' calls in flight without an answer: the relay
// answers each such tools/call with OUTCOME_UNKNOWN (it may or may not have
// been applied; journal_log says), and resends every other request (they
// change nothing).

// shareTag starts every control line of the share protocol.
const shareTag = `{"journal_share":`

// shareVersion is the share protocol's version: a relay and a writer that
// disagree do not share (the relay serves on its own).
const shareVersion = 1

// shareDrain bounds how long a closing writer waits for its followers'
// calls in flight.
const shareDrain = 30 * time.Second

// ErrShareRefused means a writer serves its workspace with another
// configuration (flags, version): the relay must serve on its own.
var ErrShareRefused = errors.New("mcp: the workspace's server runs with another configuration")

// SharedView is what a session knows of a file: the version its line
// numbers count from, the last version it saw, and whether it wrote the
// file since that read (rebase.go's fileView).
type SharedView struct {
	Key   string      `json:"key"`
	Read  snapshot.ID `json:"read"`
	Cur   snapshot.ID `json:"cur"`
	Wrote bool        `json:"wrote,omitempty"`
	Shown snapshot.ID `json:"shown,omitzero"` // fileView.shown
}

// shareHello is the relay's first line.
type shareHello struct {
	Share   int          `json:"journal_share"`
	Config  string       `json:"config"`
	Session string       `json:"session"`
	Views   []SharedView `json:"views,omitempty"`
}

// shareControl is every other control line.
type shareControl struct {
	Share   int         `json:"journal_share"`
	OK      *bool       `json:"ok,omitempty"`      // the answer to a hello
	Reason  string      `json:"reason,omitempty"`  // why refused
	View    *SharedView `json:"view,omitempty"`    // a session's view changed
	Closing *int64      `json:"closing,omitempty"` // messages read before closing
}

func controlLine(c shareControl) []byte {
	c.Share = shareVersion
	b, _ := json.Marshal(c)
	return append(b, '\n')
}

// ImportViews gives a session the file views another process kept for it
// (Relay.Serve, ServeFollower).
func (s *Server) ImportViews(session string, views []SharedView) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.views(session)
	for _, v := range views {
		m[v.Key] = &fileView{read: v.Read, cur: v.Cur, wrote: v.Wrote, shown: v.Shown}
	}
}

// watchViews calls fn with each change of a session's views, under s.mu;
// the returned func stops it.
func (s *Server) watchViews(session string, fn func(SharedView)) func() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.viewWatch == nil {
		s.viewWatch = map[string]func(SharedView){}
	}
	s.viewWatch[session] = fn
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		delete(s.viewWatch, session)
	}
}

// viewChanged tells a session's watcher about a changed view; s.mu is held.
func (s *Server) viewChanged(session, key string, v *fileView) {
	if fn := s.viewWatch[session]; fn != nil {
		fn(SharedView{Key: key, Read: v.read, Cur: v.cur, Wrote: v.wrote, Shown: v.shown})
	}
}

// ServeFollower serves the session a relay carries on conn until the relay
// ends it or drain is closed. config is this process's configuration: a
// relay that would serve with another is refused (ErrShareRefused is not
// returned; the relay learns it). The caller closes conn.
func (s *Server) ServeFollower(ctx context.Context, conn net.Conn, config string, drain <-chan struct{}) error {
	r := bufio.NewReaderSize(conn, 64<<10)
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	line, err := r.ReadSlice('\n')
	if err != nil {
		return fmt.Errorf("reading a follower's hello: %w", err)
	}
	var h shareHello
	if err := json.Unmarshal(line, &h); err != nil || h.Share == 0 || h.Session == "" {
		return fmt.Errorf("a follower's hello does not parse: %q", line[:min(len(line), 200)])
	}
	conn.SetReadDeadline(time.Time{})
	if h.Share != shareVersion || h.Config != config {
		reason := "configuration differs"
		if h.Share != shareVersion {
			reason = "share protocol " + strconv.Itoa(h.Share) + ", this server speaks " + strconv.Itoa(shareVersion)
		}
		no := false
		_, err := conn.Write(controlLine(shareControl{OK: &no, Reason: reason}))
		return err
	}
	s.ImportViews(h.Session, h.Views)
	yes := true
	if _, err := conn.Write(controlLine(shareControl{OK: &yes})); err != nil {
		return err
	}
	return s.serveLines(ctx, h.Session, r, conn, drain)
}

// followerSession is a relayed session, as mcp-go's stdio session is the
// one stdio session: its own id, client info, log level and notifications,
// and sampling requests sent to its client over the connection.
type followerSession struct {
	id            string
	notifications chan mcpgo.JSONRPCNotification
	initialized   atomic.Bool
	level         atomic.Value

	infoMu sync.Mutex
	info   mcpgo.Implementation
	caps   mcpgo.ClientCapabilities

	out     *lineWriter
	next    atomic.Int64
	mu      sync.Mutex
	pending map[int64]chan json.RawMessage
}

var (
	_ server.SessionWithLogging    = (*followerSession)(nil)
	_ server.SessionWithClientInfo = (*followerSession)(nil)
	_ server.SessionWithSampling   = (*followerSession)(nil)
)

// SessionID is the relay's session id.
func (f *followerSession) SessionID() string { return f.id }

// NotificationChannel carries the server's notifications to the client.
func (f *followerSession) NotificationChannel() chan<- mcpgo.JSONRPCNotification {
	return f.notifications
}

// Initialize marks the session initialized.
func (f *followerSession) Initialize() {
	f.level.Store(mcpgo.LoggingLevelError)
	f.initialized.Store(true)
}

// Initialized reports whether the session is initialized.
func (f *followerSession) Initialized() bool { return f.initialized.Load() }

// SetLogLevel sets the session's log level.
func (f *followerSession) SetLogLevel(level mcpgo.LoggingLevel) { f.level.Store(level) }

// GetLogLevel is the session's log level.
func (f *followerSession) GetLogLevel() mcpgo.LoggingLevel {
	if l, ok := f.level.Load().(mcpgo.LoggingLevel); ok {
		return l
	}
	return mcpgo.LoggingLevelError
}

// GetClientInfo is what the client said of itself at initialize.
func (f *followerSession) GetClientInfo() mcpgo.Implementation {
	f.infoMu.Lock()
	defer f.infoMu.Unlock()
	return f.info
}

// SetClientInfo records what the client said of itself.
func (f *followerSession) SetClientInfo(info mcpgo.Implementation) {
	f.infoMu.Lock()
	defer f.infoMu.Unlock()
	f.info = info
}

// GetClientCapabilities are the client's capabilities.
func (f *followerSession) GetClientCapabilities() mcpgo.ClientCapabilities {
	f.infoMu.Lock()
	defer f.infoMu.Unlock()
	return f.caps
}

// SetClientCapabilities records the client's capabilities.
func (f *followerSession) SetClientCapabilities(caps mcpgo.ClientCapabilities) {
	f.infoMu.Lock()
	defer f.infoMu.Unlock()
	f.caps = caps
}

// RequestSampling sends a sampling request to the relayed client and waits
// for its answer.
func (f *followerSession) RequestSampling(ctx context.Context, req mcpgo.CreateMessageRequest) (*mcpgo.CreateMessageResult, error) {
	id := f.next.Add(1)
	ch := make(chan json.RawMessage, 1)
	f.mu.Lock()
	f.pending[id] = ch
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		delete(f.pending, id)
		f.mu.Unlock()
	}()
	msg, err := json.Marshal(map[string]any{"jsonrpc": mcpgo.JSONRPC_VERSION, "id": id,
		"method": string(mcpgo.MethodSamplingCreateMessage), "params": req.CreateMessageParams})
	if err != nil {
		return nil, fmt.Errorf("encoding a sampling request: %w", err)
	}
	if err := f.out.write(append(msg, '\n')); err != nil {
		return nil, fmt.Errorf("sending a sampling request: %w", err)
	}
	var raw json.RawMessage
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case raw = <-ch:
	}
	var resp struct {
		Result *mcpgo.CreateMessageResult `json:"result"`
		Error  *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(raw, &resp); err != nil {
		return nil, fmt.Errorf("decoding a sampling response: %w", err)
	}
	if resp.Error != nil || resp.Result == nil {
		msg := "no result"
		if resp.Error != nil {
			msg = resp.Error.Message
		}
		return nil, fmt.Errorf("sampling request failed: %s", msg)
	}
	content, err := mcpgo.ParseSamplingContent(resp.Result.Content)
	if err != nil {
		return nil, fmt.Errorf("parsing a sampling response: %w", err)
	}
	resp.Result.Content = content
	return resp.Result, nil
}

// answered routes a response of the client to a pending sampling request.
func (f *followerSession) answered(id []byte, raw []byte) bool {
	n, err := strconv.ParseInt(string(id), 10, 64)
	if err != nil {
		return false
	}
	f.mu.Lock()
	ch := f.pending[n]
	f.mu.Unlock()
	if ch == nil {
		return false
	}
	select {
	case ch <- json.RawMessage(raw):
	default:
	}
	return true
}

// lineWriter writes whole lines to a stream, one at a time.
type lineWriter struct {
	mu    sync.Mutex
	w     io.Writer
	ahead []byte // lines to write before the next one (later)
}

func (w *lineWriter) write(line []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.ahead) > 0 {
		line = append(w.ahead, line...)
		w.ahead = nil
	}
	_, err := w.w.Write(line)
	return err
}

// later queues a line to go out in the same write as the next one: a
// session's view goes with the response of the call that changed it (one
// write, one wake-up of the relay).
func (w *lineWriter) later(line []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ahead = append(w.ahead, line...)
}

func (w *lineWriter) message(m mcpgo.JSONRPCMessage) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return w.write(append(b, '\n'))
}

// toolWorkers bounds a session's tool calls running at once, as mcp-go's
// stdio transport does (five workers).
const toolWorkers = 5

// serveLines serves one session's newline-delimited JSON-RPC from r,
// answering on conn, as mcp-go's stdio transport serves its one session:
// tool calls on toolWorkers workers, other requests each on its own
// goroutine, notifications in order. Once drain is closed it reads nothing
// more, waits for the calls it read (shareDrain at most), and says how many
// messages it read.
func (s *Server) serveLines(ctx context.Context, session string, r *bufio.Reader, conn net.Conn, drain <-chan struct{}) error {
	out := &lineWriter{w: conn}
	fs := &followerSession{id: session, notifications: make(chan mcpgo.JSONRPCNotification, 100),
		out: out, pending: map[int64]chan json.RawMessage{}}
	if err := s.srv.RegisterSession(ctx, fs); err != nil {
		return fmt.Errorf("registering a follower's session: %w", err)
	}
	defer s.srv.UnregisterSession(context.Background(), session)
	stop := s.watchViews(session, func(v SharedView) { out.later(controlLine(shareControl{View: &v})) })
	defer stop()
	ctx, cancel := context.WithCancel(s.srv.WithContext(ctx, fs))
	defer cancel()

	go func() { // notifications the server sends this session
		for {
			select {
			case n := <-fs.notifications:
				out.message(n)
			case <-ctx.Done():
				return
			}
		}
	}()
	draining := make(chan struct{})
	readDone := make(chan struct{})
	defer close(readDone)
	go func() {
		select {
		case <-drain:
			close(draining)
			conn.SetReadDeadline(time.Now()) // stop the read loop where it is
		case <-readDone:
		}
	}()

	var (
		wg      sync.WaitGroup
		workers = make(chan struct{}, toolWorkers)
		read    int64
		m       message
		rerr    error
	)
	handle := func(id []byte, raw []byte) {
		defer func() {
			if p := recover(); p != nil {
				if id != nil {
					out.message(mcpgo.NewJSONRPCError(mcpgo.NewRequestId(json.RawMessage(id)), mcpgo.INTERNAL_ERROR, fmt.Sprintf("internal panic: %v", p), nil))
				}
			}
		}()
		if resp := s.srv.HandleMessage(ctx, json.RawMessage(raw)); resp != nil {
			out.message(resp)
		}
	}
	for {
		err := readMessage(r, &m)
		if err != nil && !errors.Is(err, io.EOF) {
			if !errors.Is(err, os.ErrDeadlineExceeded) {
				rerr = err
			}
			break // a message cut short was not read: the relay sends it again
		}
		if m.len() > 0 && !(m.len() == 1 && m.buf[0] == '\n') {
			read++
			raw, ok := s.spill.lighten(&m, s.toolNames)
			if !ok {
				raw = bytes.Join(m.segments(), nil)
			}
			id, method, isResp := envelope(raw)
			switch {
			case isResp:
				fs.answered(id, raw)
			case method == string(mcpgo.MethodToolsCall):
				workers <- struct{}{}
				wg.Add(1)
				go func() {
					defer func() { <-workers; wg.Done() }()
					handle(id, raw)
				}()
			case id != nil:
				wg.Add(1)
				go func() {
					defer wg.Done()
					handle(id, raw)
				}()
			default:
				handle(nil, raw)
			}
		}
		if err != nil { // io.EOF: the relay's client ended
			break
		}
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-time.After(shareDrain):
		cancel() // the relay answers what is left OUTCOME_UNKNOWN
	}
	select {
	case <-draining:
		out.write(controlLine(shareControl{Closing: &read}))
	default:
	}
	return rerr
}

// envelope reads a JSON-RPC message's id and method: isResp when it has an
// id and no method (a response). A message that does not parse has neither.
func envelope(raw []byte) (id []byte, method string, isResp bool) {
	var e struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(raw, &e) != nil {
		return nil, "", false
	}
	if len(e.ID) == 0 || string(e.ID) == "null" {
		e.ID = nil
	}
	return e.ID, e.Method, e.ID != nil && e.Method == ""
}
