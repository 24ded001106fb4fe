package replay_test

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay"
)

// TestTwoEngines_Serialize: two engines on one workspace (each opens the
// journal per batch, as two processes do — flock conflicts across open file
// descriptions even inside one process) increment a counter file with
// read-modify-write edits. Every increment lands exactly once, and no batch
// waits more than about a second for the other.
func TestTwoEngines_Serialize(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "counter.txt", "0\n")
	engines := []*replay.Engine{open(t, dir), open(t, dir)}
	const each = 60
	var wg sync.WaitGroup
	var mu sync.Mutex
	var worst time.Duration
	for _, e := range engines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; k < each; k++ {
				start := time.Now()
				_, err := e.Edit(ctx, func(r *replay.Reader) (*replay.Batch, error) {
					f, err := r.Read("counter.txt")
					if err != nil {
						return nil, err
					}
					n, _ := strconv.Atoi(strings.TrimSpace(string(f.Data)))
					return &replay.Batch{Changes: []replay.Change{{Path: "counter.txt", Data: []byte(fmt.Sprintf("%d\n", n+1)), Expect: &f.ID}}}, nil
				})
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				worst = max(worst, time.Since(start))
				mu.Unlock()
			}
		}()
	}
	// A reader in between (like `journal log`) is never refused.
	for k := 0; k < 20; k++ {
		if err := engines[0].Journal().View(func(tx *journal.Tx) error { tx.Last(); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	if got := mustRead(t, dir, "counter.txt"); got != fmt.Sprintf("%d\n", 2*each) {
		t.Fatalf("counter %q, want %d: an increment was lost or doubled", got, 2*each)
	}
	verifyChain(t, engines[0])
	t.Logf("worst batch latency with two writers: %v", worst)
	if worst > 3*time.Second {
		t.Fatalf("a batch waited %v", worst)
	}
}
