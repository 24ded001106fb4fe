package replay

import (
	"io/fs"
	"os"
	"path"
	"sync"
)

// dirHandles holds an os.Root for each directory of the files one Observe reads,
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
	m  map[dirKey]*os.Root
}

type dirKey struct {
	root *Root
	dir  string // slash-separated, relative to root.Dir; never "."
}

// maxDirHandles bounds the handles one dirHandles holds open (a chunk of
// 1,024 files in as many directories must not take 1,024 descriptors):
// past it, the files of more directories go through the root.
const maxDirHandles = 256

// dirOpened, if set, runs after a directory's handle is opened (a fault
// seam: tests move the directory there).
var dirOpened func(dir string)

func newDirHandles() *dirHandles { return &dirHandles{m: map[dirKey]*os.Root{}} }

// at returns the os.Root p's name is to be looked up in and that name:
// its directory's, or the workspace root's with p.Rel if the directory
// cannot be opened (the call through it reports why).
func (d *dirHandles) at(p Path) (*os.Root, string) {
	dir, base := path.Split(p.Rel)
	if d == nil || dir == "" {
		return p.Root.root, p.Rel
	}
	k := dirKey{p.Root, dir[:len(dir)-1]}
	d.mu.Lock()
	defer d.mu.Unlock()
	r, ok := d.m[k]
	if !ok && len(d.m) >= maxDirHandles {
		return p.Root.root, p.Rel
	}
	if !ok {
		var err error
		if r, err = p.Root.root.OpenRoot(k.dir); err != nil {
			return p.Root.root, p.Rel
		}
		d.m[k] = r
		if dirOpened != nil {
			dirOpened(k.dir)
		}
	}
	return r, base
}

// lstat is p's Lstat through its directory's handle.
func (d *dirHandles) lstat(p Path) (fs.FileInfo, error) {
	r, name := d.at(p)
	return r.Lstat(name)
}

// open is p's Open through its directory's handle.
func (d *dirHandles) open(p Path) (*os.File, error) {
	r, name := d.at(p)
	return r.Open(name)
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
	for k, r := range d.m {
		a, err1 := r.Stat(".")
		b, err2 := k.root.root.Stat(k.dir)
		if err1 != nil || err2 != nil || !os.SameFile(a, b) {
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
	for k, r := range d.m {
		r.Close()
		delete(d.m, k)
	}
}
