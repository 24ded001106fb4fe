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
	return r.WalkListed(rel, fn, nil)
}

// WalkListed is Walk calling listed, if not nil, with each directory's
// names (sorted) once it is listed, before any of its entries is passed to
// fn: a caller that must act on a directory before it is listed (a watch
// added, so that nothing made during the walk is missed) and on what it
// holds before its entries (ignore files read) need not look for them.
func (r *Root) WalkListed(rel string, fn func(WalkEntry) error, listed func(rel string, names []string)) error {
	err := r.walk(rel, fn, listed)
	if err == fs.SkipDir {
		return nil
	}
	return err
}
