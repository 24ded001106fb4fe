package main_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay"
)

// specNote is a note as the Git AI Standard v3.0.0 describes it, read by
// this test's own reader (not the product's parser): per file, per line,
// the attestation key; and the metadata's records.
type specNote struct {
	lines    map[string]map[int]string
	base     string
	sessions map[string]struct {
		AgentID struct{ Tool, ID, Model string } `json:"agent_id"`
	}
	humans map[string]struct{ Author string }
}

// readSpecNote reads the note of rev under refs/notes/ai (nil: none).
func readSpecNote(t *testing.T, dir, rev string) *specNote {
	t.Helper()
	cmd := exec.Command("git", "notes", "--ref=ai", "show", rev)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return nil
	}
	text := string(out)
	att, meta, found := strings.Cut(text, "\n---\n")
	if !found {
		if !strings.HasPrefix(text, "---\n") {
			t.Fatalf("note of %s: no divider:\n%s", rev, text)
		}
		att, meta = "", text[4:]
	}
	n := &specNote{lines: map[string]map[int]string{}}
	var m struct {
		Schema   string `json:"schema_version"`
		Base     string `json:"base_commit_sha"`
		Prompts  map[string]json.RawMessage
		Sessions json.RawMessage
		Humans   json.RawMessage
	}
	if err := json.Unmarshal([]byte(meta), &m); err != nil || m.Schema != "authorship/3.0.0" || m.Prompts == nil {
		t.Fatalf("note of %s: metadata %v: %s", rev, err, meta)
	}
	n.base = m.Base
	if len(m.Sessions) > 0 {
		json.Unmarshal(m.Sessions, &n.sessions)
	}
	if len(m.Humans) > 0 {
		json.Unmarshal(m.Humans, &n.humans)
	}
	path := ""
	for _, l := range strings.Split(att, "\n") {
		switch {
		case l == "":
		case strings.HasPrefix(l, "  "):
			f := strings.Split(l[2:], " ")
			if len(f) != 2 || path == "" {
				t.Fatalf("note of %s: entry %q", rev, l)
			}
			for _, r := range strings.Split(f[1], ",") {
				a, b, isRange := strings.Cut(r, "-")
				lo, err1 := strconv.Atoi(a)
				hi := lo
				var err2 error
				if isRange {
					hi, err2 = strconv.Atoi(b)
				}
				if err1 != nil || err2 != nil || lo < 1 || hi < lo {
					t.Fatalf("note of %s: range %q", rev, r)
				}
				for i := lo; i <= hi; i++ {
					if _, dup := n.lines[path][i]; dup {
						t.Fatalf("note of %s: line %d of %s claimed twice", rev, i, path)
					}
					n.lines[path][i] = f[0]
				}
			}
		default:
			path = strings.Trim(l, `"`)
			n.lines[path] = map[int]string{}
		}
	}
	return n
}

func hex14(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])[:14]
}

// labels turns the note's keys into who they name, checking each key
// against the standard's derivation: "agent <tool>:<session id>", or
// "human <author>".
func (n *specNote) labels(t *testing.T) map[string]map[int]string {
	t.Helper()
	out := map[string]map[int]string{}
	for p, ls := range n.lines {
		out[p] = map[int]string{}
		for l, k := range ls {
			switch {
			case strings.HasPrefix(k, "s_"):
				s, tr, ok := strings.Cut(k, "::")
				rec, known := n.sessions[s]
				if !ok || !known || len(tr) != 16 || !strings.HasPrefix(tr, "t_") || s != "s_"+hex14(rec.AgentID.Tool+":"+rec.AgentID.ID) {
					t.Fatalf("key %q: session record %+v", k, rec)
				}
				out[p][l] = "agent " + rec.AgentID.Tool + ":" + rec.AgentID.ID
			case strings.HasPrefix(k, "h_"):
				rec, known := n.humans[k]
				if !known || k != "h_"+hex14(rec.Author) {
					t.Fatalf("key %q: human record %+v", k, rec)
				}
				out[p][l] = "human " + rec.Author
			default:
				t.Fatalf("key %q: not ours", k)
			}
		}
	}
	return out
}

const (
	lA = "agent claude:s1"                 // an MCP client's edit
	lB = "agent claude-code:S2"            // a Claude Code Bash call, through the hook
	lH = "human Alice <alice@example.com>" // a person's edit through the journal
)

// wantNote checks rev's note names exactly want (path → line → label);
// every other line is untracked.
func wantNote(t *testing.T, dir, rev string, want map[string]map[int]string) {
	t.Helper()
	wantNoteBase(t, dir, rev, strings.TrimSpace(gitOut(t, dir, "rev-parse", rev+"^")), want)
}

// wantNoteBase is wantNote of a note whose base_commit_sha is base (a
// merge's is the merge itself).
func wantNoteBase(t *testing.T, dir, rev, base string, want map[string]map[int]string) {
	t.Helper()
	n := readSpecNote(t, dir, rev)
	if n == nil {
		t.Fatalf("%s has no note", rev)
	}
	got := n.labels(t)
	for p, ls := range got {
		if len(ls) == 0 {
			delete(got, p)
		}
	}
	if want == nil {
		want = map[string]map[int]string{}
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("note of %s:\n got %v\nwant %v", rev, got, want)
	}
	if n.base != base {
		t.Fatalf("note of %s: base_commit_sha %s, want %s", rev, n.base, base)
	}
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return string(out)
}

// write writes files through the journal as actor (one event).
func write(t *testing.T, dir string, actor journal.Actor, files ...string) {
	t.Helper()
	e, err := replay.Open(replay.Options{Roots: []string{dir}, Actor: actor})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	b := &replay.Batch{Tool: "write_file"}
	for i := 0; i < len(files); i += 2 {
		b.Changes = append(b.Changes, replay.Change{Path: files[i], Data: []byte(files[i+1])})
	}
	if _, err := e.Apply(context.Background(), b); err != nil {
		t.Fatal(err)
	}
}

var human = journal.Actor{Kind: "cli", User: "alice", Origin: "cli"}

// bashCall runs script as Claude Code Bash call id of session S2, through
// `journal hook claude-code` before and after.
func bashCall(t *testing.T, dir, id, script string) {
	t.Helper()
	for _, ev := range []string{"PreToolUse", "PostToolUse"} {
		in := fmt.Sprintf(`{"session_id":"S2","cwd":%q,"hook_event_name":%q,"tool_name":"Bash","tool_input":{"command":%q},"tool_use_id":%q}`, dir, ev, script, id)
		cmd := exec.Command(bin, "hook", "claude-code")
		cmd.Dir = t.TempDir()
		cmd.Stdin = strings.NewReader(in)
		if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
			t.Fatalf("hook: %v %s", err, out)
		}
		if ev == "PreToolUse" {
			bash(t, dir, script)
		}
	}
}

// gitRepo is a repository holding a journal, journal git installed.
func gitRepo(t *testing.T) string {
	dir := committedRepo(t, map[string]string{".gitignore": ".journal/\n", "base.txt": "base1\nbase2\n"})
	ok(t, dir, "exec", "--", "true") // the journal, with its baseline
	if out := ok(t, dir, "git", "install"); !strings.Contains(out, "hooks installed") {
		t.Fatalf("install: %s", out)
	}
	return dir
}

// committedRepo is a new repository whose first commit holds fs.
func committedRepo(t *testing.T, fs map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	gitEnvInAllow(t, dir, "init", "-q", "-b", "main")
	files(t, dir, fs)
	gitEnvInAllow(t, dir, "add", "-A")
	gitEnvInAllow(t, dir, "commit", "-qm", "start")
	return dir
}

// gitEnvIn runs git with extra environment (editors for rebase -i).
func gitEnvIn(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "GIT_AUTHOR_NAME=Alice", "GIT_AUTHOR_EMAIL=alice@example.com",
		"GIT_COMMITTER_NAME=Alice", "GIT_COMMITTER_EMAIL=alice@example.com", "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	if strings.Contains(string(out), "journal git:") {
		t.Fatalf("git %s: the hook complained:\n%s", strings.Join(args, " "), out)
	}
	return string(out)
}

func notesCount(t *testing.T, dir string) int {
	return len(strings.Fields(gitOut(t, dir, "notes", "--ref=ai", "list"))) / 2
}

// Every operation of issue 45's list, with real git and the installed
// hooks: each new commit's note names exactly the lines it adds that an
// agent or a person wrote, read back by the spec reader above.
func TestGitNote_Rewrites(t *testing.T) {
	dir := gitRepo(t)
	agentA := agent // claude, session s1
	seq := "GIT_SEQUENCE_EDITOR="

	// commit: an agent's lines, a person's, an outside one (untracked)
	write(t, dir, agentA, "f.txt", "a1\na2\n")
	write(t, dir, human, "f.txt", "a1\na2\nh1\n")
	files(t, dir, map[string]string{"f.txt": "a1\na2\nh1\no1\n"})
	gitEnvIn(t, dir, nil, "add", "f.txt")
	gitEnvIn(t, dir, nil, "commit", "-qm", "c1")
	wantNote(t, dir, "HEAD", map[string]map[int]string{"f.txt": {1: lA, 2: lA, 3: lH}})
	if n := readSpecNote(t, dir, "HEAD"); n.lines["f.txt"][1] != n.lines["f.txt"][2] {
		t.Fatal("one tool call's lines have two traces")
	}

	// amend
	write(t, dir, agentA, "f.txt", "a1\na2\nh1\no1\na3\n")
	gitEnvIn(t, dir, nil, "commit", "-qa", "--amend", "-m", "c1 amended")
	wantNote(t, dir, "HEAD", map[string]map[int]string{"f.txt": {1: lA, 2: lA, 3: lH, 5: lA}})
	if n := readSpecNote(t, dir, "HEAD"); n.lines["f.txt"][1] == n.lines["f.txt"][5] {
		t.Fatal("two tool calls share a trace")
	}

	// a Bash call's file
	bashCall(t, dir, "toolu_1", `printf 'b1\nb2\n' > g.txt`)
	gitEnvIn(t, dir, nil, "add", "g.txt")
	gitEnvIn(t, dir, nil, "commit", "-qm", "c2")
	wantNote(t, dir, "HEAD", map[string]map[int]string{"g.txt": {1: lB, 2: lB}})

	// a Codex call, whose hook names the model: the session record has it
	for _, ev := range []string{"PreToolUse", "PostToolUse"} {
		in := fmt.Sprintf(`{"session_id":"S3","turn_id":"T1","cwd":%q,"hook_event_name":%q,"model":"gpt-5.5-codex","tool_name":"Bash","tool_input":{"command":"x"},"tool_use_id":"call_1"}`, dir, ev)
		cmd := exec.Command(bin, "hook", "codex")
		cmd.Dir = t.TempDir()
		cmd.Stdin = strings.NewReader(in)
		if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
			t.Fatalf("codex hook: %v %s", err, out)
		}
		if ev == "PreToolUse" {
			files(t, dir, map[string]string{"x.txt": "codex\n"})
		}
	}
	gitEnvIn(t, dir, nil, "add", "x.txt")
	gitEnvIn(t, dir, nil, "commit", "-qm", "codex")
	wantNote(t, dir, "HEAD", map[string]map[int]string{"x.txt": {1: "agent codex:S3"}})
	for s, rec := range readSpecNote(t, dir, "HEAD").sessions {
		if rec.AgentID.Model != "gpt-5.5-codex" {
			t.Fatalf("session %s: model %q", s, rec.AgentID.Model)
		}
	}
	gitEnvIn(t, dir, nil, "reset", "-q", "--hard", "HEAD~1")

	// rebase: reorder
	reverse := seq + `sh -c 'grep ^pick "$1" | tac > "$1.new" && mv "$1.new" "$1"' --`
	gitEnvIn(t, dir, []string{reverse}, "rebase", "-q", "-i", "HEAD~2")
	wantNote(t, dir, "HEAD~1", map[string]map[int]string{"g.txt": {1: lB, 2: lB}})
	wantNote(t, dir, "HEAD", map[string]map[int]string{"f.txt": {1: lA, 2: lA, 3: lH, 5: lA}})

	// rebase: squash
	gitEnvIn(t, dir, []string{seq + `sed -i 2s/^pick/squash/`, "GIT_EDITOR=true"}, "rebase", "-q", "-i", "HEAD~2")
	wantNote(t, dir, "HEAD", map[string]map[int]string{"f.txt": {1: lA, 2: lA, 3: lH, 5: lA}, "g.txt": {1: lB, 2: lB}})

	// rebase: fixup, then drop
	write(t, dir, agentA, "h.txt", "c1\n")
	gitEnvIn(t, dir, nil, "add", "h.txt")
	gitEnvIn(t, dir, nil, "commit", "-qm", "c3")
	files(t, dir, map[string]string{"i.txt": "x1\n"})
	gitEnvIn(t, dir, nil, "add", "i.txt")
	gitEnvIn(t, dir, nil, "commit", "-qm", "c4")
	gitEnvIn(t, dir, []string{seq + `sed -i 2s/^pick/fixup/`}, "rebase", "-q", "-i", "HEAD~2")
	wantNote(t, dir, "HEAD", map[string]map[int]string{"h.txt": {1: lA}})
	write(t, dir, agentA, "j.txt", "j1\n")
	gitEnvIn(t, dir, nil, "add", "j.txt")
	gitEnvIn(t, dir, nil, "commit", "-qm", "c5")
	gitEnvIn(t, dir, []string{seq + `sed -i 1s/^pick/drop/`}, "rebase", "-q", "-i", "HEAD~2")
	wantNote(t, dir, "HEAD", map[string]map[int]string{"j.txt": {1: lA}})

	// cherry-pick
	gitEnvIn(t, dir, nil, "checkout", "-q", "-b", "side", "HEAD~1")
	write(t, dir, agentA, "k.txt", "k1\nk2\n")
	gitEnvIn(t, dir, nil, "add", "k.txt")
	gitEnvIn(t, dir, nil, "commit", "-qm", "k")
	gitEnvIn(t, dir, nil, "checkout", "-q", "main")
	gitEnvIn(t, dir, nil, "cherry-pick", "side")
	wantNote(t, dir, "HEAD", map[string]map[int]string{"k.txt": {1: lA, 2: lA}})

	// merge --squash, then commit
	gitEnvIn(t, dir, nil, "checkout", "-q", "-b", "side2")
	write(t, dir, agentA, "m.txt", "m1\n")
	files(t, dir, map[string]string{"m2.txt": "outside\n"})
	gitEnvIn(t, dir, nil, "add", "m.txt", "m2.txt")
	gitEnvIn(t, dir, nil, "commit", "-qm", "m")
	gitEnvIn(t, dir, nil, "checkout", "-q", "main")
	gitEnvIn(t, dir, nil, "merge", "-q", "--squash", "side2")
	gitEnvIn(t, dir, nil, "commit", "-qm", "squashed side2")
	wantNote(t, dir, "HEAD", map[string]map[int]string{"m.txt": {1: lA}})

	// stash and pop (recorded as a person's commands), then commit
	write(t, dir, agentA, "base.txt", "base1\nbase2\ns1\n")
	ok(t, dir, "exec", "--", "git", "stash", "-q")
	ok(t, dir, "exec", "--", "git", "stash", "pop", "-q")
	gitEnvIn(t, dir, nil, "commit", "-qam", "stashed")
	wantNote(t, dir, "HEAD", map[string]map[int]string{"base.txt": {3: lA}})

	// reset, then commit again
	gitEnvIn(t, dir, nil, "reset", "-q", "HEAD~1")
	gitEnvIn(t, dir, nil, "commit", "-qam", "again")
	wantNote(t, dir, "HEAD", map[string]map[int]string{"base.txt": {3: lA}})

	// git mv with an edit: the renamed lines are not added, the edit is
	gitEnvIn(t, dir, nil, "mv", "f.txt", "f2.txt")
	write(t, dir, agentA, "f2.txt", "a1\na2\nh1\no1\na3\nmv1\n")
	gitEnvIn(t, dir, nil, "add", "f2.txt")
	gitEnvIn(t, dir, nil, "commit", "-qm", "moved")
	if !strings.Contains(gitOut(t, dir, "show", "--stat", "-M", "HEAD"), "=>") {
		t.Fatal("git did not see the move")
	}
	wantNote(t, dir, "HEAD", map[string]map[int]string{"f2.txt": {6: lA}})

	// revert, and the revert of the revert: the agent's line comes back its
	write(t, dir, agentA, "g.txt", "b1\nb2\nv1\n")
	gitEnvIn(t, dir, nil, "commit", "-qam", "v")
	wantNote(t, dir, "HEAD", map[string]map[int]string{"g.txt": {3: lA}})
	gitEnvIn(t, dir, nil, "revert", "--no-edit", "HEAD")
	wantNote(t, dir, "HEAD", nil)
	gitEnvIn(t, dir, nil, "revert", "--no-edit", "HEAD")
	wantNote(t, dir, "HEAD", map[string]map[int]string{"g.txt": {3: lA}})

	// an aborted rebase writes no note
	before := notesCount(t, dir)
	gitEnvIn(t, dir, []string{seq + `sed -i s/^pick/edit/`}, "rebase", "-q", "-i", "HEAD~2")
	gitEnvIn(t, dir, []string{"GIT_EDITOR=true"}, "commit", "-q", "--amend", "-m", "amended in a rebase")
	gitEnvIn(t, dir, nil, "rebase", "--abort")
	if after := notesCount(t, dir); after != before {
		t.Fatalf("an aborted rebase wrote %d notes", after-before)
	}

	// recomputing changes nothing
	notes := gitOut(t, dir, "rev-parse", "refs/notes/ai")
	out := ok(t, dir, "git", "note", "HEAD~3..HEAD")
	if strings.Contains(out, "written") || gitOut(t, dir, "rev-parse", "refs/notes/ai") != notes {
		t.Fatalf("a second computation wrote: %s", out)
	}
	var js struct {
		Commit, Note string
		Written      bool
	}
	if err := json.Unmarshal([]byte(ok(t, dir, "git", "note", "--dry-run", "--json", "HEAD")), &js); err != nil ||
		js.Commit != strings.TrimSpace(gitOut(t, dir, "rev-parse", "HEAD")) || js.Written || js.Note != gitOut(t, dir, "notes", "--ref=ai", "show", "HEAD") {
		t.Fatalf("--dry-run --json: %+v %v", js, err)
	}
	if p, err := os.ReadFile(filepath.Join(dir, ".git", "journal", "pending")); err == nil && len(p) > 0 {
		t.Fatalf("left pending: %s", p)
	}
}
