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

// startWriteback asks the kernel to start writing back n bytes of f at off
// (sync_file_range, SYNC_FILE_RANGE_WRITE), waiting for nothing: a hint
// whose errors the datasync that follows reports.
func startWriteback(f *os.File, off, n int64) {
	unix.SyncFileRange(int(f.Fd()), off, n, unix.SYNC_FILE_RANGE_WRITE)
}
