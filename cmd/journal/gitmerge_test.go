package main_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// wantMergeNote checks merge's note names exactly want and has the merge
// itself for base_commit_sha (the Git AI Standard v3.0.0 § 2.2).
func wantMergeNote(t *testing.T, dir string, want map[string]map[int]string) {
	t.Helper()
	merge := strings.TrimSpace(gitOut(t, dir, "rev-parse", "HEAD"))
	wantNoteBase(t, dir, merge, merge, want)
}

// TestGitNote_Merges (issue 45), with the installed hooks: a merge --no-ff
// whose conflict an agent's edit resolved is noted by post-commit with the
// agent for the resolved line alone; a clean merge git commits itself is
// noted by post-merge, with no attestation.
func TestGitNote_Merges(t *testing.T) {
	dir := gitRepo(t)
	write(t, dir, human, "a.txt", "one\nvalue = 1\n")
	gitEnvIn(t, dir, nil, "add", "-A")
	gitEnvIn(t, dir, nil, "commit", "-qm", "a")
	gitEnvIn(t, dir, nil, "checkout", "-q", "-b", "side")
	write(t, dir, human, "a.txt", "one\nvalue = 2\n")
	gitEnvIn(t, dir, nil, "commit", "-qam", "side's value")
	gitEnvIn(t, dir, nil, "checkout", "-q", "main")
	write(t, dir, agent, "a.txt", "one\nvalue = 3\nagent_main()\n")
	gitEnvIn(t, dir, nil, "commit", "-qam", "main's value")
	cmd := exec.Command("git", "merge", "--no-ff", "side")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Alice", "GIT_AUTHOR_EMAIL=alice@example.com",
		"GIT_COMMITTER_NAME=Alice", "GIT_COMMITTER_EMAIL=alice@example.com", "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "CONFLICT") {
		t.Fatalf("merge: want a conflict: %v\n%s", err, out)
	}
	write(t, dir, agent, "a.txt", "one\nvalue = resolved(2, 3)\nagent_main()\n")
	gitEnvIn(t, dir, nil, "add", "a.txt")
	gitEnvIn(t, dir, nil, "commit", "-q", "--no-edit")
	wantMergeNote(t, dir, map[string]map[int]string{"a.txt": {2: lA}})

	gitEnvIn(t, dir, nil, "checkout", "-q", "-b", "side2")
	write(t, dir, human, "b.txt", "side2's file\n")
	gitEnvIn(t, dir, nil, "add", "b.txt")
	gitEnvIn(t, dir, nil, "commit", "-qm", "side2")
	gitEnvIn(t, dir, nil, "checkout", "-q", "main")
	write(t, dir, agent, "c.txt", "main's file\n")
	gitEnvIn(t, dir, nil, "add", "c.txt")
	gitEnvIn(t, dir, nil, "commit", "-qm", "c")
	gitEnvIn(t, dir, nil, "merge", "-q", "--no-ff", "-m", "merge side2", "side2")
	wantMergeNote(t, dir, map[string]map[int]string{})
}
