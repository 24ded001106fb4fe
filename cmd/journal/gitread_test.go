package main_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// gitTestRepo is a real repository with notes attached by git itself, in
// the Git AI Standard's layout written here by hand.
type gitTestRepo struct {
	t    testing.TB
	dir  string
	tick int
}

func newGitTestRepo(t testing.TB) *gitTestRepo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	r := &gitTestRepo{t: t, dir: t.TempDir()}
	r.git("init", "-q", "-b", "main")
	return r
}

func (r *gitTestRepo) git(args ...string) string {
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

func (r *gitTestRepo) write(path, content string) {
	r.t.Helper()
	p := filepath.Join(r.dir, path)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func (r *gitTestRepo) commit(msg string) string {
	r.t.Helper()
	r.tick++
	r.git("add", "-A")
	r.git("commit", "-q", "-m", msg)
	return strings.TrimSpace(r.git("rev-parse", "HEAD"))
}

func (r *gitTestRepo) note(commit, text string) {
	r.t.Helper()
	f := filepath.Join(r.t.TempDir(), "note")
	os.WriteFile(f, []byte(text), 0o644)
	r.git("notes", "--ref=ai", "add", "-f", "-F", f, commit)
}

const gitNoteMeta = `---
{
  "schema_version": "authorship/3.0.0",
  "base_commit_sha": "BASE",
  "prompts": {},
  "humans": {"h_cccccccccccccc": {"author": "Ann <ann@example.com>"}},
  "sessions": {
    "s_aaaaaaaaaaaaaa": {
      "agent_id": {"tool": "claude", "id": "conv-1", "model": "claude-sonnet-4-5"},
      "custom_attributes": {"prompt": "write the loop"}
    },
    "s_bbbbbbbbbbbbbb": {"agent_id": {"tool": "codex", "id": "conv-2", "model": "gpt-5"}}
  }
}
`

// gitCLIRepo: commit 1 writes "src/my app.py" (1-2 claude, 3 Ann, 4
// untracked); commit 2 has no note and changes line 4; commit 3 renames the
// file and codex adds line 5.
func gitCLIRepo(t *testing.T) (r *gitTestRepo, c1, c2, c3 string) {
	r = newGitTestRepo(t)
	r.write("src/my app.py", "for x in y:\n    go(x)\n# by Ann\nprint()\n")
	c1 = r.commit("first")
	r.note(c1, "\"src/my app.py\"\n  s_aaaaaaaaaaaaaa::t_11111111111111 1-2\n  h_cccccccccccccc 3\n"+strings.Replace(gitNoteMeta, "BASE", c1, 1))
	r.write("src/my app.py", "for x in y:\n    go(x)\n# by Ann\nprint(1)\n")
	c2 = r.commit("second, no note")
	r.git("mv", "src/my app.py", "src/app.py")
	r.write("src/app.py", "for x in y:\n    go(x)\n# by Ann\nprint(1)\nexit()\n")
	c3 = r.commit("third")
	r.note(c3, "src/app.py\n  s_bbbbbbbbbbbbbb::t_22222222222222 5\n"+strings.Replace(gitNoteMeta, "BASE", c3, 1))
	return
}

func TestGitBlame_CLI(t *testing.T) {
	r, c1, c2, c3 := gitCLIRepo(t)
	out := ok(t, r.dir, "git", "blame", "src/app.py")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 5 {
		t.Fatalf("%q", out)
	}
	for i, want := range []string{c1[:10] + " claude claude-sonnet-4-5 session conv-1 t_11111111111111",
		c1[:10] + " claude", c1[:10] + " person Ann <ann@example.com>", c2[:10] + " no note", c3[:10] + " codex gpt-5 session conv-2"} {
		if !strings.HasPrefix(lines[i], want) {
			t.Errorf("line %d: %q, want it to start %q", i+1, lines[i], want)
		}
	}
	if !strings.HasSuffix(lines[4], "5) exit()") {
		t.Errorf("line 5: %q", lines[4])
	}

	var js struct {
		Rev   string
		Lines []struct {
			Line     int
			Commit   string
			Path     string
			OrigLine int `json:"orig_line"`
			Noted    bool
			Author   struct{ Kind, Tool, Prompt, Session, Trace, Person string }
			Text     string
		}
	}
	if err := json.Unmarshal([]byte(ok(t, r.dir, "git", "blame", "--json", "src/app.py", "HEAD")), &js); err != nil {
		t.Fatal(err)
	}
	l := js.Lines[0]
	if js.Rev != c3 || l.Path != "src/my app.py" || l.Author.Kind != "agent" || l.Author.Prompt != "write the loop" || l.Author.Trace != "t_11111111111111" {
		t.Errorf("json line 1: %+v", l)
	}
	if js.Lines[3].Noted || js.Lines[3].Author.Kind != "untracked" {
		t.Errorf("json line 4: %+v", js.Lines[3])
	}

	por := ok(t, r.dir, "git", "blame", "--porcelain", "src/app.py")
	for _, want := range []string{
		c1 + " 1 1 agent s_aaaaaaaaaaaaaa::t_11111111111111\npath \"src/my app.py\"\ntool \"claude\"\nsession-id \"conv-1\"\nmodel \"claude-sonnet-4-5\"\nprompt \"write the loop\"\n\tfor x in y:\n",
		c1 + " 2 2 agent s_aaaaaaaaaaaaaa::t_11111111111111\n\t    go(x)\n",
		c1 + " 3 3 human h_cccccccccccccc\nperson \"Ann <ann@example.com>\"\n\t# by Ann\n",
		c2 + " 4 4 no-note -\npath \"src/my app.py\"\n\tprint(1)\n",
	} {
		if !strings.Contains(por, want) {
			t.Errorf("porcelain lacks %q:\n%s", want, por)
		}
	}
	// an older revision, by its old name
	out = ok(t, r.dir, "git", "blame", "src/my app.py", c1)
	if !strings.Contains(out, "4) print()") || !strings.Contains(out, "untracked") {
		t.Errorf("at c1: %s", out)
	}
}

func TestGitBlame_CLIErrors(t *testing.T) {
	r, _, _, _ := gitCLIRepo(t)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"git", "blame", "nope.py"}, 1, "hint: name a file"},
		{[]string{"git", "blame", "src/app.py", "nope"}, 1, "hint: name a commit"},
		{[]string{"git", "blame", "--json", "--porcelain", "src/app.py"}, 2, "alternatives"},
		{[]string{"git", "blame"}, 2, ""},
	} {
		res := run(t, r.dir, tc.args...)
		if res.code != tc.code || !strings.Contains(res.stderr, tc.want) {
			t.Errorf("%v: exit %d, %q", tc.args, res.code, res.stderr)
		}
	}
	res := run(t, t.TempDir(), "git", "blame", "a.txt")
	if res.code != 1 || !strings.Contains(res.stderr, "not in a git repository") {
		t.Errorf("outside a repository: exit %d, %q", res.code, res.stderr)
	}
}

func TestGitShow_CLI(t *testing.T) {
	r, c1, c2, _ := gitCLIRepo(t)
	out := ok(t, r.dir, "git", "show", c1)
	for _, want := range []string{
		"commit " + c1 + " first\n",
		"4 lines added: 2 by agents (50.0%), 1 by people, 1 untracked\n",
		"src/my app.py  (4 added: 2 agent, 1 human, 1 untracked)\n",
		"  1-2       claude claude-sonnet-4-5 session conv-1 (s_aaaaaaaaaaaaaa, tool call t_11111111111111) prompt \"write the loop\"\n",
		"  3         person Ann <ann@example.com>\n",
		"  s_aaaaaaaaaaaaaa  claude  conv-1  claude-sonnet-4-5\n      prompt: \"write the loop\"\n",
		"  h_cccccccccccccc  Ann <ann@example.com>\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("show lacks %q:\n%s", want, out)
		}
	}
	raw := ok(t, r.dir, "git", "show", "--raw", c1)
	if want := strings.TrimSpace(r.git("notes", "--ref=ai", "show", c1)); strings.TrimSpace(raw) != want {
		t.Errorf("--raw %q, want %q", raw, want)
	}
	var js struct {
		Added, Agent, Human, Untracked int
		Files                          []struct{ Path string }
	}
	if err := json.Unmarshal([]byte(ok(t, r.dir, "git", "show", "--json", c1)), &js); err != nil {
		t.Fatal(err)
	}
	if js.Added != 4 || js.Agent != 2 || js.Human != 1 || js.Untracked != 1 || js.Files[0].Path != "src/my app.py" {
		t.Errorf("json %+v", js)
	}
	res := run(t, r.dir, "git", "show", c2)
	if res.code != 1 || !strings.Contains(res.stderr, "no Git AI note") || !strings.Contains(res.stderr, "hint:") {
		t.Errorf("no note: exit %d %q", res.code, res.stderr)
	}
}

func TestGitStats_CLI(t *testing.T) {
	r, c1, _, c3 := gitCLIRepo(t)
	out := ok(t, r.dir, "git", "stats")
	for _, want := range []string{
		c3[:10] + "      1      1      0         0  100.0%        1  third\n",
		"second, no note (no note)\n",
		c1[:10] + "      4      2      1         1   50.0%        2  first\n",
		"3 commits (2 with a note), 6 lines added: 3 by agents (50.0%), 1 by people, 2 untracked\n",
		"agent lines that reached " + c3[:10] + " unchanged: 3 of 3 (100.0%)\n",
		"by tool   claude 2 (2 survived), codex 1 (1 survived)\n",
		"by model  claude-sonnet-4-5 2 (2 survived), gpt-5 1 (1 survived)\n",
		"  s_aaaaaaaaaaaaaa  claude conv-1 claude-sonnet-4-5: 2 lines, 2 survived\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stats lacks %q:\n%s", want, out)
		}
	}
	var js struct {
		Tip   string
		Total struct {
			Commits, Added, Agent int
			AgentPercent          float64 `json:"agent_percent"`
		}
	}
	if err := json.Unmarshal([]byte(ok(t, r.dir, "git", "stats", "--json", c1+"..HEAD")), &js); err != nil {
		t.Fatal(err)
	}
	if js.Tip != c3 || js.Total.Commits != 2 || js.Total.Added != 2 || js.Total.Agent != 1 || js.Total.AgentPercent != 50 {
		t.Errorf("json %+v", js)
	}
	if res := run(t, r.dir, "git", "stats", "nope..HEAD"); res.code != 1 || !strings.Contains(res.stderr, "hint:") {
		t.Errorf("bad range: exit %d %q", res.code, res.stderr)
	}
}

func TestGitTrace_CLI(t *testing.T) {
	r, c1, c2, c3 := gitCLIRepo(t)
	out := ok(t, r.dir, "git", "trace", c1, c3)
	validTraceCLI(t, out)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d records:\n%s", len(lines), out)
	}
	var rec struct {
		Version string
		VCS     struct{ Type, Revision string }
		Files   []struct {
			Path          string
			Conversations []struct {
				Contributor struct {
					Type    string
					ModelID string `json:"model_id"`
				}
				Ranges []struct {
					StartLine int `json:"start_line"`
					EndLine   int `json:"end_line"`
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil {
		t.Fatal(err)
	}
	if rec.Version != "0.1" || rec.VCS.Revision != c1 || len(rec.Files) != 1 || rec.Files[0].Path != "src/my app.py" ||
		rec.Files[0].Conversations[0].Contributor.ModelID != "anthropic/claude-sonnet-4-5" || rec.Files[0].Conversations[1].Contributor.Type != "human" {
		t.Errorf("%+v", rec)
	}
	if res := run(t, r.dir, "git", "trace", c2); res.code != 1 || !strings.Contains(res.stderr, "no Git AI note") {
		t.Errorf("no note: exit %d %q", res.code, res.stderr)
	}
	if p := ok(t, r.dir, "git", "trace", "--pretty", c3); !strings.Contains(p, "\n  \"version\": \"0.1\",\n") {
		t.Errorf("--pretty: %s", p)
	}
}

// The writer's notes (journal git install, a commit) read back by the
// readers: the agent's lines name the session and the journal's event of
// the tool call, the person's lines the person, the outside line nothing;
// the Agent Trace record is valid against the schema.
func TestGitReadEndToEnd_WriterNotes(t *testing.T) {
	dir := gitRepo(t)
	write(t, dir, agent, "f.txt", "a1\na2\n")
	write(t, dir, human, "f.txt", "a1\na2\nh1\n")
	files(t, dir, map[string]string{"f.txt": "a1\na2\nh1\no1\n"})
	gitEnvIn(t, dir, nil, "add", "f.txt")
	gitEnvIn(t, dir, nil, "commit", "-qm", "c1")

	var js struct {
		Lines []struct {
			Noted  bool
			Author struct {
				Kind, Tool, Person string
				ID                 string `json:"session_id"`
				Call               *struct {
					Event uint64
					Tool  string
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(ok(t, dir, "git", "blame", "--json", "f.txt")), &js); err != nil {
		t.Fatal(err)
	}
	if len(js.Lines) != 4 {
		t.Fatalf("%+v", js)
	}
	l1, l3, l4 := js.Lines[0].Author, js.Lines[2].Author, js.Lines[3]
	if l1.Kind != "agent" || l1.Tool != "claude" || l1.ID != "s1" || l1.Call == nil || l1.Call.Tool != "write_file" || l1.Call.Event == 0 {
		t.Errorf("agent line %+v (call %+v)", l1, l1.Call)
	}
	if l3.Kind != "human" || l3.Person != "Alice <alice@example.com>" {
		t.Errorf("person's line %+v", l3)
	}
	if !l4.Noted || l4.Author.Kind != "untracked" {
		t.Errorf("outside line %+v", l4)
	}
	out := ok(t, dir, "git", "blame", "f.txt")
	if !strings.Contains(out, fmt.Sprintf("claude session s1 #%d write_file", l1.Call.Event)) {
		t.Errorf("blame:\n%s", out)
	}
	if out := ok(t, dir, "git", "stats", "HEAD^..HEAD"); !strings.Contains(out, "4 lines added: 2 by agents (50.0%), 1 by people, 1 untracked") {
		t.Errorf("stats:\n%s", out)
	}
	validTraceCLI(t, ok(t, dir, "git", "trace"))
}

// validTraceCLI checks each line of out is an Agent Trace record.
func validTraceCLI(t *testing.T, out string) {
	t.Helper()
	f, err := os.Open(filepath.Join(repoRoot, "replay", "gitai", "testdata", "agenttrace", "trace-record.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("trace-record.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("trace-record.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(line))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(v); err != nil {
			t.Errorf("not an Agent Trace record: %v\n%s", err, line)
		}
	}
}
