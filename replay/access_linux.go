//go:build linux

package replay

import (
	"io/fs"
	"os"
	"syscall"
)

// mmapFile maps size bytes of f read-only.
func mmapFile(f *os.File, size int64) ([]byte, func() error, error) {
	if size <= 0 || int64(int(size)) != size {
		return nil, nil, syscall.EINVAL
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	return data, func() error { return syscall.Munmap(data) }, nil
}

// fileIdent is what the version cache compares to tell a file unchanged.
type fileIdent struct {
	dev, ino     uint64
	size         int64
	mtime, ctime int64 // nanoseconds
}

// haveIdent: identOf reads file identities here.
const haveIdent = true

func identOf(fi fs.FileInfo) (fileIdent, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileIdent{}, false
	}
	return fileIdent{dev: uint64(st.Dev), ino: uint64(st.Ino), size: fi.Size(),
		mtime: fi.ModTime().UnixNano(), ctime: st.Ctim.Nano()}, true
}
