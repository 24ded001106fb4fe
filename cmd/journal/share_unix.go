//go:build linux || darwin

package main

import (
	"fmt"
	"net"
	"os"

	"golang.org/x/sys/unix"
)

// canShare: serves share a writer process on this platform.
const canShare = true

// lockFile takes an exclusive lock on path (made if missing), waiting for
// it; unlock releases it.
func lockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("share lock: %w", err)
	}
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("share lock %s: %w", path, err)
	}
	return func() { f.Close() }, nil
}

// samePeer reports whether the process at the other end of c runs as this
// process's user (the socket is 0600 as well).
func samePeer(c net.Conn) bool {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return false
	}
	rc, err := uc.SyscallConn()
	if err != nil {
		return false
	}
	same := false
	rc.Control(func(fd uintptr) {
		uid, err := peerUID(int(fd))
		same = err == nil && uid == os.Getuid()
	})
	return same
}
