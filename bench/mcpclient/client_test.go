package mcpclient_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/journalfs/journal/bench/mcpclient"
)

// fakeServer reads requests line by line and lets the test script replies.
type fakeServer struct {
	in  *bufio.Reader // requests from the client
	out io.WriteCloser
}

func pair(t *testing.T) (*mcpclient.Client, *fakeServer) {
	t.Helper()
	cr, sw := io.Pipe() // server → client
	sr, cw := io.Pipe() // client → server
	t.Cleanup(func() { sw.Close(); cw.Close() })
	return mcpclient.New(cr, cw), &fakeServer{in: bufio.NewReader(sr), out: sw}
}

func (s *fakeServer) next(t *testing.T) map[string]any {
	t.Helper()
	line, err := s.in.ReadBytes('\n')
	if err != nil {
		t.Errorf("server read: %v", err)
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal(line, &m); err != nil {
		t.Errorf("request is not one JSON line: %q: %v", line, err)
	}
	return m
}

func (s *fakeServer) send(t *testing.T, chunks ...string) {
	t.Helper()
	for _, c := range chunks {
		if _, err := io.WriteString(s.out, c); err != nil {
			t.Errorf("server write: %v", err)
		}
	}
}

func TestClient_Initialize_Handshake(t *testing.T) {
	c, s := pair(t)
	done := make(chan struct{})
	go func() {
		defer close(done)
		req := s.next(t)
		if req["method"] != "initialize" || req["jsonrpc"] != "2.0" || req["id"] != float64(1) {
			t.Errorf("first request = %v", req)
		}
		// reply split across writes, with a log notification before it
		s.send(t, `{"jsonrpc":"2.0","method":"notifications/message","params":{}}`+"\n",
			`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25",`, `"serverInfo":{"name":"fake","version":"9"}}}`+"\n")
		n := s.next(t)
		if n["method"] != "notifications/initialized" || n["id"] != nil {
			t.Errorf("second message = %v, want the initialized notification", n)
		}
	}()
	res, err := c.Initialize("test")
	if err != nil {
		t.Fatal(err)
	}
	<-done
	if res.ServerInfo.Name != "fake" || res.ProtocolVersion != "2025-11-25" {
		t.Errorf("result = %+v", res)
	}
}

func TestClient_Request_AnswersServerRequests(t *testing.T) {
	c, s := pair(t)
	go func() {
		s.next(t)
		s.send(t, `{"jsonrpc":"2.0","id":"srv-1","method":"roots/list"}`+"\n")
		ans := s.next(t)
		if ans["id"] != "srv-1" || ans["error"] == nil {
			t.Errorf("answer to roots/list = %v, want a method-not-found error", ans)
		}
		s.send(t, `{"jsonrpc":"2.0","id":7,"method":"ping"}`+"\n")
		if pong := s.next(t); pong["id"] != float64(7) || pong["result"] == nil {
			t.Errorf("answer to ping = %v", pong)
		}
		s.send(t, "\n", `{"jsonrpc":"2.0","id":1,"result":{"ok":true}}`+"\n")
	}()
	raw, err := c.Request("x", nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(raw) != `{"ok":true}` {
		t.Errorf("result = %s", raw)
	}
}

func TestClient_CallTool_LargeReplyAndErrors(t *testing.T) {
	c, s := pair(t)
	big := strings.Repeat("x", 3<<20)
	go func() {
		req := s.next(t)
		p := req["params"].(map[string]any)
		if p["name"] != "read" || p["arguments"].(map[string]any)["path"] != "/a" {
			t.Errorf("params = %v", p)
		}
		s.send(t, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"`+big+`"},{"type":"text","text":"tail"}]}}`+"\n")
		s.next(t)
		s.send(t, `{"jsonrpc":"2.0","id":2,"result":{"isError":true,"content":[{"type":"text","text":"no such file"}]}}`+"\n")
		s.next(t)
		s.send(t, `{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"unknown tool"}}`+"\n")
	}()
	res, err := c.CallTool("read", map[string]string{"path": "/a"})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Text(); len(got) != len(big)+5 || !strings.HasSuffix(got, "\ntail") {
		t.Errorf("text has %d bytes", len(got))
	}
	if c.LastReplyBytes < len(big) {
		t.Errorf("LastReplyBytes = %d", c.LastReplyBytes)
	}
	_, err = c.CallTool("read", nil)
	var te *mcpclient.ToolError
	if !errors.As(err, &te) || te.Text != "no such file" {
		t.Errorf("isError result: err = %v", err)
	}
	_, err = c.CallTool("nope", nil)
	var re *mcpclient.RPCError
	if !errors.As(err, &re) || re.Code != -32602 {
		t.Errorf("error reply: err = %v", err)
	}
}

func TestClient_ListTools_FollowsCursor(t *testing.T) {
	c, s := pair(t)
	go func() {
		if r := s.next(t); r["params"].(map[string]any)["cursor"] != nil {
			t.Errorf("first page sent a cursor: %v", r)
		}
		s.send(t, `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object","properties":{"p":{},"q":{}}}}],"nextCursor":"c2"}}`+"\n")
		if r := s.next(t); r["params"].(map[string]any)["cursor"] != "c2" {
			t.Errorf("second page cursor: %v", r)
		}
		s.send(t, `{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"b"}]}}`+"\n")
	}()
	tools, err := c.ListTools()
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != 2 || tools[0].Name != "a" || tools[1].Name != "b" {
		t.Fatalf("tools = %+v", tools)
	}
	if p := tools[0].Properties(); !p["p"] || !p["q"] || len(p) != 2 {
		t.Errorf("properties = %v", p)
	}
}

func TestClient_Request_Timeout(t *testing.T) {
	c, s := pair(t)
	go s.next(t) // read the request, never answer
	c.Timeout = 20 * time.Millisecond
	c.OnTimeout = func() { s.out.Close() }
	_, err := c.Request("slow", nil)
	if !errors.Is(err, mcpclient.ErrTimeout) {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
}

func TestClient_Request_ServerGone(t *testing.T) {
	c, s := pair(t)
	go func() { s.next(t); s.out.Close() }()
	_, err := c.Request("x", nil)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("err = %v, want unexpected EOF", err)
	}
}

func TestClient_Request_BadJSON(t *testing.T) {
	c, s := pair(t)
	go func() { s.next(t); s.send(t, "Debugger listening\n") }()
	if _, err := c.Request("x", nil); err == nil || !strings.Contains(err.Error(), "bad JSON") {
		t.Fatalf("err = %v", err)
	}
}
