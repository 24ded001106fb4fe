package replay_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay"
)

// randomContent returns 0 B – 1 MiB of text (LF or CRLF) or binary, skewed small.
func randomContent(r *rand.Rand) []byte {
	var n int
	switch r.IntN(10) {
	case 0:
		n = 0
	case 1:
		n = r.IntN(1 << 20)
	case 2, 3:
		n = r.IntN(64 << 10)
	default:
		n = r.IntN(2 << 10)
	}
	b := make([]byte, n)
	switch r.IntN(3) {
	case 0: // binary
		for i := range b {
			b[i] = byte(r.Uint32())
		}
	default:
		eol := "\n"
		if r.IntN(2) == 0 {
			eol = "\r\n"
		}
		var buf bytes.Buffer
		for buf.Len() < n {
			fmt.Fprintf(&buf, "line %d %x%s", r.IntN(1000), r.Uint64(), eol)
		}
		b = buf.Bytes()[:n]
	}
	return b
}

func randomBatch(r *rand.Rand, files int) *replay.Batch {
	b := &replay.Batch{Tool: "crash"}
	perm := r.Perm(files)
	for _, i := range perm[:1+r.IntN(min(20, files))] {
		name := fmt.Sprintf("d%d/f%02d.txt", i%4, i)
		if r.IntN(12) == 0 {
			b.Changes = append(b.Changes, replay.Change{Path: name, Delete: true})
			continue
		}
		b.Changes = append(b.Changes, replay.Change{Path: name, Data: randomContent(r)})
	}
	return b
}

// TestCrashChild is the child process of TestCrash: it applies random batches until killed.
func TestCrashChild(t *testing.T) {
	dir := os.Getenv("JOURNAL_CRASH_DIR")
	if dir == "" {
		t.Skip("child process of TestCrash")
	}
	seed, _ := strconv.ParseUint(os.Getenv("JOURNAL_CRASH_SEED"), 10, 64)
	r := rand.New(rand.NewPCG(seed, 7))
	e, err := replay.Open(replay.Options{Roots: []string{dir}})
	if err != nil {
		fmt.Fprintln(os.Stderr, "child open:", err)
		os.Exit(3)
	}
	os.Stdout.WriteString("ready\n")
	for {
		b := randomBatch(r, 30)
		if _, err := e.Apply(ctx, b); err != nil && !isExpected(err) {
			fmt.Fprintln(os.Stderr, "child apply:", err)
			os.Exit(4)
		}
		if r.IntN(4) == 0 { // a reader: logged batches move into the bbolt file, their files unsynced
			e.FindEdit(b.Changes[0].Path, "")
		}
	}
}

func isExpected(err error) bool {
	// Deleting a file that a previous batch already deleted.
	return err != nil && bytes.Contains([]byte(err.Error()), []byte("cannot delete"))
}

// crashIterations is the number of kills a crash test makes: def, or
// JOURNAL_CRASH_ITERATIONS; short with -short.
func crashIterations(def, short int) int {
	if testing.Short() {
		return short
	}
	if s := os.Getenv("JOURNAL_CRASH_ITERATIONS"); s != "" {
		if n, err := strconv.Atoi(s); err == nil {
			return n
		}
	}
	return def
}

// TestCrash kills a child applying batches at random moments and checks, after
// each kill, that recovery leaves every batch all-before or all-after, as the
// journal says. JOURNAL_CRASH_ITERATIONS sets the number of kills (default 200).
func TestCrash(t *testing.T) {
	if os.Getenv("JOURNAL_CRASH_DIR") != "" {
		t.Skip("in child")
	}
	iters := crashIterations(200, 20)
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(42, 42))
	var rolledBack, committed int
	for i := 0; i < iters; i++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), "JOURNAL_CRASH_DIR="+dir, "JOURNAL_CRASH_SEED="+strconv.Itoa(i))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		ready := make([]byte, 6)
		if _, err := out.Read(ready); err != nil {
			cmd.Wait()
			t.Fatalf("child did not start: %v %s", err, stderr.String())
		}
		time.Sleep(time.Duration(r.IntN(40000)) * time.Microsecond)
		cmd.Process.Signal(syscall.SIGKILL)
		err := cmd.Wait()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
			t.Fatalf("child exited on its own (%v): %s", err, stderr.String())
		}

		e, err := replay.Open(replay.Options{Roots: []string{dir}}) // recovers
		if err != nil {
			t.Fatalf("iteration %d: reopen: %v", i, err)
		}
		checkConsistent(t, e, dir, i)
		before := snapshotDir(t, dir)
		again, err := e.Recover()
		if err != nil || len(again) != 0 {
			t.Fatalf("iteration %d: second recovery %v %v", i, again, err)
		}
		if k, ok := equalMaps(before, snapshotDir(t, dir)); !ok {
			t.Fatalf("iteration %d: second recovery changed %s", i, k)
		}
		e.Journal().View(func(tx *journal.Tx) error {
			if ev, err := tx.Event(tx.Last()); err == nil && ev.Status == journal.StatusRolledBack {
				rolledBack++
			} else if err == nil {
				committed++
			}
			return nil
		})
		e.Close()
	}
	t.Logf("%d kills: last event rolled back %d times, committed %d times", iters, rolledBack, committed)
}

// checkConsistent: no pending events, no temp files, chain verifies, and every
// journaled file is exactly its head (so each batch is all-after if committed,
// all-before if rolled back).
func checkConsistent(t *testing.T, e *replay.Engine, dir string, i int) {
	t.Helper()
	st, err := e.Status()
	if err != nil {
		t.Fatalf("iteration %d: status: %v", i, err)
	}
	if len(st.Pending) != 0 {
		t.Fatalf("iteration %d: pending after recovery: %v", i, st.Pending)
	}
	if len(st.Changed) != 0 {
		t.Fatalf("iteration %d: files differ from the journal: %+v", i, st.Changed)
	}
	if tmp := temps(dir); len(tmp) != 0 {
		t.Fatalf("iteration %d: temp files left: %v", i, tmp)
	}
	verifyChain(t, e)
	// Every file on disk is known to the journal with that content.
	err = e.Journal().View(func(tx *journal.Tx) error {
		for name := range snapshotDir(t, dir) {
			if filepath.Base(name) == ".gitignore" {
				continue
			}
			if _, ok := tx.Head(name); !ok {
				return fmt.Errorf("%s on disk but unknown to the journal", name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("iteration %d: %v", i, err)
	}
}
