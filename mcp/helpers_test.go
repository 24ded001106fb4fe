package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	jmcp "github.com/journalfs/journal/mcp"
	"github.com/journalfs/journal/replay"
)

var ctx = context.Background()

// env is a workspace served by an in-process client.
type env struct {
	t   testing.TB
	dir string
	eng *replay.Engine
	srv *jmcp.Server
	c   *client.Client
}

func newEnv(t testing.TB, o jmcp.Options, files ...string) *env {
	t.Helper()
	return newEnvWith(t, func(string) jmcp.Options { return o }, files...)
}

// newEnvWith is newEnv with options that depend on the workspace directory.
func newEnvWith(t testing.TB, opts func(dir string) jmcp.Options, files ...string) *env {
	t.Helper()
	dir := t.TempDir()
	for i := 0; i+1 < len(files); i += 2 {
		write(t, dir, files[i], files[i+1])
	}
	e, closeEnv := openEnv(t, dir, opts(dir))
	t.Cleanup(closeEnv)
	return e
}

// openEnv serves the workspace dir in process and connects a client; the
// caller closes both with the function returned (newEnvWith at the test's
// end; the fuzzer's long mode after each chunk, so that what a chunk's
// server held is freed before the next).
func openEnv(t testing.TB, dir string, o jmcp.Options) (*env, func()) {
	t.Helper()
	eng, err := replay.Open(replay.Options{Roots: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	srv := jmcp.New(eng, o)
	e := &env{t: t, dir: dir, eng: eng, srv: srv}
	c, err := client.NewInProcessClient(srv.MCP())
	if err != nil {
		eng.Close()
		t.Fatal(err)
	}
	closeEnv := func() {
		c.Close()
		eng.Close()
	}
	if err := startClient(c, nil); err != nil {
		closeEnv()
		t.Fatal(err)
	}
	e.c = c
	return e, closeEnv
}

func connect(t testing.TB, srv *jmcp.Server, sampling client.SamplingHandler) *client.Client {
	t.Helper()
	var c *client.Client
	var err error
	if sampling != nil {
		c, err = client.NewInProcessClientWithSamplingHandler(srv.MCP(), sampling)
	} else {
		c, err = client.NewInProcessClient(srv.MCP())
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := startClient(c, sampling); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// startClient starts c and says hello as a client would.
func startClient(c *client.Client, sampling client.SamplingHandler) error {
	if err := c.Start(ctx); err != nil {
		return err
	}
	req := mcpgo.InitializeRequest{}
	req.Params.ProtocolVersion = mcpgo.LATEST_PROTOCOL_VERSION
	req.Params.ClientInfo = mcpgo.Implementation{Name: "test-client", Version: "1.0"}
	if sampling != nil {
		req.Params.Capabilities.Sampling = &mcpgo.SamplingCapability{}
	}
	_, err := c.Initialize(ctx, req)
	return err
}

func write(t testing.TB, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, name)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (e *env) read(name string) string {
	e.t.Helper()
	b, err := os.ReadFile(filepath.Join(e.dir, name))
	if err != nil {
		e.t.Fatalf("read %s: %v", name, err)
	}
	return string(b)
}

func (e *env) exists(name string) bool {
	_, err := os.Stat(filepath.Join(e.dir, name))
	return err == nil
}

// call invokes a tool and returns the result (failing the test on protocol errors).
func (e *env) call(c *client.Client, name string, args any) *mcpgo.CallToolResult {
	e.t.Helper()
	if c == nil {
		c = e.c
	}
	req := mcpgo.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		e.t.Fatalf("%s: protocol error: %v", name, err)
	}
	return res
}

// ok calls a tool that must succeed and decodes its structured result into out.
func (e *env) ok(name string, args any, out any) string {
	e.t.Helper()
	res := e.call(nil, name, args)
	if res.IsError {
		e.t.Fatalf("%s failed: %s", name, text(res))
	}
	if out != nil {
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, out); err != nil {
			e.t.Fatalf("%s: decode %s: %v", name, b, err)
		}
	}
	return text(res)
}

// fail calls a tool that must fail with code and returns the error body.
func (e *env) fail(name string, args any, code string) jmcp.ToolError {
	e.t.Helper()
	res := e.call(nil, name, args)
	te, _ := jmcp.ParseToolError(text(res))
	if !res.IsError || te.Code != code {
		e.t.Fatalf("%s: want %s, got isError=%v %s", name, code, res.IsError, text(res))
	}
	if te.Message == "" || te.Hint == "" {
		e.t.Fatalf("%s: error without message or hint: %+v", name, te)
	}
	return te
}

func text(res *mcpgo.CallToolResult) string {
	s := ""
	for _, c := range res.Content {
		if tc, ok := c.(mcpgo.TextContent); ok {
			s += tc.Text
		}
	}
	return s
}

// snapshot returns every file of the workspace (outside .journal) and its content.
func (e *env) snapshot() map[string]string {
	out := map[string]string{}
	filepath.WalkDir(e.dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && d.Name() == ".journal" {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() {
			b, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(e.dir, p)
			out[filepath.ToSlash(rel)] = string(b)
		}
		return nil
	})
	return out
}

func sameFiles(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
