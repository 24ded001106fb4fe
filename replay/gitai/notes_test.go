package gitai_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/journalfs/journal/replay/gitai"
)

// repo makes a repository with n empty commits and returns it and them.
func repo(t testing.TB, n int) (*gitai.Repo, string, []string) {
	t.Helper()
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	var commits []string
	for i := 0; i < n; i++ {
		git(t, dir, "commit", "-q", "--allow-empty", "-m", fmt.Sprint(i))
		commits = append(commits, strings.TrimSpace(git(t, dir, "rev-parse", "HEAD")))
	}
	r, err := gitai.OpenRepo(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r, dir, commits
}

func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=A", "GIT_AUTHOR_EMAIL=a@x", "GIT_COMMITTER_NAME=A", "GIT_COMMITTER_EMAIL=a@x", "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func note(key string, lines ...int) *gitai.Note {
	n := &gitai.Note{Files: []gitai.FileNote{{Path: "a.txt", Entries: []gitai.Entry{{Key: key, Lines: lines}}}}}
	n.Meta.BaseCommitSHA = strings.Repeat("0", 40)
	if strings.HasPrefix(key, "h_") {
		n.Meta.Humans = map[string]gitai.Human{key: {Author: "A <a@x>"}}
	} else {
		s, _, _ := strings.Cut(key, "::")
		n.Meta.Sessions = map[string]gitai.Session{s: {AgentID: gitai.AgentID{Tool: "t", ID: key}}}
	}
	return n
}

// Two writers of notes at once, 20 commits each: all 40 notes are there
// (each lost race is retried on the new notes commit).
func TestWriteNotes_ConcurrentWritersLoseNothing(t *testing.T) {
	r, dir, commits := repo(t, 40)
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r2, err := gitai.OpenRepo(context.Background(), dir)
			if err != nil {
				errs <- err
				return
			}
			defer r2.Close()
			for i := w; i < 40; i += 2 {
				if _, err := gitai.WriteNotes(context.Background(), r2, map[string]*gitai.Note{commits[i]: note(gitai.HumanKey(fmt.Sprint(i)), 1)}); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n := len(strings.Fields(git(t, dir, "notes", "--ref=ai", "list"))) / 2; n != 40 {
		t.Fatalf("%d notes, want 40", n)
	}
	_ = r
}

// Writing the same note again writes nothing; a changed one replaces the
// note wherever it sat — also under git notes' fanout directories.
func TestWriteNotes_IdempotentAndFanout(t *testing.T) {
	r, dir, commits := repo(t, 300)
	ctx := context.Background()
	// git notes itself, past 256 notes, fans the tree out (ab/cdef…)
	for _, c := range commits {
		git(t, dir, "notes", "--ref=ai", "add", "-m", "theirs", c)
	}
	if !strings.Contains(git(t, dir, "ls-tree", "refs/notes/ai"), "tree") {
		t.Fatal("git notes did not fan the tree out")
	}
	want := note(gitai.HumanKey("A <a@x>"), 1, 2)
	changed, err := gitai.WriteNotes(ctx, r, map[string]*gitai.Note{commits[7]: want})
	if err != nil || len(changed) != 1 {
		t.Fatalf("changed %v, %v", changed, err)
	}
	got := git(t, dir, "notes", "--ref=ai", "show", commits[7])
	if !strings.Contains(got, gitai.HumanKey("A <a@x>")+" 1-2") {
		t.Fatalf("note: %s", got)
	}
	if n := strings.Count(git(t, dir, "ls-tree", "-r", "refs/notes/ai"), commits[7][2:]); n != 1 {
		t.Fatalf("the commit has %d notes in the tree", n)
	}
	head := git(t, dir, "rev-parse", "refs/notes/ai")
	if changed, err := gitai.WriteNotes(ctx, r, map[string]*gitai.Note{commits[7]: want}); err != nil || len(changed) != 0 {
		t.Fatalf("the same note again: %v %v", changed, err)
	}
	if git(t, dir, "rev-parse", "refs/notes/ai") != head {
		t.Fatal("the same note again moved the ref")
	}
	// a flat tree (ours): the fast path replaces in place
	r2, dir2, c2 := repo(t, 3)
	for i, k := range []string{"h_1", "h_2"} {
		n := note(gitai.HumanKey(k), i+1)
		if _, err := gitai.WriteNotes(ctx, r2, map[string]*gitai.Note{c2[0]: n, c2[1]: n}); err != nil {
			t.Fatal(err)
		}
	}
	if out := git(t, dir2, "notes", "--ref=ai", "show", c2[0]); !strings.Contains(out, gitai.HumanKey("h_2")+" 2") {
		t.Fatalf("replaced note: %s", out)
	}
	if n := len(strings.Fields(git(t, dir2, "notes", "--ref=ai", "list"))) / 2; n != 2 {
		t.Fatalf("%d notes", n)
	}
	git(t, dir2, "fsck", "--strict")
}

// MergeNotes: the union of two machines' claims; a line both claim for
// different keys is nobody's.
func TestMergeNotes_UnionConflictsUntracked(t *testing.T) {
	a := note("s_aaaaaaaaaaaaaa::t_aaaaaaaaaaaaaa", 1, 2, 3)
	b := note("s_bbbbbbbbbbbbbb::t_bbbbbbbbbbbbbb", 3, 4)
	b.Files = append(b.Files, gitai.FileNote{Path: "b.txt", Entries: []gitai.Entry{{Key: "s_bbbbbbbbbbbbbb::t_bbbbbbbbbbbbbb", Lines: []int{9}}}})
	m := gitai.MergeNotes(a, b)
	out, err := gitai.Format(m)
	if err != nil {
		t.Fatal(err)
	}
	want := "a.txt\n  s_aaaaaaaaaaaaaa::t_aaaaaaaaaaaaaa 1-2\n  s_bbbbbbbbbbbbbb::t_bbbbbbbbbbbbbb 4\nb.txt\n  s_bbbbbbbbbbbbbb::t_bbbbbbbbbbbbbb 9\n---\n"
	if !strings.HasPrefix(string(out), want) || !strings.Contains(string(out), "s_aaaaaaaaaaaaaa") || len(m.Meta.Sessions) != 2 {
		t.Fatalf("merged:\n%s", out)
	}
	// the same note twice is itself
	if out2, _ := gitai.Format(gitai.MergeNotes(a, a)); string(out2) != mustFormat(t, a) {
		t.Fatalf("a with itself:\n%s", out2)
	}
}

func mustFormat(t *testing.T, n *gitai.Note) string {
	b, err := gitai.Format(n)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A remote's fetched notes merge into ours: its notes of commits we have
// no note for are taken, the notes of a commit both have are merged.
func TestMergeRemotes(t *testing.T) {
	r, dir, commits := repo(t, 2)
	ctx := context.Background()
	if _, err := gitai.WriteNotes(ctx, r, map[string]*gitai.Note{commits[0]: note("s_aaaaaaaaaaaaaa::t_aaaaaaaaaaaaaa", 1)}); err != nil {
		t.Fatal(err)
	}
	// the other machine's notes, as a fetch leaves them
	other := filepath.Join(t.TempDir(), "o")
	git(t, dir, "clone", "-q", dir, other)
	ro, _ := gitai.OpenRepo(ctx, other)
	defer ro.Close()
	if _, err := gitai.WriteNotes(ctx, ro, map[string]*gitai.Note{commits[0]: note("s_bbbbbbbbbbbbbb::t_bbbbbbbbbbbbbb", 2), commits[1]: note("h_cccccccccccccc", 1)}); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "fetch", "-q", other, "+refs/notes/ai:refs/notes/ai-remote/o")
	if _, err := gitai.MergeRemotes(ctx, r); err != nil {
		t.Fatal(err)
	}
	n0 := git(t, dir, "notes", "--ref=ai", "show", commits[0])
	n1 := git(t, dir, "notes", "--ref=ai", "show", commits[1])
	if !strings.Contains(n0, "s_aaaaaaaaaaaaaa::t_aaaaaaaaaaaaaa 1\n") || !strings.Contains(n0, "s_bbbbbbbbbbbbbb::t_bbbbbbbbbbbbbb 2\n") || !strings.Contains(n1, "h_cccccccccccccc 1") {
		t.Fatalf("merged:\n%s\n%s", n0, n1)
	}
	if parents := strings.Fields(git(t, dir, "log", "-1", "--format=%P", "refs/notes/ai")); len(parents) != 2 {
		t.Fatalf("the merge has parents %v", parents)
	}
	head := git(t, dir, "rev-parse", "refs/notes/ai")
	if _, err := gitai.MergeRemotes(ctx, r); err != nil || git(t, dir, "rev-parse", "refs/notes/ai") != head {
		t.Fatal("merging again moved the ref")
	}
}
