package journal_test

import (
	"sync"
	"testing"
	"time"

	"github.com/journalfs/journal/journal"
)

// TestLease_BatchesWithoutLettingGo: a lease runs batch after batch under
// one lock (another handle cannot take it meanwhile), says when someone
// waits for it (Contended), and lets the waiter in at Release.
func TestLease_BatchesWithoutLettingGo(t *testing.T) {
	j := create(t)
	appendN(t, j, 1, "s")
	other, err := journal.Open(j.Path(), journal.Options{Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	l, err := j.Acquire()
	if err != nil {
		t.Fatal(err)
	}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		read bool
	)
	wg.Add(1)
	go func() { // another handle's reader waits for the lease
		defer wg.Done()
		other.View(func(tx *journal.Tx) error { return nil })
		mu.Lock()
		read = true
		mu.Unlock()
	}()
	for i := 0; i < 5; i++ {
		if err := l.Do(func(db *journal.DB) error {
			return db.Update(func(tx *journal.Tx) error {
				ev := &journal.Event{Kind: journal.KindApply, Actor: journal.Actor{Kind: "mcp", Session: "lease"}}
				if err := tx.Append(ev); err != nil {
					return err
				}
				_, err := tx.Seal(ev.Seq, journal.StatusCommitted, "")
				return err
			})
		}); err != nil {
			t.Fatalf("batch %d: %v", i, err)
		}
		mu.Lock()
		r := read
		mu.Unlock()
		if r {
			t.Fatalf("the other handle read during the lease (after batch %d)", i)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for !l.Contended() {
		if time.Now().After(deadline) {
			t.Fatal("the waiting reader is not seen by Contended")
		}
		time.Sleep(time.Millisecond)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if !read {
		t.Fatal("the reader did not get the lock after Release")
	}
	if l2, err := j.Acquire(); err != nil {
		t.Fatal(err)
	} else {
		if l2.Contended() {
			t.Fatal("Contended with nobody waiting")
		}
		l2.Release()
	}
	n := 0
	j.View(func(tx *journal.Tx) error {
		return tx.Each(0, false, func(e *journal.Event) error { n++; return nil })
	})
	if n != 6 {
		t.Fatalf("%d events, want 6", n)
	}
}
