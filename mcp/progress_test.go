package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/journalfs/journal/journal"
	jmcp "github.com/journalfs/journal/mcp"
	"github.com/journalfs/journal/replay"
	"github.com/journalfs/journal/snapshot"
)

// bigText writes a text file of about n bytes into e's workspace.
func bigText(t *testing.T, e *env, name string, n int) string {
	t.Helper()
	var b strings.Builder
	b.Grow(n + 100)
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "line %08d: the quick brown fox jumps over the lazy dog %d\n", i, i%977)
	}
	p := filepath.Join(e.dir, name)
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// num is a notification's number (in process it is not a JSON float).
func num(v any) float64 {
	f, _ := strconv.ParseFloat(fmt.Sprint(v), 64)
	return f
}

// progressLog collects the progress notifications the client receives.
type progressLog struct {
	mu    sync.Mutex
	got   []map[string]any
	first chan struct{}
	once  sync.Once
}

func listen(e *env) *progressLog {
	pl := &progressLog{first: make(chan struct{})}
	e.c.OnNotification(func(n mcpgo.JSONRPCNotification) {
		if n.Method != "notifications/progress" {
			return
		}
		pl.mu.Lock()
		pl.got = append(pl.got, n.Params.AdditionalFields)
		pl.mu.Unlock()
		pl.once.Do(func() { close(pl.first) })
	})
	return pl
}

func (pl *progressLog) all() []map[string]any {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	return append([]map[string]any(nil), pl.got...)
}

// callWith calls a tool with a progress token, under ctx.
func callWith(ctx context.Context, e *env, token, name string, args map[string]any) (*mcpgo.CallToolResult, error) {
	req := mcpgo.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	req.Params.Meta = &mcpgo.Meta{ProgressToken: token}
	return e.c.CallTool(ctx, req)
}

// TestProgress_Search: a fuzzy search over 24 MiB with a progressToken gets
// notifications/progress for that token, progress increasing, total a
// multiple of the file's size (one per pass), at most about ten a second;
// without a token, none.
func TestProgress_Search(t *testing.T) {
	e := newEnv(t, jmcp.Options{})
	p := bigText(t, e, "big.txt", 24<<20)
	fi, _ := os.Stat(p)
	pl := listen(e)
	start := time.Now()
	res, err := callWith(ctx, e, "search-1", "search_content", map[string]any{"absolute_file_path": p, "pattern": "the quick brown fax jumps over the lazy dog 976", "fuzzy": true})
	took := time.Since(start)
	if err != nil || res.IsError {
		t.Fatalf("search: %v %s", err, text(res))
	}
	got := pl.all()
	t.Logf("%d notifications in %v", len(got), took)
	if len(got) < 3 {
		t.Fatalf("%d progress notifications over %v: %v", len(got), took, got)
	}
	if max := int(took/(100*time.Millisecond)) + 4; len(got) > max { // a first one per pass, and the last
		t.Fatalf("%d notifications in %v: more than ten a second", len(got), took)
	}
	// exact, then fuzzy: the second pass goes on from the first's end, its
	// total one file further
	prev := -1.0
	for _, n := range got {
		pr, total := num(n["progress"]), num(n["total"])
		passes := total / float64(fi.Size())
		if n["progressToken"] != "search-1" || pr <= prev || pr > total || passes != float64(int(passes)) || !strings.Contains(fmt.Sprint(n["message"]), "searched") {
			t.Fatalf("notification %v after progress %v", n, prev)
		}
		prev = pr
	}
	// no token: no notifications (a late one of the first search, delivered
	// after its reply, still names search-1)
	pl2 := len(pl.all())
	e.ok("search_content", map[string]any{"absolute_file_path": p, "pattern": "line 00000001:"}, nil)
	for _, n := range pl.all()[pl2:] {
		if n["progressToken"] != "search-1" {
			t.Fatalf("progress sent for a request without a token: %v", n)
		}
	}
}

// TestCancel_Search: a fuzzy search over 24 MiB (seconds of work) whose
// context is cancelled — what mcp-go does on notifications/cancelled —
// stops at its next block and fails with CANCELLED.
func TestCancel_Search(t *testing.T) {
	e := newEnv(t, jmcp.Options{})
	p := bigText(t, e, "big.txt", 24<<20)
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": map[string]any{
		"name": "search_content", "arguments": map[string]any{"absolute_file_path": p, "pattern": "nowhere at all in this file", "fuzzy": true}}})
	cctx, cancel := context.WithCancel(ctx)
	out := make(chan any, 1)
	var at time.Time
	go func() { out <- e.srv.MCP().HandleMessage(cctx, req) }()
	time.AfterFunc(300*time.Millisecond, func() { at = time.Now(); cancel() })
	res := <-out
	stopped := time.Since(at)
	b, _ := json.Marshal(res)
	if !strings.Contains(string(b), "CANCELLED") {
		t.Fatalf("the cancelled search: %s", b)
	}
	t.Logf("stopped %v after the cancellation", stopped)
}

// TestCancel_LargeEdit: an edit of a 64 MiB file (its new content streamed
// to a temporary file before the commit point) cancelled by its client
// while that content is written changes nothing: the file, the journal and
// the directory are as before.
func TestCancel_LargeEdit(t *testing.T) {
	e := newEnv(t, jmcp.Options{})
	p := bigText(t, e, "big.txt", 64<<20)
	before, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var last uint64
	e.eng.Journal().View(func(tx *journal.Tx) error { last = tx.Last(); return nil })
	pl := listen(e)
	cctx, cancel := context.WithCancel(ctx)
	go func() {
		<-pl.first
		cancel()
	}()
	res, err := callWith(cctx, e, "edit-1", "edit_content", map[string]any{"absolute_file_path": p, "search_text": "line 00000007:", "replace_text": "LINE 7:", "preview": false})
	t.Logf("the call: %v %v", err, text(res))
	// the engine's lock is held until the edit has stopped
	j := e.eng.Journal()
	after, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if snapshot.Sum(after) != snapshot.Sum(before) {
		var n uint64
		j.View(func(tx *journal.Tx) error { n = tx.Last(); return nil })
		t.Fatalf("a cancelled edit changed the file (journal %d → %d)", last, n)
	}
	var now uint64
	j.View(func(tx *journal.Tx) error { now = tx.Last(); return nil })
	if now != last {
		t.Fatalf("a cancelled edit recorded events %d-%d", last+1, now)
	}
	ents, _ := os.ReadDir(e.dir)
	for _, d := range ents {
		if d.Name() != "big.txt" && d.Name() != ".journal" {
			t.Fatalf("left behind: %s", d.Name())
		}
	}
	if len(pl.all()) == 0 {
		t.Fatal("no progress while the new content was written")
	}
}

// TestCancel_AfterCommitPoint: a batch whose client cancels it once its
// intent is being committed completes whole, and its reply says so.
func TestCancel_AfterCommitPoint(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"a.txt", "b.txt"} {
		write(t, dir, n, "old\n")
	}
	cctx, cancel := context.WithCancel(ctx)
	eng, err := replay.Open(replay.Options{Roots: []string{dir}, CommitFault: func() error { cancel(); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	srv := jmcp.New(eng, jmcp.Options{})
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{
		"name": "file_replace", "arguments": map[string]any{"ops": []map[string]any{{"path": "a.txt", "content": "new a\n"}, {"path": "b.txt", "content": "new b\n"}}}}})
	b, _ := json.Marshal(srv.MCP().HandleMessage(cctx, req))
	if !strings.Contains(string(b), "after its commit point") || strings.Contains(string(b), `"isError":true`) {
		t.Fatalf("the reply: %s", b)
	}
	for _, n := range []string{"a.txt", "b.txt"} {
		if got, _ := os.ReadFile(filepath.Join(dir, n)); string(got) != "new "+n[:1]+"\n" {
			t.Fatalf("%s = %q: the batch was torn", n, got)
		}
	}
}

// TestProgress_ReadByText: reading a 160 MiB mapped file at a text target
// first indexes its lines and then finds the text: both report their
// advance, in one increasing sequence. (The default maps files up to 64 MiB
// only; the mapped path is raised to reach it with this size.)
func TestProgress_ReadByText(t *testing.T) {
	defer jmcp.SetLargefileMmapLimit(500 << 20)()
	e := newEnv(t, jmcp.Options{})
	p := bigText(t, e, "big.txt", 160<<20)
	// content of its own: an index built for an earlier run's file (go test
	// -count) would leave nothing to index
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "run %d\n", time.Now().UnixNano())
	f.Close()
	pl := listen(e)
	res, err := callWith(ctx, e, "read-1", "read_content", map[string]any{"absolute_file_path": p, "target": "line 02000000:", "max_lines": 3})
	if err != nil || res.IsError || !strings.Contains(text(res), "line 02000000:") {
		t.Fatalf("read: %v %s", err, text(res))
	}
	// notifications are delivered on their own goroutine: the last may
	// arrive just after the reply
	var got []map[string]any
	var indexed, searched bool
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		got = pl.all()
		prev := -1.0
		indexed, searched = false, false
		for _, n := range got {
			pr := num(n["progress"])
			if pr <= prev {
				t.Fatalf("progress %v after %v", n, prev)
			}
			prev = pr
			m := fmt.Sprint(n["message"])
			indexed = indexed || strings.HasPrefix(m, "indexed")
			searched = searched || strings.HasPrefix(m, "searched")
		}
		if indexed && searched || time.Now().After(deadline) {
			break
		}
	}
	t.Logf("%d notifications", len(got))
	if !indexed || !searched {
		t.Fatalf("notifications: %v", got)
	}
}
