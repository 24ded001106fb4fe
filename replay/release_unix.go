//go:build unix

package replay

import "os"

// holdOld opens the file a batch is about to replace or remove, so that the
// rename or removal does not drop the last reference to its inode. Closing
// it later (releaseOld) frees the inode's blocks and page cache off the
// batch's critical path: the inode's eviction is most of a rename's time,
// for a large file and, on ext4, for a small one too. It returns nil when
// the file cannot be opened (the batch goes on).
func holdOld(p Path) *os.File {
	f, err := p.Root.root.Open(p.Rel)
	if err != nil {
		return nil
	}
	return f
}
