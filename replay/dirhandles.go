package replay

import (
	"io"
	"io/fs"
	"path"
	"sync"
)

// dirHandles holds a handle of each directory of the files one Observe reads,
// opened once through the workspace root's: a stat or an open of a file is
// then one call at its directory's handle, not one more open of every
// directory of its path per call (a first scan stats each file three
// times and opens it once). Observe reads its files sorted by path, so a
// directory's files come together. A nil *dirHandles goes through the root each
// time.
//
// A directory's handle follows it if it is moved: moved reports the
// directories no longer at their path, and what was read through them is
// not recorded (Observe checks after each chunk's reads).
type dirHandles struct {
	mu sync.Mutex // guards m
	m  map[dirKey]*dirHandle
	// recycle: when full, every handle is closed for new ones (a caller
	// going through sorted paths that never asks moved)
	recycle bool
	roots   rootHandles // the roots' own handles, where the platform keeps them
}

type dirKey struct {
	root *Root
	dir  string // slash-separated, relative to root.Dir; never "."
}

// readFile is a file opened for reading: an *os.File, or on Linux a bare
// descriptor (no poller, no finalizer: a first scan opens 100,000 files).
type readFile interface {
	io.Reader
	Stat() (fs.FileInfo, error)
	Close() error
}

// maxDirHandles bounds the handles one dirHandles holds open (a chunk of
// 1,024 files in as many directories must not take 1,024 descriptors):
// past it, the files of more directories go through the root.
const maxDirHandles = 256

// dirOpened, if set, runs after a directory's handle is opened (a fault
// seam: tests move the directory there).
var dirOpened func(dir string)

func newDirHandles() *dirHandles { return &dirHandles{m: map[dirKey]*dirHandle{}} }

// at returns the handle of p's directory and p's name in it, or nil and
// p.Rel if p is at the root's top, the handles are full, or the directory
// cannot be opened (the call through the root then reports why).
func (d *dirHandles) at(p Path) (*dirHandle, string) {
	dir, base := path.Split(p.Rel)
	if d == nil || dir == "" {
		return nil, p.Rel
	}
	k := dirKey{p.Root, dir[:len(dir)-1]}
	d.mu.Lock()
	defer d.mu.Unlock()
	h, ok := d.m[k]
	if !ok && len(d.m) >= maxDirHandles && d.recycle {
		for k, h := range d.m {
			h.close()
			delete(d.m, k)
		}
	}
	if !ok && len(d.m) >= maxDirHandles {
		return nil, p.Rel
	}
	if !ok {
		var err error
		if h, err = d.roots.openDir(p.Root, k.dir); err != nil {
			return nil, p.Rel
		}
		d.m[k] = h
		if dirOpened != nil {
			dirOpened(k.dir)
		}
	}
	return h, base
}

// lstat is p's Lstat through its directory's handle.
func (d *dirHandles) lstat(p Path) (fs.FileInfo, error) {
	h, name := d.at(p)
	if h == nil {
		return p.Root.root.Lstat(name)
	}
	return h.lstat(name)
}

// open opens p for reading through its directory's handle.
func (d *dirHandles) open(p Path) (readFile, error) {
	h, name := d.at(p)
	if h == nil {
		return p.Root.root.Open(name)
	}
	return h.open(name)
}

// moved checks each handle once: it returns whether p was read through a
// handle of a directory no longer at its path (moved, or another one put
// in its place since it was opened).
func (d *dirHandles) moved() func(p Path) bool {
	if d == nil {
		return func(Path) bool { return false }
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	gone := map[dirKey]bool{}
	for k, h := range d.m {
		if !d.roots.atPath(h, k.root, k.dir) {
			gone[k] = true
		}
	}
	return func(p Path) bool {
		dir, _ := path.Split(p.Rel)
		return dir != "" && gone[dirKey{p.Root, dir[:len(dir)-1]}]
	}
}

// close closes every handle.
func (d *dirHandles) close() {
	if d == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for k, h := range d.m {
		h.close()
		delete(d.m, k)
	}
	d.roots.close()
}
