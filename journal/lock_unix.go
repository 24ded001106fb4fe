//go:build unix

package journal

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// lock takes the journal's lock file (<journal>.lock) exclusively for a
// writer or shared for a reader, waiting up to the timeout. Waiters block in
// the kernel (flock), so the lock passes to the next waiter as soon as it is
// released; bbolt's own lock would poll every 50 ms, and under steady
// contention a poller can starve. bbolt's flock on the database is still
// taken after this one, so it never waits. The open lock file is returned
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
	if err := syscall.Flock(fd, how|syscall.LOCK_NB); err == nil {
		return f, release, nil
	} else if !errors.Is(err, syscall.EWOULDBLOCK) {
		f.Close()
		return nil, nil, fmt.Errorf("journal: lock %s: %w", j.path, err)
	}
	done := make(chan error, 1)
	go func() { done <- syscall.Flock(fd, how) }()
	select {
	case err := <-done:
		if err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("journal: lock %s: %w", j.path, err)
		}
		return f, release, nil
	case <-time.After(j.timeout):
		go func() { <-done; f.Close() }() // the lock, if it comes, is released at once
		return nil, nil, fmt.Errorf("journal: %s is held by another process for more than %v: %w", j.path, j.timeout, ErrBusy)
	}
}
