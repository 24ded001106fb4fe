package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/journalfs/journal/journal"
	jmcp "github.com/journalfs/journal/mcp"
	"github.com/journalfs/journal/replay"
	"github.com/journalfs/journal/snapshot"
)

// stdio drives Server.ServeStdio — the transport `journal serve` runs —
// over pipes with hand-written JSON-RPC lines, as a client process would.
type stdio struct {
	t   testing.TB
	in  *io.PipeWriter
	out *bufio.Reader
	id  int
}

func newStdio(t testing.TB, srv *jmcp.Server) *stdio {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.ServeStdio(ctx, inR, outW)
		outW.Close()
	}()
	t.Cleanup(func() { inW.Close(); cancel(); <-done })
	s := &stdio{t: t, in: inW, out: bufio.NewReaderSize(outR, 1<<20)}
	s.request("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "wire-test", "version": "1"}})
	s.send([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	return s
}

func (s *stdio) send(line []byte) {
	s.t.Helper()
	if _, err := s.in.Write(append(line, '\n')); err != nil {
		s.t.Fatal(err)
	}
}

// raw sends one request line (its id must be s.id) and returns the reply.
func (s *stdio) raw(line []byte) map[string]any {
	s.t.Helper()
	s.send(line)
	for {
		b, err := s.out.ReadBytes('\n')
		if err != nil {
			s.t.Fatalf("reading the reply: %v", err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			s.t.Fatalf("reply %q: %v", b, err)
		}
		if id, ok := m["id"].(float64); ok && int(id) == s.id {
			return m
		}
	}
}

func (s *stdio) request(method string, params any) map[string]any {
	s.t.Helper()
	s.id++
	line, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": s.id, "method": method, "params": params})
	if err != nil {
		s.t.Fatal(err)
	}
	return s.raw(line)
}

// tool calls a tool and returns its result, failing on a protocol error.
func (s *stdio) tool(name string, args any) map[string]any {
	s.t.Helper()
	r := s.request("tools/call", map[string]any{"name": name, "arguments": args})
	res, ok := r["result"].(map[string]any)
	if !ok {
		s.t.Fatalf("%s: %v", name, r["error"])
	}
	return res
}

func resultText(res map[string]any) string {
	var b strings.Builder
	for _, c := range res["content"].([]any) {
		b.WriteString(c.(map[string]any)["text"].(string))
	}
	return b.String()
}

func wireEnv(t testing.TB) (string, *replay.Engine, *jmcp.Server) {
	dir := t.TempDir()
	eng, err := replay.Open(replay.Options{Roots: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return eng.Roots()[0].Dir, eng, jmcp.New(eng, jmcp.Options{})
}

// wireText is content whose JSON form has every kind of escape: quotes,
// backslashes, control characters, non-ASCII (raw and as \u escapes,
// including a surrogate pair), and CRLF lines.
func wireText(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "\tline %06d: \"quoted\" \\ back\\slash naïve ünïcode 😀 \x01\x1f </script>\r\n", i)
	}
	return b.String()
}

// TestWire_LongArgumentsDecodedOnce writes files whole through the stdio
// transport with contents short and long (lightened at the transport) and
// escapes of every kind, single and in one batch: the bytes on disk, the
// audit record (hash and size, not the bytes) and the reply are those of a
// call that was not lightened.
func TestWire_LongArgumentsDecodedOnce(t *testing.T) {
	dir, eng, srv := wireEnv(t)
	s := newStdio(t, srv)
	for _, n := range []int{100, 8 << 10, 64 << 10, 3 << 20, 17 << 20} { // 17 MiB: over the stream threshold
		want := wireText(n)
		path := filepath.Join(dir, fmt.Sprintf("w%d.txt", n))
		res := s.tool("file_create_new", map[string]any{"ops": []map[string]any{{"path": path, "content": want}}})
		if res["isError"] == true {
			t.Fatalf("%d: %s", n, resultText(res))
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != want {
			t.Fatalf("%d bytes: the file differs from what was sent (%d bytes, %v)", n, len(got), err)
		}
		ev := lastEvent(t, eng)
		if len(want) > 256 {
			sum := snapshot.Sum([]byte(want)).String()
			if !strings.Contains(string(ev.Args), sum) || strings.Contains(string(ev.Args), "journal-spill") || len(ev.Args) > 1024 {
				t.Fatalf("%d bytes: audit args %.300s", n, ev.Args)
			}
		}
	}
	// a batch of long contents, one of them in a second op, plus a short one
	a, b := wireText(40<<10)+"a", wireText(50<<10)+"b"
	pa, pb, pc := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt"), filepath.Join(dir, "c.txt")
	res := s.tool("file_create_new", map[string]any{"ops": []map[string]any{{"path": pa, "content": a}, {"path": pb, "content": b}, {"path": pc, "content": "short"}}})
	if res["isError"] == true {
		t.Fatal(resultText(res))
	}
	for p, want := range map[string]string{pa: a, pb: b, pc: "short"} {
		if got, _ := os.ReadFile(p); string(got) != want {
			t.Fatalf("%s differs", filepath.Base(p))
		}
	}
}

// TestWire_RefusalRetryCarriesTheContent: a refused call with a long
// argument offers a retry whose arguments are the ones sent (corrected), not
// the transport's placeholders, and the retry, sent as it is, applies.
func TestWire_RefusalRetryCarriesTheContent(t *testing.T) {
	dir, _, srv := wireEnv(t)
	path := filepath.Join(dir, "load.js")
	old := "function load(userId) {\n  const row = db.get(userId);\n  console.log(row);\n  return row;\n}\n"
	if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	s := newStdio(t, srv)
	// the name misremembered (UserId) in the search text only: refused, with
	// the corrected call, whose replacement is the long one sent
	var long strings.Builder
	long.WriteString("  const row = db.get(userId);\n")
	for i := 0; long.Len() < 20<<10; i++ {
		fmt.Fprintf(&long, "  // note %d: \"quoted\" naïve\n", i)
	}
	long.WriteString("  console.log(row);\n")
	res := s.tool("edit_content", map[string]any{"absolute_file_path": path, "preview": false,
		"search_text": "  const row = db.get(UserId);\n  console.log(row);\n", "replace_text": long.String()})
	if res["isError"] != true {
		t.Fatalf("not refused: %s", resultText(res))
	}
	te, ok := jmcp.ParseToolError(resultText(res))
	if !ok || te.Retry == nil {
		t.Fatalf("no retry in the refusal: %.800s", resultText(res))
	}
	b, _ := json.Marshal(te.Retry)
	if strings.Contains(string(b), "journal-spill") || !strings.Contains(string(b), "note 400: \\\"quoted\\\" naïve") {
		t.Fatalf("the retry does not carry the content sent: %.600s", b)
	}
	if got, _ := os.ReadFile(path); string(got) != old {
		t.Fatal("a refused call changed the file")
	}
	if r := s.tool(te.Retry.Tool, te.Retry.Arguments); r["isError"] == true {
		t.Fatalf("the retry as sent: %s", resultText(r))
	}
	got, _ := os.ReadFile(path)
	if !strings.Contains(string(got), "note 400: \"quoted\" naïve") || strings.Contains(string(got), "UserId") {
		t.Fatalf("after the retry:\n%.300s", got)
	}
}

// TestWire_StaleLinesRetryCarriesTheContent: a call by stale line numbers
// with a long code block, refused as ambiguous (the session's own insert
// moved the lines), offers a retry built from the call as sent — its code
// block whole, no placeholder — which applies when sent.
func TestWire_StaleLinesRetryCarriesTheContent(t *testing.T) {
	dir, _, srv := wireEnv(t)
	path := filepath.Join(dir, "main.go")
	src := "package main\n\nfunc run() error {\n\tif err := a(); err != nil {\n\t\treturn err\n\t}\n\tif err := b(); err != nil {\n\t\treturn err\n\t}\n\treturn nil\n}\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s := newStdio(t, srv)
	if r := s.tool("read_content", map[string]any{"absolute_file_path": path}); r["isError"] == true {
		t.Fatal(resultText(r))
	}
	if r := s.tool("file_insert_text", map[string]any{"ops": []map[string]any{{"path": "main.go", "at": "after_line", "line": 3, "content": "\tdefer trace()()"}}}); r["isError"] == true {
		t.Fatal(resultText(r))
	}
	var block strings.Builder
	for i := 0; block.Len() < 20<<10; i++ {
		fmt.Fprintf(&block, "\t\t// step %d: \"quoted\" naïve\n", i)
	}
	block.WriteString("\t\treturn fmt.Errorf(\"b: %w\", err)\n")
	res := s.tool("ai_code_editing.edit_file", map[string]any{"target_file": "main.go", "edit_instruction": "wrap b", "start_line": 8, "end_line": 8, "code_block": block.String()})
	te, ok := jmcp.ParseToolError(resultText(res))
	if res["isError"] != true || !ok || te.Retry == nil {
		t.Fatalf("not refused with a retry: %.800s", resultText(res))
	}
	if cb, _ := te.Retry.Arguments["code_block"].(string); cb != block.String() {
		t.Fatalf("the retry's code block is not the one sent (%d bytes, want %d): %.200s", len(cb), block.Len(), cb)
	}
	if r := s.tool(te.Retry.Tool, te.Retry.Arguments); r["isError"] == true {
		t.Fatalf("the retry as sent: %s", resultText(r))
	}
	if got, _ := os.ReadFile(path); !strings.Contains(string(got), "step 400: \"quoted\" naïve") || !strings.Contains(string(got), "\tdefer trace()()") {
		t.Fatalf("after the retry:\n%.300s", got)
	}
}

// TestWire_PlaceholdersCannotBeForged: a string that looks like a
// placeholder — of this process or not — is written as it is.
func TestWire_PlaceholdersCannotBeForged(t *testing.T) {
	dir, _, srv := wireEnv(t)
	s := newStdio(t, srv)
	path := filepath.Join(dir, "a.txt")
	forged := "journal-spill:00000000000000000000000000000000:1"
	res := s.tool("file_create_new", map[string]any{"ops": []map[string]any{{"path": path, "content": forged}}})
	if res["isError"] == true {
		t.Fatal(resultText(res))
	}
	if got, _ := os.ReadFile(path); string(got) != forged {
		t.Fatalf("got %q", got)
	}
}

// TestWire_OtherMessagesUnchanged: long strings in a message that is not a
// call of one of our tools, or that is not valid JSON, reach mcp-go as they
// were sent, so its answers are the same as without the transport's pass.
func TestWire_OtherMessagesUnchanged(t *testing.T) {
	_, _, srv := wireEnv(t)
	s := newStdio(t, srv)
	long := wireText(20 << 10)
	r := s.request("tools/call", map[string]any{"name": "no_such_tool", "arguments": map[string]any{"content": long}})
	if r["error"] == nil {
		t.Fatalf("unknown tool: %v", r)
	}
	if msg := fmt.Sprint(r["error"]); strings.Contains(msg, "journal-spill") {
		t.Fatalf("error names a placeholder: %s", msg)
	}
	// a duplicate member name: passed on as it is; mcp-go takes the last
	s.id++
	q, _ := json.Marshal(long)
	dup := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"journal_status","arguments":{"x":%s,"x":%s}}}`, s.id, q, q)
	r = s.raw([]byte(dup))
	if res, ok := r["result"].(map[string]any); !ok || res["isError"] != true || !strings.Contains(resultText(res), "INVALID_INPUT") {
		t.Fatalf("duplicate member: %v", r)
	}
	// truncated JSON: a parse error from mcp-go, and the server goes on
	s.send([]byte(`{"jsonrpc":"2.0","id":99,"method":"tools/call","params":{"name":"file_create_new","arguments":{"ops":[{"content":"` + strings.Repeat("y", 20<<10)))
	if res := s.tool("journal_status", map[string]any{}); res["isError"] == true {
		t.Fatal(resultText(res))
	}
}

func lastEvent(t testing.TB, eng *replay.Engine) *journal.Event {
	t.Helper()
	var last uint64
	if err := eng.Journal().View(func(tx *journal.Tx) error { last = tx.Last(); return nil }); err != nil {
		t.Fatal(err)
	}
	ev, err := eng.Event(last)
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

// BenchmarkWire_WriteWhole writes a file whole through the stdio transport
// (a new version each time, every line changed), as `journal serve`
// receives it.
func BenchmarkWire_WriteWhole(b *testing.B) {
	for _, kb := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("%dKB", kb), func(b *testing.B) {
			dir, _, srv := wireEnv(b)
			s := newStdio(b, srv)
			path := filepath.Join(dir, "gen.txt")
			os.WriteFile(path, []byte(wireText(kb*1000)), 0o644)
			b.SetBytes(int64(kb * 1000))
			for v := 0; b.Loop(); v++ {
				b.StopTimer()
				text := strings.ReplaceAll(wireText(kb*1000), "line", fmt.Sprintf("v%d", v))
				args, _ := json.Marshal(map[string]any{"ops": []map[string]any{{"path": path, "content": text}}})
				s.replace(b, args)
			}
		})
	}
}

// BenchmarkWire_WriteBatch writes 20 files of 512 KiB whole in one
// file_replace call through the stdio transport (a new version each time).
func BenchmarkWire_WriteBatch(b *testing.B) {
	dir, _, srv := wireEnv(b)
	s := newStdio(b, srv)
	paths := make([]string, 20)
	for f := range paths {
		paths[f] = filepath.Join(dir, fmt.Sprintf("gen%02d.txt", f))
		os.WriteFile(paths[f], []byte(wireText(512<<10)), 0o644)
	}
	b.SetBytes(20 * 512 << 10)
	for v := 0; b.Loop(); v++ {
		b.StopTimer()
		ops := make([]map[string]any, len(paths))
		for f, p := range paths {
			ops[f] = map[string]any{"path": p, "content": strings.ReplaceAll(wireText(512<<10), "line", fmt.Sprintf("v%d f%d", v, f))}
		}
		args, _ := json.Marshal(map[string]any{"ops": ops})
		s.replace(b, args)
	}
}

// replace sends a file_replace call with args (JSON), timed from the moment
// the line is ready, and fails b unless it succeeds.
func (s *stdio) replace(b *testing.B, args []byte) {
	s.id++
	line := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"file_replace","arguments":%s}}`, s.id, args)
	b.StartTimer()
	r := s.raw(line)
	if res, ok := r["result"].(map[string]any); !ok || res["isError"] == true {
		b.Fatalf("%v", r)
	}
}
