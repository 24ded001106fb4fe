//go:build !linux

package journal

import "os"

// datasync is f.Sync where fdatasync is not available.
func datasync(f *os.File) error { return f.Sync() }
