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
	"strconv"
	"sync"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// Relay carries one client's MCP session (newline-delimited JSON-RPC on in
// and out) to the workspace's writer, another journal serve (share.go);
// when that writer goes away, to the next one, or to a server of its own
// (Serve). The client sees one session throughout.
type Relay struct {
	config  string
	session string
	in      io.Reader
	out     *lineWriter
	lines   chan []byte // the client's messages, in order; closed at its end
	start   sync.Once

	mu       sync.Mutex
	views    map[string]SharedView
	initReq  []byte    // the client's initialize request
	initID   string    // its id
	answered bool      // the client had the answer to initialize
	initNote []byte    // its notifications/initialized
	carry    []relayed // messages the last writer did not read, in order
	done     bool      // the client's input ended
}

// relayed is one client message sent to a writer and not known to be read.
type relayed struct {
	seq    int64
	line   []byte
	id     string // normalised id of a request
	method string
}

// NewRelay returns a relay of the session named session on in and out, for
// a writer of configuration config. Nothing is read before Follow.
func NewRelay(in io.Reader, out io.Writer, config, session string) *Relay {
	return &Relay{config: config, session: session, in: in, out: &lineWriter{w: out},
		lines: make(chan []byte, 16), views: map[string]SharedView{}}
}

// Session is the relayed session's id; "" for a nil Relay (no relayed
// session: a server makes its own id).
func (r *Relay) Session() string {
	if r == nil {
		return ""
	}
	return r.session
}

// readClient reads the client's messages into r.lines, each one ending in
// a newline.
func (r *Relay) readClient() {
	br := bufio.NewReaderSize(r.in, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			if line[len(line)-1] != '\n' {
				line = append(line, '\n')
			}
			r.lines <- line
		}
		if err != nil {
			close(r.lines)
			return
		}
	}
}

// normID is a JSON-RPC id as a map key: a string as written, a number as
// its float64 would be written (so 1 and 1.0 are one id).
func normID(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] != '"' {
		if f, err := strconv.ParseFloat(string(raw), 64); err == nil {
			return strconv.FormatFloat(f, 'g', -1, 64)
		}
	}
	return string(raw)
}

// Follow relays the session over conn, a connection to a writer, until
// the writer or the client ends it; it closes conn. It returns done when the client's
// session is over and every call of it was answered; otherwise the caller
// follows the next writer or serves the rest itself (Serve). A writer of
// another configuration refuses: ErrShareRefused, nothing relayed.
func (r *Relay) Follow(conn net.Conn) (done bool, err error) {
	defer conn.Close()
	r.start.Do(func() { go r.readClient() })
	views, replay, drop := r.restart()
	b, _ := json.Marshal(shareHello{Share: shareVersion, Config: r.config, Session: r.session, Views: views})
	if _, err := conn.Write(append(b, '\n')); err != nil {
		return false, fmt.Errorf("greeting the writer: %w", err)
	}
	br := bufio.NewReaderSize(conn, 64<<10)
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	answer, err := br.ReadBytes('\n')
	if err != nil {
		return false, fmt.Errorf("reading the writer's answer: %w", err)
	}
	conn.SetReadDeadline(time.Time{})
	var c shareControl
	if err := json.Unmarshal(answer, &c); err != nil || c.OK == nil {
		return false, fmt.Errorf("the writer's answer does not parse: %q", answer[:min(len(answer), 200)])
	}
	if !*c.OK {
		return false, fmt.Errorf("%w: %s", ErrShareRefused, c.Reason)
	}

	var (
		wmu      sync.Mutex // the writes to conn
		seq      int64
		inflight []relayed
		swallow        = drop != "" // drop the writer's answer to the replayed initialize
		closing  int64 = -1
	)
	send := func(line []byte) error {
		wmu.Lock()
		defer wmu.Unlock()
		_, err := conn.Write(line)
		return err
	}
	carry := r.takeCarry()
	for _, line := range replay {
		seq++
		if err := send(line); err != nil {
			r.keep(carry)
			return false, fmt.Errorf("replaying the session's start: %w", err)
		}
	}

	// the writer's side: answers, notifications, requests, control lines
	recvDone := make(chan struct{})
	go func() {
		defer close(recvDone)
		var m message
		for {
			err := readMessage(br, &m)
			if err != nil && m.len() == 0 || err != nil && !errors.Is(err, io.EOF) {
				return
			}
			line := bytes.Join(m.segments(), nil)
			if bytes.HasPrefix(line, []byte(shareTag)) {
				var c shareControl
				if json.Unmarshal(line, &c) == nil {
					switch {
					case c.View != nil:
						r.mu.Lock()
						r.views[c.View.Key] = *c.View
						r.mu.Unlock()
					case c.Closing != nil:
						r.mu.Lock()
						closing = *c.Closing
						r.mu.Unlock()
					}
				}
			} else {
				id, _, isResp := envelope(line)
				forward := true
				if isResp {
					key := normID(id)
					r.mu.Lock()
					if r.initReq != nil && key == r.initID && !r.answered {
						r.answered = true
					} else if r.initReq != nil && key == r.initID && swallow {
						swallow, forward = false, false
					} else {
						inflight = answered(inflight, key)
					}
					r.mu.Unlock()
				}
				if forward {
					if line[len(line)-1] != '\n' {
						line = append(line, '\n')
					}
					r.out.write(line)
				}
			}
			if err != nil {
				return
			}
		}
	}()

	// the client's side: what was carried over first, then new messages
	sendEntry := func(e relayed) error {
		r.mu.Lock()
		seq++
		e.seq = seq
		inflight = append(inflight, e)
		r.mu.Unlock()
		return send(e.line)
	}
	var serr error
	for i, e := range carry {
		if serr = sendEntry(e); serr != nil {
			r.keep(carry[i+1:])
			break
		}
	}
	clientDone := false
	for serr == nil && !clientDone {
		select {
		case <-recvDone: // before taking a message the writer would not read
			serr = io.EOF
			continue
		default:
		}
		select {
		case line, ok := <-r.lines:
			if !ok {
				clientDone = true
				if cw, ok := conn.(interface{ CloseWrite() error }); ok {
					cw.CloseWrite() // the writer answers what it read, then ends
				}
				break
			}
			e := relayed{line: line}
			id, method, _ := envelope(line)
			e.method = method
			if id != nil && method != "" {
				e.id = normID(id)
			}
			r.mu.Lock()
			switch {
			case method == string(mcpgo.MethodInitialize) && r.initReq == nil && e.id != "":
				r.initReq, r.initID = line, e.id
				r.mu.Unlock()
				seq++
				serr = send(line)
				continue
			case method == "notifications/initialized" && r.initNote == nil:
				r.initNote = line
				r.mu.Unlock()
				seq++
				serr = send(line)
				continue
			}
			r.mu.Unlock()
			serr = sendEntry(e)
		case <-recvDone:
			serr = io.EOF
		}
	}
	<-recvDone
	conn.Close()

	// what the writer did not answer
	r.mu.Lock()
	defer r.mu.Unlock()
	if clientDone {
		r.done = true
	}
	var unknown, again []relayed
	for _, e := range inflight {
		switch {
		case closing >= 0 && e.seq > closing: // never read: the next writer's
			again = append(again, e)
		case e.id != "" && e.method == string(mcpgo.MethodToolsCall):
			unknown = append(unknown, e)
		case e.id != "": // a request that changes nothing: asked again
			again = append(again, e)
		case closing < 0: // a notification the writer may not have read
			again = append(again, e)
		}
	}
	// before what was carried in and not sent (keep), which came later
	r.carry = append(again, r.carry...)
	for _, e := range unknown {
		r.out.message(outcomeUnknown(e))
	}
	return r.done && len(r.carry) == 0, nil
}

// restart is what the session's next server gets first: its file views,
// and the client's initialize and initialized to replay (drop: the id of
// the initialize whose answer the client already had, or "").
func (r *Relay) restart() (views []SharedView, replay [][]byte, drop string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, v := range r.views {
		views = append(views, v)
	}
	if r.initReq != nil {
		replay = append(replay, r.initReq)
		if r.answered {
			drop = r.initID
		}
	}
	if r.initNote != nil {
		replay = append(replay, r.initNote)
	}
	return views, replay, drop
}

// takeCarry hands the caller the messages no writer read (keep puts back
// those it could not send).
func (r *Relay) takeCarry() []relayed {
	r.mu.Lock()
	defer r.mu.Unlock()
	carry := r.carry
	r.carry = nil
	return carry
}

// answered removes from inflight the request key and, since the writer reads
// in order, the notifications sent before it.
func answered(inflight []relayed, key string) []relayed {
	at := -1
	for i, e := range inflight {
		if e.id == key {
			at = i
			break
		}
	}
	if at < 0 {
		return inflight
	}
	seq := inflight[at].seq
	kept := inflight[:0]
	for i, e := range inflight {
		if i != at && (e.id != "" || e.seq > seq) {
			kept = append(kept, e)
		}
	}
	return kept
}

// keep puts messages back at the front of what the next writer gets.
func (r *Relay) keep(es []relayed) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.carry = append(append([]relayed(nil), es...), r.carry...)
}

// outcomeUnknown answers a tool call whose writer ended before answering.
func outcomeUnknown(e relayed) mcpgo.JSONRPCMessage {
	res := errorResult(ToolError{Code: CodeOutcomeUnknown,
		Message: "the journal serve process that ran this call ended before it answered: the call may or may not have been applied",
		Hint:    "call journal_log (or run `journal log`): an event for this call means it was applied; if there is none, send the call again"})
	return mcpgo.NewJSONRPCResultResponse(mcpgo.NewRequestId(json.RawMessage(e.id)), res)
}

// Serve serves the rest of the relayed session on srv, a server of this
// process (made with Options.Session = r.Session()): the client's
// initialize is replayed (its answer dropped when the client had one), then
// what no writer read, then the client's new messages.
func (r *Relay) Serve(ctx context.Context, srv *Server) error {
	r.start.Do(func() { go r.readClient() })
	views, first, drop := r.restart()
	for _, e := range r.takeCarry() {
		first = append(first, e.line)
	}
	srv.ImportViews(r.session, views)
	pr, pw := io.Pipe()
	go func() {
		for _, line := range first {
			if _, err := pw.Write(line); err != nil {
				return
			}
		}
		for line := range r.lines {
			if _, err := pw.Write(line); err != nil {
				return
			}
		}
		pw.Close()
	}()
	defer pr.Close()
	return srv.ServeStdio(ctx, pr, &dropAnswer{w: r.out, id: drop})
}

// dropAnswer writes a server's messages to the client but the first answer
// to the request id (a replayed initialize the client had answered).
type dropAnswer struct {
	w  *lineWriter
	id string
}

func (d *dropAnswer) Write(p []byte) (int, error) {
	if d.id != "" && len(p) < 1<<20 {
		if id, _, isResp := envelope(p); isResp && normID(id) == d.id {
			d.id = ""
			return len(p), nil
		}
	}
	return len(p), d.w.write(p)
}
