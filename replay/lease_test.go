package replay_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay"
)

// TestLease_ConcurrentBatchesAndReaders: batches of several goroutines of
// one engine run back to back under one lease (do keeps the journal's lock
// while more are queued) while readers of this process and a writer of
// another handle (another process's) keep getting their turn: every batch
// lands, in each file in order, and every reader and outside writer gets
// through.
func TestLease_ConcurrentBatchesAndReaders(t *testing.T) {
	dir := t.TempDir()
	e := open(t, dir)
	const writers, each = 4, 60
	ctx := context.Background()
	outside, err := journal.Open(replay.DefaultJournalPath(dir), journal.Options{Timeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer outside.Close()
	var (
		wg              sync.WaitGroup
		stop            = make(chan struct{})
		reads, outsides int
	)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := fmt.Sprintf("w%d.txt", w)
			var content strings.Builder
			for i := 0; i < each; i++ {
				fmt.Fprintf(&content, "%d\n", i)
				if _, err := e.Apply(ctx, &replay.Batch{Changes: []replay.Change{{Path: p, Data: []byte(content.String())}}}); err != nil {
					t.Errorf("%s batch %d: %v", p, i, err)
					return
				}
			}
		}()
	}
	var side sync.WaitGroup
	side.Add(2)
	go func() { // a reader of this process: Journal flushes, then View
		defer side.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if err := e.Journal().View(func(tx *journal.Tx) error { return nil }); err != nil {
				t.Errorf("reader: %v", err)
				return
			}
			reads++
		}
	}()
	go func() { // another handle: a process that writes nothing but takes the lock
		defer side.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if err := outside.Do(func(db *journal.DB) error { return nil }); err != nil {
				t.Errorf("outside writer: %v", err)
				return
			}
			outsides++
			time.Sleep(time.Millisecond)
		}
	}()
	wg.Wait()
	close(stop)
	side.Wait()
	for w := 0; w < writers; w++ {
		var want strings.Builder
		for i := 0; i < each; i++ {
			fmt.Fprintf(&want, "%d\n", i)
		}
		got, _ := os.ReadFile(filepath.Join(dir, fmt.Sprintf("w%d.txt", w)))
		if string(got) != want.String() {
			t.Fatalf("w%d.txt: %q", w, got)
		}
	}
	if reads == 0 || outsides == 0 {
		t.Fatalf("reads %d, outside batches %d: a waiter never got the lock while the batches ran", reads, outsides)
	}
	st, err := e.Status()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("reads %d, outside batches %d, status %+v", reads, outsides, st.Events)
}
