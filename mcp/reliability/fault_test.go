package reliability

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	jmcp "github.com/journalfs/journal/mcp"
	"github.com/journalfs/journal/replay"
)

// injector fails the n-th apply step (or the n-th journal commit) with errno.
type injector struct {
	steps, commits atomic.Int64
	failStep       int64 // 1-based; 0 = never
	failCommit     int64
	errno          syscall.Errno
	seen           []string
}

func (f *injector) fault(step, path string) error {
	n := f.steps.Add(1)
	if f.failStep == 0 && f.failCommit == 0 {
		f.seen = append(f.seen, step)
	}
	if n == f.failStep {
		return &fs.PathError{Op: step, Path: path, Err: f.errno}
	}
	return nil
}

func (f *injector) commit() error {
	if f.commits.Add(1) == f.failCommit {
		return &fs.PathError{Op: "fdatasync", Path: "journal.db", Err: f.errno}
	}
	return nil
}

// inproc is a workspace served in-process (so faults can be injected under the MCP layer).
type inproc struct {
	dir string
	eng *replay.Engine
	c   *client.Client
}

func newInproc(t testing.TB, dir string, o replay.Options) *inproc {
	t.Helper()
	o.Roots = []string{dir}
	eng, err := replay.Open(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	c, err := client.NewInProcessClient(jmcp.New(eng, jmcp.Options{}).MCP())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	req := mcpgo.InitializeRequest{}
	req.Params.ProtocolVersion = mcpgo.LATEST_PROTOCOL_VERSION
	req.Params.ClientInfo = mcpgo.Implementation{Name: "fault", Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &inproc{dir: dir, eng: eng, c: c}
}

// call returns the tool result, or a result carrying the JSON-RPC error.
func (w *inproc) call(name string, args map[string]any) *result {
	req := mcpgo.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := w.c.CallTool(context.Background(), req)
	if err != nil {
		return &result{Protocol: map[string]any{"message": err.Error()}}
	}
	r := &result{IsError: res.IsError}
	for _, c := range res.Content {
		if tc, ok := c.(mcpgo.TextContent); ok {
			r.Text += tc.Text
		}
	}
	if r.IsError {
		r.Err, _ = jmcp.ParseToolError(r.Text)
	}
	return r
}

// contents maps every file under dir (except .journal) to its mode and content.
func contents(dir string) map[string]string {
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			if d.Name() == ".journal" {
				return filepath.SkipDir
			}
			return nil
		}
		fi, _ := d.Info()
		b, _ := os.ReadFile(p)
		out[filepath.ToSlash(rel)] = fi.Mode().String() + " " + string(b)
		return nil
	})
	return out
}

type faultCase struct {
	tool string
	args map[string]any
}

func faultCases() []faultCase {
	return []faultCase{
		{"file_create_new", map[string]any{"ops": []map[string]any{{"path": "new/a.txt", "content": "a\n"}, {"path": "new/b.txt", "content": "b\n"}, {"path": "c.txt", "content": "c\n"}}}},
		{"file_replace", map[string]any{"ops": []map[string]any{{"path": "one.txt", "content": "ONE\n"}, {"path": "sub/two.txt", "content": "TWO\n"}, {"path": "exec.sh", "content": "#!/bin/sh\necho 2\n"}}}},
		{"file_insert_text", map[string]any{"ops": []map[string]any{{"path": "one.txt", "content": "top", "at": "bof"}, {"path": "sub/two.txt", "content": "end", "at": "eof"}}}},
		{"edit_content", map[string]any{"absolute_file_path": "one.txt", "search_text": "one", "replace_text": "uno", "preview": false}},
	}
}

func faultWorkspace(t testing.TB) string {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "one.txt"), []byte("one\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "sub", "two.txt"), []byte("two\r\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "exec.sh"), []byte("#!/bin/sh\necho 1\n"), 0o755)
	return dir
}

// TestFault_IOErrorsThroughMCP fails every step of the apply protocol and
// every journal commit, for every batch tool, with ENOSPC, EIO, EACCES and
// EXDEV: the agent gets an error with a code, the workspace is unchanged, no
// temporary file is left, and the same call succeeds once the fault is gone.
func TestFault_IOErrorsThroughMCP(t *testing.T) {
	want := map[syscall.Errno]string{syscall.ENOSPC: jmcp.CodeNoSpace, syscall.EACCES: jmcp.CodePermissionDenied,
		syscall.EIO: jmcp.CodeIOError, syscall.EXDEV: jmcp.CodeIOError}
	outcomes := map[string]int{}
	cases, emptyDirs := 0, 0
	for _, fc := range faultCases() {
		// A clean run counts the steps and commits.
		inj := &injector{}
		w := newInproc(t, faultWorkspace(t), replay.Options{Fault: inj.fault, CommitFault: inj.commit})
		if r := w.call(fc.tool, fc.args); r.IsError || r.Protocol != nil {
			t.Fatalf("%s clean run: %s %v", fc.tool, r.Text, r.Protocol)
		}
		nsteps, ncommits := inj.steps.Load(), inj.commits.Load()
		for _, errno := range []syscall.Errno{syscall.ENOSPC, syscall.EIO, syscall.EACCES, syscall.EXDEV} {
			for k := int64(1); k <= nsteps+ncommits; k++ {
				inj := &injector{errno: errno}
				label := ""
				if k <= nsteps {
					inj.failStep = k
					label = fmt.Sprintf("step %d", k)
				} else {
					inj.failCommit = k - nsteps
					label = fmt.Sprintf("commit %d", k-nsteps)
				}
				dir := faultWorkspace(t)
				before := contents(dir)
				w := newInproc(t, dir, replay.Options{Fault: inj.fault, CommitFault: inj.commit})
				r := w.call(fc.tool, fc.args)
				cases++
				switch {
				case r.Protocol != nil:
					msg := fmt.Sprint(r.Protocol["message"])
					outcomes[errno.Error()+" → protocol error"]++
					if want[errno] != "" {
						t.Errorf("%s %v at %s: protocol error %q, want a tool error %s", fc.tool, errno, label, msg, want[errno])
					} else if !strings.Contains(msg, errno.Error()) {
						t.Errorf("%s %v at %s: protocol error %q does not say what failed", fc.tool, errno, label, msg)
					}
				case !r.IsError:
					t.Errorf("%s %v at %s: succeeded", fc.tool, errno, label)
				default:
					outcomes[errno.Error()+" → "+r.Err.Code]++
					if w := want[errno]; w != "" && r.Err.Code != w {
						t.Errorf("%s %v at %s: code %q, want %s (%s)", fc.tool, errno, label, r.Err.Code, w, r.Text)
					}
					if r.Err.Code == "" || r.Err.Message == "" || r.Err.Hint == "" {
						t.Errorf("%s %v at %s: error without code, message or hint: %s", fc.tool, errno, label, r.Text)
					}
				}
				if d := diffTrees(before, contents(dir)); d != "" {
					t.Errorf("%s %v at %s: workspace changed: %s", fc.tool, errno, label, d)
				}
				if dirs := newDirs(before, dir); len(dirs) > 0 {
					emptyDirs++
					t.Errorf("%s %v at %s: a rolled-back batch left directories it created: %v", fc.tool, errno, label, dirs)
				}
				if tmp := tempFiles(dir); len(tmp) > 0 {
					t.Errorf("%s %v at %s: temporary files left: %v", fc.tool, errno, label, tmp)
				}
				// Fault gone: the same call works.
				inj.failStep, inj.failCommit = 0, 0
				if r := w.call(fc.tool, fc.args); r.IsError || r.Protocol != nil {
					t.Errorf("%s after %v at %s: retry failed: %s %v", fc.tool, errno, label, r.Text, r.Protocol)
				}
			}
		}
	}
	keys := make([]string, 0, len(outcomes))
	for k := range outcomes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	figures(t, map[string]any{"fault_cases": cases, "outcomes": outcomes, "files_changed": 0, "cases_leaving_empty_parent_dirs": emptyDirs})
}

// newDirs lists the directories under dir that are not parents of a file in before.
func newDirs(before map[string]string, dir string) []string {
	known := map[string]bool{".": true}
	for p := range before {
		for d := filepath.Dir(p); d != "."; d = filepath.Dir(d) {
			known[d] = true
		}
	}
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if d.Name() == ".journal" {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(dir, p)
		if !known[filepath.ToSlash(rel)] {
			out = append(out, rel)
		}
		return nil
	})
	return out
}
