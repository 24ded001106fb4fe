package main_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/remote/s3test"
	"github.com/journalfs/journal/replay"
)

// teamBlameOut is what the test reads of team blame --json.
type teamBlameOut struct {
	Path       string
	Repository struct {
		Roots  []string
		Prefix string
	}
	Version struct {
		Workspace string
		Event     uint64
	}
	Workspaces []string
	Lines      []struct {
		Line                              int
		Workspace                         string
		Event                             uint64
		Who, Agent, Person, Model, Prompt string
		Text                              string
	}
}

func teamBlame(t *testing.T, dir string, args ...string) teamBlameOut {
	t.Helper()
	var out teamBlameOut
	if err := json.Unmarshal([]byte(ok(t, dir, append([]string{"team", "blame", "--json"}, args...)...)), &out); err != nil {
		t.Fatalf("team blame --json: %v", err)
	}
	return out
}

// gitCommitPush commits path in checkout dir and pushes main to its origin.
func gitCommitPush(t *testing.T, dir, path string) {
	t.Helper()
	gitEnvInAllow(t, dir, "add", path)
	gitEnvInAllow(t, dir, "commit", "-qm", "edit "+path)
	gitEnvInAllow(t, dir, "push", "-q", "origin", "main")
}

// owners is each line as "W:seq who model text", W the workspace's letter.
func (b teamBlameOut) owners(names map[string]string) string {
	var s []string
	for _, l := range b.Lines {
		s = append(s, fmt.Sprintf("%s:%d %s %s %s", names[l.Workspace], l.Event, l.Who, l.Model, strings.TrimSpace(l.Text)))
	}
	return strings.Join(s, " | ")
}

// Two checkouts of one git repository push their workspaces: on A an
// agent (claude-code, prompt p-1) writes src/parser.go and A commits and
// pushes it to origin; B clones origin — the file arrives from git — then
// bob adds a line and codex rewrites the second. A third repository's
// workspace, D, wrote a src/parser.go of its own before them all. `journal
// team blame src/parser.go`, run in another checkout (or its src/, or
// anywhere with --repo ROOT), shows B's newest version with each line's
// writer: A's agent for the lines B got from git, bob and codex for theirs
// (the key codex's line holds masked) — never D's. D's root commit blames D's file. An altered segment of A's is
// named (exit 1); outside a repository, without --repo, a usage error.
func TestTeam_BlameAcrossCheckouts(t *testing.T) {
	srv := s3test.Start(t)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	ctx := context.Background()
	ok(t, t.TempDir(), "remote", "add", "team", "s3://"+s3test.Bucket+"/b", "--endpoint", srv.Endpoint())
	bare := filepath.Join(t.TempDir(), "origin.git")
	gitEnvInAllow(t, t.TempDir(), "init", "-q", "--bare", "-b", "main", bare)
	seed := committedRepo(t, map[string]string{".gitignore": ".journal/\n", "README.md": "hello\n"})
	gitEnvInAllow(t, seed, "push", "-q", bare, "main")
	root := strings.TrimSpace(gitEnvInAllow(t, seed, "rev-list", "--max-parents=0", "HEAD"))
	clone := func() string {
		d := filepath.Join(t.TempDir(), "w")
		gitEnvInAllow(t, t.TempDir(), "clone", "-q", bare, d)
		return d
	}

	// D: another repository, its own parser, written first
	d := committedRepo(t, map[string]string{".gitignore": ".journal/\n", "other.txt": "x\n"})
	dRoot := strings.TrimSpace(gitEnvInAllow(t, d, "rev-list", "--max-parents=0", "HEAD"))
	ed := engine(t, d)
	codexD := journal.Actor{Kind: "mcp", Name: "codex", Session: "d", Origin: "stdio"}
	d1 := teamEdit(t, ed, codexD, "write_file", `{"call":{"model":"gpt-5"}}`, "src/parser.go", "l1\nmine\n")
	ed.Close()
	wd := teamPush(t, d)

	// A: the agent writes the parser; committed and pushed to origin
	a := clone()
	ea := engine(t, a)
	hook := journal.Actor{Kind: "agent", Name: "claude-code", Session: "sa", Origin: "hook"}
	mcp := journal.Actor{Kind: "mcp", Name: "claude-code", Session: "ma", Origin: "stdio"}
	if _, err := ea.RecordPrompt(ctx, hook, replay.PromptArgs{ID: "p-1", Text: "write the parser", Model: "claude-opus-4"}); err != nil {
		t.Fatal(err)
	}
	a1 := teamEdit(t, ea, mcp, "write_file", `{"call":{"session":"sa","prompt":"p-1"}}`, "src/parser.go", "l1\nl2\nl3\n")
	ea.Close()
	gitCommitPush(t, a, "src/parser.go")
	wa := teamPush(t, a)

	// B: the parser from git, then bob's line and codex's rewrite
	b := clone()
	eb := engine(t, b)
	bob := journal.Actor{Kind: "cli", User: "bob", Origin: "cli"}
	codex := journal.Actor{Kind: "mcp", Name: "codex", Session: "mb", Origin: "stdio"}
	b1 := teamEdit(t, eb, bob, "write_file", `{}`, "src/parser.go", "l1\nl2\nl3\nbob's\n")
	b2 := teamEdit(t, eb, codex, "edit_file", `{"call":{"model":"gpt-5"}}`, "src/parser.go", "l1\nL2\nl3\nbob's\nkey = \""+promptKey+"\"\n")
	eb.Close()
	wb := teamPush(t, b)
	names := map[string]string{wa: "A", wb: "B", wd: "D"}

	if ix, err := os.ReadFile(srv.Object("b/workspaces/" + wa + "/index.json")); err != nil || !strings.Contains(string(ix), `"roots": [`+"\n"+`   "`+root+`"`) {
		t.Errorf("A's index records no repository %s: %v\n%s", root, err, ix)
	}
	want := fmt.Sprintf("A:%d claude-code claude-opus-4 l1 | B:%d codex gpt-5 L2 | A:%d claude-code claude-opus-4 l3 | B:%d cli:bob  bob's | "+
		"B:%d codex gpt-5 key = \"AKIA…[secret: aws-access-token]\"", a1, b2, a1, b1, b2)
	c := clone()
	bl := teamBlame(t, c, "src/parser.go")
	if got := bl.owners(names); got != want {
		t.Errorf("team blame src/parser.go:\n%s\nwant\n%s", got, want)
	}
	if bl.Path != "src/parser.go" || bl.Version.Workspace != wb || bl.Version.Event != b2 || len(bl.Workspaces) != 2 || bl.Workspaces[0] != wb ||
		len(bl.Repository.Roots) != 1 || bl.Repository.Roots[0] != root || bl.Lines[0].Prompt != "p-1" || bl.Lines[0].Agent != "claude-code" || bl.Lines[3].Person != "cli:bob" {
		t.Errorf("team blame --json: %+v", bl)
	}
	if got := teamBlame(t, filepath.Join(c, "src"), "parser.go").owners(names); got != want {
		t.Errorf("team blame parser.go in src/:\n%s\nwant\n%s", got, want)
	}
	if got := teamBlame(t, t.TempDir(), "--repo", root[:10], "src/parser.go").owners(names); got != want {
		t.Errorf("team blame --repo %s:\n%s\nwant\n%s", root[:10], got, want)
	}
	if got, w := teamBlame(t, t.TempDir(), "--repo", dRoot, "src/parser.go").owners(names), fmt.Sprintf("D:%d codex gpt-5 l1 | D:%d codex gpt-5 mine", d1, d1); got != w {
		t.Errorf("team blame --repo D's root:\n%s\nwant\n%s", got, w)
	}
	text := ok(t, c, "team", "blame", "src/parser.go")
	t.Logf("team blame src/parser.go:\n%s", text)
	if strings.Contains(text, promptKey) {
		t.Errorf("team blame shows the key its line holds:\n%s", text)
	}
	if !strings.Contains(text, fmt.Sprintf("%s %d claude-code claude-opus-4 ", wa[:8], a1)) || !strings.Contains(text, "4) bob's\n") ||
		!strings.Contains(text, fmt.Sprintf("%s %d codex", wb[:8], b2)) {
		t.Errorf("team blame:\n%s", text)
	}

	// bad input: a clear error with a hint, nothing written
	for _, c := range []struct {
		dir  string
		args []string
		code int
		says string
	}{
		{t.TempDir(), []string{"src/parser.go"}, 2, "in no git repository"},
		{c, []string{"../outside.go"}, 2, "is not a file inside the repository"},
		{c, []string{"src/none.go"}, 1, "no workspace of the repository holds it"},
		{t.TempDir(), []string{"--repo", "0000000000", "src/parser.go"}, 1, "no workspace on remote team is a checkout of that repository"},
	} {
		if r := run(t, c.dir, append([]string{"team", "blame"}, c.args...)...); r.code != c.code || r.stdout != "" || !strings.Contains(r.stderr, c.says) || !strings.Contains(r.stderr, "\nhint: ") {
			t.Errorf("team blame %s: exit %d\n%s%s", strings.Join(c.args, " "), r.code, r.stdout, r.stderr)
		}
	}

	// an altered segment of A's (its checksums right) is named
	seg := alterSegment(t, srv, "b", wa)
	if r := run(t, c, "team", "blame", "src/parser.go"); r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, seg) {
		t.Errorf("team blame over an altered segment of A's: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// alterSegment flips a bit of workspace ws's first segment on srv (under
// prefix), through the S3 API (its checksums right), and returns its key.
func alterSegment(t *testing.T, srv *s3test.Server, prefix, ws string) string {
	t.Helper()
	var head struct{ Segments []struct{ Key string } }
	hb, err := os.ReadFile(srv.Object(prefix + "/workspaces/" + ws + "/head.json"))
	if err != nil || json.Unmarshal(hb, &head) != nil || len(head.Segments) == 0 {
		t.Fatalf("the head of %s: %v %s", ws, err, hb)
	}
	seg := head.Segments[0].Key
	sb, err := os.ReadFile(srv.Object(prefix + "/" + seg))
	if err != nil {
		t.Fatal(err)
	}
	sb[len(sb)/2] ^= 1
	if _, err := srv.Client().PutObject(context.Background(), &s3.PutObjectInput{Bucket: aws.String(s3test.Bucket), Key: aws.String(prefix + "/" + seg), Body: bytes.NewReader(sb)}); err != nil {
		t.Fatal(err)
	}
	return seg
}

// `journal serve --replicate team` in a checkout records its repository as
// a push does: `journal team blame` in the checkout finds the workspace and
// names the edits' event and agent.
func TestTeam_BlameAfterReplicate(t *testing.T) {
	srv := s3test.Start(t)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := committedRepo(t, map[string]string{".gitignore": ".journal/\n"})
	e := engine(t, dir)
	apply(t, e, "write_file", "a.txt", "1\n")
	ok(t, dir, "remote", "add", "team", "s3://"+s3test.Bucket+"/serve", "--endpoint", srv.Endpoint())
	cmd := exec.Command(bin, "serve", "--http", "127.0.0.1:0", "--replicate", "team", "--lsp=false")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "JOURNAL_ADDR_FILE="+filepath.Join(t.TempDir(), "addr"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() }()
	last := apply(t, e, "edit_file", "a.txt", "1\n2\n")
	e.Close()
	want := fmt.Sprintf(`"event":%d,"time":`, last)
	var r result
	for deadline := time.Now().Add(30 * time.Second); r.code != 0 || !strings.Contains(r.stdout, want); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("team blame never named event %d: exit %d\n%s%s\nserve: %s", last, r.code, r.stdout, r.stderr, stderr.String())
		}
		r = run(t, dir, "team", "blame", "--json", "a.txt")
	}
	if !strings.Contains(r.stdout, `"text":"2\n"`) || !strings.Contains(r.stdout, `"agent":"`) {
		t.Errorf("team blame a.txt:\n%s", r.stdout)
	}
}
