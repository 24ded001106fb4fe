//go:build !linux

package replay

import (
	"io/fs"
	"path"
	"slices"
	"strings"
)

// walk is Walk elsewhere: through the os.Root, one path at a time.
func (r *Root) walk(rel string, fn func(WalkEntry) error, o WalkOptions) error {
	rel = path.Clean(rel)
	if fi, err := r.root.Lstat(rel); err != nil {
		return mapFSError(Path{Root: r, Rel: rel}, "walk", err)
	} else if !fi.IsDir() {
		return &PathError{Path: rel, Err: ErrInvalidPath, Msg: "is not a directory"}
	}
	if err := fn(WalkEntry{Rel: rel, Dir: true}); err != nil {
		return err
	}
	return r.walkDir(rel, fn, o)
}

func (r *Root) walkDir(rel string, fn func(WalkEntry) error, o WalkOptions) error {
	f, err := r.root.Open(rel)
	if err != nil {
		return nil
	}
	ents, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		return nil
	}
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	if o.Listed != nil {
		names := make([]string, len(ents))
		for i, e := range ents {
			names[i] = e.Name()
		}
		o.Listed(rel, names)
	}
	for _, e := range ents {
		child := path.Join(rel, e.Name())
		if e.Type().IsRegular() && o.Stamp != nil && !o.Stamp(child) {
			if err := fn(WalkEntry{Rel: child}); err != nil && err != fs.SkipDir {
				return err
			}
			continue
		}
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
			if err := r.walkDir(child, fn, o); err != nil {
				return err
			}
		}
	}
	return nil
}
