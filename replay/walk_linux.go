//go:build linux

package replay

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"runtime"
	"sort"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// Fault seams: walkListed, if set, runs after each directory is listed and
// before its entries are looked at (tests remove or swap entries there);
// walkOpenDir opens a directory to walk (tests fail it: EACCES as root).
var (
	walkListed  func(rel string, names []string)
	walkOpenDir = openDirAt
)

// walk is Walk on Linux: openat and fstatat relative to each directory's
// descriptor (one syscall per name, no path resolved again), getdents in
// 64 KiB batches.
func (r *Root) walk(rel string, fn func(WalkEntry) error, listed func(string, []string)) error {
	top, err := r.root.Open(".") // the os.Root's own directory, whatever its path is now
	if err != nil {
		return fmt.Errorf("replay: walk %s: %w", r.Dir, err)
	}
	defer top.Close()
	fd, err := unix.Dup(int(top.Fd()))
	if err != nil {
		return fmt.Errorf("replay: walk %s: %w", r.Dir, err)
	}
	rel = path.Clean(rel)
	if rel != "." {
		for _, part := range strings.Split(rel, "/") {
			next, err := openDirAt(fd, part)
			unix.Close(fd)
			if err != nil {
				return &PathError{Path: rel, Err: errOf(err), Msg: "cannot be walked: " + err.Error(), cause: err}
			}
			fd = next
		}
	}
	w := &walker{fn: fn, listed: listed, buf: make([]byte, 64<<10)}
	if err := fn(WalkEntry{Rel: rel, Dir: true}); err != nil {
		unix.Close(fd)
		return err
	}
	return w.dir(fd, rel)
}

// errOf is the sentinel for a failed open of a directory to walk.
func errOf(err error) error {
	switch {
	case errors.Is(err, unix.ENOENT):
		return ErrNotFound
	case errors.Is(err, unix.EACCES), errors.Is(err, unix.EPERM):
		return ErrPermission
	}
	return ErrInvalidPath // a symbolic link or not a directory
}

// openDirAt opens the directory name of dirfd, never through a symbolic link.
func openDirAt(dirfd int, name string) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

type walker struct {
	fn     func(WalkEntry) error
	listed func(rel string, names []string)
	buf    []byte // getdents' buffer, shared: a directory is listed whole before its subdirectories
}

// dir walks the open directory fd (at rel) and closes it.
func (w *walker) dir(fd int, rel string) error {
	names, err := w.list(fd)
	if err != nil {
		unix.Close(fd)
		return nil // unreadable or gone: skipped
	}
	if walkListed != nil {
		walkListed(rel, names)
	}
	if w.listed != nil {
		w.listed(rel, names)
	}
	defer unix.Close(fd)
	sts, ok := statAll(fd, names)
	for i, name := range names {
		if !ok[i] {
			continue // gone since listed, or unreadable
		}
		st := &sts[i]
		child := name
		if rel != "." {
			child = rel + "/" + name
		}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFREG:
			if err := w.fn(WalkEntry{Rel: child, Stamp: stampOfStat(st)}); err != nil && err != fs.SkipDir {
				return err
			}
		case unix.S_IFDIR:
			if err := w.fn(WalkEntry{Rel: child, Dir: true}); err == fs.SkipDir {
				continue
			} else if err != nil {
				return err
			}
			cfd, err := walkOpenDir(fd, name)
			if err != nil {
				continue // unreadable, gone, or a link or file in its place since
			}
			var now unix.Stat_t
			if unix.Fstat(cfd, &now) != nil || now.Dev != st.Dev || now.Ino != st.Ino {
				unix.Close(cfd) // another directory in its place since its stat
				continue
			}
			if err := w.dir(cfd, child); err != nil {
				return err
			}
		}
	}
	return nil
}

// statAll stats each name of the directory fd, not following links: in two
// halves at once when there are many (a hook waits for its walk, and the
// machine has two cores or more), which ok says.
func statAll(fd int, names []string) ([]unix.Stat_t, []bool) {
	sts, ok := make([]unix.Stat_t, len(names)), make([]bool, len(names))
	stat := func(from, to int) {
		for i := from; i < to; i++ {
			ok[i] = unix.Fstatat(fd, names[i], &sts[i], unix.AT_SYMLINK_NOFOLLOW) == nil
		}
	}
	if len(names) < 64 || runtime.GOMAXPROCS(0) < 2 {
		stat(0, len(names))
		return sts, ok
	}
	var wg sync.WaitGroup
	wg.Go(func() { stat(0, len(names)/2) })
	stat(len(names)/2, len(names))
	wg.Wait()
	return sts, ok
}

// list reads every name of the directory fd, sorted.
func (w *walker) list(fd int) ([]string, error) {
	var names []string
	for {
		n, err := unix.ReadDirent(fd, w.buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			break
		}
		_, _, names = unix.ParseDirent(w.buf[:n], -1, names)
	}
	sort.Strings(names)
	return names, nil
}

// stampOfStat is StampOf for a stat's raw result.
func stampOfStat(st *unix.Stat_t) Stamp {
	return Stamp{Dev: uint64(st.Dev), Ino: st.Ino, Size: st.Size, Mtime: st.Mtim.Nano(), Ctime: st.Ctim.Nano()}
}
