//go:build !linux

package replay

import (
	"io/fs"
	"os"
)

// dirHandle is a directory's os.Root.
type dirHandle struct{ r *os.Root }

// rootHandles keeps nothing: directories open through each root's os.Root.
type rootHandles struct{}

func (rootHandles) close() {}

func (rootHandles) openDir(root *Root, dir string) (*dirHandle, error) {
	r, err := root.root.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &dirHandle{r}, nil
}

func (h *dirHandle) lstat(name string) (fs.FileInfo, error) { return h.r.Lstat(name) }

func (h *dirHandle) open(name string) (readFile, error) { return h.r.Open(name) }

// atPath says whether the directory at dir of root is still h's.
func (rootHandles) atPath(h *dirHandle, root *Root, dir string) bool {
	a, err1 := h.r.Stat(".")
	b, err2 := root.root.Stat(dir)
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}

func (h *dirHandle) close() { h.r.Close() }
