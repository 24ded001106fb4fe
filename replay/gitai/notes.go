package gitai

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
)

// notePaths are the paths a note for commit may have in a notes tree: flat,
// or under one to four levels of fanout ("ab/cdef…", "ab/cd/ef…").
func notePaths(commit string) []string {
	ps := []string{commit}
	p := ""
	for i := 0; i < 4 && 2*i+2 < len(commit); i++ {
		p += commit[2*i:2*i+2] + "/"
		ps = append(ps, p+commit[2*i+2:])
	}
	return ps
}

// treeNotes lists the notes of notes commit ref for commits (nil: all of
// them): by commit, each note's blob and its path in the tree.
func (r *Repo) treeNotes(ctx context.Context, ref string, commits []string) (map[string][2]string, error) {
	if commits != nil {
		return r.lookupNotes(ref, commits)
	}
	args := []string{"ls-tree", "-r", "-z", "--full-tree", ref}
	out, err := r.git(ctx, nil, args...)
	if err != nil {
		return nil, err
	}
	res := map[string][2]string{}
	for _, rec := range strings.Split(string(out), "\x00") {
		meta, path, ok := strings.Cut(rec, "\t")
		if !ok {
			continue
		}
		f := strings.Fields(meta)
		if len(f) != 3 || f[1] != "blob" {
			continue
		}
		c := strings.ReplaceAll(path, "/", "")
		if isObjectName(c) {
			res[c] = [2]string{f[2], path}
		}
	}
	return res, nil
}

// lookupNotes finds the notes of commits in notes commit ref through the
// open cat-file, at every path a note may have.
func (r *Repo) lookupNotes(ref string, commits []string) (map[string][2]string, error) {
	res := map[string][2]string{}
	cf, err := r.cat()
	if err != nil {
		return nil, err
	}
	for _, c := range commits {
		for _, p := range notePaths(c) {
			id, typ, err := cf.info(ref + ":" + p)
			if errors.Is(err, errMissing) {
				continue
			}
			if err != nil {
				return nil, err
			}
			if typ == "blob" {
				res[c] = [2]string{id, p}
				break
			}
		}
	}
	return res, nil
}

// notesRefs are the notes refs of the repository: ours (refs/notes/ai)
// and the tracking refs of remotes' (refs/notes/ai-remote/<remote>), by
// name, each with its commit.
func (r *Repo) notesRefs(ctx context.Context) (map[string]string, error) {
	if r.refs != nil {
		return r.refs, nil
	}
	// The names: loose refs under the prefix, and packed ones; each then
	// resolved through the run's cat-file (no for-each-ref process).
	names := []string{NotesRef}
	base := filepath.Join(r.CommonDir, filepath.FromSlash(RemoteNotesPrefix))
	filepath.WalkDir(base, func(p string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() && !strings.HasSuffix(p, ".lock") {
			if rel, err := filepath.Rel(base, p); err == nil {
				names = append(names, RemoteNotesPrefix+filepath.ToSlash(rel))
			}
		}
		return nil
	})
	if packed, err := os.ReadFile(filepath.Join(r.CommonDir, "packed-refs")); err == nil {
		for _, l := range strings.Split(string(packed), "\n") {
			if _, name, ok := strings.Cut(l, " "); ok && strings.HasPrefix(name, RemoteNotesPrefix) && !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
	}
	cf, err := r.cat()
	if err != nil {
		return nil, err
	}
	res := map[string]string{}
	for _, name := range names {
		id, typ, err := cf.info(name)
		if errors.Is(err, errMissing) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if typ == "commit" {
			res[name] = id
		}
	}
	r.refs = res
	return res, nil
}

// RemoteNotesPrefix is where a remote's notes are fetched to (a tracking
// ref per remote, merged into NotesRef by the next hook or `journal git
// note`).
const RemoteNotesPrefix = "refs/notes/ai-remote/"

// errLostRace means the notes ref moved while a new notes commit was made.
var errLostRace = errors.New("gitai: the notes ref moved meanwhile")

// maxRaces bounds the retries of a notes update lost to another writer.
const maxRaces = 20

// notesUpdate is one notes commit to make on top of the ref's value old: the
// note blobs to set, by commit; extra parents (a merged remote's notes).
type notesUpdate struct {
	set     map[string][]byte
	parents []string
	message string
	// ff, if set, is a notes commit to move the ref to as it is (a
	// fast-forward to a remote's notes that hold all of ours).
	ff string
	// ref is the notes ref to move (set by updateNotes).
	ref string
}

// updateNotes moves ref (NotesRef, or AttestRef) compare-and-swap to a
// notes commit made by plan from its current value (plan is called again
// after a lost race). It returns the commits whose note changed; a plan
// setting only notes already there writes nothing.
func (r *Repo) updateNotes(ctx context.Context, ref string, plan func(old string) (*notesUpdate, error)) ([]string, error) {
	for try := 0; ; try++ {
		old, known := r.refs[ref]
		if r.refs == nil || try > 0 || ref != NotesRef {
			var err error
			if old, known, err = r.RevParse(ctx, ref); err != nil {
				return nil, err
			}
		}
		if !known {
			old = ""
		}
		u, err := plan(old)
		if err != nil {
			return nil, err
		}
		if u != nil {
			u.ref = ref
		}
		changed, err := r.commitNotes(ctx, old, u)
		if r.refs != nil {
			delete(r.refs, NotesRef) // moved, or not what we thought
			r.refs = nil
		}
		if errors.Is(err, errLostRace) && try < maxRaces && ctx.Err() == nil {
			continue
		}
		return changed, err
	}
}

// commitNotes makes u's notes commit on old and moves the ref from old to
// it, in one `git fast-import`: its notemodify commands put each note where
// the tree's fanout wants it (taking out the note the commit had, at any
// fanout), and it moves the ref only if its value then is an ancestor of
// the new commit — old itself, since no other writer's commit is — through
// a ref transaction naming that value: compare-and-swap.
func (r *Repo) commitNotes(ctx context.Context, old string, u *notesUpdate) ([]string, error) {
	if u == nil {
		return nil, nil
	}
	if u.ff != "" {
		oldv := old
		if oldv == "" {
			oldv = nullOf(r)
		}
		if _, err := r.git(ctx, nil, "update-ref", "-m", "journal git: notes", u.ref, u.ff, oldv); err != nil {
			return nil, fmt.Errorf("%w: %v", errLostRace, err)
		}
		return []string{}, nil
	}
	commits := make([]string, 0, len(u.set))
	for c := range u.set {
		commits = append(commits, c)
	}
	sort.Strings(commits)
	existing := map[string][2]string{}
	if old != "" {
		var err error
		if existing, err = r.treeNotes(ctx, old, commits); err != nil {
			return nil, err
		}
	}
	var changed []string
	for _, c := range commits {
		if existing[c][0] != r.blobID(u.set[c]) {
			changed = append(changed, c)
		}
	}
	if len(changed) == 0 && len(u.parents) == 0 {
		return nil, nil
	}
	msg := u.message
	if msg == "" {
		msg = "Notes added by 'journal git'"
	}
	switch err := r.fastCommit(ctx, old, existing, changed, u, msg); {
	case err == nil:
		return changed, nil
	case !errors.Is(err, errSlowPath):
		return nil, err
	}
	var in bytes.Buffer
	fmt.Fprintf(&in, "commit %s\ncommitter journal <journal@localhost> %d +0000\ndata %d\n%s\n", u.ref, time.Now().Unix(), len(msg), msg)
	if old != "" {
		fmt.Fprintf(&in, "from %s\n", old)
	}
	for _, p := range u.parents {
		fmt.Fprintf(&in, "merge %s\n", p)
	}
	for _, c := range changed {
		fmt.Fprintf(&in, "N inline %s\ndata %d\n", c, len(u.set[c]))
		in.Write(u.set[c])
		in.WriteString("\n")
	}
	in.WriteString("done\n")
	// Not cancelled with ctx: a fast-import killed half-way could leave the
	// ref's lock behind.
	if _, err := r.git(context.WithoutCancel(ctx), in.Bytes(), "fast-import", "--quiet", "--done", "--date-format=raw"); err != nil {
		var ge *GitError
		if errors.As(err, &ge) && strings.Contains(strings.ToLower(ge.Stderr), "not updating") || strings.Contains(err.Error(), "cannot lock ref") {
			return nil, fmt.Errorf("%w: %v", errLostRace, err)
		}
		return nil, err
	}
	return changed, nil
}

// nullOf is the null object name of r's hash.
func nullOf(r *Repo) string {
	if r.sha256 {
		return strings.Repeat("0", 64)
	}
	return nullID
}

// readBlobs reads blobs by name.
func (r *Repo) readBlobs(ctx context.Context, ids []string) (map[string][]byte, error) {
	res := map[string][]byte{}
	if len(ids) == 0 {
		return res, nil
	}
	cf, err := r.cat()
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		_, data, err := cf.read(id)
		if err != nil {
			return nil, err
		}
		res[id] = data
	}
	return res, nil
}

// WriteNotes sets the notes of commits (Format's bytes, by commit) in one
// notes commit, merged with what remotes' notes say of the same commits
// (MergeNotes), compare-and-swap. It returns the commits whose note
// changed: none when every note is already there.
func WriteNotes(ctx context.Context, r *Repo, notes map[string]*Note) ([]string, error) {
	refs, err := r.notesRefs(ctx)
	if err != nil {
		return nil, err
	}
	commits := make([]string, 0, len(notes))
	for c := range notes {
		commits = append(commits, c)
	}
	// What remotes say of these commits is merged in.
	theirs := map[string][]*Note{}
	for name, id := range refs {
		if !strings.HasPrefix(name, RemoteNotesPrefix) {
			continue
		}
		tn, err := r.treeNotes(ctx, id, commits)
		if err != nil {
			return nil, err
		}
		var ids []string
		for _, b := range tn {
			ids = append(ids, b[0])
		}
		data, err := r.readBlobs(ctx, ids)
		if err != nil {
			return nil, err
		}
		for c, b := range tn {
			if n, err := Parse(data[b[0]]); err == nil {
				theirs[c] = append(theirs[c], n)
			}
		}
	}
	set := map[string][]byte{}
	for c, n := range notes {
		for _, t := range theirs[c] {
			n = MergeNotes(n, t)
		}
		b, err := Format(n)
		if err != nil {
			return nil, err
		}
		set[c] = b
	}
	return r.updateNotes(ctx, NotesRef, func(string) (*notesUpdate, error) {
		return &notesUpdate{set: set, message: "Notes added by 'journal git note'"}, nil
	})
}

// ReadNote returns the note of commit in NotesRef (nil if it has none).
func ReadNote(ctx context.Context, r *Repo, commit string) ([]byte, error) {
	return readNoteIn(ctx, r, NotesRef, commit)
}

// readNoteIn returns the note of commit in the notes ref ref (nil if it
// has none).
func readNoteIn(ctx context.Context, r *Repo, ref, commit string) ([]byte, error) {
	old, ok, err := r.RevParse(ctx, ref)
	if err != nil || !ok {
		return nil, err
	}
	tn, err := r.treeNotes(ctx, old, []string{commit})
	if err != nil || tn[commit][0] == "" {
		return nil, err
	}
	data, err := r.readBlobs(ctx, []string{tn[commit][0]})
	return data[tn[commit][0]], err
}
