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
