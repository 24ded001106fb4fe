package mcp_test

import (
	"context"
	"errors"
	"io"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	jmcp "github.com/journalfs/journal/mcp"
)

// writerSide serves followers of srv on a unix socket until drained.
type writerSide struct {
	ln    net.Listener
	drain chan struct{}
	wg    sync.WaitGroup
}

func serveFollowers(t *testing.T, srv *jmcp.Server, config string) *writerSide {
	t.Helper()
	ln, err := net.Listen("unix", filepath.Join(t.TempDir(), "s.sock"))
	if err != nil {
		t.Fatal(err)
	}
	w := &writerSide{ln: ln, drain: make(chan struct{})}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			w.wg.Add(1)
			go func() {
				defer w.wg.Done()
				defer c.Close()
				srv.ServeFollower(context.Background(), c, config, w.drain)
			}()
		}
	}()
	return w
}

// handOver is what a writer does when its own client ends.
func (w *writerSide) handOver() {
	w.ln.Close()
	close(w.drain)
	w.wg.Wait()
}

// relayedClient is an mcp-go client whose stdio is a Relay's.
func relayedClient(t *testing.T, relay func(in io.Reader, out io.Writer) *jmcp.Relay, sampling client.SamplingHandler) (*client.Client, *jmcp.Relay) {
	t.Helper()
	cr, cw := io.Pipe() // client → relay
	rr, rw := io.Pipe() // relay → client
	r := relay(cr, rw)
	var opts []client.ClientOption
	if sampling != nil {
		opts = append(opts, client.WithSamplingHandler(sampling))
	}
	c := client.NewClient(transport.NewIO(rr, cw, nil), opts...)
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, r
}

func initialize(t *testing.T, c *client.Client, name string, sampling bool) {
	t.Helper()
	req := mcpgo.InitializeRequest{}
	req.Params.ProtocolVersion = "2025-06-18" // sampling requests are replaced in 2026-07-28
	req.Params.ClientInfo = mcpgo.Implementation{Name: name, Version: "1.0"}
	if sampling {
		req.Params.Capabilities.Sampling = &mcpgo.SamplingCapability{}
	}
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatal(err)
	}
}

// TestRelay_FollowsThenServesItself: a client's session relayed to a
// writer (its calls, the writer's sampling request to it, its events under
// its own session), then — the writer handing over — served by the relay's
// own server, with the session's read version carried over, without the
// client re-initializing.
func TestRelay_FollowsThenServesItself(t *testing.T) {
	e := newEnv(t, jmcp.Options{}, "app.py", "def greet(n):\n    print(n)\n", "f.txt", "a\nb\nc\nd\n")
	w := serveFollowers(t, e.srv, "cfg")
	follow := make(chan error, 1)
	sm := &sampler{}
	c, relay := relayedClient(t, func(in io.Reader, out io.Writer) *jmcp.Relay {
		r := jmcp.NewRelay(in, out, "cfg", "stdio-relayed")
		go func() {
			conn, err := net.Dial("unix", w.ln.Addr().String())
			if err != nil {
				follow <- err
				return
			}
			done, err := r.Follow(conn)
			if err == nil && done {
				err = errors.New("done before the client ended")
			}
			follow <- err
		}()
		return r
	}, sm)
	initialize(t, c, "relayed-client", true)

	res := e.call(c, "ai_code_editing.edit_file", map[string]any{"target_file": "app.py", "edit_instruction": "add a main that greets the world"})
	if res.IsError || len(sm.prompts) != 1 {
		t.Fatalf("sampling through the relay: %s, prompts %q", text(res), sm.prompts)
	}
	res = e.call(c, "read_content", map[string]any{"absolute_file_path": "f.txt"})
	if res.IsError {
		t.Fatal(text(res))
	}
	// another session moves the lines the relayed one read
	e.ok("file_insert_text", map[string]any{"ops": []map[string]any{{"path": "f.txt", "content": "new", "at": "bof"}}}, nil)

	w.handOver()
	if err := <-follow; err != nil {
		t.Fatalf("Follow: %v", err)
	}
	own := jmcp.New(e.eng, jmcp.Options{Session: relay.Session()})
	go relay.Serve(context.Background(), own)

	res = e.call(c, "file_replace", map[string]any{"ops": []map[string]any{{"path": "f.txt", "content": "C", "start_line": 3}}})
	if res.IsError || !strings.Contains(text(res), "moved") {
		t.Fatalf("line 3 of the relayed session's read, after the hand-over: %s", text(res))
	}
	if got := e.read("f.txt"); got != "new\na\nb\nC\nd\n" {
		t.Fatalf("f.txt %q", got)
	}
	st, err := e.eng.Status()
	if err != nil {
		t.Fatal(err)
	}
	sessions := map[string]bool{}
	for seq := uint64(1); seq <= uint64(st.Events); seq++ {
		if ev, err := e.eng.Event(seq); err == nil && ev.Actor.Name == "relayed-client" {
			sessions[ev.Actor.Session] = true
		}
	}
	if len(sessions) != 1 || !sessions["stdio-relayed"] {
		t.Fatalf("the relayed client's events were recorded under sessions %v, want stdio-relayed only", sessions)
	}
}

// TestRelay_OtherConfigRefused: a writer of another configuration refuses
// the relay, which then relays nothing.
func TestRelay_OtherConfigRefused(t *testing.T) {
	e := newEnv(t, jmcp.Options{})
	w := serveFollowers(t, e.srv, "cfg-a")
	defer w.handOver()
	conn, err := net.Dial("unix", w.ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	r := jmcp.NewRelay(strings.NewReader(""), io.Discard, "cfg-b", "stdio-x")
	if _, err := r.Follow(conn); !errors.Is(err, jmcp.ErrShareRefused) {
		t.Fatalf("Follow: %v, want ErrShareRefused", err)
	}
}
