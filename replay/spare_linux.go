package replay

import (
	"errors"
	"os"
	"path"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// spareLinks counts the temps made from spares (tests).
var spareLinks atomic.Int64

// procSelfFD names an open file for linkat (a variable for tests).
var procSelfFD = "/proc/self/fd/"

// spares holds the unnamed files of Options.SpareTemps (spare.go).
type spares struct {
	on      bool
	mu      sync.Mutex
	files   map[spareKey][]*os.File // per directory, up to spareDepth
	filling bool
	closed  bool
	off     bool // the system cannot: O_TMPFILE or linking by /proc refused
	wg      sync.WaitGroup
}

// take returns the spare of p's directory, if any; it is the caller's.
func (s *spares) take(p Path) *os.File {
	if !s.on {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := spareKeyOf(p)
	fs := s.files[k]
	if len(fs) == 0 {
		return nil
	}
	f := fs[len(fs)-1]
	if len(fs) == 1 {
		delete(s.files, k)
	} else {
		s.files[k] = fs[:len(fs)-1]
	}
	return f
}

// fill makes, in the background, spares for the directories of paths up
// to spareDepth each (at most maxSpares in all; others are dropped for
// them): batches of several sessions of one process, run back to back, each
// find one.
func (s *spares) fill(paths []Path) {
	if !s.on || len(paths) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.off || s.closed || s.filling {
		return
	}
	var want []spareKey
	for _, p := range paths {
		k := spareKeyOf(p)
		if len(s.files[k]) < spareDepth && !slices.Contains(want, k) {
			for range spareDepth - len(s.files[k]) {
				want = append(want, k)
			}
		}
	}
	want = want[:min(len(want), maxSpares)]
	if len(want) == 0 {
		return
	}
	if s.held()+len(want) > maxSpares {
		for k, fs := range s.files {
			if !slices.Contains(want, k) {
				for _, f := range fs {
					f.Close()
				}
				delete(s.files, k)
			}
		}
	}
	if s.files == nil {
		s.files = map[spareKey][]*os.File{}
	}
	s.filling = true
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for _, k := range want {
			f, err := makeSpare(k)
			s.mu.Lock()
			switch {
			case err != nil:
				if errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.EISDIR) || errors.Is(err, unix.EINVAL) {
					s.off = true
				}
			case s.closed || s.off || len(s.files[k]) >= spareDepth || s.held() >= maxSpares:
				f.Close()
			default:
				s.files[k] = append(s.files[k], f)
			}
			s.mu.Unlock()
		}
		s.mu.Lock()
		s.filling = false
		s.mu.Unlock()
	}()
}

// makeSpare opens an unnamed file in directory k (beneath its root).
func makeSpare(k spareKey) (*os.File, error) {
	d, err := k.root.root.Open(k.dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	fd := -1
	cerr := rcControl(d, func(dfd int) {
		fd, err = unix.Openat(dfd, ".", unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o600)
	})
	if cerr != nil {
		return nil, cerr
	}
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), path.Join(k.dir, "(spare)")), nil
}

// link gives spare f the name tmp (beneath p's root); false if it could not.
func (s *spares) link(f *os.File, p Path, tmp string) bool {
	d, err := p.Root.root.Open(path.Dir(tmp))
	if err != nil {
		return false
	}
	defer d.Close()
	src := procSelfFD + strconv.Itoa(int(f.Fd()))
	var lerr error
	try := func() error {
		cerr := rcControl(d, func(dfd int) {
			lerr = unix.Linkat(unix.AT_FDCWD, src, dfd, path.Base(tmp), unix.AT_SYMLINK_FOLLOW)
		})
		if cerr != nil {
			return cerr
		}
		return lerr
	}
	err = try()
	if errors.Is(err, unix.EEXIST) { // a leftover from a crash of an event with this number
		p.Root.root.Remove(tmp)
		err = try()
	}
	if err == nil {
		spareLinks.Add(1)
		return true
	}
	if _, serr := os.Stat(procSelfFD); serr != nil || !errors.Is(err, unix.ENOENT) {
		s.mu.Lock()
		s.off = true
		s.dropLocked() // they could not be linked either
		s.mu.Unlock()
	}
	return false
}

func rcControl(f *os.File, fn func(fd int)) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	return rc.Control(func(fd uintptr) { fn(int(fd)) })
}

// close frees every spare; fill makes no more.
func (s *spares) close() {
	s.mu.Lock()
	s.closed = true
	s.dropLocked()
	s.mu.Unlock()
	s.wg.Wait()
}

// dropLocked frees every spare held; s.mu is held.
func (s *spares) dropLocked() {
	for k, fs := range s.files {
		for _, f := range fs {
			f.Close()
		}
		delete(s.files, k)
	}
}

// held counts the spares held (at most maxSpares, over a few directories);
// s.mu is held.
func (s *spares) held() int {
	n := 0
	for _, fs := range s.files {
		n += len(fs)
	}
	return n
}
