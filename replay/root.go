package replay

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/journalfs/journal/journal"
)

// Root is one workspace directory. Every file operation goes through its
// os.Root, so no path — whatever its `..`, symlinks or races — reaches outside.
type Root struct {
	Dir  string   // absolute, cleaned, symlinks resolved
	Alt  string   // the directory as given (absolute), if it differs from Dir
	root *os.Root // guards every access
}

// Path is a resolved tool path.
type Path struct {
	Root *Root
	Rel  string // slash-separated, cleaned, relative to Root.Dir; never "..", never empty
	Key  string // the journal's name for the file: Rel for the first root, else the absolute path
}

// Abs returns the absolute path.
func (p Path) Abs() string { return filepath.Join(p.Root.Dir, filepath.FromSlash(p.Rel)) }

// String implements fmt.Stringer.
func (p Path) String() string { return p.Rel }

func openRoot(dir string) (*Root, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("replay: root %s: %w", dir, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("replay: root %s: %w", dir, err)
	}
	st, err := os.Stat(real)
	if err != nil {
		return nil, fmt.Errorf("replay: root %s: %w", dir, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("replay: root %s: not a directory: %w", dir, ErrInvalidPath)
	}
	r, err := os.OpenRoot(real)
	if err != nil {
		return nil, fmt.Errorf("replay: root %s: %w", dir, err)
	}
	root := &Root{Dir: real, root: r}
	if abs != real {
		root.Alt = abs
	}
	return root, nil
}

// within returns p relative to dir if p is lexically inside dir.
func within(dir, p string) (string, bool) {
	if dir == "" {
		return "", false
	}
	rel, err := filepath.Rel(dir, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return rel, true
}

// Resolve maps a tool path (absolute inside a root, or relative to the first
// root) to a Path. It refuses NUL bytes, empty paths, paths outside every
// root and paths inside the journal's directory. Symlinks are checked when the
// file is opened, by os.Root.
func (e *Engine) Resolve(p string) (Path, error) { return e.resolve(p, nil) }

// resolve is Resolve; links, if not nil, remembers for the calls that
// share it where each directory really is (forbidden), so that a call
// resolving thousands of paths (Observe) resolves each directory once, not
// once per file.
func (e *Engine) resolve(p string, links map[string]string) (Path, error) {
	bad := func(err error, why string) (Path, error) {
		return Path{}, &PathError{Path: p, Err: err, Msg: why}
	}
	if p == "" {
		return bad(ErrInvalidPath, "the path is empty")
	}
	if strings.ContainsRune(p, 0) {
		return bad(ErrInvalidPath, "the path contains a NUL byte")
	}
	if len(p) > 4096 {
		return bad(ErrInvalidPath, "the path is longer than 4096 bytes")
	}
	var root *Root
	var rel string
	if filepath.IsAbs(p) {
		if root, rel = e.rootOf(p); root == nil {
			return bad(ErrOutsideRoot, "the path is outside every workspace root")
		}
	} else {
		root = e.roots[0]
		rel = filepath.Clean(p)
		if rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return bad(ErrOutsideRoot, "the path leaves the workspace root")
		}
	}
	rel = filepath.ToSlash(rel)
	if rel == "." {
		return bad(ErrInvalidPath, "the path names the workspace root itself, not a file")
	}
	for _, part := range strings.Split(rel, "/") {
		if len(part) > 255 {
			return bad(ErrInvalidPath, "a path component is longer than 255 bytes")
		}
	}
	out := Path{Root: root, Rel: rel, Key: rel}
	if root != e.roots[0] {
		out.Key = filepath.ToSlash(out.Abs())
	}
	if e.forbidden(out, links) {
		return bad(ErrOutsideRoot, "the journal's own directory is off limits")
	}
	return out, nil
}

// rootOf returns the root an absolute path lies in lexically (by its
// directory as resolved or as given) and the path relative to it, or nil.
func (e *Engine) rootOf(abs string) (*Root, string) {
	c := filepath.Clean(abs)
	for _, r := range e.roots {
		if x, ok := within(r.Dir, c); ok {
			return r, x
		}
		if x, ok := within(r.Alt, c); ok {
			return r, x
		}
	}
	return nil, ""
}

func (e *Engine) forbidden(p Path, links map[string]string) bool {
	abs := p.Abs()
	if _, ok := within(e.journalDir, abs); ok {
		return true
	}
	first := strings.Split(p.Rel, "/")[0]
	if first == journal.DirName {
		return true
	}
	// A symbolic link to a directory inside the root (jl -> .journal, up -> .)
	// passes os.Root but leads into the journal: check where the deepest
	// existing parent directory really is.
	if real := realDir(p.Root.Dir, filepath.Dir(abs), links); real != "" {
		_, in := within(e.journalDir, real)
		return in
	}
	return false
}

// realDir returns where the directory d (absolute, under rootDir) or, if it
// does not exist, its deepest existing parent below rootDir really is
// (symbolic links resolved), or "" if none exists below rootDir. memo, if
// not nil, keeps each directory's answer for the calls that share it: a
// directory costs one Lstat once its parent is known (a symbolic link, an
// EvalSymlinks), not one for each directory of its path.
func realDir(rootDir, d string, memo map[string]string) string {
	if len(d) <= len(rootDir) {
		return ""
	}
	if real, ok := memo[d]; ok {
		return real
	}
	parent := realDir(rootDir, filepath.Dir(d), memo)
	real := parent // gone: where its deepest existing parent is
	if fi, err := os.Lstat(d); err == nil {
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			if r, err := filepath.EvalSymlinks(d); err == nil {
				real = r
			}
		case parent == "" && filepath.Dir(d) == rootDir:
			real = d
		case parent == "":
			// its parent is not there, yet it is (created since): as it
			// is found from the start
			if r, err := filepath.EvalSymlinks(d); err == nil {
				real = r
			}
		default:
			real = filepath.Join(parent, filepath.Base(d))
		}
	}
	if memo != nil {
		memo[d] = real
	}
	return real
}

// checkFile refuses symlinks as the final component (os.Root follows them
// inside the root, but replacing a link with a file would surprise its owner)
// and hard links (a second name may live outside the root).
func checkFile(p Path, fi fs.FileInfo) error {
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		target, _ := p.Root.root.Readlink(p.Rel)
		return &PathError{Path: p.Rel, Err: ErrInvalidPath,
			Msg: fmt.Sprintf("is a symbolic link (to %q)", target), Hint: "edit the file it points to instead"}
	case fi.IsDir():
		return &PathError{Path: p.Rel, Err: ErrInvalidPath, Msg: "is a directory"}
	case !fi.Mode().IsRegular():
		return &PathError{Path: p.Rel, Err: ErrInvalidPath, Msg: "is not a regular file"}
	case nlink(fi) > 1:
		return &PathError{Path: p.Rel, Err: ErrInvalidPath,
			Msg: "has more than one hard link", Hint: "a hard-linked file may be shared with a path outside the workspace; copy it first"}
	}
	return nil
}

// mapFSError turns an os error on p into a PathError with a sentinel.
func mapFSError(p Path, op string, err error) error {
	var pe *PathError
	if errors.As(err, &pe) {
		return err
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &PathError{Path: p.Rel, Err: ErrNotFound, Msg: "does not exist", cause: err}
	case errors.Is(err, fs.ErrPermission):
		return &PathError{Path: p.Rel, Err: ErrPermission, Msg: op + ": permission denied", cause: err}
	case errors.Is(err, syscall.ELOOP):
		return &PathError{Path: p.Rel, Err: ErrInvalidPath, Msg: "has too many levels of symbolic links", cause: err}
	case strings.Contains(err.Error(), "path escapes"):
		return &PathError{Path: p.Rel, Err: ErrOutsideRoot, Msg: "resolves (through a symbolic link) outside the workspace root", cause: err}
	case errors.Is(err, syscall.ENOTDIR):
		// A component is a file, or a directory was replaced (by a symbolic
		// link, say) while the call ran.
		return &PathError{Path: p.Rel, Err: ErrInvalidPath, Msg: op + ": a component of the path is not a directory (or was replaced during the call)", cause: err}
	}
	return fmt.Errorf("replay: %s %s: %w", op, p.Rel, err)
}
