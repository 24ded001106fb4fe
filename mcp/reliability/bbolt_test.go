package reliability

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay"
)

// TestBolt_SecondOpenerGetsBusy holds the journal's lock (as a long batch
// would) and checks that the CLI, a server's tool call and a second in-process
// opener each get a clear "busy" error within a few seconds — no hang.
func TestBolt_SecondOpenerGetsBusy(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("a\n"), 0o644)
	s := mustStart(t, root, "busy")
	if r, _ := s.call("file_insert_text", map[string]any{"ops": []map[string]any{{"path": "a.txt", "content": "x", "at": "eof"}}}); r == nil || r.IsError {
		t.Fatalf("first edit: %+v", r)
	}
	j, err := journal.Open(filepath.Join(root, journal.DirName, journal.FileName), journal.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	held, release := make(chan struct{}), make(chan struct{})
	go j.Do(func(*journal.DB) error { close(held); <-release; return nil })
	<-held
	defer close(release)

	begin := time.Now()
	r, err := s.call("file_insert_text", map[string]any{"ops": []map[string]any{{"path": "a.txt", "content": "y", "at": "eof"}}})
	toolWait := time.Since(begin)
	if err != nil || !r.IsError || r.Err.Code != "BUSY" {
		t.Errorf("tool call while the journal is held: %v %+v", err, r)
	}
	begin = time.Now()
	out, err := cli(root, "log", "--no-pager")
	cliWait := time.Since(begin)
	if err == nil || !strings.Contains(strings.ToLower(out), "held by another process") {
		t.Errorf("journal log while held: %v %q", err, out)
	}
	j2, _ := journal.Open(j.Path(), journal.Options{Timeout: 500 * time.Millisecond})
	begin = time.Now()
	err = j2.Do(func(*journal.DB) error { return nil })
	openWait := time.Since(begin)
	if !errors.Is(err, journal.ErrBusy) {
		t.Errorf("second opener: %v, want ErrBusy", err)
	}
	for _, w := range []time.Duration{toolWait, cliWait, openWait} {
		if w > 5*time.Second {
			t.Errorf("waited %v", w)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(b) != "a\nx\n" {
		t.Errorf("a.txt = %q", b)
	}
	figures(t, map[string]any{"tool_busy_after_ms": toolWait.Milliseconds(), "cli_busy_after_ms": cliWait.Milliseconds(),
		"second_opener_busy_after_ms": openWait.Milliseconds(), "cli_output": strings.TrimSpace(out)})
}

// TestBolt_SizeBoundedWithRetention creates and deletes files in cycles with
// `gc --keep` retention in between: the journal file stays under twice its
// steady-state size (bbolt reuses freed pages; it never shrinks).
func TestBolt_SizeBoundedWithRetention(t *testing.T) {
	cycles := scale("CYCLES", 400, 100000)
	root := t.TempDir()
	e, err := replay.Open(replay.Options{Roots: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	jp := e.Journal().Path()
	size := func() int64 { fi, _ := os.Stat(jp); return fi.Size() }
	ctx := context.Background()
	gcEvery := cycles / 20
	var steady, peak int64
	gcs := 0
	begin := time.Now()
	for i := 0; i < cycles; i++ {
		p := fmt.Sprintf("f%d.txt", i%7)
		data := []byte(fmt.Sprintf("cycle %d %s\n", i, strings.Repeat("x", 2000+i%5000)))
		if _, err := e.Apply(ctx, &replay.Batch{Tool: "cycle", Changes: []replay.Change{{Path: p, Data: data}}}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Apply(ctx, &replay.Batch{Tool: "cycle", Changes: []replay.Change{{Path: p, Delete: true}}}); err != nil {
			t.Fatal(err)
		}
		if (i+1)%gcEvery == 0 {
			if _, err := e.Journal().GC(journal.GCOptions{Keep: time.Nanosecond, Now: time.Now().Add(time.Second)}); err != nil {
				t.Fatal(err)
			}
			gcs++
			sz := size()
			if gcs == 5 {
				steady = sz
			}
			peak = max(peak, sz)
			if steady > 0 && sz > 2*steady {
				t.Fatalf("after %d cycles the journal is %d bytes, over twice the steady state %d", i+1, sz, steady)
			}
		}
	}
	if _, err := e.Journal().GC(journal.GCOptions{Keep: time.Nanosecond, Now: time.Now().Add(time.Second)}); err != nil {
		t.Fatal(err)
	}
	if out, err := cli(root, "verify"); err != nil {
		t.Errorf("journal verify: %v %s", err, out)
	}
	figures(t, map[string]any{"cycles": cycles, "events": 2 * cycles, "gc_runs": gcs + 1, "steady_bytes": steady,
		"peak_bytes": peak, "final_bytes": size(), "peak_over_steady": float64(peak) / float64(max(steady, 1)),
		"seconds": int(time.Since(begin).Seconds())})
}
