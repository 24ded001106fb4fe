package reliability

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	jmcp "github.com/journalfs/journal/mcp"
	"github.com/journalfs/journal/mcp/internal/testbin"
)

var (
	binary string // the built journal binary
	repo   string // repository root
)

func TestMain(m *testing.M) {
	repo = testbin.Repo()
	bin, cleanup, err := testbin.Build("journal-reliability-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = bin
	code := m.Run()
	cleanup()
	os.Exit(code)
}

// long reports whether the long mode (JOURNAL_LONG=1) is on.
func long() bool { return os.Getenv("JOURNAL_LONG") != "" && os.Getenv("JOURNAL_LONG") != "0" }

// scale picks the default or the long figure; JOURNAL_SCALE_<NAME> overrides both.
func scale(name string, def, lng int) int {
	if v, err := strconv.Atoi(os.Getenv("JOURNAL_SCALE_" + name)); err == nil && v > 0 {
		return v
	}
	if long() {
		return lng
	}
	return def
}

var figuresMu sync.Mutex

// figures logs a test's figures and appends them to $JOURNAL_FIGURES as JSON.
func figures(t *testing.T, f map[string]any) {
	t.Helper()
	f["test"] = t.Name()
	f["long"] = long()
	b, _ := json.Marshal(f)
	t.Logf("figures: %s", b)
	if p := os.Getenv("JOURNAL_FIGURES"); p != "" {
		figuresMu.Lock()
		defer figuresMu.Unlock()
		fh, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			fh.Write(append(b, '\n'))
			fh.Close()
		}
	}
}

// server is `journal serve` over stdio with a minimal JSON-RPC client.
type server struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	id   int
	done chan struct{}
}

// start runs `journal serve --root root args...`.
func start(t testing.TB, root string, args ...string) *server {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"serve", "--root", root}, args...)...)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = io.Discard
	if testing.Verbose() && os.Getenv("JOURNAL_SERVER_STDERR") != "" {
		cmd.Stderr = os.Stderr
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &server{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20), done: make(chan struct{})}
	go func() { cmd.Wait(); close(s.done) }()
	t.Cleanup(s.close)
	return s
}

// close ends the server gently (EOF on stdin), then kills it.
func (s *server) close() {
	s.in.Close()
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
	}
}

// kill SIGKILLs the server and waits for it.
func (s *server) kill() {
	s.cmd.Process.Kill()
	<-s.done
}

// request sends a request and returns its response; err when the server died.
func (s *server) request(method string, params any) (map[string]any, error) {
	s.id++
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": s.id, "method": method, "params": params})
	if _, err := s.in.Write(append(msg, '\n')); err != nil {
		return nil, err
	}
	for {
		line, err := s.out.ReadBytes('\n')
		if err != nil {
			return nil, err
		}
		var resp map[string]any
		if err := json.Unmarshal(line, &resp); err != nil {
			return nil, fmt.Errorf("%s: bad JSON %q", method, line)
		}
		if id, ok := resp["id"]; ok && id == float64(s.id) {
			return resp, nil
		}
	}
}

func (s *server) initialize(name string) error {
	resp, err := s.request("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": name, "version": "1"}})
	if err != nil {
		return err
	}
	if resp["error"] != nil {
		return fmt.Errorf("initialize: %v", resp["error"])
	}
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	_, err = s.in.Write(append(msg, '\n'))
	return err
}

// result is a decoded tools/call result.
type result struct {
	IsError    bool
	Text       string
	Err        jmcp.ToolError // when IsError
	Structured map[string]any
	Protocol   map[string]any // a JSON-RPC error, if any
}

// call calls a tool; err only when the server died.
func (s *server) call(name string, args any) (*result, error) {
	resp, err := s.request("tools/call", map[string]any{"name": name, "arguments": args})
	if err != nil {
		return nil, err
	}
	return decodeResult(resp), nil
}

func decodeResult(resp map[string]any) *result {
	r := &result{}
	if e, ok := resp["error"].(map[string]any); ok {
		r.Protocol = e
		return r
	}
	res, _ := resp["result"].(map[string]any)
	r.IsError, _ = res["isError"].(bool)
	r.Structured, _ = res["structuredContent"].(map[string]any)
	if cs, ok := res["content"].([]any); ok {
		for _, c := range cs {
			if m, ok := c.(map[string]any); ok {
				if s, ok := m["text"].(string); ok {
					r.Text += s
				}
			}
		}
	}
	if r.IsError {
		r.Err, _ = jmcp.ParseToolError(r.Text)
	}
	return r
}

// mustStart starts and initializes a server.
func mustStart(t testing.TB, root, name string, args ...string) *server {
	t.Helper()
	s := start(t, root, args...)
	if err := s.initialize(name); err != nil {
		t.Fatal(err)
	}
	return s
}

// cli runs the journal CLI in dir; it returns the combined output and the exit error.
func cli(dir string, args ...string) (string, error) {
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// tempFiles lists leftover temporary files (ours: ".<name>.jtmp-<seq>") under root.
func tempFiles(root string) []string {
	var out []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if strings.Contains(d.Name(), ".jtmp-") || strings.Contains(d.Name(), ".init-") {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// tree maps every regular file and symlink under dir (except .journal) to its content or link target.
func tree(dir string) map[string]string {
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if d.Name() == ".journal" {
				return filepath.SkipDir
			}
			fi, _ := d.Info()
			out[rel+"/"] = "dir " + fi.Mode().String()
			return nil
		}
		fi, _ := d.Info()
		switch {
		case d.Type()&os.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			out[rel] = "link " + l
		case d.Type().IsRegular():
			b, _ := os.ReadFile(p)
			out[rel] = fi.Mode().String() + " " + fi.ModTime().String() + " " + string(b)
		default:
			out[rel] = "other " + fi.Mode().String()
		}
		return nil
	})
	return out
}

// diffTrees describes how two trees differ ("" if they are identical).
func diffTrees(a, b map[string]string) string {
	var d []string
	for k, v := range a {
		if w, ok := b[k]; !ok {
			d = append(d, "removed "+k)
		} else if w != v {
			d = append(d, "changed "+k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			d = append(d, "added "+k)
		}
	}
	return strings.Join(d, ", ")
}

var (
	jsonMarshal   = json.Marshal
	jsonUnmarshal = json.Unmarshal
)
