//go:build linux

package replay

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// writebackEvery is how many bytes of a temp file are written between two
// requests to start writing them back.
const writebackEvery = 4 << 20

// earlyWriteback wraps the writer of temp file f so that, every
// writebackEvery bytes, the kernel starts writing back the bytes written
// since the last request (sync_file_range with SYNC_FILE_RANGE_WRITE, which
// waits for nothing). A large content then reaches the disk while the rest
// is still being produced, and the fsync that follows — which still waits
// for every byte, and is never skipped — has little left to wait for.
func earlyWriteback(f *os.File, w io.Writer) io.Writer {
	rc, err := f.SyscallConn()
	if err != nil {
		return w
	}
	return &writeback{rc: rc, w: w}
}

type writeback struct {
	rc        interface{ Control(func(fd uintptr)) error }
	w         io.Writer
	off, from int64 // bytes written; start of the range not yet requested
}

// Write implements io.Writer.
func (b *writeback) Write(p []byte) (int, error) {
	n, err := b.w.Write(p)
	b.off += int64(n)
	if b.off-b.from >= writebackEvery {
		from, n := b.from, b.off-b.from
		b.rc.Control(func(fd uintptr) {
			unix.SyncFileRange(int(fd), from, n, unix.SYNC_FILE_RANGE_WRITE) // a hint: errors surface at the fsync
		})
		b.from = b.off
	}
	return n, err
}
