package mcp_test

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
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

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	jmcp "github.com/journalfs/journal/mcp"
	"github.com/journalfs/journal/mcp/internal/testbin"
	"github.com/journalfs/journal/replay"
)

// The memory bound of the large-file tools, measured where it matters: on
// the server process (`journal serve` over stdio, driven by the mcp-go stdio
// client), not on the test that drives it.

// rssBudget is the peak resident memory allowed to a server editing and
// reading a file of any size (issue #17: ≤ 128 MiB with the default
// settings, whether the file is held in memory or streamed).
const rssBudget = 128 << 20

// procMem reads fields (kB values, returned in bytes) of /proc/pid/status.
func procMem(pid int, fields ...string) (map[string]int64, error) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return nil, fmt.Errorf("proc status of %d: %w", pid, err)
	}
	defer f.Close()
	out := map[string]int64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		for _, want := range fields {
			if k == want {
				kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
				if err != nil {
					return nil, fmt.Errorf("proc status %s %q: %w", k, v, err)
				}
				out[k] = kb << 10
			}
		}
	}
	for _, want := range fields {
		if _, ok := out[want]; !ok {
			return nil, fmt.Errorf("proc status of %d: no %s", pid, want)
		}
	}
	return out, sc.Err()
}

// childServer is `journal serve` in a child process with an mcp-go client.
type childServer struct {
	cmd      *exec.Cmd
	c        *client.Client
	mu       sync.Mutex // guards peakAnon, stepFile
	peakAnon int64      // largest RssAnon sampled
	stepFile int64      // largest RssFile sampled since the last step (stepPeak)
	stop     chan struct{}
	sampled  chan struct{}
}

// startChild builds the journal binary, serves dir over stdio and connects.
// A goroutine samples the child's anonymous RSS every few milliseconds.
func startChild(t *testing.T, dir string) *childServer {
	t.Helper()
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("needs /proc (Linux) to read the server's peak RSS")
	}
	bin, cleanup, err := testbin.Build("journal-rss-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cleanup)
	cmd := exec.Command(bin, "serve", "--root", dir)
	cmd.Env = append(os.Environ(), "JOURNAL_PATH=")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	cs := &childServer{cmd: cmd, stop: make(chan struct{}), sampled: make(chan struct{})}
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	go func() {
		defer close(cs.sampled)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-cs.stop:
				return
			case <-tick.C:
			}
			if m, err := procMem(cmd.Process.Pid, "RssAnon", "RssFile"); err == nil {
				cs.mu.Lock()
				cs.peakAnon = max(cs.peakAnon, m["RssAnon"])
				cs.stepFile = max(cs.stepFile, m["RssFile"])
				cs.mu.Unlock()
			}
		}
	}()
	cs.c = client.NewClient(transport.NewIO(stdout, stdin, stderr))
	if err := cs.c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	req := mcpgo.InitializeRequest{}
	req.Params.ProtocolVersion = mcpgo.LATEST_PROTOCOL_VERSION
	req.Params.ClientInfo = mcpgo.Implementation{Name: "rss-test", Version: "1.0"}
	if _, err := cs.c.Initialize(ctx, req); err != nil {
		t.Fatal(err)
	}
	return cs
}

// stepPeak returns the largest RssFile sampled since its last call.
func (cs *childServer) stepPeak() int64 {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	n := cs.stepFile
	cs.stepFile = 0
	return n
}

// peaks stops the sampler and returns the child's VmHWM and the largest
// RssAnon sampled.
func (cs *childServer) peaks(t *testing.T) (hwm, anon int64) {
	t.Helper()
	m, err := procMem(cs.cmd.Process.Pid, "VmHWM", "RssAnon")
	if err != nil {
		t.Fatal(err)
	}
	close(cs.stop)
	<-cs.sampled
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return m["VmHWM"], max(cs.peakAnon, m["RssAnon"])
}

// fileSum hashes a file by streaming it.
func fileSum(t testing.TB, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// genSum hashes genLarge's content with the marker line replaced by middle,
// without writing or holding it.
func genSum(size int64, eol, middle string) string {
	h := sha256.New()
	w := bufio.NewWriterSize(h, 1<<20)
	genLines(w, size, eol, middle)
	w.Flush()
	return hex.EncodeToString(h.Sum(nil))
}

// TestLargefileServerRSS drives `journal serve` in a child process over
// stdio through get_overview, read_content, search_content, a preview and an
// applied edit_content and its revert_edit on a generated file, checks every
// result by streamed hashes, and bounds the server's peak memory (VmHWM ≤
// rssBudget). By default the file is 96 MiB; JOURNAL_LARGE_MB sets another
// size (1024: 1 GiB; under the stream threshold: held in memory).
func TestLargefileServerRSS(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and a large file")
	}
	mb := int64(96)
	if v, _ := strconv.Atoi(os.Getenv("JOURNAL_LARGE_MB")); v > 0 {
		mb = int64(v)
	}
	size := mb << 20
	dir := t.TempDir()
	path := filepath.Join(dir, "big.log")
	marker, lines := genLarge(t, path, size, "\n")
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	orig := fileSum(t, path)
	access := "mmap"
	switch {
	case fi.Size() < replay.DefaultStreamThreshold:
		access = "memory"
	case fi.Size() > replay.DefaultMmapLimit:
		access = "stream"
	}
	cs := startChild(t, dir)
	e := &env{t: t, dir: dir, c: cs.c}
	timed := func(what string, fn func()) {
		start := time.Now()
		cs.stepPeak()
		fn()
		t.Logf("%s: %v (peak RssFile sampled %.1f MiB)", what, time.Since(start).Round(time.Millisecond), float64(cs.stepPeak())/(1<<20))
	}

	var ov jmcp.OverviewOut
	timed("get_overview", func() { e.ok("get_overview", map[string]any{"absolute_file_path": path}, &ov) })
	if ov.Access != access || ov.LineCount != lines || ov.FileSize != fi.Size() {
		t.Fatalf("overview: %+v", ov)
	}
	mline := fmt.Sprintf("    func middle() { return %d }", marker)
	var rd jmcp.ReadOut
	var txt string
	timed("read_content 50 lines mid-file", func() {
		txt = e.ok("read_content", map[string]any{"absolute_file_path": path, "target": marker - 1, "max_lines": 50}, &rd)
	})
	if !strings.Contains(txt, fmt.Sprintf("%d: %s\n", marker, mline)) || rd.EndLine != marker+48 {
		t.Fatalf("read: %+v\n%s", rd, txt)
	}
	var sr jmcp.SearchOut
	timed("search_content exact near the end", func() {
		e.ok("search_content", map[string]any{"absolute_file_path": path, "pattern": fmt.Sprintf("%09d the quick", lines-1), "fuzzy": false}, &sr)
	})
	if len(sr.Results) != 1 || sr.Results[0].LineNumber != lines-1 {
		t.Fatalf("search: %+v", sr)
	}
	edit := map[string]any{"absolute_file_path": path, "search_text": mline + "\n", "replace_text": "    func middle() { return -1 }\n"}
	var pv jmcp.EditOut
	timed("edit_content preview", func() { e.ok("edit_content", edit, &pv) })
	if pv.Status != "preview" || pv.Changes[0].LineNumber != marker || fileSum(t, path) != orig {
		t.Fatalf("preview: %+v", pv)
	}
	var out jmcp.EditOut
	timed("edit_content applied", func() { out, _ = e.apply(edit) })
	if out.Status != "applied" || out.Access != access || out.Changes[0].LineNumber != marker {
		t.Fatalf("edit: %+v", out)
	}
	if got, want := fileSum(t, path), genSum(size, "\n", "    func middle() { return -1 }"); got != want {
		t.Fatalf("edited file: sha256 %s, want %s", got, want)
	}
	timed("revert_edit", func() {
		e.ok("revert_edit", map[string]any{"absolute_file_path": path, "backup_id": strconv.FormatUint(out.Event, 10)}, nil)
	})
	if fileSum(t, path) != orig {
		t.Fatal("revert did not restore the original content")
	}

	hwm, anon := cs.peaks(t)
	t.Logf("%s, %d MiB file: server VmHWM %.1f MiB, peak RssAnon %.1f MiB (sampled every 5 ms)",
		access, fi.Size()>>20, float64(hwm)/(1<<20), float64(anon)/(1<<20))
	if hwm > rssBudget {
		t.Fatalf("server peak RSS %d MiB over the %d MiB bound (anon %d MiB)", hwm>>20, rssBudget>>20, anon>>20)
	}
}
