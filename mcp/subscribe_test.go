package mcp_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	jmcp "github.com/journalfs/journal/mcp"
	"github.com/journalfs/journal/replay"
)

// TestSubscribe: a client (protocol 2025-11-25) subscribed to
// journal://events and to a.txt's history hears of every commit that adds
// events — this server's, and another writer's on the same journal (a
// second engine, as a second server or the CLI would be) — within a
// second, and of a.txt's only when a.txt changed; after unsubscribing,
// nothing.
func TestSubscribe(t *testing.T) {
	e := newEnv(t, jmcp.Options{}, "a.txt", "one\n", "b.txt", "two\n")
	c, err := client.NewInProcessClient(e.srv.MCP())
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var mu sync.Mutex
	got := map[string]int{}
	c.OnNotification(func(n mcpgo.JSONRPCNotification) {
		if n.Method == "notifications/resources/updated" {
			mu.Lock()
			got[n.Params.AdditionalFields["uri"].(string)]++
			mu.Unlock()
		}
	})
	init := mcpgo.InitializeRequest{}
	init.Params.ProtocolVersion = "2025-11-25"
	init.Params.ClientInfo = mcpgo.Implementation{Name: "sub", Version: "1"}
	res, err := c.Initialize(ctx, init)
	if err != nil {
		t.Fatal(err)
	}
	if res.Capabilities.Resources == nil || !res.Capabilities.Resources.Subscribe {
		t.Fatalf("resources capability: %+v", res.Capabilities.Resources)
	}
	// the instructions tell an agent how to work with the journal (not
	// progress, which its client asks for: a model sends no progressToken)
	for _, w := range []string{"expected_version", "already_applied", "candidates", "retry", "undo"} {
		if !strings.Contains(res.Instructions, w) {
			t.Fatalf("the instructions do not mention %s:\n%s", w, res.Instructions)
		}
	}
	for _, uri := range []string{"journal://events", "journal://files/a.txt/events"} {
		req := mcpgo.SubscribeRequest{}
		req.Params.URI = uri
		if err := c.Subscribe(ctx, req); err != nil {
			t.Fatal(err)
		}
	}
	wait := func(what string, want map[string]int) {
		t.Helper()
		deadline := time.Now().Add(3 * time.Second)
		for {
			mu.Lock()
			ok := true
			for k, v := range want {
				ok = ok && got[k] >= v
			}
			snapshot := fmt.Sprint(got)
			mu.Unlock()
			if ok {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: updates %s, want at least %v", what, snapshot, want)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	start := time.Now()
	e.ok("file_replace", map[string]any{"ops": []map[string]any{{"path": "a.txt", "content": "ONE\n"}}}, nil)
	wait("this server's edit of a.txt", map[string]int{"journal://events": 1, "journal://files/a.txt/events": 1})
	t.Logf("first update %v after the edit", time.Since(start))
	e.ok("file_replace", map[string]any{"ops": []map[string]any{{"path": "b.txt", "content": "TWO\n"}}}, nil)
	wait("this server's edit of b.txt", map[string]int{"journal://events": 2})
	mu.Lock()
	if got["journal://files/a.txt/events"] != 1 {
		t.Fatalf("a.txt's history updated by an edit of b.txt: %v", got)
	}
	mu.Unlock()
	// another writer
	other, err := replay.Open(replay.Options{Roots: []string{e.dir}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Apply(context.Background(), &replay.Batch{Tool: "cli", Changes: []replay.Change{{Path: filepath.Join(e.dir, "a.txt"), Data: []byte("uno\n")}}}); err != nil {
		t.Fatal(err)
	}
	other.Close()
	wait("another writer's edit of a.txt", map[string]int{"journal://events": 3, "journal://files/a.txt/events": 2})
	// unsubscribed: nothing more
	for _, uri := range []string{"journal://events", "journal://files/a.txt/events"} {
		req := mcpgo.UnsubscribeRequest{}
		req.Params.URI = uri
		if err := c.Unsubscribe(ctx, req); err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	before := fmt.Sprint(got)
	mu.Unlock()
	if err := os.WriteFile(filepath.Join(e.dir, "a.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.ok("file_replace", map[string]any{"ops": []map[string]any{{"path": "a.txt", "content": "y\n"}}}, nil)
	time.Sleep(600 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	if fmt.Sprint(got) != before {
		t.Fatalf("updates after unsubscribing: %v, was %s", got, before)
	}
	// the file history resource reads
	var rr mcpgo.ReadResourceRequest
	rr.Params.URI = "journal://files/a.txt/events"
	r, err := c.ReadResource(ctx, rr)
	if err != nil || len(r.Contents) != 1 {
		t.Fatalf("read %s: %v %+v", rr.Params.URI, err, r)
	}
}

// TestSubscribe_Listen: on protocol 2026-07-28 a client names the resources
// in a subscriptions/listen stream; updates come tagged with the stream's
// id while it is open, and stop when it closes.
func TestSubscribe_Listen(t *testing.T) {
	e := newEnv(t, jmcp.Options{}, "a.txt", "one\n")
	var mu sync.Mutex
	var got []mcpgo.JSONRPCNotification
	e.c.OnNotification(func(n mcpgo.JSONRPCNotification) {
		if n.Method == "notifications/resources/updated" {
			mu.Lock()
			got = append(got, n)
			mu.Unlock()
		}
	})
	count := func() int { mu.Lock(); defer mu.Unlock(); return len(got) }
	lctx, stop := context.WithCancel(ctx)
	listening := make(chan error, 1)
	go func() {
		listening <- e.c.Listen(lctx, mcpgo.SubscriptionFilter{ResourceSubscriptions: []string{"journal://files/a.txt/events"}})
	}()
	deadline := time.Now().Add(5 * time.Second)
	for i := 0; count() == 0; i++ {
		if time.Now().After(deadline) {
			t.Fatal("no update on the listen stream")
		}
		if i%10 == 0 {
			e.ok("file_replace", map[string]any{"ops": []map[string]any{{"path": "a.txt", "content": fmt.Sprintf("v%d\n", i)}}}, nil)
		}
		time.Sleep(50 * time.Millisecond)
	}
	mu.Lock()
	n := got[0]
	mu.Unlock()
	if n.Params.AdditionalFields["uri"] != "journal://files/a.txt/events" || n.Params.Meta[mcpgo.MetaKeySubscriptionID] == nil {
		t.Fatalf("the update: %+v", n.Params)
	}
	stop()
	<-listening
	time.Sleep(300 * time.Millisecond) // the server ends the stream
	before := count()
	e.ok("file_replace", map[string]any{"ops": []map[string]any{{"path": "a.txt", "content": "after\n"}}}, nil)
	time.Sleep(600 * time.Millisecond)
	if count() != before {
		t.Fatalf("updates after the stream closed: %d, was %d", count(), before)
	}
}
