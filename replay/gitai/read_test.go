package gitai_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/journalfs/journal/replay/gitai"
)

// testRepo is a real git repository in a temporary directory.
type testRepo struct {
	t    testing.TB
	dir  string
	tick int
}

func newTestRepo(t testing.TB) *testRepo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	r := &testRepo{t: t, dir: t.TempDir()}
	r.git("init", "-q", "-b", "main")
	return r
}

// git runs git in the repository with a fixed identity and clock.
func (r *testRepo) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.dir
	date := fmt.Sprintf("2026-01-02T03:04:%02dZ", r.tick%60)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Ann", "GIT_AUTHOR_EMAIL=ann@example.com", "GIT_COMMITTER_NAME=Ann",
		"GIT_COMMITTER_EMAIL=ann@example.com", "GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (r *testRepo) write(path, content string) {
	r.t.Helper()
	p := filepath.Join(r.dir, path)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// commit commits everything and returns the commit's hash.
func (r *testRepo) commit(msg string) string {
	r.t.Helper()
	r.tick++
	r.git("add", "-A")
	r.git("commit", "-q", "--allow-empty", "-m", msg)
	return strings.TrimSpace(r.git("rev-parse", "HEAD"))
}

// note attaches text as commit's note under refs/notes/ai, by git itself.
func (r *testRepo) note(commit, text string) {
	r.t.Helper()
	f := filepath.Join(r.t.TempDir(), "note")
	if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
		r.t.Fatal(err)
	}
	r.git("notes", "--ref=ai", "add", "-f", "-F", f, commit)
}

func (r *testRepo) reader() gitai.Reader { return gitai.Reader{Dir: r.dir} }

// Keys as the standard computes them, by hand: SHA-256 of "<tool>:<id>".
const (
	sessClaude = "s_" + "aaaaaaaaaaaaaa"
	sessCursor = "s_" + "bbbbbbbbbbbbbb"
	humanAnn   = "h_" + "cccccccccccccc"
	trace1     = "t_" + "11111111111111"
	trace2     = "t_" + "22222222222222"
	trace3     = "t_" + "33333333333333"
)

// metaJSON is a note's metadata section, written as the standard's §1.2.5.
func metaJSON(base string) string {
	return `{
  "schema_version": "authorship/3.0.0",
  "git_ai_version": "test",
  "base_commit_sha": "` + base + `",
  "prompts": {},
  "humans": {"` + humanAnn + `": {"author": "Ann <ann@example.com>"}},
  "sessions": {
    "` + sessClaude + `": {
      "agent_id": {"tool": "claude", "id": "conv-claude-1", "model": "claude-sonnet-4-5"},
      "human_author": "ann@example.com",
      "custom_attributes": {"prompt": "add the greeting"}
    },
    "` + sessCursor + `": {
      "agent_id": {"tool": "cursor", "id": "conv-cursor-9", "model": "gpt-5"}
    }
  }
}
`
}

// historyRepo is the repository most tests read:
//
//	A: src/app.py 1-3 claude (trace1), 4 Ann, 5 untracked;
//	   "my file.txt" 1-2 cursor; "dir/tab\tcafé.txt" 1 claude (trace2), 2 untracked
//	B: no note: app.py line 5 changed, line 6 added
//	C: src/app.py renamed src/main.py, line 7 added by claude (trace3)
//	D: no note: main.py line 1 changed by hand
type historyRepo struct {
	*testRepo
	a, b, c, d string
}

const tabPath = "dir/tab\tcafé.txt"

func newHistoryRepo(t testing.TB) *historyRepo {
	r := &historyRepo{testRepo: newTestRepo(t)}
	r.write("src/app.py", "one\ntwo\nthree\nfour\nfive\n")
	r.write("my file.txt", "alpha\nbeta\n")
	r.write(tabPath, "tabbed\nplain\n")
	r.a = r.commit("A: the first lines")
	r.note(r.a, "src/app.py\n  "+sessClaude+"::"+trace1+" 1-3\n  "+humanAnn+" 4\n"+
		"\"my file.txt\"\n  "+sessCursor+"::"+trace1+" 1-2\n"+
		"\""+tabPath+"\"\n  "+sessClaude+"::"+trace2+" 1\n---\n"+metaJSON(r.a))
	r.write("src/app.py", "one\ntwo\nthree\nfour\nFIVE\nsix\n")
	r.b = r.commit("B: no note")
	r.git("mv", "src/app.py", "src/main.py")
	r.write("src/main.py", "one\ntwo\nthree\nfour\nFIVE\nsix\nseven\n")
	r.c = r.commit("C: rename and a line")
	r.note(r.c, "src/main.py\n  "+sessClaude+"::"+trace3+" 7\n---\n"+metaJSON(r.c))
	r.write("src/main.py", "ONE\ntwo\nthree\nfour\nFIVE\nsix\nseven\n")
	r.d = r.commit("D: by hand")
	return r
}

func TestGitReadBlame_History(t *testing.T) {
	r := newHistoryRepo(t)
	res, err := r.reader().Blame(context.Background(), "src/main.py", "")
	if err != nil {
		t.Fatal(err)
	}
	if res.Rev != r.d {
		t.Fatalf("rev %s, want HEAD %s", res.Rev, r.d)
	}
	want := []struct {
		commit, path string
		orig         int
		noted        bool
		kind, who    string
	}{
		{r.d, "src/main.py", 1, false, gitai.KindUntracked, ""},
		{r.a, "src/app.py", 2, true, gitai.KindAgent, sessClaude + "::" + trace1},
		{r.a, "src/app.py", 3, true, gitai.KindAgent, sessClaude + "::" + trace1},
		{r.a, "src/app.py", 4, true, gitai.KindHuman, humanAnn},
		{r.b, "src/app.py", 5, false, gitai.KindUntracked, ""},
		{r.b, "src/app.py", 6, false, gitai.KindUntracked, ""},
		{r.c, "src/main.py", 7, true, gitai.KindAgent, sessClaude + "::" + trace3},
	}
	if len(res.Lines) != len(want) {
		t.Fatalf("%d lines, want %d", len(res.Lines), len(want))
	}
	for i, w := range want {
		l := res.Lines[i]
		if l.Line != i+1 || l.Commit != w.commit || l.Path != w.path || l.OrigLine != w.orig || l.Noted != w.noted || l.Author.Kind != w.kind || l.Author.Key != w.who {
			t.Errorf("line %d: %+v, want %+v", i+1, l, w)
		}
	}
	agent := res.Lines[1].Author
	if agent.Tool != "claude" || agent.ID != "conv-claude-1" || agent.Model != "claude-sonnet-4-5" || agent.Prompt != "add the greeting" || agent.Trace != trace1 || agent.Directed != "ann@example.com" {
		t.Errorf("agent line: %+v", agent)
	}
	if p := res.Lines[3].Author.Person; p != "Ann <ann@example.com>" {
		t.Errorf("human line: person %q", p)
	}
	if res.Lines[0].Text != "ONE" || res.Lines[6].Text != "seven" {
		t.Errorf("texts %q %q", res.Lines[0].Text, res.Lines[6].Text)
	}
	if c := res.Commits[r.a]; c.Summary != "A: the first lines" || c.Mail != "ann@example.com" {
		t.Errorf("commit A: %+v", c)
	}
}

func TestGitReadBlame_QuotedPaths(t *testing.T) {
	r := newHistoryRepo(t)
	for _, tc := range []struct {
		path  string
		lines []string // tool per line, "" untracked
	}{
		{"my file.txt", []string{"cursor", "cursor"}},
		{tabPath, []string{"claude", ""}},
	} {
		res, err := r.reader().Blame(context.Background(), tc.path, r.c)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Lines) != len(tc.lines) {
			t.Fatalf("%q: %d lines", tc.path, len(res.Lines))
		}
		for i, tool := range tc.lines {
			l := res.Lines[i]
			if l.Path != tc.path || l.Author.Tool != tool || (tool == "") != (l.Author.Kind == gitai.KindUntracked) {
				t.Errorf("%q line %d: %+v", tc.path, i+1, l)
			}
		}
	}
}

func TestGitReadBlame_NoNotesAtAll(t *testing.T) {
	r := newTestRepo(t)
	r.write("a.txt", "x\n")
	r.commit("one")
	res, err := r.reader().Blame(context.Background(), "a.txt", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Lines) != 1 || res.Lines[0].Noted || res.Lines[0].Author.Kind != gitai.KindUntracked {
		t.Fatalf("%+v", res.Lines)
	}
}

func TestGitReadBlame_UnreadableNote(t *testing.T) {
	r := newTestRepo(t)
	r.write("a.txt", "x\n")
	c := r.commit("one")
	r.note(c, "just a note a person wrote\n")
	res, err := r.reader().Blame(context.Background(), "a.txt", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	if res.Lines[0].Author.Kind != gitai.KindUntracked || res.Unreadable[c] == "" {
		t.Fatalf("%+v %v", res.Lines, res.Unreadable)
	}
}

func TestGitReadBlame_LegacyKey(t *testing.T) {
	r := newTestRepo(t)
	r.write("a.txt", "x\ny\n")
	c := r.commit("one")
	r.note(c, "a.txt\n  abcd1234abcd1234 2\n---\n"+`{"schema_version":"authorship/3.0.0","base_commit_sha":"`+c+`","prompts":{"abcd1234abcd1234":{"agent_id":{"tool":"cursor","id":"old","model":"gpt-4"},"total_additions":1,"total_deletions":0,"accepted_lines":1,"overriden_lines":0}}}`+"\n")
	res, err := r.reader().Blame(context.Background(), "a.txt", "")
	if err != nil {
		t.Fatal(err)
	}
	if a := res.Lines[1].Author; a.Kind != gitai.KindAgent || a.Tool != "cursor" || a.Model != "gpt-4" || a.ID != "old" {
		t.Fatalf("%+v", a)
	}
	if res.Lines[0].Author.Kind != gitai.KindUntracked {
		t.Fatalf("%+v", res.Lines[0])
	}
}

func TestGitReadBlame_Errors(t *testing.T) {
	r := newHistoryRepo(t)
	if _, err := r.reader().Blame(context.Background(), "nope.txt", ""); err == nil {
		t.Error("a missing file blamed")
	}
	if _, err := r.reader().Blame(context.Background(), "src/main.py", "no-such-rev"); err == nil {
		t.Error("a missing revision blamed")
	}
}

func TestGitReadShow(t *testing.T) {
	r := newHistoryRepo(t)
	res, err := r.reader().Show(context.Background(), r.a)
	if err != nil {
		t.Fatal(err)
	}
	if res.Added != 9 || res.Agent != 6 || res.Human != 1 || res.Untracked != 2 {
		t.Errorf("counts %+v", res.LineCounts)
	}
	if len(res.Files) != 3 || res.Files[0].Path != tabPath || res.Files[1].Path != "my file.txt" || res.Files[2].Path != "src/app.py" {
		t.Fatalf("files %+v", res.Files)
	}
	app := res.Files[2]
	if len(app.Ranges) != 2 || app.Ranges[0].Start != 1 || app.Ranges[0].End != 3 || app.Ranges[0].Author.Tool != "claude" ||
		app.Ranges[1].Start != 4 || app.Ranges[1].Author.Kind != gitai.KindHuman || app.Untracked != 1 {
		t.Errorf("src/app.py %+v", app)
	}
	if !strings.HasPrefix(string(res.Raw), "src/app.py\n") {
		t.Errorf("raw %q", res.Raw)
	}
	if _, err := r.reader().Show(context.Background(), r.b); !errors.Is(err, gitai.ErrNoNote) {
		t.Errorf("commit without a note: %v", err)
	}
	// a note naming only a renamed file's new line
	res, err = r.reader().Show(context.Background(), r.c)
	if err != nil {
		t.Fatal(err)
	}
	if res.Added != 1 || res.Agent != 1 || res.Untracked != 0 {
		t.Errorf("C: %+v", res.LineCounts)
	}
}

// Two journals that attribute the same line to different tool calls prove
// nothing of it: the merge ComputeAll relies on (MergeNotes) leaves it
// untracked, and keeps the lines only one names.
func TestGitReadMergeNotes_ConflictLeavesUntracked(t *testing.T) {
	a := &gitai.Note{Files: []gitai.FileNote{{Path: "f.txt", Entries: []gitai.Entry{{Key: sessClaude + "::" + trace1, Lines: []int{1, 2}}}}}}
	b := &gitai.Note{Files: []gitai.FileNote{{Path: "f.txt", Entries: []gitai.Entry{{Key: sessClaude + "::" + trace2, Lines: []int{2, 3}}}}}}
	m := gitai.MergeNotes(a, b)
	keys := gitai.LineKeys(m, "f.txt")
	if keys[1] != sessClaude+"::"+trace1 || keys[2] != "" || keys[3] != sessClaude+"::"+trace2 {
		t.Fatalf("%v", keys)
	}
}
