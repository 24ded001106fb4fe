package replay

import (
	"io/fs"
	"path"
)

// Spare inodes: a temp file's creation allocates an inode inside the
// journal's lock. Alone it is cheap, but under load it waits on the file
// system's allocator (ext4 without a journal skips every recently freed
// inode, each of which a rename over a file makes: recently_deleted and
// find_inode_bit), a large share of a logged edit's hold. An
// engine made with Options.SpareTemps keeps, per directory it last wrote
// temps in, unnamed files made ahead (spareDepth), outside the lock (O_TMPFILE,
// spare_linux.go). A temp of writeTemps is then that file, written and
// given its mode, then linked under the temp's name: the protocol (the
// note naming the temp before it exists, the rename, recovery) is the same,
// and a spare never used leaves nothing behind — an unnamed file goes when
// it is closed or the process stops. A spare is used once (never an old
// inode someone may still read). Where there is no O_TMPFILE, or linking
// an open file by /proc/self/fd fails, temps are created as before.

// maxSpares bounds the spare files an engine keeps, spareDepth those of one
// directory: the batches of several sessions served by one process come
// back to back, faster than one spare a batch is made.
const (
	maxSpares  = 16
	spareDepth = 4
)

// writeSpare writes a temp through the spare of its directory, if there is
// one. It reports false, with nothing left behind, when there is none or it
// could not be used (the caller creates the temp then); a fault-injection
// step's error is returned as the batch's.
func (e *Engine) writeSpare(p Path, tmp string, mode fs.FileMode, data []byte, sync bool) (bool, error) {
	f := e.spares.take(p)
	if f == nil {
		return false, nil
	}
	defer f.Close() // an unnamed file is freed here unless linked
	for _, s := range []string{"mkdir", "create", "write"} {
		if err := e.step(s, p.Rel); err != nil {
			return true, err
		}
	}
	if _, err := earlyWriteback(f, f).Write(data); err != nil {
		return false, nil
	}
	if err := f.Chmod(mode); err != nil {
		return false, nil
	}
	if !sync {
		if err := e.step("written", p.Rel); err != nil {
			return true, err
		}
	} else {
		if err := e.step("fsync", p.Rel); err != nil {
			return true, err
		}
		if err := f.Sync(); err != nil {
			return false, nil
		}
	}
	if !e.spares.link(f, p, tmp) {
		return false, nil
	}
	return true, nil
}

// spareKey names a directory of a root.
type spareKey struct {
	root *Root
	dir  string
}

func spareKeyOf(p Path) spareKey { return spareKey{p.Root, path.Dir(p.Rel)} }
