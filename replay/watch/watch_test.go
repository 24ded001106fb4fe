package watch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay"
)

// harness is a workspace with an engine and a running watcher whose
// recordings arrive on rec.
type harness struct {
	t   *testing.T
	dir string
	eng *replay.Engine
	w   *Watcher
	mu  sync.Mutex
	obs []*replay.Observed
	// hotLimit, if set, replaces the watcher's HotLimit
	hotLimit int
}

func files(t *testing.T, dir string, m map[string]string) {
	t.Helper()
	for name, content := range m {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func newHarness(t *testing.T, dir string) *harness { return newHarnessHot(t, dir, 0) }

func newHarnessHot(t *testing.T, dir string, hot int) *harness {
	t.Helper()
	eng, err := replay.Open(replay.Options{Roots: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, dir: dir, eng: eng, hotLimit: hot}
	t.Cleanup(func() { h.stop(); eng.Close() })
	h.start()
	return h
}

func (h *harness) start() {
	h.t.Helper()
	w, err := Start(context.Background(), h.eng, Options{Settle: 60 * time.Millisecond, MaxDelay: 3 * time.Second, HotLimit: h.hotLimit,
		Logf: h.t.Logf, Recorded: func(ob *replay.Observed) {
			h.mu.Lock()
			h.obs = append(h.obs, ob)
			h.mu.Unlock()
		}})
	if err != nil {
		h.t.Fatal(err)
	}
	h.w = w
}

func (h *harness) stop() {
	if h.w != nil {
		if err := h.w.Close(); err != nil {
			h.t.Error(err)
		}
		h.w = nil
	}
}

// heads returns the journal's view of every file (key → content), present ones only.
func (h *harness) heads() map[string]string {
	h.t.Helper()
	out := map[string]string{}
	known, err := h.eng.Known()
	if err != nil {
		h.t.Fatal(err)
	}
	for k, hd := range known {
		if hd.ID.IsZero() {
			continue
		}
		data, ok, err := h.eng.Content(hd.ID, 1<<30)
		if err != nil || !ok {
			h.t.Fatalf("content of %s: %v", k, err)
		}
		out[k] = string(data)
	}
	return out
}

// disk returns the workspace's files the watcher keeps (key → content).
func (h *harness) disk() map[string]string {
	h.t.Helper()
	out := map[string]string{}
	t, err := walk(h.eng, 0, nil, never)
	if err != nil {
		h.t.Fatal(err)
	}
	for k := range t.files {
		b, err := os.ReadFile(filepath.Join(h.dir, filepath.FromSlash(k)))
		if err != nil {
			h.t.Fatal(err)
		}
		out[k] = string(b)
	}
	return out
}

// settled waits until the journal holds exactly what is on disk.
func (h *harness) settled() {
	h.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		want, got := h.disk(), h.heads()
		if fmt.Sprint(want) == fmt.Sprint(got) {
			return
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("the journal never caught up with the disk:\n disk    %v\n journal %v", want, got)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (h *harness) events(from uint64) []*journal.Event {
	h.t.Helper()
	var out []*journal.Event
	err := h.eng.Journal().View(func(tx *journal.Tx) error {
		return tx.Each(from, false, func(e *journal.Event) error { out = append(out, e); return nil })
	})
	if err != nil {
		h.t.Fatal(err)
	}
	return out
}

func (h *harness) last() uint64 {
	evs := h.events(0)
	if len(evs) == 0 {
		return 0
	}
	return evs[len(evs)-1].Seq
}

func sh(t *testing.T, dir, script string) {
	t.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
}

func paths(ev *journal.Event) string {
	var ps []string
	for _, f := range ev.Files {
		ps = append(ps, f.What()[:1]+" "+f.Path)
	}
	return strings.Join(ps, ", ")
}

// Shell commands of every kind become observe events, undo takes each back
// whole, and a baseline records the files found at the first start.
func TestWatch_ShellCommandsAndUndo(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Fatal("python3 is needed (a script rewriting several files)")
	}
	dir := t.TempDir()
	files(t, dir, map[string]string{"a.py": "a = 1\n", "b.py": "b = 1\n", "c.py": "c = 1\n", "pkg/x.py": "x = 1\n", "pkg/y.py": "y = 1\n"})
	h := newHarness(t, dir)
	evs := h.events(0)
	if len(evs) != 1 || !evs[0].IsBaseline() || len(evs[0].Files) != 5 {
		t.Fatalf("first start: want one baseline event of 5 files, got %d events: %+v", len(evs), evs)
	}
	before := h.disk()
	steps := []string{
		`sed -i 's/b = 1/b = 2/' b.py`,
		"cat > d.py <<'EOF'\nprint('d')\nEOF",
		`rm c.py`,
		`mv pkg/x.py pkg/z.py`,
		`python3 - <<'PY'
import pathlib
for n in ["a.py", "pkg/y.py", "d.py"]:
    p = pathlib.Path(n); p.write_text(p.read_text().upper())
PY`,
	}
	states := []map[string]string{before}
	for _, s := range steps {
		last := h.last()
		sh(t, dir, s)
		h.settled()
		if h.last() == last {
			t.Fatalf("%q: no event", s)
		}
		for _, ev := range h.events(last + 1) {
			if ev.Kind != journal.KindObserve || ev.Tool != journal.ToolWatch {
				t.Fatalf("%q: event %d is %s/%s, want observe/watch", s, ev.Seq, ev.Kind, ev.Tool)
			}
			t.Logf("%q -> event %d: %s", s, ev.Seq, paths(ev))
		}
		states = append(states, h.disk())
	}
	// the move is recorded as one
	var moved bool
	for _, ev := range h.events(0) {
		for _, f := range ev.Files {
			moved = moved || (f.Path == "pkg/z.py" && f.MovedFrom == "pkg/x.py")
		}
	}
	if !moved {
		t.Error("mv pkg/x.py pkg/z.py was not recorded as a move")
	}
	// undo takes each command back whole, newest first (the watcher sees
	// the undo's own writes and records nothing for them)
	for i := len(steps) - 1; i >= 0; i-- {
		if _, err := h.eng.Undo(context.Background(), replay.RevertOptions{}); err != nil {
			t.Fatalf("undo of %q: %v", steps[i], err)
		}
		if got := h.disk(); fmt.Sprint(got) != fmt.Sprint(states[i]) {
			t.Fatalf("after undoing %q:\n got  %v\n want %v", steps[i], got, states[i])
		}
	}
	time.Sleep(300 * time.Millisecond)
	for _, ev := range h.events(0) {
		if ev.Kind == journal.KindObserve && ev.Seq > 6 {
			t.Errorf("our own undo's writes became event %d (%s)", ev.Seq, paths(ev))
		}
	}
	// the baseline is never undone: nothing is left to undo
	if _, err := h.eng.Undo(context.Background(), replay.RevertOptions{}); err == nil {
		t.Error("undo went past the commands")
	}
	err := h.eng.Journal().View(func(tx *journal.Tx) error { _, err := tx.Verify(true, nil); return err })
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
}

// The engine's own batches never become observe events, and an outside
// change racing them is neither lost nor taken for ours.
func TestWatch_OwnWritesAndRaces(t *testing.T) {
	dir := t.TempDir()
	files(t, dir, map[string]string{"ours.txt": "0\n", "both.txt": "0\n"})
	h := newHarness(t, dir)
	start := h.last()
	ctx := context.Background()
	for i := 1; i <= 30; i++ {
		if _, err := h.eng.Apply(ctx, &replay.Batch{Tool: "t", Changes: []replay.Change{{Path: "ours.txt", Data: []byte(fmt.Sprintf("%d\n", i))}}}); err != nil {
			t.Fatal(err)
		}
	}
	h.settled()
	time.Sleep(400 * time.Millisecond)
	for _, ev := range h.events(start + 1) {
		if ev.Kind == journal.KindObserve {
			t.Fatalf("our own write became observe event %d (%s)", ev.Seq, paths(ev))
		}
	}
	// races: our batch and another process on the same file, back to back
	for i := 1; i <= 30; i++ {
		h.eng.Apply(ctx, &replay.Batch{Tool: "t", Changes: []replay.Change{{Path: "both.txt", Data: []byte(fmt.Sprintf("ours %d\n", i))}}})
		os.WriteFile(filepath.Join(dir, "both.txt"), []byte(fmt.Sprintf("theirs %d\n", i)), 0o644)
	}
	h.settled()
	if got := h.heads()["both.txt"]; got != "theirs 30\n" {
		t.Fatalf("the journal's both.txt is %q, want the outside writer's last", got)
	}
	var lastTheirs *journal.Event
	for _, ev := range h.events(start + 1) {
		if f, ok := ev.File("both.txt"); ok {
			if data, _, _ := h.eng.Content(f.After, 1<<20); strings.HasPrefix(string(data), "theirs") {
				if ev.Kind != journal.KindObserve {
					t.Fatalf("the outside writer's %q was recorded as our %s event %d", data, ev.Kind, ev.Seq)
				}
				lastTheirs = ev
			}
		}
	}
	if lastTheirs == nil {
		t.Fatal("no outside write recorded")
	}
}

// .gitignore files (nested, with negations), .journalignore and the defaults
// keep an install or a build out of the journal; symbolic links are never
// followed.
func TestWatch_IgnoreRulesAndSymlinks(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	files(t, outside, map[string]string{"secret.txt": "outside\n"})
	files(t, dir, map[string]string{
		".gitignore":                "build/\n*.log\n!keep.log\n",
		"sub/.gitignore":            "gen_*\n",
		".journalignore":            "!node_modules/\nnode_modules/*\n!node_modules/local/\n",
		"src/main.go":               "package main\n",
		"sub/ok.txt":                "ok\n",
		"sub/gen_x.txt":             "generated\n",
		"keep.log":                  "kept\n",
		"other.log":                 "left out\n",
		"build/out.bin":             "left out\n",
		".venv/lib/x.py":            "left out\n",
		"node_modules/local/own.js": "kept\n",
	})
	if err := os.Symlink(outside, filepath.Join(dir, "linkdir")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("src/main.go", filepath.Join(dir, "link.go")); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, dir)
	got := h.heads()
	for _, want := range []string{".gitignore", "sub/.gitignore", ".journalignore", "src/main.go", "sub/ok.txt", "keep.log", "node_modules/local/own.js"} {
		if _, ok := got[want]; !ok {
			t.Errorf("%s was not recorded", want)
		}
	}
	for _, not := range []string{"sub/gen_x.txt", "other.log", "build/out.bin", ".venv/lib/x.py", "linkdir/secret.txt", "link.go"} {
		if _, ok := got[not]; ok {
			t.Errorf("%s was recorded, though left out", not)
		}
	}
	// an install of many files and a build: no event
	last := h.last()
	sh(t, dir, `mkdir -p node_modules/pkg build/obj && for i in $(seq 1 300); do echo $i > node_modules/pkg/f$i.js; echo $i > build/obj/o$i; done; echo log > run.log`)
	sh(t, outside, `echo changed > secret.txt`)
	sh(t, dir, `echo changed > src/main.go`)
	h.settled()
	for _, ev := range h.events(last + 1) {
		if len(ev.Files) != 1 || ev.Files[0].Path != "src/main.go" {
			t.Fatalf("event %d recorded %s; only src/main.go changed among kept files", ev.Seq, paths(ev))
		}
	}
}

// What changed while no watcher ran is recorded first at the next start:
// changes to known files as one catch-up event, new files as a baseline.
func TestWatch_CatchUp(t *testing.T) {
	dir := t.TempDir()
	files(t, dir, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	h := newHarness(t, dir)
	h.stop()
	last := h.last()
	sh(t, dir, `echo A > a.txt; rm b.txt; echo new > c.txt`)
	h.start()
	evs := h.events(last + 1)
	var tools []string
	for _, ev := range evs {
		tools = append(tools, ev.Tool+": "+paths(ev))
	}
	if len(evs) != 2 || !evs[0].IsBaseline() || evs[1].Tool != journal.ToolCatchUp ||
		paths(evs[0]) != "c c.txt" || paths(evs[1]) != "m a.txt, d b.txt" {
		t.Fatalf("catch-up: %q", tools)
	}
	// a restart with nothing changed records nothing (the cache spares the hashing)
	h.stop()
	last = h.last()
	h.start()
	if n := len(h.events(last + 1)); n != 0 {
		t.Fatalf("a restart with nothing changed recorded %d events", n)
	}
}

// A first start caches every file of its baseline (as recorded, a few
// events at a time: no list of them all is kept) with the identity it was
// read with and its head's content, so that the next start reads none.
func TestWatch_FirstStartCachesBaseline(t *testing.T) {
	dir := t.TempDir()
	m := map[string]string{}
	for i := range 40 {
		m[fmt.Sprintf("d%d/f%d.txt", i%7, i)] = fmt.Sprintf("file %d\n", i)
	}
	files(t, dir, m)
	time.Sleep(150 * time.Millisecond) // past the racy margin: identities a cache may keep
	h := newHarness(t, dir)
	h.stop()
	known, err := h.eng.Known()
	if err != nil {
		t.Fatal(err)
	}
	c := loadCache(filepath.Join(Dir(h.eng), "cache"))
	if len(c.Files) != len(m) {
		t.Fatalf("the cache holds %d files; want the baseline's %d", len(c.Files), len(m))
	}
	for k := range m {
		fi, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(k)))
		if err != nil {
			t.Fatal(err)
		}
		st, _ := replay.StampOf(fi)
		if e := c.Files[k]; e.ID != known[k].ID || e.Stamp != st {
			t.Errorf("%s cached as %+v; want its head %s with its identity %+v", k, e, known[k].ID, st)
		}
	}
}

// A start whose cache is lost (the journal knows every file) rebuilds it
// from the files it finds unchanged, with the identities its walk saw —
// so the walk stats the files the journal knows though the cache knows
// none — and the start after reads nothing.
func TestWatch_LostCacheRebuilt(t *testing.T) {
	dir := t.TempDir()
	m := map[string]string{}
	for i := range 30 {
		m[fmt.Sprintf("d%d/f%d.txt", i%4, i)] = fmt.Sprintf("file %d\n", i)
	}
	files(t, dir, m)
	time.Sleep(150 * time.Millisecond) // past the racy margin
	h := newHarness(t, dir)
	h.stop()
	cacheFile := filepath.Join(Dir(h.eng), "cache")
	if err := os.Remove(cacheFile); err != nil {
		t.Fatal(err)
	}
	last := h.last()
	h.start()
	h.stop()
	if n := len(h.events(last + 1)); n != 0 {
		t.Fatalf("a start with its cache lost recorded %d events", n)
	}
	c := loadCache(cacheFile)
	for k := range m {
		fi, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(k)))
		if err != nil {
			t.Fatal(err)
		}
		if st, _ := replay.StampOf(fi); c.Files[k].Stamp != st {
			t.Errorf("%s cached as %+v after the rebuild; want its identity %+v", k, c.Files[k], st)
		}
	}
}

// An overflow of the kernel's queue (or a directory the watcher lost) is
// recovered by a rescan: the change is recorded all the same.
func TestWatch_OverflowRescans(t *testing.T) {
	dir := t.TempDir()
	files(t, dir, map[string]string{"d/a.txt": "a\n"})
	h := newHarness(t, dir)
	d := filepath.Join(dir, "d")
	h.w.mu.Lock()
	h.w.fw.Remove(d) // events of d are lost from here on
	delete(h.w.watched, d)
	h.w.mu.Unlock()
	sh(t, dir, `echo changed > d/a.txt`)
	time.Sleep(300 * time.Millisecond)
	if got := h.heads()["d/a.txt"]; got != "a\n" {
		t.Fatalf("the change was seen without its watch: %q", got)
	}
	h.w.fw.Errors <- fsnotify.ErrEventOverflow
	h.settled()
	if got := h.heads()["d/a.txt"]; got != "changed\n" {
		t.Fatalf("after the overflow's rescan: %q", got)
	}
}

// A file rewritten in place again and again, and another replaced by
// rename again and again, while the watcher reads them, are recorded only
// as whole versions, never half of one and half of another, and as they
// ended.
func TestWatch_NeverRecordsHalfAWrite(t *testing.T) {
	dir := t.TempDir()
	files(t, dir, map[string]string{"big.txt": strings.Repeat("a", 1<<20)})
	h := newHarness(t, dir)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		f, _ := os.OpenFile(filepath.Join(dir, "big.txt"), os.O_WRONLY, 0)
		defer f.Close()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			block := bytes.Repeat([]byte{byte('b' + i%20)}, 64<<10)
			for off := int64(0); off < 1<<20; off += int64(len(block)) {
				f.WriteAt(block, off)
			}
		}
	}()
	wg.Add(1)
	go func() { // and a file replaced (write a temp, rename it over) again and again
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			tmp := filepath.Join(dir, ".swap.tmp")
			os.WriteFile(tmp, bytes.Repeat([]byte{byte('B' + i%20)}, 256<<10), 0o644)
			os.Rename(tmp, filepath.Join(dir, "swapped.txt"))
		}
	}()
	time.Sleep(2 * time.Second)
	close(stop)
	wg.Wait()
	os.Remove(filepath.Join(dir, ".swap.tmp"))
	h.settled() // both recorded as they ended
	for _, ev := range h.events(0) {
		f, ok := ev.File("big.txt")
		if !ok {
			f, ok = ev.File("swapped.txt")
		}
		if !ok || f.After.IsZero() {
			continue
		}
		data, _, err := h.eng.Content(f.After, 2<<20)
		if err != nil {
			t.Fatal(err)
		}
		if n := bytes.Count(data, data[:1]); n != len(data) {
			t.Fatalf("event %d recorded a torn content: %d of %d bytes are %q", ev.Seq, n, len(data), data[:1])
		}
	}
}

// A file rewritten all the time (a log) is recorded at a bounded pace.
func TestWatch_HotFilePaced(t *testing.T) {
	dir := t.TempDir()
	files(t, dir, map[string]string{"app.txt": "0\n"})
	h := newHarnessHot(t, dir, 5)
	last := h.last()
	for i := 0; i < 25; i++ {
		os.WriteFile(filepath.Join(dir, "app.txt"), []byte(fmt.Sprintf("%d\n", i)), 0o644)
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	n := len(h.events(last + 1))
	if n > 8 || n < 4 {
		t.Fatalf("25 writes 100 ms apart made %d events: want the first HotLimit (5), then one a minute", n)
	}
	// a file that never stops changing does not hold back the others
	stop := make(chan struct{})
	go func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			os.WriteFile(filepath.Join(dir, "busy.log"), []byte(fmt.Sprintf("%d\n", i)), 0o644)
			time.Sleep(20 * time.Millisecond)
		}
	}()
	time.Sleep(1500 * time.Millisecond) // busy by now
	os.WriteFile(filepath.Join(dir, "other.txt"), []byte("other\n"), 0o644)
	deadline := time.Now().Add(2 * time.Second) // MaxDelay is 3 s here
	for h.heads()["other.txt"] != "other\n" {
		if time.Now().After(deadline) {
			close(stop)
			t.Fatal("a busy file held back the recording of another for over 2 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	close(stop)
	// Close records what the pace held back
	h.stop()
	if got := h.heads()["app.txt"]; got != "24\n" {
		t.Fatalf("after close: %q", got)
	}
}

// An agent's call (a hook's Begin and End, over the watcher's socket) is
// one event naming the call; changes before it are recorded apart. Without
// a watcher, Begin and End walk the workspace themselves.
func TestWatch_CallsThroughSocketAndAlone(t *testing.T) {
	dir := t.TempDir()
	files(t, dir, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	h := newHarness(t, dir)
	ctx := context.Background()
	call := Call{ID: "toolu_1", Agent: "claude-code", Session: "s1", Tool: "Bash", Input: []byte(`{"command":"sed -i s/b/B/ b.txt; rm a.txt"}`), Origin: "hook"}
	sh(t, dir, `echo before > a.txt`) // made before the call: not the call's
	last := h.last()
	if r, err := Begin(ctx, h.eng, call); err != nil || !r.Watcher {
		t.Fatalf("begin: %v %+v", err, r)
	}
	sh(t, dir, `sed -i s/b/B/ b.txt; sleep 0.5; rm a.txt`) // slower than the watcher's settle
	r, err := End(ctx, h.eng, call)
	if err != nil || !r.Watcher || len(r.Events) != 1 {
		t.Fatalf("end: %v %+v", err, r)
	}
	evs := h.events(last + 1)
	if len(evs) != 2 || evs[0].Tool != journal.ToolWatch || paths(evs[0]) != "m a.txt" {
		t.Fatalf("before the call: %+v", evs)
	}
	ev := evs[1]
	if ev.Tool != "Bash" || ev.Actor.Session != "s1" || ev.Actor.Name != "claude-code" || paths(ev) != "d a.txt, m b.txt" || !strings.Contains(string(ev.Args), "sed -i") {
		t.Fatalf("the call's event: %s %+v %s %s", ev.Tool, ev.Actor, paths(ev), ev.Args)
	}
	// alone
	h.stop()
	last = h.last()
	call.ID = "toolu_2"
	if r, err := Begin(ctx, h.eng, call); err != nil || r.Watcher {
		t.Fatalf("begin alone: %v %+v", err, r)
	}
	sh(t, dir, `echo new > n.txt; echo BB > b.txt`)
	if r, err := End(ctx, h.eng, call); err != nil || len(r.Events) != 1 {
		t.Fatalf("end alone: %v %+v", err, r)
	}
	evs = h.events(last + 1)
	if len(evs) != 1 || evs[0].Tool != "Bash" || paths(evs[0]) != "m b.txt, c n.txt" {
		t.Fatalf("alone: %d events, %s", len(evs), paths(evs[len(evs)-1]))
	}
	if _, err := h.eng.Undo(ctx, replay.RevertOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "n.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("undo of the call left the file it created")
	}
}

// An after-hook with no before-hook that names its files (Cursor's
// afterFileEdit) is one event of those files alone, named for it; another
// call open meanwhile keeps the rest.
func TestWatch_EndWithoutBeginNamesItsFiles(t *testing.T) {
	dir := t.TempDir()
	files(t, dir, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	h := newHarness(t, dir)
	ctx := context.Background()
	shell := Call{ID: "shell", Agent: "cursor", Session: "c1", Tool: "Shell", Input: []byte(`{"command":"echo B > b.txt"}`), Origin: "hook"}
	edit := Call{ID: "edit", Agent: "cursor", Session: "c1", Tool: "Write", Input: []byte(`{"file_path":"a.txt"}`), Origin: "hook",
		Files: []string{filepath.Join(dir, "a.txt")}}
	last := h.last()
	if _, err := h.w.Begin(ctx, shell); err != nil {
		t.Fatal(err)
	}
	sh(t, dir, `echo A > a.txt; echo B > b.txt`)
	if _, err := h.w.End(ctx, edit); err != nil {
		t.Fatal(err)
	}
	if _, err := h.w.End(ctx, shell); err != nil {
		t.Fatal(err)
	}
	evs := h.events(last + 1)
	if len(evs) != 2 || evs[0].Tool != "Write" || paths(evs[0]) != "m a.txt" || evs[1].Tool != "Shell" || paths(evs[1]) != "m b.txt" {
		var got []string
		for _, e := range evs {
			got = append(got, e.Tool+" "+paths(e))
		}
		t.Fatalf("events: %v", got)
	}
	if !strings.Contains(string(evs[0].Args), `"call":{"id":"edit"}`) || strings.Contains(string(evs[0].Args), "shell") {
		t.Fatalf("the edit's event: %s", evs[0].Args)
	}
}

// One watcher per workspace: a second Start is refused while the first runs.
func TestWatch_OnePerWorkspace(t *testing.T) {
	dir := t.TempDir()
	h := newHarness(t, dir)
	if _, err := Start(context.Background(), h.eng, Options{}); !errors.Is(err, ErrBusy) {
		t.Fatalf("second watcher: %v", err)
	}
}

// A change of mode alone (chmod +x) is a change, and undo takes it back.
func TestWatch_ModeChange(t *testing.T) {
	dir := t.TempDir()
	files(t, dir, map[string]string{"run.sh": "echo hi\n"})
	h := newHarness(t, dir)
	last := h.last()
	sh(t, dir, `chmod 755 run.sh`)
	deadline := time.Now().Add(10 * time.Second)
	for h.last() == last {
		if time.Now().After(deadline) {
			t.Fatal("chmod made no event")
		}
		time.Sleep(20 * time.Millisecond)
	}
	ev := h.events(last + 1)[0]
	if f := ev.Files[0]; f.Path != "run.sh" || f.BeforeMode != 0o644 || f.AfterMode != 0o755 || f.Before != f.After {
		t.Fatalf("chmod recorded as %+v", f)
	}
	if _, err := h.eng.Undo(context.Background(), replay.RevertOptions{}); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(filepath.Join(dir, "run.sh")); fi.Mode().Perm() != 0o644 {
		t.Fatalf("after undo: mode %v", fi.Mode().Perm())
	}
}

// A tree larger than MaxFiles is refused with a clear error, and nothing is
// recorded (a root set to a home directory by mistake).
func TestWatch_TooManyFiles(t *testing.T) {
	dir := t.TempDir()
	files(t, dir, map[string]string{"a": "1", "b": "2", "c": "3", "d": "4"})
	eng, err := replay.Open(replay.Options{Roots: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	_, err = Start(context.Background(), eng, Options{MaxFiles: 3})
	if !errors.Is(err, ErrTooMany) || !strings.Contains(err.Error(), IgnoreFile) {
		t.Fatalf("Start: %v", err)
	}
	var n int
	eng.Journal().View(func(tx *journal.Tx) error { n = int(tx.Last()); return nil })
	if n != 0 {
		t.Fatalf("%d events recorded", n)
	}
	w, err := Start(context.Background(), eng, Options{MaxFiles: 4}) // the lock was let go
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
}

// A directory tree moved, then removed, is recorded whole: every file under
// the old name gone and under the new one present in one event, then every
// file gone in one event; undo brings the tree back.
func TestWatch_TreeMovedAndRemoved(t *testing.T) {
	dir := t.TempDir()
	m := map[string]string{}
	for i := 0; i < 60; i++ {
		m[fmt.Sprintf("tree/d%d/e%d/f.txt", i%12, i)] = fmt.Sprintf("%d\n", i)
	}
	files(t, dir, m)
	h := newHarness(t, dir)
	last := h.last()
	sh(t, dir, `mv tree moved`)
	h.settled()
	evs := h.events(last + 1)
	if len(evs) != 1 || len(evs[0].Files) != 120 {
		t.Fatalf("mv of a tree of 60 files: %d events, first with %d files", len(evs), len(evs[0].Files))
	}
	last = h.last()
	before := h.disk()
	sh(t, dir, `rm -rf moved`)
	h.settled()
	evs = h.events(last + 1)
	if len(evs) != 1 || len(evs[0].Files) != 60 {
		t.Fatalf("rm -rf of a tree of 60 files: %d events", len(evs))
	}
	if _, err := h.eng.Undo(context.Background(), replay.RevertOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := h.disk(); fmt.Sprint(got) != fmt.Sprint(before) {
		t.Fatalf("undo of rm -rf: %d files, want %d", len(got), len(before))
	}
}

// An edit made through the engine while a first start's walk of a large tree runs waits for it: every
// baseline event comes before the edit's, and the edited file is in the baseline as the walk found it.
func TestWatch_EditDuringTheFirstWalk(t *testing.T) {
	if testing.Short() {
		t.Skip("a tree of 10,000 files")
	}
	dir := t.TempDir()
	m := map[string]string{"main.go": "package main\n"}
	for i := 0; i < 10000; i++ {
		m[fmt.Sprintf("d%02d/f%04d.txt", i%100, i)] = fmt.Sprintf("file %d\n", i)
	}
	files(t, dir, m)
	eng, err := replay.Open(replay.Options{Roots: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	started := make(chan *Watcher, 1)
	go func() {
		w, err := Start(context.Background(), eng, Options{Logf: t.Logf})
		if err != nil {
			t.Error(err)
		}
		started <- w
	}()
	for { // the walk has begun once the watch lock is taken
		if _, err := os.Stat(filepath.Join(Dir(eng), "lock")); err == nil {
			break
		}
		time.Sleep(time.Millisecond)
	}
	res, err := eng.Apply(context.Background(), &replay.Batch{Tool: "edit", Changes: []replay.Change{{Path: "main.go", Data: []byte("package main // edited\n")}}})
	if err != nil {
		t.Fatal(err)
	}
	w := <-started
	if w != nil {
		defer w.Close()
	}
	var evs []*journal.Event
	eng.Journal().View(func(tx *journal.Tx) error {
		return tx.Each(0, false, func(e *journal.Event) error { evs = append(evs, e); return nil })
	})
	baseline := 0
	for _, e := range evs {
		if e.IsBaseline() {
			baseline++
			if e.Seq > res.Seq {
				t.Fatalf("baseline event %d comes after the edit (event %d)", e.Seq, res.Seq)
			}
		}
	}
	if baseline == 0 || res.Files[0].Before.IsZero() {
		t.Fatalf("%d baseline events; the edit's before %v", baseline, res.Files[0].Before)
	}
}

// A hook without a watcher records the file its call just wrote without
// waiting out the racy margin (no stamp cached for it), and the next hook's
// walk reads it again: a write of the same size right after the read is
// recorded then, not lost behind a cached identity.
func TestWatch_AloneRacyFileReadAgain(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "f.txt"), []byte("one\n"), 0o644)
	h := newHarness(t, dir)
	h.stop()
	ctx := context.Background()
	call := Call{ID: "toolu_1", Agent: "claude-code", Session: "s1", Tool: "Bash", Origin: "hook", Input: []byte(`{"command":"echo two > f.txt"}`)}
	if _, err := Begin(ctx, h.eng, call); err != nil {
		t.Fatal(err)
	}
	last := h.last()
	os.WriteFile(filepath.Join(dir, "f.txt"), []byte("two\n"), 0o644)
	if r, err := End(ctx, h.eng, call); err != nil || len(r.Events) != 1 {
		t.Fatalf("end alone: %v %+v", err, r)
	}
	c := loadCache(filepath.Join(Dir(h.eng), "cache"))
	fi, _ := os.Lstat(filepath.Join(dir, "f.txt"))
	if st, _ := replay.StampOf(fi); c.Files["f.txt"].Stamp == st {
		t.Fatalf("the cache vouches for a file read within the racy margin: %+v", c.Files["f.txt"])
	}
	// the same size again, right after the read
	os.WriteFile(filepath.Join(dir, "f.txt"), []byte("six\n"), 0o644)
	call.ID = "toolu_2"
	if _, err := Begin(ctx, h.eng, call); err != nil {
		t.Fatal(err)
	}
	evs := h.events(last + 1)
	if len(evs) != 2 || evs[0].Tool != "Bash" || evs[1].Tool != journal.ToolCatchUp {
		t.Fatalf("events: %d %+v", len(evs), evs)
	}
	got, _, err := h.eng.Content(evs[1].Files[0].After, 1<<20)
	if err != nil || string(got) != "six\n" {
		t.Fatalf("the next walk recorded %q, %v", got, err)
	}
}
