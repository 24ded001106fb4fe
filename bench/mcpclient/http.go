package mcpclient

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// DialHTTP returns a client of the Streamable HTTP endpoint url (one MCP
// session, initialized by the caller with Initialize). Each request is one
// POST; its reply, a JSON body or a stream of server-sent events, is read
// whole and handed to the client as JSON lines, so Client works unchanged.
func DialHTTP(url string, timeout time.Duration) *Client {
	t := &httpLines{url: url, hc: &http.Client{Timeout: timeout}}
	t.cond = sync.NewCond(&t.mu)
	c := New(t, t)
	return c
}

// httpLines is the client's transport over HTTP: Write posts one JSON-RPC
// message, Read returns the messages the replies carried, one per line.
type httpLines struct {
	url     string
	hc      *http.Client
	session string // Mcp-Session-Id, from the initialize reply

	mu   sync.Mutex
	cond *sync.Cond
	buf  bytes.Buffer
	err  error
}

// Write posts one message (the client writes whole lines) and queues what
// the reply carries.
func (t *httpLines) Write(p []byte) (int, error) {
	req, err := http.NewRequest(http.MethodPost, t.url, bytes.NewReader(bytes.TrimSpace(p)))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", ProtocolVersion)
	if t.session != "" {
		req.Header.Set("Mcp-Session-Id", t.session)
	}
	resp, err := t.hc.Do(req)
	if err != nil {
		t.fail(err)
		return 0, err
	}
	defer resp.Body.Close()
	if s := resp.Header.Get("Mcp-Session-Id"); s != "" {
		t.session = s
	}
	if resp.StatusCode/100 != 2 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		err := fmt.Errorf("mcpclient: HTTP %d: %s", resp.StatusCode, strings.TrimSpace(string(b)))
		t.fail(err)
		return 0, err
	}
	var lines [][]byte
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 0, 1<<20), 1<<30)
		var data []byte
		for sc.Scan() {
			line := sc.Bytes()
			switch {
			case bytes.HasPrefix(line, []byte("data:")):
				data = append(data, bytes.TrimSpace(line[5:])...)
			case len(line) == 0 && len(data) > 0:
				lines, data = append(lines, data), nil
			}
		}
		if len(data) > 0 {
			lines = append(lines, data)
		}
		if err := sc.Err(); err != nil {
			t.fail(err)
			return 0, err
		}
	} else {
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.fail(err)
			return 0, err
		}
		if b = bytes.TrimSpace(b); len(b) > 0 {
			lines = append(lines, b)
		}
	}
	t.mu.Lock()
	for _, l := range lines {
		t.buf.Write(l)
		t.buf.WriteByte('\n')
	}
	t.cond.Broadcast()
	t.mu.Unlock()
	return len(p), nil
}

func (t *httpLines) fail(err error) {
	t.mu.Lock()
	t.err = err
	t.cond.Broadcast()
	t.mu.Unlock()
}

// Read returns queued reply lines, waiting for some.
func (t *httpLines) Read(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for t.buf.Len() == 0 && t.err == nil {
		t.cond.Wait()
	}
	if t.buf.Len() > 0 {
		return t.buf.Read(p)
	}
	return 0, t.err
}
