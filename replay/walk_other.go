//go:build !linux

package replay

import (
	"io/fs"
	"path"
	"sort"
)

// walk is Walk elsewhere: through the os.Root, one path at a time.
func (r *Root) walk(rel string, fn func(WalkEntry) error, listed func(string, []string)) error {
	rel = path.Clean(rel)
	if fi, err := r.root.Lstat(rel); err != nil {
		return mapFSError(Path{Root: r, Rel: rel}, "walk", err)
	} else if !fi.IsDir() {
		return &PathError{Path: rel, Err: ErrInvalidPath, Msg: "is not a directory"}
	}
	if err := fn(WalkEntry{Rel: rel, Dir: true}); err != nil {
		return err
	}
	return r.walkDir(rel, fn, listed)
}

func (r *Root) walkDir(rel string, fn func(WalkEntry) error, listed func(string, []string)) error {
	f, err := r.root.Open(rel)
	if err != nil {
		return nil
	}
	names, err := f.Readdirnames(-1)
	f.Close()
	if err != nil {
		return nil
	}
	sort.Strings(names)
	if listed != nil {
		listed(rel, names)
	}
	for _, name := range names {
		child := path.Join(rel, name)
		fi, err := r.root.Lstat(child)
		if err != nil {
			continue
		}
		switch {
		case fi.Mode().IsRegular():
			st, _ := StampOf(fi)
			st.Size = fi.Size()
			if err := fn(WalkEntry{Rel: child, Stamp: st}); err != nil && err != fs.SkipDir {
				return err
			}
		case fi.IsDir():
			if err := fn(WalkEntry{Rel: child, Dir: true}); err == fs.SkipDir {
				continue
			} else if err != nil {
				return err
			}
			if err := r.walkDir(child, fn, listed); err != nil {
				return err
			}
		}
	}
	return nil
}
