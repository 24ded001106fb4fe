package gitai_test

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/secrets"
	"github.com/journalfs/journal/replay"
	"github.com/journalfs/journal/replay/gitai"
)

// newModel is a real repository with one committed file by nobody the
// journal knows, a journal baselined on it, and the Journal the hooks use.
func newModel(t *testing.T) *model {
	dir := t.TempDir()
	m := &model{t: t, dir: dir, rng: rand.New(rand.NewPCG(1, 45)), files: []string{"app.py"}}
	m.mustGit("init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(dir, ".gitignore"), []byte(".journal/\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "app.py"), []byte("import os\n"), 0o644)
	m.start()
	return m
}

// claimsOf reads commit c's note with the spec reader: per file, line →
// the session's agent id, or "human".
func (m *model) claimsOf(c string) map[string]map[int]string {
	m.t.Helper()
	n := specNote(m.t, m.mustGit("notes", "--ref=ai", "show", c))
	out := map[string]map[int]string{}
	for f, entries := range n.files {
		out[f] = map[int]string{}
		for key, lines := range entries {
			who := "human"
			if sid, _, _ := strings.Cut(key, "::"); strings.HasPrefix(key, "s_") {
				who = n.sessions[sid]
			}
			for _, l := range lines {
				out[f][l] = who
			}
		}
	}
	return out
}

// TestNote_AfterRedaction (issue 45): an agent's call writes a key and
// three lines, which are committed; the key is redacted from the journal.
// The commit's note, computed after the redaction (its blob is the very
// version taken out), still names the agent's session for its three lines;
// the key's line stays untracked; and neither the key nor any line only
// the redacted version held is in the journal file.
func TestNote_AfterRedaction(t *testing.T) {
	m := newModel(t)
	const token = "TOKEN = 'sk-live-0123456789abcdef'\n" // gitleaks:allow (a test's made-up key)
	m.apply(toolActor, "app.py", "import os\n"+token+"def agent_one():\n    return agent_value_only_here\nagent_two()\n")
	m.commit("the agent's work")
	c := m.head()
	if _, err := m.e.Redact(replay.RedactSelect{Match: func(b []byte) bool { return len(secrets.Scan(b)) > 0 }, Why: "a leaked key"}); err != nil {
		t.Fatal(err)
	}
	// the next change records the file again (it still holds the key):
	// the person takes it out first
	m.outside("app.py", "import os\ndef agent_one():\n    return agent_value_only_here\nagent_two()\n")
	if _, err := m.e.Redact(replay.RedactSelect{Match: func(b []byte) bool { return len(secrets.Scan(b)) > 0 }, Why: "a leaked key"}); err == nil {
		t.Fatal("a second redaction found the key again")
	}
	if _, err := gitai.NoteCommits(context.Background(), m.repo, m.j, []string{c}, false); err != nil {
		t.Fatal(err)
	}
	got := m.claimsOf(c)["app.py"]
	want := map[int]string{3: authTool, 4: authTool, 5: authTool}
	if len(got) != len(want) {
		t.Fatalf("note of the commit: %v, want %v (line 2, the key, untracked)", got, want)
	}
	for l, w := range want {
		if got[l] != w {
			t.Fatalf("note of the commit: %v, want %v", got, want)
		}
	}
	db, err := os.ReadFile(m.e.Journal().Path())
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(db, []byte("sk-live-0123456789abcdef")) {
		t.Fatal("the journal file holds the key")
	}
	// journal blame of the file as it is now keeps the agent's lines
	var owners []uint64
	err = m.e.Journal().View(func(tx *journal.Tx) error {
		b, err := replay.BlameTx(tx, "app.py", 0)
		if err != nil {
			return err
		}
		for _, l := range b.Lines {
			if l.Seq == 0 {
				owners = append(owners, 0)
			} else if b.Events[l.Seq].Actor.Session == authTool {
				owners = append(owners, 1)
			} else {
				owners = append(owners, 2)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []uint64{2, 1, 1, 1}; !slices.Equal(owners, want) {
		t.Fatalf("blame after the redaction (0 unproved, 1 the agent, 2 another: the baseline): %v, want %v", owners, want)
	}
}
