package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// driver is the TypeScript SDK client of driver.mjs, connected to a
// `journal serve` of root for as long as the test runs.
type driver struct {
	t    *testing.T
	cmd  *exec.Cmd
	in   *json.Encoder
	out  *bufio.Scanner
	stop func() // ends the client and its server (once; also at the test's end)
}

func startDriver(t *testing.T, root string, args ...string) *driver {
	t.Helper()
	requireNode(t)
	cmd := exec.Command("node", append([]string{"driver.mjs", binary, root}, args...)...)
	cmd.Dir = nodeDir
	cmd.Stderr = os.Stderr
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	d := &driver{t: t, cmd: cmd, in: json.NewEncoder(in), out: bufio.NewScanner(out)}
	d.out.Buffer(nil, 16<<20)
	d.stop = sync.OnceFunc(func() { closeAndWait(in, cmd, 10*time.Second) })
	t.Cleanup(d.stop)
	if !d.out.Scan() || !strings.Contains(d.out.Text(), "ready") {
		t.Fatalf("the SDK client did not connect: %q", d.out.Text())
	}
	return d
}

func (d *driver) call(tool string, args map[string]any) step {
	d.t.Helper()
	if err := d.in.Encode(map[string]any{"tool": tool, "args": args}); err != nil {
		d.t.Fatal(err)
	}
	if !d.out.Scan() {
		d.t.Fatalf("%s: the client stopped", tool)
	}
	var s step
	if err := json.Unmarshal(d.out.Bytes(), &s); err != nil {
		d.t.Fatalf("%s: %v", tool, err)
	}
	s.Name = tool
	return s
}

func bash(t *testing.T, dir, script string) {
	t.Helper()
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
}

// waitClean waits until `journal status` lists no file the journal knows
// as changed outside it and no new event came for a second and a half
// (files the journal never knew are not in status: the quiet spell covers
// them, the watcher records within a second).
func waitClean(t *testing.T, root string) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	var last uint64
	quiet := time.Now()
	for {
		out := runJournal(t, root, "status", "--no-pager")
		seq := uint64(0)
		if evs := lastEvents(t, root, 1); len(evs) > 0 {
			seq = evs[0].Seq
		}
		if seq != last {
			last, quiet = seq, time.Now()
		}
		if strings.Contains(out, "no file changed outside the journal") && time.Since(quiet) > 1500*time.Millisecond {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("still unrecorded after 90 s:\n%s", out)
		}
		time.Sleep(150 * time.Millisecond)
	}
}

type logEvent struct {
	Seq   uint64 `json:"seq"`
	Kind  string `json:"kind"`
	Tool  string `json:"tool"`
	Files []struct {
		Path string `json:"path"`
	} `json:"files"`
}

func lastEvents(t *testing.T, root string, n int) []logEvent {
	t.Helper()
	out := runJournal(t, root, "log", "--json", "-n", fmt.Sprint(n), "--no-pager")
	var evs []logEvent
	dec := json.NewDecoder(strings.NewReader(out))
	for dec.More() {
		var e logEvent
		if err := dec.Decode(&e); err != nil {
			t.Fatalf("log --json: %v\n%s", err, out)
		}
		evs = append(evs, e)
	}
	return evs
}

// With the TypeScript SDK client connected to a server, work done from a
// shell beside it — sed -i, a heredoc, a Python script rewriting several
// files, rm, mv, a git checkout of another branch of thousands of files —
// becomes events that undo takes back, blame reaches, and verify accepts.
func TestSDK_ShellChangesJournaled(t *testing.T) {
	for _, tool := range []string{"git", "python3", "sed", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is needed: %v", tool, err)
		}
	}
	root := t.TempDir()
	bash(t, root, `set -e
git init -q -b main . && git config user.email t@e && git config user.name t
printf 'a = 1\n' > a.py; printf 'b = 1\n' > b.py; printf 'c = 1\n' > c.py; printf 'e = 1\n' > e.py
mkdir -p pkg && for i in $(seq 1 2000); do printf 'v = %d\n' $i > pkg/m$i.py; done
git add -A && git commit -qm main
git checkout -q -b other && for i in $(seq 1 2000); do printf 'v = %d  # other\n' $i > pkg/m$i.py; done
for i in $(seq 1 500); do printf 'n = %d\n' $i > pkg/new$i.py; done
git add -A && git commit -qm other && git checkout -q main`)
	d := startDriver(t, root)
	waitClean(t, root) // the baseline of the 2,004 files
	if s := d.call("edit_content", map[string]any{"absolute_file_path": filepath.Join(root, "a.py"), "search_text": "a = 1", "replace_text": "a = 2", "preview": false}); s.IsError {
		t.Fatalf("edit_content: %s", s.Text)
	}
	afterEdit := lastEvents(t, root, 1)[0].Seq
	steps := []struct{ name, script string }{
		{"sed -i", `sed -i 's/b = 1/b = 2/' b.py`},
		{"heredoc", "cat > d.py <<'EOF'\nd = 1\nEOF"},
		{"rm", `rm c.py`},
		{"mv", `mv e.py f.py`},
		{"python", "python3 - <<'PY'\nimport pathlib\nfor n in ['a.py', 'b.py', 'd.py']:\n    p = pathlib.Path(n); p.write_text(p.read_text() + '# touched\\n')\nPY"},
		{"git checkout", `git checkout -q other`},
	}
	snapshots := []map[string]string{workspaceFiles(t, root)}
	var stepEvents []uint64
	for _, s := range steps {
		before := lastEvents(t, root, 1)[0].Seq
		start := time.Now()
		bash(t, root, s.script)
		waitClean(t, root)
		evs := lastEvents(t, root, 3)
		if evs[0].Seq == before {
			t.Fatalf("%s: no event", s.name)
		}
		for _, e := range evs {
			if e.Seq > before && (e.Kind != "observe" || e.Tool != "watch") {
				t.Fatalf("%s: event %d is %s/%s", s.name, e.Seq, e.Kind, e.Tool)
			}
		}
		t.Logf("%s: recorded as event %d in %v (%d files)", s.name, evs[0].Seq, time.Since(start).Round(time.Millisecond), len(evs[0].Files))
		stepEvents = append(stepEvents, evs[0].Seq)
		snapshots = append(snapshots, workspaceFiles(t, root))
	}
	if got := snapshots[len(snapshots)-1]["pkg/new7.py"]; got != "n = 7\n" {
		t.Fatalf("after the checkout: pkg/new7.py is %q", got)
	}
	// blame: the sed's line belongs to its event, the Python script's to its own
	sedEvent, pyEvent := afterEdit+1, afterEdit+5
	out := runJournal(t, root, "blame", "b.py", "--porcelain")
	if !strings.Contains(out, fmt.Sprintf("%d 1\n", sedEvent)) || !strings.Contains(out, fmt.Sprintf("%d 2\n", pyEvent)) {
		t.Fatalf("blame b.py: want line 1 from event %d (sed), line 2 from event %d (python):\n%s", sedEvent, pyEvent, out)
	}
	// undo each shell step, newest first: the workspace returns step by step
	for i := len(steps) - 1; i >= 0; i-- {
		runJournal(t, root, "undo")
		waitClean(t, root)
		if diff := diffFiles(snapshots[i], workspaceFiles(t, root)); diff != "" {
			t.Fatalf("after undoing %s: %s", steps[i].name, diff)
		}
	}
	if got := readFile(t, filepath.Join(root, "a.py")); got != "a = 2\n" {
		t.Fatalf("a.py after the undos is %q, want the tool's edit kept", got)
	}
	// rewind the whole workspace to right after the checkout (one event, with
	// a dry run first), then take the rewind back with one undo
	last := stepEvents[len(stepEvents)-1]
	if out := runJournal(t, root, "restore", "--at", fmt.Sprint(last), "--dry-run"); !strings.Contains(out, "pkg/new7.py") {
		t.Fatalf("rewind dry run:\n%s", out)
	}
	if diff := diffFiles(snapshots[0], workspaceFiles(t, root)); diff != "" {
		t.Fatalf("the dry run changed files: %s", diff)
	}
	runJournal(t, root, "restore", "--at", fmt.Sprint(last))
	waitClean(t, root)
	if diff := diffFiles(snapshots[len(snapshots)-1], workspaceFiles(t, root)); diff != "" {
		t.Fatalf("after the rewind to event %d: %s", last, diff)
	}
	runJournal(t, root, "undo")
	waitClean(t, root)
	if diff := diffFiles(snapshots[0], workspaceFiles(t, root)); diff != "" {
		t.Fatalf("after undoing the rewind: %s", diff)
	}
	runJournal(t, root, "verify")
	if s := d.call("journal_log", map[string]any{"limit": 3}); s.IsError {
		t.Fatalf("journal_log: %s", s.Text)
	}
}

// workspaceFiles reads every file of root but .git and .journal.
func workspaceFiles(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(root, func(p string, e os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() && (e.Name() == ".git" || e.Name() == ".journal") {
			return filepath.SkipDir
		}
		if e.Type().IsRegular() {
			b, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(root, p)
			out[filepath.ToSlash(rel)] = string(b)
		}
		return nil
	})
	return out
}

func diffFiles(want, got map[string]string) string {
	var d []string
	for k, v := range want {
		if g, ok := got[k]; !ok {
			d = append(d, k+" missing")
		} else if g != v {
			d = append(d, fmt.Sprintf("%s is %q, want %q", k, g, v))
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			d = append(d, k+" should not exist")
		}
	}
	if len(d) > 5 {
		d = append(d[:5], fmt.Sprintf("... %d differences", len(d)))
	}
	return strings.Join(d, "; ")
}

// journaledPaths returns every path the journal's events name, and whether
// the newest of them leaves the file present (contents are checked against
// the disk by `journal status`, in waitClean).
func journaledPaths(t *testing.T, root string) map[string]bool {
	t.Helper()
	out := runJournal(t, root, "log", "--json", "--no-pager")
	seen := map[string]bool{}
	present := map[string]bool{}
	dec := json.NewDecoder(strings.NewReader(out))
	for dec.More() { // newest first: the first mention of a path is its latest change
		var e struct {
			Files []struct {
				Path  string `json:"path"`
				After string `json:"after"`
			} `json:"files"`
		}
		if err := dec.Decode(&e); err != nil {
			t.Fatal(err)
		}
		for _, f := range e.Files {
			if !seen[f.Path] {
				seen[f.Path] = true
				present[f.Path] = strings.Trim(f.After, "0") != ""
			}
		}
	}
	return present
}

// The crash matrix of the watcher: a server SIGKILLed at random points of
// bursts of creates, appends, deletes and renames loses nothing — the next
// start records the rest (every file on disk known to the journal with its
// content, every file gone known as gone), and the journal verifies.
// JOURNAL_WATCH_KILLS sets the number of kills (default 6).
func TestServe_KilledMidBurstLosesNothing(t *testing.T) {
	kills := 6
	if v := os.Getenv("JOURNAL_WATCH_KILLS"); v != "" {
		fmt.Sscan(v, &kills)
	}
	root := t.TempDir()
	bash(t, root, `for i in $(seq 1 50); do echo $i > f$i.txt; done`)
	for k := 0; k < kills; k++ {
		srv := startStdio(t, root, "--lsp=false")
		srv.request("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}})
		script := fmt.Sprintf(`for i in $(seq 1 1500); do echo %d-$i > b%d-$((i %% 300)).txt; [ $i -le 50 ] && echo %d >> f$i.txt; [ $i -le 10 ] && rm -f f$((i+%d)).txt; [ $i -le 5 ] && mv b%d-$i.txt moved%d-$i.txt; done; true`,
			k, k, k, 10+k*5, k, k)
		burst := exec.Command("bash", "-c", script)
		burst.Dir = root
		if err := burst.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(200+k*150) * time.Millisecond) // part of the burst recorded, part not
		srv.cmd.Process.Signal(syscall.SIGKILL)
		srv.cmd.Wait()
		if err := burst.Wait(); err != nil {
			t.Fatal(err)
		}
	}
	srv := startStdio(t, root, "--lsp=false")
	srv.request("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}})
	waitClean(t, root) // every file the journal knows holds its content
	known := journaledPaths(t, root)
	disk := workspaceFiles(t, root)
	for p := range disk {
		if !known[p] {
			t.Errorf("%s is on disk but the journal never recorded it", p)
		}
	}
	for p, present := range known {
		if _, ok := disk[p]; present && !ok {
			t.Errorf("%s is gone but the journal still has it", p)
		}
	}
	runJournal(t, root, "verify")
	t.Logf("%d kills mid-burst: %d files on disk, all recorded", kills, len(disk))
}

// Two servers on one workspace, each serving alone: one watches, the other
// waits; when the watching one is killed the other takes over and records
// what changed in between.
func TestServe_OneWatcherTakesOver(t *testing.T) {
	root := t.TempDir()
	bash(t, root, `echo a > a.txt`)
	first := startStdio(t, root, "--lsp=false", "--share=false")
	first.request("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}})
	waitClean(t, root)
	second := startStdio(t, root, "--lsp=false", "--share=false")
	second.request("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}})
	bash(t, root, `echo b > a.txt`)
	waitClean(t, root)
	if evs := lastEvents(t, root, 5); len(evs) != 2 {
		t.Fatalf("two servers: %d events, want the baseline and one change (one watcher)", len(evs))
	}
	first.cmd.Process.Signal(syscall.SIGKILL)
	first.cmd.Wait()
	bash(t, root, `echo c > a.txt; echo new > n.txt`)
	waitClean(t, root)
	if got := journaledPaths(t, root); !got["n.txt"] {
		t.Fatal("the second server did not take over the watch")
	}
	if out := runJournal(t, root, "show", fmt.Sprint(lastEvents(t, root, 1)[0].Seq), "--no-pager"); !strings.Contains(out, "a.txt") && !strings.Contains(out, "n.txt") {
		t.Fatalf("the takeover's event:\n%s", out)
	}
}
