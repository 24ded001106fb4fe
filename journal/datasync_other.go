//go:build !linux

package journal

import "os"

// datasync is f.Sync where fdatasync is not available.
func datasync(f *os.File) error { return f.Sync() }

// startWriteback does nothing where sync_file_range is not available: the
// datasync that follows writes the bytes back.
func startWriteback(f *os.File, off, n int64) {}
