package gitai_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/journalfs/journal/replay/gitai"
)

// baseOf is the base_commit_sha of commit c's note, read from its JSON.
func (m *model) baseOf(c string) string {
	m.t.Helper()
	_, meta, _ := strings.Cut("\n"+m.mustGit("notes", "--ref=ai", "show", c), "\n---\n")
	var md struct {
		Base string `json:"base_commit_sha"`
	}
	if err := json.Unmarshal([]byte(meta), &md); err != nil {
		m.t.Fatalf("metadata of %s: %v", c, err)
	}
	return md.Base
}

// TestNote_MergeCommits (issue 45; the Git AI Standard v3.0.0 § 2.2): a
// merge's note holds only the lines new against every parent. A `merge
// --no-ff` whose conflict an agent's edit resolved: the post-commit hook
// notes it, naming the agent's session for the resolved line and nothing
// else (the parents' lines are noted on the commits that added them); a
// clean merge, committed by git itself: the post-merge hook notes it with
// no attestation; an evil merge (an agent's edit in a merge without a
// conflict) names the agent for that line; a fast forward to a merge is
// left alone.
// base_commit_sha is the merge itself.
func TestNote_MergeCommits(t *testing.T) {
	m := newModel(t)
	ctx := context.Background()
	hook := func(name string, args ...string) {
		t.Helper()
		if err := gitai.Hook(ctx, m.repo, name, gitai.HookIO{Args: args}, &m.j); err != nil {
			t.Fatalf("%s hook: %v", name, err)
		}
	}
	m.outside("app.py", "import os\nvalue = 1\n")
	m.commit("base")
	m.mustGit("checkout", "-q", "-b", "feature")
	m.outside("app.py", "import os\nvalue = 2\n")
	m.commit("feature's value")
	m.mustGit("checkout", "-q", "main")
	m.observe()
	m.outside("app.py", "import os\nvalue = 3\nmain_only()\n")
	m.commit("main's value")
	if out, err := m.git("merge", "--no-ff", "feature"); err == nil || !strings.Contains(out, "CONFLICT") {
		t.Fatalf("merge: want a conflict: %v\n%s", err, out)
	}
	m.observe() // the conflict markers, as the watcher sees them
	m.apply(toolActor, "app.py", "import os\nvalue = resolved_by_the_agent(2, 3)\nmain_only()\n")
	m.mustGit("add", "-A")
	m.mustGit("commit", "-q", "--no-edit")
	merge := m.head()
	hook("post-commit")
	claims := m.claimsOf(merge)
	if len(claims) != 1 || len(claims["app.py"]) != 1 || claims["app.py"][2] != authTool {
		t.Fatalf("note of the resolved merge: %v, want line 2 of app.py the agent's", claims)
	}
	if b := m.baseOf(merge); b != merge {
		t.Fatalf("base_commit_sha of the merge: %s, want the merge %s", b, merge)
	}
	// a clean merge: no line is new against both parents
	m.mustGit("checkout", "-q", "-b", "feature2")
	m.files = append(m.files, "b.txt")
	m.outside("b.txt", "feature2's file\n")
	m.commit("feature2")
	m.mustGit("checkout", "-q", "main")
	m.observe()
	m.apply(toolActor, "app.py", "import os\nvalue = resolved_by_the_agent(2, 3)\nmain_only()\nagent_on_main()\n")
	m.commit("the agent on main")
	m.mustGit("merge", "-q", "--no-ff", "-m", "merge feature2", "feature2")
	clean := m.head()
	m.observe()
	hook("post-merge", "0")
	if claims := m.claimsOf(clean); len(claims) != 0 {
		t.Fatalf("note of the clean merge: %v, want no attestation", claims)
	}
	if b := m.baseOf(clean); b != clean {
		t.Fatalf("base_commit_sha of the clean merge: %s, want %s", b, clean)
	}
	// an evil merge: the agent's edit in a merge without a conflict is the
	// merge's own line; the merged file's lines are the branch's
	m.mustGit("checkout", "-q", "-b", "feature3")
	m.files = append(m.files, "d.txt")
	m.outside("d.txt", "feature3's file\n")
	m.commit("feature3")
	m.mustGit("checkout", "-q", "main")
	m.observe()
	m.mustGit("merge", "-q", "--no-ff", "--no-commit", "feature3")
	m.observe()
	m.apply(toolActor, "app.py", "import os\nvalue = resolved_by_the_agent(2, 3)\nmain_only()\nagent_on_main()\nagent_in_the_merge()\n")
	m.mustGit("add", "-A")
	m.mustGit("commit", "-q", "--no-edit")
	evil := m.head()
	hook("post-commit")
	if claims := m.claimsOf(evil); len(claims) != 1 || len(claims["app.py"]) != 1 || claims["app.py"][5] != authTool {
		t.Fatalf("note of the evil merge: %v, want line 5 of app.py the agent's", claims)
	}
	m.mustGit("reset", "-q", "--hard", clean)
	m.observe()
	// a fast forward over a merge (a pull's): not a merge made here, which
	// post-merge leaves alone
	m.mustGit("notes", "--ref=ai", "remove", clean)
	m.mustGit("checkout", "-q", "-b", "behind", merge)
	m.mustGit("merge", "-q", "--ff-only", "main")
	hook("post-merge", "0")
	if _, err := m.git("notes", "--ref=ai", "show", clean); err == nil {
		t.Fatal("post-merge of a fast forward noted the merge it reached")
	}
}

// TestReaders_AgreeOnAHandResolvedMerge (issue 60 §3): a merge whose
// conflict a person resolved by hand, behind the journal, adds the
// resolution line: blame gives it to the merge, untracked; the note names
// no one for it; stats and show count it as the merge's one added line,
// untracked — every reader says the same (stats and show counted 0: git
// log --numstat shows a merge no diff).
func TestReaders_AgreeOnAHandResolvedMerge(t *testing.T) {
	m := newModel(t)
	ctx := context.Background()
	m.outside("app.py", "import os\nvalue = 1\n")
	m.commit("base")
	m.mustGit("checkout", "-q", "-b", "feature")
	m.outside("app.py", "import os\nvalue = 2\n")
	m.commit("feature's value")
	m.mustGit("checkout", "-q", "main")
	m.observe()
	m.outside("app.py", "import os\nvalue = 3\n")
	m.commit("main's value")
	if out, err := m.git("merge", "--no-ff", "feature"); err == nil || !strings.Contains(out, "CONFLICT") {
		t.Fatalf("merge: want a conflict: %v\n%s", err, out)
	}
	m.outside("app.py", "import os\nvalue = resolved_by_hand(2, 3)\n")
	m.mustGit("add", "-A")
	m.mustGit("commit", "-q", "--no-edit")
	merge := m.head()
	if err := gitai.Hook(ctx, m.repo, "post-commit", gitai.HookIO{}, &m.j); err != nil {
		t.Fatal(err)
	}
	if claims := m.claimsOf(merge); len(claims) != 0 {
		t.Fatalf("note of the merge: %v, want no attestation (the person's line is untracked)", claims)
	}
	rd := gitai.Reader{Dir: m.dir}
	b, err := rd.Blame(ctx, "app.py", "")
	if err != nil {
		t.Fatal(err)
	}
	if l := b.Lines[1]; l.Commit != merge || l.Author.Kind != "untracked" {
		t.Fatalf("blame of the resolution: %+v, want the merge %s, untracked", l, merge)
	}
	st, err := rd.Stats(ctx, "HEAD~1..HEAD")
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, c := range st.Commits {
		if c.Commit == merge {
			found = true
			if c.Added != 1 || c.Untracked != 1 || c.Agent != 0 || c.Human != 0 {
				t.Errorf("stats of the merge: %+v, want 1 added, untracked", c.LineCounts)
			}
		}
	}
	if !found {
		t.Fatalf("stats list no merge: %+v", st.Commits)
	}
	sh, err := rd.Show(ctx, merge)
	if err != nil {
		t.Fatal(err)
	}
	if sh.Added != 1 || sh.Untracked != 1 || len(sh.Files) != 1 || sh.Files[0].Path != "app.py" {
		t.Fatalf("show of the merge: %+v %+v, want app.py's 1 line untracked", sh.LineCounts, sh.Files)
	}
}

// TestNote_OctopusMerge: an octopus merge of three branches (each adding
// its own file) in which an agent edits a file before the commit: the
// note names the agent for its one line, new against every parent, and
// nothing of the branches' files; stats and blame say the same.
func TestNote_OctopusMerge(t *testing.T) {
	m := newModel(t)
	ctx := context.Background()
	m.outside("app.py", "import os\n")
	m.commit("base")
	for _, b := range []string{"b1", "b2", "b3"} {
		m.mustGit("checkout", "-q", "-b", b, "main")
		m.files = append(m.files, b+".txt")
		m.outside(b+".txt", b+"'s file\n")
		m.commit(b)
	}
	m.mustGit("checkout", "-q", "main")
	m.observe()
	m.mustGit("merge", "-q", "--no-ff", "--no-commit", "b1", "b2", "b3")
	m.observe()
	m.apply(toolActor, "app.py", "import os\nagent_in_the_octopus()\n")
	m.mustGit("add", "-A")
	m.mustGit("commit", "-q", "--no-edit")
	oct := m.head()
	if ps := strings.Fields(m.mustGit("log", "-1", "--format=%P")); len(ps) != 4 {
		t.Fatalf("the merge has %d parents, want 4", len(ps))
	}
	if err := gitai.Hook(ctx, m.repo, "post-commit", gitai.HookIO{}, &m.j); err != nil {
		t.Fatal(err)
	}
	if claims := m.claimsOf(oct); len(claims) != 1 || len(claims["app.py"]) != 1 || claims["app.py"][2] != authTool {
		t.Fatalf("note of the octopus merge: %v, want line 2 of app.py the agent's, nothing else", claims)
	}
	rd := gitai.Reader{Dir: m.dir}
	st, err := rd.Stats(ctx, "HEAD^1..HEAD")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range st.Commits {
		if c.Commit == oct && (c.Added != 1 || c.Agent != 1) {
			t.Errorf("stats of the octopus merge: %+v, want 1 added, the agent's", c.LineCounts)
		}
	}
	b, err := rd.Blame(ctx, "app.py", "")
	if err != nil {
		t.Fatal(err)
	}
	if l := b.Lines[1]; l.Commit != oct || l.Author.Kind != "agent" {
		t.Fatalf("blame of the agent's line: %+v, want the octopus merge, the agent", l)
	}
}
