//go:build !unix

package replay

import "os"

// holdOld holds nothing where an open file cannot be renamed over.
func holdOld(Path) *os.File { return nil }
