package replay

import "io/fs"

// WalkEntry is one directory or regular file Walk found under a root.
type WalkEntry struct {
	Rel   string // slash-separated, relative to the root's directory
	Dir   bool   // a directory (else a regular file)
	Stamp Stamp  // a regular file's identity, from a stat of the entry itself
}

// Walk visits the directory rel of r ("." for the whole root) and the tree
// under it, depth first, each directory's entries in name order: fn is
// called for each directory (rel included) before its entries — fs.SkipDir
// skips them — and for each regular file. Nothing else is passed: a
// symbolic link is never followed nor reported, nor is a device, socket or
// pipe. Every directory is opened relative to its parent's open handle,
// refusing a symbolic link, and is the directory its listing named (a name
// swapped meanwhile is skipped), so no rename or link made during the walk
// leads it outside the root. A name that vanishes or cannot be read during
// the walk is skipped; only an error opening rel itself, or one fn
// returns, ends it.
func (r *Root) Walk(rel string, fn func(WalkEntry) error) error {
	err := r.walk(rel, fn)
	if err == fs.SkipDir {
		return nil
	}
	return err
}
