//go:build unix

package journal

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// The journal's lock. Writers take <journal>.lock exclusively, readers
// shared, with flock: waiters block in the kernel, so the lock passes as
// soon as it is released (bbolt's own lock would poll every 50 ms, and a
// poller can starve under steady contention). bbolt's flock on the database
// is still taken after this one, so it never waits.
//
// Waiting in turn. A blocking flock is no queue: a holder that comes
// straight back (a server making edit after edit) often
// takes the lock again before the woken waiter runs — in
// TestLock_TurnsUnderASteadyWriter a waiter was passed over by up to 28
// batches. So a process that has to wait says so: it holds
// <journal>.lock.queue shared while it waits and lets go once it has the
// lock. A process that finds the lock free while someone waits gives it
// back, pauses yieldPause (the woken waiter takes it meanwhile), and then
// waits like anyone. It does not wait for the queue to empty: with flock
// that can only be a wait for a moment when nobody waits, which under four
// busy servers did not come for seconds (`journal log` took 4.3 s).
//
// Progress. The wait is bounded by the journal's timeout, counted from the
// last sign that the holders make progress (the journal, its write-ahead
// log or the lock file's note changed): a waiter behind busy writers gets
// its turn and never fails with ErrBusy; one behind a holder that is stuck
// gives up after the timeout. After waitNotice, Options.Waiting is called
// once, for a command to say it is waiting.

// waitNotice is how long a wait lasts before Options.Waiting is called.
const waitNotice = time.Second

// progressEvery is how often a waiter looks for the holders' progress.
const progressEvery = 100 * time.Millisecond

// lock takes the journal's lock file (<journal>.lock) exclusively for a
// writer or shared for a reader (see above). The open lock file is returned
// too (nil for a reader on a read-only file system): it carries DB's note.
func (j *Journal) lock(exclusive bool) (lf *os.File, release func(), err error) {
	f, err := os.OpenFile(j.path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		if !exclusive {
			return nil, func() {}, nil // a read-only file system: readers rely on bbolt's shared lock
		}
		return nil, nil, fmt.Errorf("journal: lock %s: %w", j.path, err)
	}
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	fd := int(f.Fd())
	release = func() { syscall.Flock(fd, syscall.LOCK_UN); f.Close() }
	err = syscall.Flock(fd, how|syscall.LOCK_NB)
	if err != nil && !errors.Is(err, syscall.EWOULDBLOCK) {
		f.Close()
		return nil, nil, fmt.Errorf("journal: lock %s: %w", j.path, err)
	}
	q, qerr := os.OpenFile(j.path+".lock.queue", os.O_RDWR|os.O_CREATE, 0o600)
	if qerr != nil { // a read-only directory: no turns, the kernel's wait alone
		q = nil
	} else {
		defer q.Close() // lets go of the turn
	}
	if err == nil {
		if q == nil || !waiting(q) {
			return f, release, nil
		}
		syscall.Flock(fd, syscall.LOCK_UN) // someone came first: their turn
		time.Sleep(yieldPause)
	}
	if q != nil {
		// waiting: say so, without waiting for it (a process stopped in the
		// middle of its check holds the queue file exclusively): a failure
		// only loses the turn
		syscall.Flock(int(q.Fd()), syscall.LOCK_SH|syscall.LOCK_NB)
	}
	if err := j.wait(f, how); err != nil {
		return nil, nil, err // f is closed (at once, or once the lock comes and is let go)
	}
	return f, release, nil
}

// yieldPause is how long a process that gave the lock back to a waiter
// pauses before it waits for the lock itself.
const yieldPause = 100 * time.Microsecond

// openQueue opens the lock's queue file (see lock), for waiting.
func (j *Journal) openQueue() (*os.File, error) {
	return os.Open(j.path + ".lock.queue")
}

// waiting reports whether a process waits for the lock: one holds the queue
// file shared.
func waiting(q *os.File) bool {
	fd := int(q.Fd())
	if syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		return true
	}
	syscall.Flock(fd, syscall.LOCK_UN)
	return false
}

// wait takes flock how on f, waiting while the holders make progress. On
// an error f is closed; on ErrBusy, once the flock, if it comes later, is
// let go.
func (j *Journal) wait(f *os.File, how int) error {
	fd := int(f.Fd())
	if err := syscall.Flock(fd, how|syscall.LOCK_NB); err == nil {
		return nil
	} else if !errors.Is(err, syscall.EWOULDBLOCK) {
		f.Close()
		return fmt.Errorf("journal: lock %s: %w", j.path, err)
	}
	done := make(chan error, 1)
	go func() { done <- syscall.Flock(fd, how) }()
	tick := time.NewTicker(progressEvery)
	defer tick.Stop()
	start := time.Now()
	deadline, mark := start.Add(j.timeout), j.progressMark()
	noticed := false
	for {
		select {
		case err := <-done:
			if err != nil {
				f.Close()
				return fmt.Errorf("journal: lock %s: %w", j.path, err)
			}
			return nil
		case now := <-tick.C:
			if m := j.progressMark(); m != mark {
				mark, deadline = m, now.Add(j.timeout)
			}
			if !noticed && now.Sub(start) >= waitNotice && j.waiting != nil {
				noticed = true
				j.waiting()
			}
			if now.Before(deadline) {
				continue
			}
			go func() { <-done; f.Close() }() // the lock, if it comes, is released at once
			return fmt.Errorf("journal: %s is held by another process that has made no progress for %v: %w", j.path, j.timeout, ErrBusy)
		}
	}
}

// progressMark is what changes when the lock's holders make progress: the
// size and modification time of the journal, its write-ahead log and its
// lock file (whose note each batch writes).
func (j *Journal) progressMark() string {
	var b []byte
	for _, p := range []string{j.path, j.path + ".wal", j.path + ".lock"} {
		if fi, err := os.Stat(p); err == nil {
			b = fmt.Appendf(b, "%d/%d;", fi.Size(), fi.ModTime().UnixNano())
		}
	}
	return string(b)
}
