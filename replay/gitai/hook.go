package gitai

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// pendingFile lists, one per line, the commits whose note is still to be
// written: every hook adds its commits first, and takes them out once
// their notes are written, so a journal that is missing, busy or damaged
// loses nothing (the next hook or `journal git note` writes them).
func pendingFile(r *Repo) string { return filepath.Join(r.StateDir(), "pending") }

// withPending runs fn on the pending list under its lock and writes back
// what fn returns.
func withPending(r *Repo, fn func(list []string) []string) error {
	if err := os.MkdirAll(r.StateDir(), 0o755); err != nil {
		return err
	}
	lf, err := os.OpenFile(filepath.Join(r.StateDir(), "pending.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return err
	}
	defer lf.Close()
	if err := unix.Flock(int(lf.Fd()), unix.LOCK_EX); err != nil {
		return err
	}
	defer unix.Flock(int(lf.Fd()), unix.LOCK_UN)
	data, err := os.ReadFile(pendingFile(r))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	var list []string
	for _, l := range strings.Fields(string(data)) {
		if isObjectName(l) && !slices.Contains(list, l) {
			list = append(list, l)
		}
	}
	out := fn(list)
	if slices.Equal(out, list) {
		return nil
	}
	if len(out) == 0 {
		if err := os.Remove(pendingFile(r)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	tmp := pendingFile(r) + ".tmp"
	if err := os.WriteFile(tmp, []byte(strings.Join(out, "\n")+"\n"), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, pendingFile(r))
}

// AddPending records commits as waiting for their notes.
func AddPending(r *Repo, commits []string) error {
	return withPending(r, func(list []string) []string {
		for _, c := range commits {
			if !slices.Contains(list, c) {
				list = append(list, c)
			}
		}
		return list
	})
}

// Pending returns the commits waiting for their notes.
func Pending(r *Repo) ([]string, error) {
	var out []string
	err := withPending(r, func(list []string) []string { out = list; return list })
	return out, err
}

// donePending takes commits off the pending list.
func donePending(r *Repo, commits []string) error {
	return withPending(r, func(list []string) []string {
		return slices.DeleteFunc(list, func(c string) bool { return slices.Contains(commits, c) })
	})
}

// NoteResult is what one computation of notes did.
type NoteResult struct {
	Notes   map[string]*Note // by commit
	Changed []string         // the commits whose note was written (not already there)
}

// NoteCommits computes the notes of commits and writes those that changed
// (none with dryRun), merged with the remotes' (WriteNotes).
func NoteCommits(ctx context.Context, r *Repo, j Journal, commits []string, dryRun bool) (*NoteResult, error) {
	notes, err := Compute(ctx, r, j, commits)
	if err != nil {
		return nil, err
	}
	res := &NoteResult{Notes: notes}
	if dryRun || len(notes) == 0 {
		return res, nil
	}
	res.Changed, err = WriteNotes(context.WithoutCancel(ctx), r, notes)
	return res, err
}

// Flush writes the notes of the pending commits (and of commits), and
// takes them off the list. An error leaves them pending.
func Flush(ctx context.Context, r *Repo, j Journal, commits []string) (*NoteResult, error) {
	if len(commits) > 0 {
		if err := AddPending(r, commits); err != nil {
			return nil, err
		}
	}
	list, err := Pending(r)
	if err != nil || len(list) == 0 {
		return &NoteResult{}, err
	}
	res, err := NoteCommits(ctx, r, j, list, false)
	if err != nil {
		return nil, err
	}
	return res, donePending(r, list)
}

// HookIO is a hook's invocation: its arguments and standard input.
type HookIO struct {
	Args  []string
	Stdin []byte
}

// HookNames are the hooks Install installs and Hook runs.
var HookNames = []string{"post-commit", "post-rewrite", "post-merge", "post-checkout", "pre-push"}

// hookGuard marks our own git commands run from a hook, so the hooks they
// trigger do nothing.
const hookGuard = "JOURNAL_GIT_HOOK"

// Hook runs our part of git hook name: it adds the commits the hook
// reports to the pending list, merges the remotes' fetched notes, and
// writes every pending note; pre-push also fetches the remote's notes
// first and pushes ours beside what is pushed. j is nil when the journal
// cannot be opened: the commits stay pending. Errors are for one line on
// stderr: the caller exits 0 whatever happens.
func Hook(ctx context.Context, r *Repo, name string, in HookIO, j *Journal) error {
	if os.Getenv(hookGuard) != "" {
		return nil
	}
	var commits []string
	switch name {
	case "post-commit":
		if r.rebasing() {
			return nil // post-rewrite notes what the rebase made, if it completes
		}
		c, err := r.headCommit()
		if err != nil {
			return err
		}
		commits = append(commits, c.ID) // a merge too: the lines new against every parent
	case "post-rewrite":
		if len(in.Args) > 0 && in.Args[0] == "amend" && r.rebasing() {
			return nil // an amend inside a rebase: the rebase's own post-rewrite names what it made
		}
		sc := bufio.NewScanner(bytes.NewReader(in.Stdin))
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) >= 2 && isObjectName(f[1]) && !slices.Contains(commits, f[1]) {
				commits = append(commits, f[1])
			}
		}
	case "post-merge":
		// a merge git committed itself (no conflict): its note, if HEAD is
		// a merge of what HEAD was before (ORIG_HEAD), not a pull's fast
		// forward to someone else's; and what the fetch brought merged
		if len(in.Args) > 0 && in.Args[0] == "1" {
			break // merge --squash: nothing committed; the next commit is noted
		}
		c, err := r.headCommit()
		if err != nil {
			return err
		}
		if len(c.Parents) > 1 {
			if orig, _, err := r.cf.info("ORIG_HEAD"); err == nil && orig == c.Parents[0] {
				commits = append(commits, c.ID)
			}
		}
	case "post-checkout": // a pull: merge what the fetch brought
	case "pre-push":
		if len(in.Args) == 0 {
			return nil
		}
		return r.prePush(ctx, in.Args[0], in.Stdin, j)
	default:
		return fmt.Errorf("unknown hook %q", name)
	}
	if len(commits) > 0 {
		if err := AddPending(r, commits); err != nil {
			return err
		}
	}
	if _, err := MergeRemotes(context.WithoutCancel(ctx), r); err != nil {
		return fmt.Errorf("merging the remotes' notes: %w", err)
	}
	if j == nil {
		return nil
	}
	_, err := Flush(ctx, r, *j, nil)
	return err
}

// headCommit reads the commit HEAD names (and starts r's cat-file).
func (r *Repo) headCommit() (commitInfo, error) {
	cf, err := r.cat()
	if err != nil {
		return commitInfo{}, err
	}
	id, _, err := cf.info("HEAD")
	if err != nil {
		return commitInfo{}, err
	}
	_, data, err := cf.read(id)
	if err != nil {
		return commitInfo{}, err
	}
	return parseCommit(id, data), nil
}

// rebasing reports whether a rebase is under way in this work tree.
func (r *Repo) rebasing() bool {
	for _, d := range []string{"rebase-merge", "rebase-apply"} {
		if _, err := os.Stat(filepath.Join(r.GitDir, d)); err == nil {
			return true
		}
	}
	return false
}

// trackingName is the tracking ref's name for remote (a name, or a URL).
func trackingName(remote string) string {
	if !strings.ContainsAny(remote, "/:\\") {
		return remote
	}
	sum := sha256.Sum256([]byte(remote))
	return "url-" + hex.EncodeToString(sum[:6])
}

// FetchNotes fetches remote's notes into its tracking ref and merges them.
// A remote without notes yet is no error.
func FetchNotes(ctx context.Context, r *Repo, remote string) error {
	fctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	track := RemoteNotesPrefix + trackingName(remote)
	_, err := r.gitEnv(fctx, []string{hookGuard + "=1"}, nil, "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", remote, "+"+NotesRef+":"+track)
	if err != nil && !strings.Contains(err.Error(), "couldn't find remote ref") {
		return err
	}
	r.refs = nil // the tracking ref moved
	_, err = MergeRemotes(context.WithoutCancel(ctx), r)
	return err
}

// prePush fetches remote's notes and merges them, writes what is pending,
// and pushes NotesRef to remote by a second push of its own (no hooks run):
// what the user's push pushes is left as it is.
func (r *Repo) prePush(ctx context.Context, remote string, stdin []byte, j *Journal) error {
	// Only a push of something (not only deletions, not only the notes)
	// carries the notes.
	carries := false
	for _, l := range strings.Split(string(stdin), "\n") {
		f := strings.Fields(l)
		if len(f) == 4 && f[0] != "(delete)" && f[2] != NotesRef {
			carries = true
		}
	}
	if !carries {
		return nil
	}
	if err := FetchNotes(ctx, r, remote); err != nil {
		return fmt.Errorf("fetching the notes of %s: %w", remote, err)
	}
	var ferr error
	if j != nil {
		_, ferr = Flush(ctx, r, *j, nil)
	}
	if _, ok, err := r.RevParse(ctx, NotesRef); err != nil || !ok {
		return errors.Join(ferr, err)
	}
	for try := 0; ; try++ {
		pctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		_, err := r.gitEnv(pctx, []string{hookGuard + "=1"}, nil, "push", "--quiet", "--no-verify", remote, NotesRef+":"+NotesRef)
		cancel()
		if err == nil || try == 2 {
			return errors.Join(ferr, err)
		}
		if err := FetchNotes(ctx, r, remote); err != nil { // another machine pushed notes meanwhile
			return errors.Join(ferr, err)
		}
	}
}
