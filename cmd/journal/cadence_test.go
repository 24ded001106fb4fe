package main_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/audit"
)

// checkpointsOf lists the journal's checkpoints as a reader sees them.
func checkpointsOf(t *testing.T, dir string) []*audit.Checkpoint {
	t.Helper()
	j, err := journal.Open(filepath.Join(dir, journal.DirName, journal.FileName), journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var cps []*audit.Checkpoint
	if err := j.View(func(tx *journal.Tx) (err error) { cps, err = audit.Checkpoints(tx); return err }); err != nil {
		t.Fatal(err)
	}
	return cps
}

// waitCheckpoints waits (20 s at most) until the journal holds n
// checkpoints, and returns them.
func waitCheckpoints(t *testing.T, dir string, n int, why string, stderr fmt.Stringer) []*audit.Checkpoint {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		cps := checkpointsOf(t, dir)
		if len(cps) >= n {
			return cps
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d checkpoint(s), want %d\nserve: %s", why, len(cps), n, stderr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// startHTTPServe starts `journal serve --http` in dir with args and returns
// its MCP URL and stderr; the test's cleanup interrupts it.
func startHTTPServe(t *testing.T, dir string, args ...string) (*exec.Cmd, string, *bytes.Buffer) {
	t.Helper()
	addr := filepath.Join(t.TempDir(), "addr")
	cmd := exec.Command(bin, append([]string{"serve", "--http", "127.0.0.1:0", "--lsp=false", "--watch=false"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "JOURNAL_ADDR_FILE="+addr)
	stderr := &bytes.Buffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if b, err := os.ReadFile(addr); err == nil && len(b) > 0 {
			return cmd, "http://" + string(b) + "/mcp", stderr
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not listen: %s", stderr)
		}
	}
}

// openSession opens an MCP session on c (protocol 2025-06-18, which has
// sessions a client closes).
func openSession(t *testing.T, c *client.Client) { t.Helper(); openSessionAs(t, c, "cadence-test") }

// openSessionAs starts c and initializes its session as the client name.
func openSessionAs(t *testing.T, c *client.Client, name string) {
	t.Helper()
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = "2025-06-18"
	req.Params.ClientInfo = mcp.Implementation{Name: name, Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatal(err)
	}
}

// serveStdio runs `journal serve --root dir --lsp=false` and flags as a
// real process, its session opened as the client name (closed at the
// test's end); stderr gathers the server's.
func serveStdio(t *testing.T, dir, name string, flags ...string) (c *client.Client, stderr *bytes.Buffer) {
	t.Helper()
	stderr = &bytes.Buffer{}
	c, err := client.NewStdioMCPClientWithOptions(bin, nil, append([]string{"serve", "--root", dir, "--lsp=false"}, flags...),
		transport.WithCommandStderrWriter(stderr))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	openSessionAs(t, c, name)
	return c, stderr
}

// createFile makes a file through the session's file_create_new.
func createFile(t *testing.T, c *client.Client, path, content string) {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = "file_create_new"
	req.Params.Arguments = map[string]any{"ops": []map[string]any{{"path": path, "content": content}}}
	res, err := c.CallTool(context.Background(), req)
	if err != nil || res.IsError {
		t.Fatalf("file_create_new %s: %v %+v", path, err, res)
	}
}

// TestCheckpointConfig: the key and cadence set once are shown, bad ones
// refused with a code and a hint; a configuration file that does not read
// stops serve with CONFIG_INVALID; --unset removes it.
func TestCheckpointConfig(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(t.TempDir(), "config"))
	dir := t.TempDir()
	cfg := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "journal", "checkpoint.json")
	if out := ok(t, dir, "checkpoint", "config"); !strings.Contains(out, "(the default)") || !strings.Contains(out, "every: not set") {
		t.Fatalf("no configuration:\n%s", out)
	}
	for _, c := range []struct{ every, want string }{
		{"5x", "5x is neither a number of events, a duration nor session"},
		{"-3", "-3 is not a number of events"},
		{"100,200", "two numbers of events"},
		{"500ms", "shorter than a second"},
		{"session,off", "off goes alone"},
		{"10m,", "an empty item"},
	} {
		r := run(t, dir, "checkpoint", "config", "--every", c.every)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) || !strings.Contains(r.stderr, "hint: want a comma-separated list") {
			t.Errorf("--every %s: %+v", c.every, r)
		}
	}
	if r := run(t, dir, "checkpoint", "config", "--key", filepath.Join(dir, "nokey")); r.code != 1 || !strings.Contains(r.stderr, "KEY_INVALID") || !strings.Contains(r.stderr, "hint:") {
		t.Fatalf("a missing key: %+v", r)
	}
	if _, err := os.Stat(cfg); err == nil {
		t.Fatal("a refused setting wrote the configuration")
	}
	key := filepath.Join(t.TempDir(), "k")
	ok(t, dir, "key", "generate", "--out", key)
	out := ok(t, dir, "checkpoint", "config", "--every", " 1h30m , session,1000", "--key", key)
	if !strings.Contains(out, "key:   "+key+"\n") || !strings.Contains(out, "every: 1000,1h30m0s,session\n") {
		t.Fatalf("set:\n%s", out)
	}
	if out := ok(t, dir, "checkpoint", "config", "--every", "2m"); !strings.Contains(out, "key:   "+key+"\n") || !strings.Contains(out, "every: 2m0s\n") {
		t.Fatalf("one setting changed, the other kept:\n%s", out)
	}
	if fi, err := os.Stat(cfg); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("configuration file: %v %v", fi, err)
	}
	if r := run(t, dir, "checkpoint", "config", "--unset", "--every", "1"); r.code != 2 {
		t.Fatalf("--unset with a setting: %+v", r)
	}
	os.WriteFile(cfg, []byte(`{"every": "soon"}`), 0o600)
	if r := run(t, dir, "serve", "--http", "127.0.0.1:0"); r.code != 1 || !strings.Contains(r.stderr, "CONFIG_INVALID") || !strings.Contains(r.stderr, "soon") || !strings.Contains(r.stderr, "hint:") {
		t.Fatalf("serve with a bad configuration: %+v", r)
	}
	if r := run(t, dir, "checkpoint", "config"); r.code != 1 || !strings.Contains(r.stderr, "CONFIG_INVALID") {
		t.Fatalf("config shows a bad configuration: %+v", r)
	}
	ok(t, dir, "checkpoint", "config", "--unset")
	if _, err := os.Stat(cfg); err == nil {
		t.Fatal("--unset left the file")
	}
	// a cadence with the default key, which does not exist yet: said at once, and serve refuses with KEY_INVALID
	if out := ok(t, dir, "checkpoint", "config", "--every", "5m"); !strings.Contains(out, "note: the default key does not exist yet") {
		t.Fatalf("a cadence without a key:\n%s", out)
	}
	if r := run(t, dir, "serve", "--http", "127.0.0.1:0"); r.code != 1 || !strings.Contains(r.stderr, "KEY_INVALID") || !strings.Contains(r.stderr, "journal key generate") {
		t.Fatalf("serve with a cadence and no key: %+v", r)
	}
}

// TestServe_CheckpointEveryMinutes: a cadence set once in the
// configuration (no flag) signs while serving once the newest checkpoint is
// that old and events came since, not sooner, and nothing while idle; the
// configuration's key signs `journal checkpoint` too.
func TestServe_CheckpointEveryMinutes(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(t.TempDir(), "config"))
	dir := t.TempDir()
	key := filepath.Join(t.TempDir(), "k")
	ok(t, dir, "key", "generate", "--name", "carol", "--out", key)
	ok(t, dir, "checkpoint", "config", "--every", "3s", "--key", key)
	e := engine(t, dir)
	apply(t, e, "write_file", "a.txt", "0\n")
	cmd, _, stderr := startHTTPServe(t, dir)
	cps := waitCheckpoints(t, dir, 1, "the first event", stderr)
	if cps[0].Size != 1 || !strings.Contains(string(cps[0].Note), "— carol") {
		t.Fatalf("first checkpoint: %d events\n%s", cps[0].Size, cps[0].Note)
	}
	for i := 1; i <= 3; i++ {
		apply(t, e, "edit_file", "a.txt", fmt.Sprintf("%d\n", i))
	}
	cps = waitCheckpoints(t, dir, 2, "three events later", stderr)
	if gap := cps[1].Time.Sub(cps[0].Time); gap < 3*time.Second || cps[1].Size != 4 {
		t.Fatalf("second checkpoint of %d events %v after the first (want 4, at least 3s)", cps[1].Size, gap)
	}
	time.Sleep(3*time.Second + 2*time.Second) // a period and more, no event
	if cps := checkpointsOf(t, dir); len(cps) != 2 {
		t.Fatalf("an idle server signed: %d checkpoints", len(cps))
	}
	apply(t, e, "edit_file", "a.txt", "4\n")
	e.Close()
	cmd.Process.Signal(os.Interrupt)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("serve: %v\n%s", err, stderr)
	}
	if cps := checkpointsOf(t, dir); len(cps) != 3 || cps[2].Size != 5 {
		t.Fatalf("at exit: %d checkpoints", len(cps))
	}
	e = engine(t, dir)
	apply(t, e, "edit_file", "a.txt", "5\n")
	e.Close()
	if out := ok(t, dir, "checkpoint"); !strings.Contains(out, "\n6\n") || !strings.Contains(out, "— carol") {
		t.Fatalf("journal checkpoint with the configured key:\n%s", out)
	}
}

// TestServe_CheckpointAtSessionEnd: with --checkpoint-every session, an
// HTTP session that closes while serve keeps serving is signed at once (the
// checkpoint covers its last edit); a session that changed nothing signs
// nothing; --checkpoint-every off overrides a configured key: not even the
// exit signs.
func TestServe_CheckpointAtSessionEnd(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(t.TempDir(), "config"))
	dir := t.TempDir()
	ok(t, dir, "key", "generate")
	cmd, url, stderr := startHTTPServe(t, dir, "--checkpoint-every", "session")
	c, err := client.NewStreamableHttpClient(url)
	if err != nil {
		t.Fatal(err)
	}
	openSession(t, c)
	createFile(t, c, "a.txt", "one\n")
	createFile(t, c, "b.txt", "two\n")
	time.Sleep(2 * time.Second)
	if cps := checkpointsOf(t, dir); len(cps) != 0 {
		t.Fatalf("signed before the session ended: %d", len(cps))
	}
	c.Close()
	cps := waitCheckpoints(t, dir, 1, "the session closed", stderr)
	if cps[0].Size != 2 {
		t.Fatalf("the session's checkpoint covers %d events, want its 2", cps[0].Size)
	}
	reader, err := client.NewStreamableHttpClient(url)
	if err != nil {
		t.Fatal(err)
	}
	openSession(t, reader)
	if _, err := reader.ListTools(context.Background(), mcp.ListToolsRequest{}); err != nil {
		t.Fatal(err)
	}
	reader.Close()
	time.Sleep(2 * time.Second)
	if cps := checkpointsOf(t, dir); len(cps) != 1 {
		t.Fatalf("a session without events signed: %d checkpoints", len(cps))
	}
	cmd.Process.Signal(os.Interrupt)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("serve: %v\n%s", err, stderr)
	}

	ok(t, dir, "checkpoint", "config", "--every", "session")
	cmd, url, stderr = startHTTPServe(t, dir, "--checkpoint-every", "off")
	if c, err = client.NewStreamableHttpClient(url); err != nil {
		t.Fatal(err)
	}
	openSession(t, c)
	createFile(t, c, "c.txt", "three\n")
	c.Close()
	cmd.Process.Signal(os.Interrupt)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("serve: %v\n%s", err, stderr)
	}
	if cps := checkpointsOf(t, dir); len(cps) != 1 {
		t.Fatalf("--checkpoint-every off signed: %d checkpoints", len(cps))
	}
}

// TestServe_CheckpointWhenARelayedSessionEnds: the workspace's first stdio
// serve serves a later one's client (relay); when that serve goes (killed:
// it signs nothing itself), the first, still serving its own client, signs
// a checkpoint covering the relayed session's edit. Its own exit signs what
// came after.
func TestServe_CheckpointWhenARelayedSessionEnds(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(t.TempDir(), "config"))
	dir := t.TempDir()
	ok(t, dir, "key", "generate")
	ok(t, dir, "checkpoint", "config", "--every", "session")
	var stderr bytes.Buffer
	start := func() (*client.Client, **exec.Cmd) {
		var proc *exec.Cmd
		c, err := client.NewStdioMCPClientWithOptions(bin, nil, []string{"serve", "--root", dir, "--lsp=false", "--watch=false"},
			transport.WithCommandStderrWriter(&stderr),
			transport.WithCommandFunc(func(ctx context.Context, command string, env, args []string) (*exec.Cmd, error) {
				proc = exec.CommandContext(ctx, command, args...)
				proc.Env = append(os.Environ(), env...)
				return proc, nil
			}))
		if err != nil {
			t.Fatal(err)
		}
		openSession(t, c)
		return c, &proc
	}
	writer, _ := start()
	defer writer.Close()
	createFile(t, writer, "w.txt", "writer\n")
	follower, proc := start()
	createFile(t, follower, "f.txt", "follower\n")
	if cps := checkpointsOf(t, dir); len(cps) != 0 {
		t.Fatalf("signed before a session ended: %d", len(cps))
	}
	(*proc).Process.Kill()
	cps := waitCheckpoints(t, dir, 1, "the relayed session ended", &stderr)
	if cps[0].Size != 2 {
		t.Fatalf("checkpoint of %d events, want 2 (the writer's and the follower's)", cps[0].Size)
	}
	follower.Close()
	createFile(t, writer, "w2.txt", "writer again\n")
	writer.Close()
	if cps := waitCheckpoints(t, dir, 2, "the writer exited", &stderr); cps[1].Size != 3 {
		t.Fatalf("exit checkpoint of %d events, want 3", cps[1].Size)
	}
}
