package main_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/journalfs/journal/replay/otlp"
	"github.com/journalfs/journal/replay/otlp/otlptest"
	"github.com/mark3labs/mcp-go/mcp"
)

// The secrets of the OTLP test: one in the prompt, one in the Bash call's
// command. Neither may reach the collector; their marks must.
const (
	otlpPromptSecret = "ghp_R4nd0mT0k3nV4lu3Xy9Zq8W7e6R5t4Y3u2I"
	otlpCallSecret   = "S3cretPassw0rd"
)

// An agent session — Claude Code's SessionStart, a prompt holding a
// token, a Bash call recorded by its hooks (its command holding a password
// in a URL), an edit through this project's MCP tool under the same
// prompt, beside a running `journal serve` — sent by `journal export
// --otlp` to a real OpenTelemetry Collector (otelcol-journal: the OTLP
// receiver and the file exporter), read back from the OTLP JSON the
// collector wrote: one trace, its root `invoke_agent claude-code` with the
// GenAI attributes, the prompt span under it, the two `execute_tool`
// spans under the prompt with their call ids, their files and line counts
// as journal.file events, each span timed as the journal recorded its
// event; the secrets masked (--otlp-content) — in clear nowhere in what
// the collector wrote. A second export sends the very same spans (same
// ids, same content). A bad endpoint and an unreachable collector fail
// with their codes and hints.
func TestExport_OTLPCollector(t *testing.T) {
	col := otlptest.Start(t)
	dir := t.TempDir()
	files(t, dir, map[string]string{"a.txt": "a\n", "m.txt": "m\n"})
	ok(t, dir, "exec", "--", "true") // the journal, and its baseline
	c, stderr := serveStdio(t, dir, "claude-code")
	feed := func(payload string) {
		t.Helper()
		if r := hookRun(t, dir, false, payload, "hook", "claude-code"); r.code != 0 || r.stdout != "" || r.stderr != "" {
			t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
		}
	}
	edited := func(name string, edit func(m map[string]any)) string {
		var m map[string]any
		if err := json.Unmarshal([]byte(sample(t, "claude-code", name, dir)), &m); err != nil {
			t.Fatal(err)
		}
		edit(m)
		b, _ := json.Marshal(m)
		return string(b)
	}
	command := cmdOne + " # pushed to https://deploy:" + otlpCallSecret + "@git.internal/app"
	withCommand := func(m map[string]any) { m["tool_input"].(map[string]any)["command"] = command }
	feed(sample(t, "claude-code", "session-start", dir))
	feed(edited("prompt", func(m map[string]any) { m["prompt"] = "use the token " + otlpPromptSecret + " to push" }))
	feed(edited("pre-bash", withCommand))
	bash(t, dir, command)
	feed(edited("post-bash", withCommand))
	feed(sample(t, "claude-code", "pre-mcp", dir))
	req := mcp.CallToolRequest{}
	req.Params.Name = "edit_content"
	req.Params.Arguments = map[string]any{"absolute_file_path": filepath.Join(dir, "m.txt"), "search_text": "m", "replace_text": "M by MCP", "preview": false}
	if res, err := c.CallTool(context.Background(), req); err != nil || res.IsError {
		t.Fatalf("edit_content: %v %+v\n%s", err, res, stderr)
	}
	feed(sample(t, "claude-code", "post-mcp", dir))
	c.Close() // the server seals its events as it ends

	times := map[string]time.Time{} // event seq → its time, as the journal has it
	for _, e := range logJSON(t, dir) {
		tm, err := time.Parse(time.RFC3339Nano, e["time"].(string))
		if err != nil {
			t.Fatal(err)
		}
		times[fmt.Sprint(e["seq"])] = tm
	}

	r := run(t, dir, "export", "--otlp", col.URL, "--otlp-content")
	if r.code != 0 || !strings.Contains(r.stderr, "sent 4 spans to "+col.URL+"/v1/traces: 1 session(s), 1 prompt(s), 2 tool call(s); 1 event(s) of no agent session not sent") {
		t.Fatalf("export --otlp: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	spans, raw := col.WaitSpans(4)
	for _, secret := range []string{otlpPromptSecret, otlpCallSecret} {
		if bytes.Contains(raw, []byte(secret)) {
			t.Errorf("the collector received the secret %s in clear:\n%s", secret, raw)
		}
	}
	if len(spans) != 4 {
		t.Fatalf("%d spans, want 4:\n%s", len(spans), raw)
	}
	by := map[string]otlptest.Span{}
	for _, s := range spans {
		by[s.Name] = s
		if s.TraceID != spans[0].TraceID {
			t.Errorf("span %q is in trace %s, not the session's %s", s.Name, s.TraceID, spans[0].TraceID)
		}
		if s.Scope != "github.com/journalfs/journal/replay/otlp" || s.ScopeSchema != "https://opentelemetry.io/schemas/1.41.0" {
			t.Errorf("span %q: scope %q, schema %q", s.Name, s.Scope, s.ScopeSchema)
		}
		if otlptest.Attr(s.Resource, "service.name") != "journal" || otlptest.Attr(s.Resource, "journal.workspace.id") == "" {
			t.Errorf("span %q: resource %+v", s.Name, s.Resource)
		}
	}
	root, prompt, bashSpan, mcpSpan := by["invoke_agent claude-code"], by["prompt"], by["execute_tool Bash"], by["execute_tool edit_content"]
	for name, s := range map[string]otlptest.Span{"invoke_agent claude-code": root, "prompt": prompt, "execute_tool Bash": bashSpan, "execute_tool edit_content": mcpSpan} {
		if s.SpanID == "" {
			t.Fatalf("no span %q among:\n%s", name, raw)
		}
	}
	const session = "00893aaf-19fa-41d2-8238-13269b9b3ca0"
	want := func(s otlptest.Span, attrs map[string]string) {
		t.Helper()
		for k, v := range attrs {
			if got := s.Attr(k); got != v {
				t.Errorf("span %q: %s = %q, want %q", s.Name, k, got, v)
			}
		}
	}
	if root.ParentSpanID != "" || prompt.ParentSpanID != root.SpanID || bashSpan.ParentSpanID != prompt.SpanID || mcpSpan.ParentSpanID != prompt.SpanID {
		t.Errorf("parents: root %q, prompt %q (root %s), bash %q and mcp %q (prompt %s)", root.ParentSpanID, prompt.ParentSpanID, root.SpanID,
			bashSpan.ParentSpanID, mcpSpan.ParentSpanID, prompt.SpanID)
	}
	want(root, map[string]string{"gen_ai.operation.name": "invoke_agent", "gen_ai.provider.name": "anthropic", "gen_ai.agent.name": "claude-code",
		"gen_ai.agent.id": "claude-code/" + session, "gen_ai.conversation.id": session, "gen_ai.request.model": "claude-sonnet-5",
		"journal.lines.added": "3", "journal.lines.removed": "2"})
	want(prompt, map[string]string{"gen_ai.conversation.id": session, "gen_ai.agent.name": "claude-code",
		"journal.prompt.id": "550e8400-e29b-41d4-a716-446655440000", "gen_ai.request.model": "claude-sonnet-5"})
	if msg := prompt.Attr("gen_ai.input.messages"); !strings.Contains(msg, "ghp_…[secret: ") || !strings.Contains(msg, `"role":"user"`) {
		t.Errorf("prompt's gen_ai.input.messages = %q, want the text with its token masked", msg)
	}
	want(bashSpan, map[string]string{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "Bash", "gen_ai.tool.call.id": "toolu_01ABC123",
		"gen_ai.conversation.id": session, "journal.event.kind": "observe", "journal.files.count": "2", "journal.lines.added": "2", "journal.lines.removed": "1"})
	if args := bashSpan.Attr("gen_ai.tool.call.arguments"); !strings.Contains(args, "deploy:…[secret: credential-in-url]@git.internal") {
		t.Errorf("Bash's gen_ai.tool.call.arguments = %q, want the command with its password masked", args)
	}
	want(mcpSpan, map[string]string{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "edit_content", "gen_ai.tool.call.id": "toolu_01MCP",
		"gen_ai.conversation.id": session, "journal.actor.kind": "mcp", "journal.event.kind": "apply", "journal.files.count": "1"})
	fileEvents := func(s otlptest.Span) string {
		var out []string
		for _, e := range s.Events {
			out = append(out, fmt.Sprintf("%s %s %s +%s -%s", e.Name, otlptest.Attr(e.Attributes, "journal.file.path"), otlptest.Attr(e.Attributes, "journal.file.change"),
				otlptest.Attr(e.Attributes, "journal.file.lines_added"), otlptest.Attr(e.Attributes, "journal.file.lines_removed")))
		}
		return strings.Join(out, "; ")
	}
	if got := fileEvents(bashSpan); got != "journal.file a.txt modified +1 -1; journal.file one.txt created +1 -0" {
		t.Errorf("Bash's file events: %s", got)
	}
	if got := fileEvents(mcpSpan); got != "journal.file m.txt modified +1 -1" {
		t.Errorf("edit_content's file events: %s", got)
	}
	nanos := func(s string) time.Time {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("time %q: %v", s, err)
		}
		return time.Unix(0, n).UTC()
	}
	// the MCP edit at its event's time, the prompt from its event; the
	// Bash call from its before-hook to its event (recorded after it)
	for _, s := range []otlptest.Span{mcpSpan, prompt} {
		seq := s.Attr("journal.event.seq")
		if s.Name == "prompt" {
			seq = s.Attr("journal.prompt.seq")
		}
		if got := nanos(s.Start); !got.Equal(times[seq]) {
			t.Errorf("span %q starts at %v, its event %s at %v", s.Name, got, seq, times[seq])
		}
	}
	if bs, be := nanos(bashSpan.Start), nanos(bashSpan.End); !be.Equal(times[bashSpan.Attr("journal.event.seq")]) || !bs.Before(be) || bs.Before(nanos(prompt.Start)) {
		t.Errorf("the Bash call's span %v–%v: want from its before-hook (after the prompt, %v) to its event (%v)", bs, be, nanos(prompt.Start), times[bashSpan.Attr("journal.event.seq")])
	}
	if !nanos(root.Start).Equal(nanos(prompt.Start)) || !nanos(root.End).Equal(nanos(mcpSpan.End)) || !nanos(prompt.End).Equal(nanos(mcpSpan.End)) {
		t.Errorf("the session and its prompt span from the prompt to the last call: root %s–%s, prompt %s–%s, last call %s", root.Start, root.End, prompt.Start, prompt.End, mcpSpan.End)
	}

	// again: the same spans, ids and all
	if r := run(t, dir, "export", "--otlp", col.URL, "--otlp-content"); r.code != 0 {
		t.Fatalf("second export --otlp: exit %d\n%s", r.code, r.stderr)
	}
	again, _ := col.WaitSpans(8)
	first, _ := json.Marshal(spans)
	second, _ := json.Marshal(again[4:])
	if !bytes.Equal(first, second) {
		t.Errorf("a second export sent other spans:\n%s\n%s", first, second)
	}

	// a range: --since after the Bash call sends the MCP call's span and its ancestors, the same as before
	mcpTime := nanos(mcpSpan.Start)
	if r := run(t, dir, "export", "--otlp", col.URL, "--since", mcpTime.Format(time.RFC3339Nano)); r.code != 0 || !strings.Contains(r.stderr, "sent 3 spans") {
		t.Fatalf("export --otlp --since: exit %d\n%s", r.code, r.stderr)
	}
	ranged, _ := col.WaitSpans(11)
	for _, s := range ranged[8:] {
		if s.Name == "execute_tool Bash" || s.Attr("gen_ai.input.messages") != "" || s.Attr("gen_ai.tool.call.arguments") != "" {
			t.Errorf("export --since without --otlp-content sent %q with %+v", s.Name, s.Attributes)
		}
		if s.Name == "prompt" && s.SpanID != prompt.SpanID || s.Name == "invoke_agent claude-code" && (s.SpanID != root.SpanID || s.End != root.End) {
			t.Errorf("the range's %q is not the whole export's: %+v", s.Name, s)
		}
	}

	// bad input: a clear error with a code and a hint, nothing sent
	for _, c := range []struct {
		args      []string
		code      int
		msg, hint string
	}{
		{[]string{"--otlp", "ftp://127.0.0.1:4318"}, 2, "journal: OTLP_ENDPOINT_INVALID: otlp: bad endpoint \"ftp://127.0.0.1:4318\"", "hint: give the collector's OTLP/HTTP receiver"},
		{[]string{"--otlp", col.URL, "--format", "csv"}, 2, "--format, -o, --remote and --workspace are for the audit trail", "hint: run `journal export --otlp URL`"},
		{[]string{"--otlp-content"}, 2, "--otlp-content goes with --otlp URL", ""},
		{[]string{"--otlp", "http://" + closedPort(t), "--otlp-timeout", "1s"}, 1, "journal: OTLP_SEND_FAILED: otlp: the spans were not sent to http://", "hint: is an OpenTelemetry collector's OTLP/HTTP receiver listening there?"},
	} {
		r := run(t, dir, append([]string{"export"}, c.args...)...)
		if r.code != c.code || !strings.Contains(r.stderr, c.msg) || !strings.Contains(r.stderr, c.hint) {
			t.Errorf("export %v: exit %d, want %d with %q and %q:\n%s", c.args, r.code, c.code, c.msg, c.hint, r.stderr)
		}
	}
	if n, _ := col.WaitSpans(11); len(n) != 11 {
		t.Errorf("a refused export sent spans: %d, want 11", len(n))
	}
}

// closedPort is a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// liveStatus waits until the live sender of the journal in dir says what
// ok wants, and returns it.
func liveStatus(t *testing.T, dir string, what string, ok func(*otlp.LiveStatus) bool) *otlp.LiveStatus {
	t.Helper()
	jp := filepath.Join(dir, ".journal", "journal.db")
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		st, err := otlp.ReadStatus(jp)
		if err == nil && st != nil && ok(st) {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("the live sender never said %s: %+v (%v)", what, st, err)
		}
	}
}

// `journal watch --otlp URL` beside an agent: the call's execute_tool span
// reaches a real collector as the watcher records it (`journal status`
// says it was sent), the prompt's and the session's when the session is
// idle or, as here (--otlp-idle 1h), when the watcher stops; and an export
// of the same journal afterwards sends the very same spans (ids, times,
// attributes).
func TestWatch_OTLPLive(t *testing.T) {
	col := otlptest.Start(t)
	dir := t.TempDir()
	files(t, dir, map[string]string{"a.txt": "a\n"})
	ok(t, dir, "exec", "--", "true") // the journal, and its baseline
	stop := startWatchArgs(t, dir, "--otlp", col.URL, "--otlp-idle", "1h")
	for _, s := range []string{"session-start", "prompt", "pre-bash"} {
		if r := hookRun(t, dir, false, sample(t, "claude-code", s, dir), "hook", "claude-code"); r.code != 0 || r.stderr != "" {
			t.Fatalf("%s: exit %d, stderr %q", s, r.code, r.stderr)
		}
	}
	bash(t, dir, cmdOne)
	if r := hookRun(t, dir, false, sample(t, "claude-code", "post-bash", dir), "hook", "claude-code"); r.code != 0 || r.stderr != "" {
		t.Fatalf("post-bash: exit %d, stderr %q", r.code, r.stderr)
	}
	if first, raw := col.WaitSpans(1); len(first) != 1 || first[0].Name != "execute_tool Bash" {
		t.Fatalf("the call's span did not come first, alone:\n%s", raw)
	}
	liveStatus(t, dir, "1 sent", func(st *otlp.LiveStatus) bool { return st.Sent == 1 })
	if out := ok(t, dir, "status"); !strings.Contains(out, "otlp      spans to "+col.URL+"/v1/traces (pid ") || !strings.Contains(out, "1 sent, 0 dropped (queue full), 0 failed") {
		t.Errorf("status:\n%s", out)
	}
	stop()
	live, _ := col.WaitSpans(3)
	names := map[string]bool{}
	for _, s := range live {
		names[s.Name] = true
	}
	if len(live) != 3 || !names["execute_tool Bash"] || !names["prompt"] || !names["invoke_agent claude-code"] {
		t.Fatalf("live spans: %v", names)
	}
	if st := liveStatus(t, dir, "stopped", func(st *otlp.LiveStatus) bool { return st.Stopped }); st.Sent != 3 || st.Dropped != 0 || st.Failed != 0 {
		t.Errorf("after stop: %+v", st)
	}
	if r := run(t, dir, "export", "--otlp", col.URL); r.code != 0 || !strings.Contains(r.stderr, "sent 3 spans") {
		t.Fatalf("export --otlp: exit %d\n%s", r.code, r.stderr)
	}
	all, _ := col.WaitSpans(6)
	bySpan := func(spans []otlptest.Span) map[string]string {
		m := map[string]string{}
		for _, s := range spans {
			b, _ := json.Marshal(s)
			m[s.SpanID] = string(b)
		}
		return m
	}
	if a, b := bySpan(all[:3]), bySpan(all[3:]); fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("live and export sent other spans:\n%v\n%v", a, b)
	}
}

// A collector that does not answer never holds the agent up: `journal
// watch --otlp` to a server that takes connections and never replies,
// with a queue of one batch: the first call's batch is being sent, the
// second's waits, the next ones are dropped and counted — `journal status`
// says so — and the hooks' calls are recorded as ever.
func TestWatch_OTLPLiveDrops(t *testing.T) {
	dir := t.TempDir()
	files(t, dir, map[string]string{"a.txt": "a\n"})
	ok(t, dir, "exec", "--", "true")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() { // a collector that hangs: connections taken, never answered
		var held []net.Conn
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	url := "http://" + ln.Addr().String()
	stop := startWatchArgs(t, dir, "--otlp", url, "--otlp-queue", "1", "--otlp-timeout", "10s", "--otlp-idle", "1h")
	defer stop()
	for i := range 4 {
		id := fmt.Sprintf("toolu_drop%d", i)
		cmd := fmt.Sprintf("echo %d > n%d.txt", i, i)
		for _, ev := range []string{"PreToolUse", "PostToolUse"} {
			if r := hookRun(t, dir, false, claudeCall(dir, ev, "s-drop", id, cmd), "hook", "claude-code"); r.code != 0 || r.stderr != "" {
				t.Fatalf("%s %s: exit %d, stderr %q", ev, id, r.code, r.stderr)
			}
			if ev == "PreToolUse" {
				bash(t, dir, cmd)
			}
		}
		evs := logJSON(t, dir)
		seq := uint64(evs[0]["seq"].(float64))
		if evs[0]["tool"] != "Bash" {
			seq = uint64(evs[len(evs)-1]["seq"].(float64))
		}
		liveStatus(t, dir, fmt.Sprintf("it read event %d", seq), func(st *otlp.LiveStatus) bool { return st.Seen >= seq })
	}
	st := liveStatus(t, dir, "a batch dropped", func(st *otlp.LiveStatus) bool { return st.Dropped >= 1 })
	if st.Sent != 0 {
		t.Errorf("sent %d spans to a collector that never answers", st.Sent)
	}
	if out := ok(t, dir, "status"); !strings.Contains(out, "otlp      spans to "+url+"/v1/traces") || !strings.Contains(out, "dropped (queue full)") || strings.Contains(out, " 0 dropped") {
		t.Errorf("status:\n%s", out)
	}
	n := 0
	for _, e := range logJSON(t, dir) {
		if e["tool"] == "Bash" {
			n++
		}
	}
	if n != 4 {
		t.Errorf("%d Bash calls recorded, want 4", n)
	}
}

// `journal serve --otlp URL`: an MCP client's session (no hooks) is a
// trace of its own — `invoke_agent` of the client, an `execute_tool` span
// per tool call — sent as the server records it.
func TestServe_OTLPLive(t *testing.T) {
	col := otlptest.Start(t)
	dir := t.TempDir()
	files(t, dir, map[string]string{"m.txt": "m\n"})
	c, stderr := serveStdio(t, dir, "some-client", "--otlp", col.URL, "--otlp-idle", "1s", "--watch=false")
	req := mcp.CallToolRequest{}
	req.Params.Name = "edit_content"
	req.Params.Arguments = map[string]any{"absolute_file_path": filepath.Join(dir, "m.txt"), "search_text": "m", "replace_text": "M", "preview": false}
	if res, err := c.CallTool(context.Background(), req); err != nil || res.IsError {
		t.Fatalf("edit_content: %v %+v\n%s", err, res, stderr)
	}
	spans, raw := col.WaitSpans(2)
	by := map[string]otlptest.Span{}
	for _, s := range spans {
		by[s.Name] = s
	}
	root, tool := by["invoke_agent some-client"], by["execute_tool edit_content"]
	if len(spans) != 2 || root.SpanID == "" || tool.ParentSpanID != root.SpanID || tool.TraceID != root.TraceID ||
		root.Attr("gen_ai.conversation.id") == "" || root.Attr("gen_ai.conversation.id") != tool.Attr("gen_ai.conversation.id") ||
		tool.Attr("journal.actor.kind") != "mcp" || tool.Attr("journal.files.count") != "1" {
		t.Fatalf("spans:\n%s", raw)
	}
}
