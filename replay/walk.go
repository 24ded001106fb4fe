package replay

import "io/fs"

// WalkEntry is one directory or regular file Walk found under a root.
type WalkEntry struct {
	Rel   string // slash-separated, relative to the root's directory
	Dir   bool   // a directory (else a regular file)
	Stamp Stamp  // a regular file's identity, from a stat of the entry itself; zero where WalkOptions.Stamp declined it
}

// WalkOptions tunes WalkWith.
type WalkOptions struct {
	// Listed, if not nil, is called with each directory's names (sorted)
	// once it is listed, before any of its entries is passed to fn: a
	// caller that must act on a directory before it is listed (a watch
	// added, so that nothing made during the walk is missed) and on what
	// it holds before its entries (ignore files read) need not look for
	// them.
	Listed func(rel string, names []string)
	// Stamp, if not nil, says which regular files (by Rel) need their
	// Stamp: the others are told from the listing's entry types where the
	// file system gives them, unstatted, so a walk that compares no
	// identity (a first start: no cache, no journal) costs no stat per
	// file. A file so passed was a regular file when listed; its Stamp is
	// zero.
	Stamp func(rel string) bool
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
	return r.WalkWith(rel, fn, WalkOptions{})
}

// WalkWith is Walk with options.
func (r *Root) WalkWith(rel string, fn func(WalkEntry) error, o WalkOptions) error {
	err := r.walk(rel, fn, o)
	if err == fs.SkipDir {
		return nil
	}
	return err
}
