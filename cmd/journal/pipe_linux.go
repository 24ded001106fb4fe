//go:build linux

package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// growPipe enlarges the pipe f reads from, if it is one, to 1 MiB (the
// default pipe-max-size; the kernel's default is 64 KiB). A client writing a
// large tool call then fills it in a few writes instead of waking the
// server, and waiting for it, every 64 KiB. Best effort: a failure (a file
// or terminal, or a lower limit) leaves the pipe as it was.
func growPipe(f *os.File) {
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		return
	}
	unix.FcntlInt(f.Fd(), unix.F_SETPIPE_SZ, 1<<20)
}
