//go:build linux

package journal

import (
	"os"

	"golang.org/x/sys/unix"
)

// datasync flushes f's data and the metadata needed to read it back
// (fdatasync): for the write-ahead log, whose size never changes, that is the
// data alone.
func datasync(f *os.File) error { return unix.Fdatasync(int(f.Fd())) }
