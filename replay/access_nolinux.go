//go:build !linux

package replay

import (
	"errors"
	"io/fs"
	"os"
)

// mmapFile is not supported here: Views stream instead.
func mmapFile(f *os.File, size int64) ([]byte, func() error, error) {
	return nil, nil, errors.New("replay: mmap not supported on this platform")
}

// fileIdent is unused where the version cache is off.
type fileIdent struct {
	dev, ino     uint64
	size         int64
	mtime, ctime int64
}

// haveIdent: file identities are not read here.
const haveIdent = false

// identOf reports no identity: without inode and change time the version
// cache cannot tell a changed file, so large files are always hashed.
func identOf(fs.FileInfo) (fileIdent, bool) { return fileIdent{}, false }
