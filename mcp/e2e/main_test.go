package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/journalfs/journal/mcp/internal/testbin"
)

var (
	binary  string // the built journal binary
	repo    string // repository root
	nodeDir string // testdata/e2e
)

func TestMain(m *testing.M) {
	repo = testbin.Repo()
	nodeDir = filepath.Join(repo, "testdata", "e2e")
	bin, cleanup, err := testbin.Build("journal-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = bin
	code := m.Run()
	cleanup()
	os.Exit(code)
}

// requireNode fails (never skips) when the real clients are not installed.
func requireNode(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(nodeDir, "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		t.Fatalf("the TypeScript SDK is not installed: run scripts/setup-e2e.sh (%v)", err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("node is not installed: %v", err)
	}
}

// rpc is a minimal JSON-RPC client over a server's stdio, for raw protocol checks.
type rpc struct {
	t   *testing.T
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	id  int
}

func startStdio(t *testing.T, root string, args ...string) *rpc {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"serve", "--root", root}, args...)...)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := &rpc{t: t, cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	t.Cleanup(r.close)
	return r
}

func (r *rpc) close() { closeAndWait(r.in, r.cmd, 5*time.Second) }

// closeAndWait closes a child's stdin (its client is gone) and waits for it
// to exit, killing it after d.
func closeAndWait(in io.Closer, cmd *exec.Cmd, d time.Duration) {
	in.Close()
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
		cmd.Process.Kill()
	}
}

// request sends a request and returns the raw response (skipping notifications).
func (r *rpc) request(method string, params any) map[string]any {
	r.t.Helper()
	r.id++
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": r.id, "method": method, "params": params})
	if _, err := r.in.Write(append(msg, '\n')); err != nil {
		r.t.Fatal(err)
	}
	for {
		line, err := r.out.ReadBytes('\n')
		if err != nil {
			r.t.Fatalf("%s: read: %v", method, err)
		}
		var resp map[string]any
		if err := json.Unmarshal(line, &resp); err != nil {
			r.t.Fatalf("%s: bad JSON %q", method, line)
		}
		if _, ok := resp["id"]; ok {
			return resp
		}
	}
}

func (r *rpc) notify(method string) {
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method})
	r.in.Write(append(msg, '\n'))
}

func (r *rpc) initialize(name string) {
	r.t.Helper()
	resp := r.request("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": name, "version": "1"}})
	if resp["error"] != nil {
		r.t.Fatalf("initialize: %v", resp["error"])
	}
	r.notify("notifications/initialized")
}

// tool calls a tool; it returns the result object.
func (r *rpc) tool(name string, args any) map[string]any {
	r.t.Helper()
	resp := r.request("tools/call", map[string]any{"name": name, "arguments": args})
	if resp["error"] != nil {
		r.t.Fatalf("%s: protocol error %v", name, resp["error"])
	}
	return resp["result"].(map[string]any)
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func runJournal(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("journal %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// step is one tool call a scripted SDK client made (semantic.mjs, lsp.mjs).
type step struct {
	Name       string          `json:"name"`
	IsError    bool            `json:"isError"`
	Structured json.RawMessage `json:"structured"`
	Text       string          `json:"text"`
}

// runSteps runs a scripted TypeScript SDK client against the binary serving
// root and returns the steps it reports; env is added to the environment.
func runSteps(t *testing.T, script, root string, env ...string) []step {
	t.Helper()
	cmd := exec.Command("node", script, binary, root)
	cmd.Dir = nodeDir
	cmd.Stderr = os.Stderr
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
	var r struct {
		Steps []step `json:"steps"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
	return r.Steps
}
