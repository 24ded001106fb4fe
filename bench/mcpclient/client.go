// Package mcpclient is a minimal Model Context Protocol client for servers
// that speak newline-delimited JSON-RPC 2.0 over stdio.
//
// It is built for benchmarking: one request is in flight at a time, nothing
// is validated beyond the JSON-RPC envelope, and a reply is read as one line
// with a linear buffer, so the time a call takes is mostly the server's.
// Requests the server sends to the client (roots/list, sampling, ...) are
// answered with "method not found", except ping, which gets an empty result;
// notifications from the server are dropped.
package mcpclient

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// ProtocolVersion is the MCP revision the client asks for in initialize.
const ProtocolVersion = "2025-11-25"

// ErrTimeout is returned by a request whose reply did not arrive within
// Client.Timeout.
var ErrTimeout = errors.New("mcpclient: timeout")

// RPCError is a JSON-RPC error object returned by the server.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Error implements error.
func (e *RPCError) Error() string {
	return fmt.Sprintf("json-rpc error %d: %s", e.Code, e.Message)
}

// ToolError is a tools/call result with isError set: the tool ran and refused.
type ToolError struct {
	Tool string // the tool called
	Text string // the text content of the result
}

// Error implements error.
func (e *ToolError) Error() string {
	t := e.Text
	if len(t) > 600 {
		t = t[:600] + "…"
	}
	return fmt.Sprintf("tool %s returned an error: %s", e.Tool, t)
}

// message is the JSON-RPC 2.0 envelope of every line on the wire.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  any             `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *RPCError       `json:"error,omitempty"`
}

// Client talks to one server. It is not safe for concurrent use.
type Client struct {
	w      io.Writer
	r      *bufio.Reader
	nextID int64

	// Timeout bounds each request (0: none). When it expires OnTimeout is
	// called, which must make the pending read fail (for a child process:
	// kill it); the request then returns ErrTimeout.
	Timeout   time.Duration
	OnTimeout func()

	// LastReplyBytes is the size in bytes of the last reply line read.
	LastReplyBytes int
}

// New returns a client that reads replies from r and writes requests to w.
func New(r io.Reader, w io.Writer) *Client {
	return &Client{r: bufio.NewReaderSize(r, 1<<20), w: w, nextID: 1}
}

func (c *Client) write(m message) error {
	m.JSONRPC = "2.0"
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("mcpclient: encode %s: %w", m.Method, err)
	}
	b = append(b, '\n')
	if _, err := c.w.Write(b); err != nil {
		return fmt.Errorf("mcpclient: write %s: %w", m.Method, err)
	}
	return nil
}

// Notify sends a notification (a request without id).
func (c *Client) Notify(method string, params any) error {
	return c.write(message{Method: method, Params: params})
}

// Request sends one request and returns the raw result of its reply.
func (c *Client) Request(method string, params any) (json.RawMessage, error) {
	id := c.nextID
	c.nextID++
	var timedOut atomic.Bool
	if c.Timeout > 0 {
		t := time.AfterFunc(c.Timeout, func() {
			timedOut.Store(true)
			if c.OnTimeout != nil {
				c.OnTimeout()
			}
		})
		defer t.Stop()
	}
	if err := c.write(message{ID: json.RawMessage(strconv.FormatInt(id, 10)), Method: method, Params: params}); err != nil {
		if timedOut.Load() {
			return nil, fmt.Errorf("%s: %w after %s", method, ErrTimeout, c.Timeout)
		}
		return nil, err
	}
	for {
		line, err := c.r.ReadBytes('\n')
		if err != nil {
			if timedOut.Load() {
				return nil, fmt.Errorf("%s: %w after %s", method, ErrTimeout, c.Timeout)
			}
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return nil, fmt.Errorf("mcpclient: %s: reading reply: %w", method, err)
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var m message
		if err := json.Unmarshal(line, &m); err != nil {
			return nil, fmt.Errorf("mcpclient: %s: bad JSON from server: %w (line starts %q)", method, err, head(line, 120))
		}
		if m.Method != "" {
			if len(m.ID) > 0 && string(m.ID) != "null" {
				if err := c.answer(m); err != nil {
					return nil, err
				}
			}
			continue // a notification, or a request we answered
		}
		if got, err := strconv.ParseInt(strings.TrimSpace(string(m.ID)), 10, 64); err != nil || got != id {
			continue // a reply to something else (cannot happen with one request in flight)
		}
		c.LastReplyBytes = len(line)
		if m.Error != nil {
			return nil, m.Error
		}
		return m.Result, nil
	}
}

// answer replies to a request the server sent to the client.
func (c *Client) answer(req message) error {
	if req.Method == "ping" {
		return c.write(message{ID: req.ID, Result: json.RawMessage("{}")})
	}
	return c.write(message{ID: req.ID, Error: &RPCError{Code: -32601, Message: "method not found: " + req.Method}})
}

func head(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}

// InitializeResult is the part of the initialize reply the harness uses.
type InitializeResult struct {
	ProtocolVersion string `json:"protocolVersion"`
	ServerInfo      struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"serverInfo"`
}

// Initialize performs the handshake: initialize, then
// notifications/initialized.
func (c *Client) Initialize(clientName string) (*InitializeResult, error) {
	raw, err := c.Request("initialize", map[string]any{
		"protocolVersion": ProtocolVersion,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]string{"name": clientName, "version": "0"},
	})
	if err != nil {
		return nil, err
	}
	var res InitializeResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("mcpclient: initialize result: %w", err)
	}
	return &res, c.Notify("notifications/initialized", nil)
}

// Tool is one entry of tools/list.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
}

// Properties returns the names of the top-level properties of the tool's
// input schema.
func (t Tool) Properties() map[string]bool {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	_ = json.Unmarshal(t.InputSchema, &s)
	out := make(map[string]bool, len(s.Properties))
	for k := range s.Properties {
		out[k] = true
	}
	return out
}

// ListTools returns every tool, following nextCursor.
func (c *Client) ListTools() ([]Tool, error) {
	var all []Tool
	cursor := ""
	for page := 0; page < 100; page++ {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		raw, err := c.Request("tools/list", params)
		if err != nil {
			return nil, err
		}
		var res struct {
			Tools      []Tool `json:"tools"`
			NextCursor string `json:"nextCursor"`
		}
		if err := json.Unmarshal(raw, &res); err != nil {
			return nil, fmt.Errorf("mcpclient: tools/list result: %w", err)
		}
		all = append(all, res.Tools...)
		if res.NextCursor == "" {
			return all, nil
		}
		cursor = res.NextCursor
	}
	return nil, errors.New("mcpclient: tools/list: more than 100 pages")
}

// Content is one content block of a tool result.
type Content struct {
	Type string `json:"type"`
	Text string `json:"text,omitempty"`
}

// CallResult is a tools/call result.
type CallResult struct {
	Content           []Content       `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
}

// Text returns the text blocks of the result joined by newlines.
func (r *CallResult) Text() string {
	var parts []string
	for _, c := range r.Content {
		if c.Type == "text" {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// CallTool calls a tool. A result with isError set is returned together
// with a *ToolError.
func (c *Client) CallTool(name string, args any) (*CallResult, error) {
	raw, err := c.Request("tools/call", map[string]any{"name": name, "arguments": args})
	if err != nil {
		return nil, err
	}
	var res CallResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("mcpclient: %s result: %w", name, err)
	}
	if res.IsError {
		return &res, &ToolError{Tool: name, Text: res.Text()}
	}
	return &res, nil
}
