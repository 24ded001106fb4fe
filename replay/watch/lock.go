package watch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

// tryLock takes the exclusive lock on file, or fails at once with ErrBusy
// when another process holds it. The lock lives as long as the process
// (the kernel lets go of it when the process dies), so a killed watcher
// never blocks the next.
func tryLock(file string) (unlock func(), err error) {
	f, err := os.OpenFile(file, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("watch: lock: %w", err)
	}
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err != unix.EINTR {
			break
		}
	}
	if err == unix.EWOULDBLOCK {
		f.Close()
		return nil, ErrBusy
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("watch: lock %s: %w", file, err)
	}
	return func() { f.Close() }, nil
}

// lockWait takes the lock, waiting for it until ctx ends.
func lockWait(ctx context.Context, file string) (unlock func(), err error) {
	for {
		unlock, err = tryLock(file)
		if err != ErrBusy {
			return unlock, err
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("watch: another process holds %s but answers no request on its socket (a watcher still starting, or a hung one; its changes are recorded when it, or the next watcher, runs): %w", file, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Running reports whether a watcher (or a hook's walk) holds the watch lock
// of the journal at journalPath. It creates nothing.
func Running(journalPath string) bool {
	f, err := os.Open(filepath.Join(filepath.Dir(journalPath), "watch", "lock"))
	if err != nil {
		return false
	}
	defer f.Close()
	err = unix.Flock(int(f.Fd()), unix.LOCK_SH|unix.LOCK_NB)
	if err == nil {
		unix.Flock(int(f.Fd()), unix.LOCK_UN)
	}
	return err == unix.EWOULDBLOCK
}
