//go:build linux

package replay

import (
	"io"
	"io/fs"
	"os"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// dirHandle is a directory's descriptor, opened through the os.Root of its
// root (so with its rules: no way out of the root). A file's stat and open
// are one fstatat or openat of its name at the descriptor, without the
// os.Root's resolution of the name and without an *os.File (whose
// descriptor is put in non-blocking mode and offered to the poller: six
// more system calls a file).
type dirHandle struct{ fd int }

// rootHandles are a descriptor of each root's directory, from which a
// directory is opened with one openat2 that refuses a way out of the root
// (RESOLVE_BENEATH), as its os.Root would (which opens each directory of the
// path in turn, and sets up an *os.File: a dozen system calls).
type rootHandles struct {
	fds map[*Root]int // -1: openat2 unusable here, through the os.Root
}

func (r *rootHandles) fd(root *Root) int {
	if fd, ok := r.fds[root]; ok {
		return fd
	}
	if r.fds == nil {
		r.fds = map[*Root]int{}
	}
	fd, err := dupDir(root.root)
	if err != nil {
		fd = -1
	}
	r.fds[root] = fd
	return fd
}

// dupDir returns a descriptor of r's own directory, its to close.
func dupDir(r *os.Root) (int, error) {
	f, err := r.Open(".")
	if err != nil {
		return -1, err
	}
	defer f.Close()
	sc, err := f.SyscallConn()
	if err != nil {
		return -1, err
	}
	fd, dupErr := -1, error(nil)
	if err := sc.Control(func(raw uintptr) { fd, dupErr = unix.FcntlInt(raw, unix.F_DUPFD_CLOEXEC, 0) }); err != nil {
		return -1, err
	}
	return fd, dupErr
}

func (r *rootHandles) close() {
	for k, fd := range r.fds {
		if fd >= 0 {
			unix.Close(fd)
		}
		delete(r.fds, k)
	}
}

func (r *rootHandles) openDir(root *Root, dir string) (*dirHandle, error) {
	if rfd := r.fd(root); rfd >= 0 {
		how := unix.OpenHow{Flags: unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC,
			Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS}
		for {
			fd, err := unix.Openat2(rfd, dir, &how)
			switch err {
			case nil:
				return &dirHandle{fd}, nil
			case unix.EINTR, unix.EAGAIN:
				continue
			case unix.ENOSYS, unix.EXDEV, unix.EPERM:
				// no openat2 (or seccomp refuses it), or a link the kernel
				// calls a way out (an absolute one): as the os.Root has it
			default:
				return nil, &fs.PathError{Op: "open", Path: dir, Err: err}
			}
			break
		}
	}
	sub, err := root.root.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer sub.Close()
	fd, err := dupDir(sub)
	if err != nil {
		return nil, err
	}
	return &dirHandle{fd}, nil
}

func (h *dirHandle) lstat(name string) (fs.FileInfo, error) {
	fi := &statInfo{name: name}
	for {
		err := unix.Fstatat(h.fd, name, fi.raw(), unix.AT_SYMLINK_NOFOLLOW)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "lstat", Path: name, Err: err}
		}
		return fi, nil
	}
}

// open opens name for reading, never through a symbolic link (the caller
// has refused one by its stat: one put there since is not read) and never
// waiting (a pipe put there since).
func (h *dirHandle) open(name string) (readFile, error) {
	for {
		fd, err := unix.Openat(h.fd, name, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: name, Err: err}
		}
		return &rawFile{fd: fd, name: name}, nil
	}
}

// atPath says whether the directory at dir of root is still h's.
func (r *rootHandles) atPath(h *dirHandle, root *Root, dir string) bool {
	var a, b unix.Stat_t
	if unix.Fstat(h.fd, &a) != nil {
		return false
	}
	if rfd := r.fd(root); rfd >= 0 {
		if unix.Fstatat(rfd, dir, &b, 0) != nil {
			return false
		}
	} else if fi, err := root.root.Stat(dir); err != nil {
		return false
	} else if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		b.Dev, b.Ino = uint64(st.Dev), st.Ino
	}
	return a.Dev == b.Dev && a.Ino == b.Ino
}

func (h *dirHandle) close() { unix.Close(h.fd) }

// rawFile is an open descriptor read with read(2).
type rawFile struct {
	fd   int
	name string
}

func (f *rawFile) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	for {
		n, err := unix.Read(f.fd, b)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return 0, &fs.PathError{Op: "read", Path: f.name, Err: err}
		case n == 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

func (f *rawFile) Stat() (fs.FileInfo, error) {
	fi := &statInfo{name: f.name}
	if err := unix.Fstat(f.fd, fi.raw()); err != nil {
		return nil, &fs.PathError{Op: "stat", Path: f.name, Err: err}
	}
	return fi, nil
}

func (f *rawFile) Close() error { return unix.Close(f.fd) }

// statInfo is an fs.FileInfo of a stat's raw result, as os builds one
// (Sys is the *syscall.Stat_t).
type statInfo struct {
	name string
	st   syscall.Stat_t
}

// raw is st as x/sys/unix's type: both are the kernel's struct stat (the
// array below fails to compile where their sizes differ).
func (s *statInfo) raw() *unix.Stat_t { return (*unix.Stat_t)(unsafe.Pointer(&s.st)) }

var _ = [1]struct{}{}[unsafe.Sizeof(unix.Stat_t{})-unsafe.Sizeof(syscall.Stat_t{})]

func (s *statInfo) Name() string       { return s.name }
func (s *statInfo) Size() int64        { return s.st.Size }
func (s *statInfo) ModTime() time.Time { return time.Unix(s.st.Mtim.Unix()) }
func (s *statInfo) IsDir() bool        { return s.Mode().IsDir() }
func (s *statInfo) Sys() any           { return &s.st }

func (s *statInfo) Mode() fs.FileMode {
	m := fs.FileMode(s.st.Mode & 0o777)
	switch s.st.Mode & syscall.S_IFMT {
	case syscall.S_IFBLK:
		m |= fs.ModeDevice
	case syscall.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case syscall.S_IFDIR:
		m |= fs.ModeDir
	case syscall.S_IFIFO:
		m |= fs.ModeNamedPipe
	case syscall.S_IFLNK:
		m |= fs.ModeSymlink
	case syscall.S_IFSOCK:
		m |= fs.ModeSocket
	}
	if s.st.Mode&syscall.S_ISGID != 0 {
		m |= fs.ModeSetgid
	}
	if s.st.Mode&syscall.S_ISUID != 0 {
		m |= fs.ModeSetuid
	}
	if s.st.Mode&syscall.S_ISVTX != 0 {
		m |= fs.ModeSticky
	}
	return m
}
