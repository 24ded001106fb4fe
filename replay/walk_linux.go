//go:build linux

package replay

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"runtime"
	"slices"
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
func (r *Root) walk(rel string, fn func(WalkEntry) error, o WalkOptions) error {
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
	w := &walker{fn: fn, o: o, buf: make([]byte, 64<<10)}
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
	fn  func(WalkEntry) error
	o   WalkOptions
	buf []byte // getdents' buffer, shared: a directory is listed whole before its subdirectories
}

// dir walks the open directory fd (at rel) and closes it.
func (w *walker) dir(fd int, rel string) error {
	ents, names, err := w.list(fd)
	if err != nil {
		unix.Close(fd)
		return nil // unreadable or gone: skipped
	}
	if walkListed != nil {
		walkListed(rel, names)
	}
	if w.o.Listed != nil {
		w.o.Listed(rel, names)
	}
	defer unix.Close(fd)
	for i := range ents {
		if rel != "." {
			ents[i].rel = rel + "/" + ents[i].name
		} else {
			ents[i].rel = ents[i].name
		}
	}
	sts, ok := statAll(fd, ents, w.o.Stamp)
	for i := range ents {
		e := &ents[i]
		if !ok[i] {
			continue // gone since listed, unreadable, or neither a file nor a directory
		}
		st := &sts[i]
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFREG:
			if err := w.fn(WalkEntry{Rel: e.rel, Stamp: stampOfStat(st)}); err != nil && err != fs.SkipDir {
				return err
			}
		case unix.S_IFDIR:
			if err := w.fn(WalkEntry{Rel: e.rel, Dir: true}); err == fs.SkipDir {
				continue
			} else if err != nil {
				return err
			}
			cfd, err := walkOpenDir(fd, e.name)
			if err != nil {
				continue // unreadable, gone, or a link or file in its place since
			}
			var now unix.Stat_t
			if unix.Fstat(cfd, &now) != nil || now.Dev != st.Dev || now.Ino != st.Ino {
				unix.Close(cfd) // another directory in its place since its stat
				continue
			}
			if err := w.dir(cfd, e.rel); err != nil {
				return err
			}
		}
	}
	return nil
}

// dirent is a name a directory listed, with its type there (DT_UNKNOWN
// where the file system gives none) and its path from the root.
type dirent struct {
	name, rel string
	typ       uint8
}

// statAll stats the entries of the directory fd that need it, not
// following links: every directory (its identity is checked when it is
// opened), every entry of unknown type, and each regular file stamp wants
// (all if stamp is nil); a link, device, socket or pipe is left out
// unstatted. In two halves at once when there are many (a hook waits for
// its walk, and the machine has two cores or more). ok says which entries
// may be passed on; a regular file passed unstatted has only its type.
func statAll(fd int, ents []dirent, stamp func(rel string) bool) ([]unix.Stat_t, []bool) {
	sts, ok := make([]unix.Stat_t, len(ents)), make([]bool, len(ents))
	var todo []int
	for i, e := range ents {
		switch {
		case e.typ == unix.DT_DIR || e.typ == unix.DT_UNKNOWN:
		case e.typ == unix.DT_REG && stamp != nil && !stamp(e.rel):
			ok[i], sts[i].Mode = true, unix.S_IFREG // the listing's type; a zero Stamp
			continue
		case e.typ != unix.DT_REG:
			continue
		}
		todo = append(todo, i)
	}
	stat := func(todo []int) {
		for _, i := range todo {
			ok[i] = unix.Fstatat(fd, ents[i].name, &sts[i], unix.AT_SYMLINK_NOFOLLOW) == nil
		}
	}
	if len(todo) < 64 || runtime.GOMAXPROCS(0) < 2 {
		stat(todo)
		return sts, ok
	}
	var wg sync.WaitGroup
	wg.Go(func() { stat(todo[:len(todo)/2]) })
	stat(todo[len(todo)/2:])
	wg.Wait()
	return sts, ok
}

// list reads every entry of the directory fd, sorted by name, and their
// names in that order.
func (w *walker) list(fd int) ([]dirent, []string, error) {
	var ents []dirent
	for {
		n, err := unix.ReadDirent(fd, w.buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		if n <= 0 {
			break
		}
		ents = parseDirents(w.buf[:n], ents)
	}
	slices.SortFunc(ents, func(a, b dirent) int { return strings.Compare(a.name, b.name) })
	names := make([]string, len(ents))
	for i, e := range ents {
		names[i] = e.name
	}
	return ents, names, nil
}

// parseDirents appends the entries of a getdents64 buffer (struct
// linux_dirent64: inode, offset, record length, type, the name ended by a
// NUL) but "." and "..", and any of inode 0 (deleted).
func parseDirents(buf []byte, ents []dirent) []dirent {
	const nameAt = 19 // 8 + 8 + 2 + 1
	for len(buf) >= nameAt {
		reclen := int(binary.NativeEndian.Uint16(buf[16:]))
		if reclen < nameAt || reclen > len(buf) {
			break // torn: never from the kernel
		}
		rec := buf[:reclen]
		buf = buf[reclen:]
		if binary.NativeEndian.Uint64(rec) == 0 {
			continue
		}
		name := rec[nameAt:]
		if i := bytes.IndexByte(name, 0); i >= 0 {
			name = name[:i]
		}
		if s := string(name); s != "." && s != ".." {
			ents = append(ents, dirent{name: s, typ: rec[18]})
		}
	}
	return ents
}

// stampOfStat is StampOf for a stat's raw result.
func stampOfStat(st *unix.Stat_t) Stamp {
	return Stamp{Dev: uint64(st.Dev), Ino: st.Ino, Size: st.Size, Mtime: st.Mtim.Nano(), Ctime: st.Ctim.Nano()}
}
