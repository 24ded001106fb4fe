package gitai

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// Repo is a git repository reached through the git binary's plumbing.
type Repo struct {
	Top       string // the work tree's top directory ("" when bare)
	GitDir    string // this work tree's git directory
	CommonDir string // the directory shared by every work tree (refs, objects, config)
	sha256    bool   // the repository's objects are named by SHA-256
	// refs caches notesRefs within one run (a hook's): the remotes'
	// tracking refs do not move under it, and NotesRef's value is only a
	// first guess for compare-and-swap, forgotten after every update.
	refs map[string]string
	// cf is the one `git cat-file --batch` of a run, started on first use.
	cf *catFile
}

// cat returns the run's cat-file, starting it.
func (r *Repo) cat() (*catFile, error) {
	if r.cf == nil {
		cf, err := r.catFile(context.Background())
		if err != nil {
			return nil, err
		}
		r.cf = cf
	}
	return r.cf, nil
}

// Close ends the git commands r keeps running.
func (r *Repo) Close() {
	if r.cf != nil {
		r.cf.close()
		r.cf = nil
	}
}

// ErrNotRepo means the directory is not inside a git repository.
var ErrNotRepo = errors.New("gitai: not a git repository")

// GitError is a git command that failed.
type GitError struct {
	Args   []string
	Stderr string
	Err    error
}

func (e *GitError) Error() string {
	return fmt.Sprintf("git %s: %v: %s", strings.Join(e.Args, " "), e.Err, strings.TrimSpace(e.Stderr))
}

func (e *GitError) Unwrap() error { return e.Err }

// OpenRepo finds the repository holding dir.
func OpenRepo(ctx context.Context, dir string) (*Repo, error) {
	r := &Repo{Top: dir}
	out, err := r.git(ctx, nil, "rev-parse", "--show-toplevel", "--absolute-git-dir", "--git-common-dir", "--show-object-format")
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrNotRepo, dir, err)
	}
	f := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(f) != 4 {
		return nil, fmt.Errorf("%w: %s: rev-parse said %q", ErrNotRepo, dir, out)
	}
	r.Top, r.GitDir, r.CommonDir, r.sha256 = f[0], f[1], f[2], f[3] == "sha256"
	if !filepath.IsAbs(r.CommonDir) {
		r.CommonDir = filepath.Join(dir, r.CommonDir)
	}
	if r.Top == "" {
		r.Top = dir
	}
	return r, nil
}

// OpenHookRepo is OpenRepo for a hook, which git runs at the top of the
// work tree: a plain repository there (a .git directory, no GIT_DIR nor
// GIT_COMMON_DIR) is known without running git; anything else is asked.
func OpenHookRepo(ctx context.Context, dir string) (*Repo, error) {
	gd := filepath.Join(dir, ".git")
	fi, err := os.Stat(gd)
	if err != nil || !fi.IsDir() || os.Getenv("GIT_DIR") != "" || os.Getenv("GIT_COMMON_DIR") != "" || os.Getenv("GIT_WORK_TREE") != "" {
		return OpenRepo(ctx, dir)
	}
	cfg, err := os.ReadFile(filepath.Join(gd, "config"))
	if err != nil {
		return OpenRepo(ctx, dir)
	}
	if strings.Contains(strings.ToLower(string(cfg)), "objectformat") {
		return OpenRepo(ctx, dir) // SHA-256, or anything unusual: ask git
	}
	top, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	return &Repo{Top: top, GitDir: filepath.Join(top, ".git"), CommonDir: filepath.Join(top, ".git")}, nil
}

// StateDir is where the package keeps its files in the repository
// (<common dir>/journal): the pending list, the install record, the hooks.
func (r *Repo) StateDir() string { return filepath.Join(r.CommonDir, "journal") }

// gitEnv is the environment of our git commands: the caller's, without an
// index file a hook was given (a commit of paths runs post-commit with a
// temporary one), plus extra.
func gitEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_INDEX_FILE=") {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}

// git runs git in the repository with stdin, returning its stdout.
func (r *Repo) git(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
	return r.gitEnv(ctx, nil, stdin, args...)
}

func (r *Repo) gitEnv(ctx context.Context, env []string, stdin []byte, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = r.Top
	cmd.Env = gitEnv(env...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.Bytes(), &GitError{Args: args, Stderr: errb.String(), Err: err}
	}
	return out.Bytes(), nil
}

// exitCode is the exit status of a failed git command (-1 if it did not run).
func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

// RevParse resolves rev to an object name; ok is false when it does not exist.
func (r *Repo) RevParse(ctx context.Context, rev string) (string, bool, error) {
	out, err := r.git(ctx, nil, "rev-parse", "-q", "--verify", rev)
	if err != nil {
		if exitCode(err) == 1 {
			return "", false, nil
		}
		return "", false, err
	}
	return strings.TrimSpace(string(out)), true, nil
}

// blobID is the object name git gives data as a blob.
func (r *Repo) blobID(data []byte) string {
	hdr := "blob " + strconv.Itoa(len(data)) + "\x00"
	if r.sha256 {
		h := sha256.New()
		io.WriteString(h, hdr)
		h.Write(data)
		return hex.EncodeToString(h.Sum(nil))
	}
	h := sha1.New()
	io.WriteString(h, hdr)
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// catFile reads objects through one `git cat-file --batch`.
type catFile struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func (r *Repo) catFile(ctx context.Context) (*catFile, error) {
	cmd := exec.CommandContext(ctx, "git", "cat-file", "--batch")
	cmd.Dir = r.Top
	cmd.Env = gitEnv()
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("git cat-file: %w", err)
	}
	return &catFile{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 64<<10)}, nil
}

// errMissing means an object does not exist.
var errMissing = errors.New("gitai: no such object")

// read returns the object named by rev and its type.
func (c *catFile) read(rev string) (typ string, data []byte, err error) {
	if _, err := io.WriteString(c.in, rev+"\n"); err != nil {
		return "", nil, fmt.Errorf("git cat-file: %w", err)
	}
	hdr, err := c.out.ReadString('\n')
	if err != nil {
		return "", nil, fmt.Errorf("git cat-file: %w", err)
	}
	f := strings.Fields(hdr)
	if len(f) == 2 && f[1] == "missing" {
		return "", nil, fmt.Errorf("%s: %w", rev, errMissing)
	}
	if len(f) != 3 {
		return "", nil, fmt.Errorf("git cat-file: header %q", hdr)
	}
	n, err := strconv.Atoi(f[2])
	if err != nil {
		return "", nil, fmt.Errorf("git cat-file: header %q", hdr)
	}
	data = make([]byte, n+1)
	if _, err := io.ReadFull(c.out, data); err != nil {
		return "", nil, fmt.Errorf("git cat-file: %w", err)
	}
	return f[1], data[:n], nil
}

// info returns the name and type of the object rev names, reading (and
// dropping) its content.
func (c *catFile) info(rev string) (id, typ string, err error) {
	if strings.ContainsAny(rev, "\n") {
		return "", "", fmt.Errorf("gitai: %q: a newline", rev)
	}
	if _, err := io.WriteString(c.in, rev+"\n"); err != nil {
		return "", "", fmt.Errorf("git cat-file: %w", err)
	}
	hdr, err := c.out.ReadString('\n')
	if err != nil {
		return "", "", fmt.Errorf("git cat-file: %w", err)
	}
	f := strings.Fields(hdr)
	if len(f) == 2 && f[1] == "missing" || len(f) >= 2 && f[len(f)-1] == "ambiguous" {
		return "", "", fmt.Errorf("%s: %w", rev, errMissing)
	}
	if len(f) != 3 {
		return "", "", fmt.Errorf("git cat-file: header %q", hdr)
	}
	n, err := strconv.Atoi(f[2])
	if err != nil {
		return "", "", fmt.Errorf("git cat-file: header %q", hdr)
	}
	if _, err := c.out.Discard(n + 1); err != nil {
		return "", "", fmt.Errorf("git cat-file: %w", err)
	}
	return f[0], f[1], nil
}

func (c *catFile) close() {
	c.in.Close()
	c.cmd.Wait()
}

// commitInfo is what a note needs of a commit object.
type commitInfo struct {
	ID        string
	Parents   []string
	Committer string // "Name <email>"
}

// parseCommit reads a commit object's header.
func parseCommit(id string, data []byte) commitInfo {
	c := commitInfo{ID: id}
	for _, l := range strings.Split(string(data), "\n") {
		if l == "" {
			break
		}
		k, v, _ := strings.Cut(l, " ")
		switch k {
		case "parent":
			c.Parents = append(c.Parents, v)
		case "committer":
			if i := strings.LastIndexByte(v, '>'); i >= 0 {
				v = v[:i+1]
			}
			c.Committer = v
		}
	}
	return c
}

// ResolveCommits turns revisions and ranges ("A..B", "A...B", "^A B") into
// commits, oldest first; none given is HEAD.
func ResolveCommits(ctx context.Context, r *Repo, revs []string) ([]string, error) {
	if len(revs) == 0 {
		revs = []string{"HEAD"}
	}
	var out []string
	seen := map[string]bool{}
	add := func(c string) {
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	for _, rev := range revs {
		if strings.Contains(rev, "..") || strings.HasPrefix(rev, "^") {
			o, err := r.git(ctx, nil, "rev-list", "--reverse", rev, "--")
			if err != nil {
				return nil, err
			}
			for _, c := range strings.Fields(string(o)) {
				add(c)
			}
			continue
		}
		c, ok, err := r.RevParse(ctx, rev+"^{commit}")
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("gitai: %q is not a commit", rev)
		}
		add(c)
	}
	return out, nil
}
