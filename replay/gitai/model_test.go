package gitai_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay"
	"github.com/journalfs/journal/replay/gitai"
	"github.com/journalfs/journal/replay/watch"
)

// The model-based test (issue 45): random sequences of an agent's tool calls,
// an agent's hook-attributed Bash calls, a person's edits (through the
// journal, and behind it), commits, amends, rebases, cherry-picks,
// squashes, stashes, resets and moves, on real git. Every line written is
// unique and names its author, so the test's model of who wrote a line is
// the line itself. After every step that makes commits, the notes are
// computed as the hooks compute them, and read back by specNote (written
// here from the Git AI Standard v3.0.0, not with gitai.Parse):
//
//   - no line of a person (known or not) is attributed to an agent, and no
//     agent line to another session or to a person;
//   - every agent line a commit adds, which reached it unchanged (all do:
//     lines are never edited, only added, moved and removed), is
//     attributed to its session or untracked, and at least 95 % of them
//     to their session.
//
// Issue 59 adds agents' calls through a running watcher (watch.Start, as
// the hooks reach it) while a person saves files: during a file-edit call
// (Write: it names its file), during a Bash call closed without its
// after-hook (the agent killed: its session's next prompt or turn's end
// closes it), and during a finished Bash call. No line of a person is
// attributed to an agent in the first two, and at least 95 % of the lines
// agents' finished calls write are their session's (the lines of a killed
// call are untracked: nothing ties them to it; counted apart). The third is the gap the journal
// cannot close from what the watcher sees (a person's save inside a Bash
// call's window is the call's): its lines are counted and reported, not
// checked.
//
// 200 steps by default; JOURNAL_GIT_MODEL_STEPS=1000 (or more) for a long run.

// Authors: two agent sessions, a person editing through the journal (a
// known human), and a person editing behind it (unknown: untracked).
const (
	authTool    = "sA" // an MCP client's session (journal.Actor kind mcp)
	authBash    = "sB" // Claude Code's Bash calls through the hook
	authPerson  = "P"  // journal CLI edits: a known human
	authOutside = "U"  // edits the watcher sees, by nobody the journal knows
	authKilled  = "sK" // lines of session sB's Bash call whose after-hook never came
	authInBash  = "Q"  // a person's edits behind the journal inside a finished Bash call
)

type model struct {
	t     *testing.T
	dir   string
	e     *replay.Engine
	rng   *rand.Rand
	n     int
	moves int
	calls int
	files []string
	log   []string
	repo  *gitai.Repo
	j     gitai.Journal
	// checked counts what the test checked
	agentLines, agentKept, personLines, noted int
	// killed and killedKept count the lines of authKilled; inBash and
	// inBashCredited the lines of authInBash (the gap)
	killed, killedKept, inBash, inBashCredited int
}

var (
	toolActor = &journal.Actor{Kind: "mcp", Name: "claude-code", Session: authTool}
	bashActor = &journal.Actor{Kind: "agent", Name: "claude-code", Session: authBash, Origin: "hook"}
	cliActor  = &journal.Actor{Kind: "cli", User: "alice", Origin: "cli"}
)

func (m *model) git(args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = m.dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Alice", "GIT_AUTHOR_EMAIL=alice@example.com",
		"GIT_COMMITTER_NAME=Alice", "GIT_COMMITTER_EMAIL=alice@example.com", "GIT_CONFIG_NOSYSTEM=1",
		"HOME="+m.dir, "GIT_EDITOR=true")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func (m *model) mustGit(args ...string) string {
	m.t.Helper()
	out, err := m.git(args...)
	if err != nil {
		m.t.Fatalf("git %s: %v\n%s\nsteps:\n%s", strings.Join(args, " "), err, out, strings.Join(m.log, "\n"))
	}
	return out
}

func (m *model) read(f string) []string {
	data, err := os.ReadFile(filepath.Join(m.dir, f))
	if err != nil {
		return nil
	}
	return strings.SplitAfter(string(data), "\n")[:strings.Count(string(data), "\n")]
}

// newLines makes k unique lines by author.
func (m *model) newLines(author string, k int) []string {
	var out []string
	for range k {
		m.n++
		out = append(out, fmt.Sprintf("%s-%d written by %s\n", author, m.n, author))
	}
	return out
}

// edit returns f's lines with k new lines of author inserted, or one line
// removed.
func (m *model) edit(f, author string) string {
	ls := m.read(f)
	if len(ls) > 3 && m.rng.IntN(4) == 0 {
		i := m.rng.IntN(len(ls))
		ls = slices.Delete(ls, i, i+1)
	} else {
		at := m.rng.IntN(len(ls) + 1)
		ls = slices.Insert(ls, at, m.newLines(author, 1+m.rng.IntN(3))...)
	}
	return strings.Join(ls, "")
}

// observe records what git (or a person behind the journal) left on disk,
// as the watcher would.
func (m *model) observe() {
	m.t.Helper()
	paths := slices.Clone(m.files)
	if _, err := m.e.Observe(context.Background(), replay.Observation{Paths: paths, Tool: journal.ToolWatch}); err != nil {
		m.t.Fatal(err)
	}
}

func (m *model) apply(actor *journal.Actor, f, data string) {
	m.t.Helper()
	if _, err := m.e.Apply(context.Background(), &replay.Batch{Tool: "edit_content", Actor: actor, Changes: []replay.Change{{Path: f, Data: []byte(data)}}}); err != nil {
		m.t.Fatal(err)
	}
}

// bash writes as an agent's Bash call does: on disk, then recorded by the
// hook's event.
func (m *model) bash(f, data string) {
	m.t.Helper()
	if err := os.WriteFile(filepath.Join(m.dir, f), []byte(data), 0o644); err != nil {
		m.t.Fatal(err)
	}
	args, _ := json.Marshal(map[string]any{"command": "cat > " + f})
	if _, err := m.e.Observe(context.Background(), replay.Observation{Paths: []string{f}, Tool: "Bash", Args: args, Actor: bashActor}); err != nil {
		m.t.Fatal(err)
	}
}

func (m *model) outside(f, data string) {
	m.t.Helper()
	if err := os.WriteFile(filepath.Join(m.dir, f), []byte(data), 0o644); err != nil {
		m.t.Fatal(err)
	}
	m.observe()
}

func (m *model) head() string { return strings.TrimSpace(m.mustGit("rev-parse", "HEAD")) }

func (m *model) dirty() bool { return strings.TrimSpace(m.mustGit("status", "--porcelain")) != "" }

func (m *model) commit(msg string) bool {
	m.mustGit("add", "-A")
	if !m.dirty() {
		return false
	}
	m.mustGit("commit", "-qm", msg)
	return true
}

// note computes and writes the notes of every commit of HEAD's history
// that has none yet, as the hooks do, and checks them.
func (m *model) note() {
	m.t.Helper()
	ctx := context.Background()
	revs := strings.Fields(m.mustGit("rev-list", "HEAD"))
	if _, err := gitai.NoteCommits(ctx, m.repo, m.j, revs, false); err != nil {
		m.t.Fatalf("note: %v\nsteps:\n%s", err, strings.Join(m.log, "\n"))
	}
	for _, c := range revs {
		m.check(c)
	}
}

// added returns, per file, the lines commit c adds against its first
// parent (git diff-tree -U0), as git itself reports them.
func (m *model) added(c string) map[string][]int {
	out := m.mustGit("diff-tree", "-r", "-M", "--root", "-U0", "--no-color", "--first-parent", c)
	res := map[string][]int{}
	var file string
	for _, l := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(l, "+++ "):
			file = strings.TrimPrefix(strings.TrimPrefix(l, "+++ "), "b/")
		case strings.HasPrefix(l, "@@ "):
			f := strings.Fields(l)
			start, count, _ := strings.Cut(strings.TrimPrefix(f[2], "+"), ",")
			s, _ := strconv.Atoi(start)
			n := 1
			if count != "" {
				n, _ = strconv.Atoi(count)
			}
			for k := range n {
				res[file] = append(res[file], s+k)
			}
		}
	}
	return res
}

func (m *model) check(c string) {
	m.t.Helper()
	raw, err := m.git("notes", "--ref=ai", "show", c)
	added := m.added(c)
	if err != nil {
		for f, ls := range added {
			for _, l := range ls {
				if m.authorAt(c, f, l) == authKilled {
					m.killed++
				}
				if author := m.authorAt(c, f, l); author == authTool || author == authBash {
					m.t.Fatalf("commit %s has no note, but adds the agent's line %s:%d\nsteps:\n%s", c[:12], f, l, strings.Join(m.log, "\n"))
				}
			}
		}
		return
	}
	n := specNote(m.t, raw)
	m.noted++
	claims := map[string]map[int]string{} // file → line → session id or "human"
	for f, entries := range n.files {
		claims[f] = map[int]string{}
		for key, lines := range entries {
			who := ""
			switch {
			case strings.HasPrefix(key, "s_"):
				sid, _, _ := strings.Cut(key, "::")
				s, ok := n.sessions[sid]
				if !ok {
					m.t.Fatalf("commit %s: key %s names no session record", c[:12], key)
				}
				who = s
			case strings.HasPrefix(key, "h_"):
				who = "human"
			default:
				m.t.Fatalf("commit %s: key %q", c[:12], key)
			}
			for _, l := range lines {
				claims[f][l] = who
			}
		}
	}
	for f, ls := range added {
		for _, l := range ls {
			author := m.authorAt(c, f, l)
			claim, claimed := claims[f][l]
			switch author {
			case authTool, authBash:
				m.agentLines++
				if claimed && claim != author {
					m.t.Fatalf("commit %s %s:%d: the agent %s's line is attributed to %q\n%s\nsteps:\n%s", c[:12], f, l, author, claim, m.why(c, f), strings.Join(m.log, "\n"))
				}
				if !claimed {
					// untracked: the journal could not prove it (a file git
					// deleted and put back: blame gives its lines to the
					// re-creation); at least 95 % must be their session's
					m.t.Logf("commit %s %s:%d: the agent %s's line is untracked\n%s", c[:12], f, l, author, m.why(c, f))
					break
				}
				m.agentKept++
			case authKilled:
				// a killed call's lines: untracked (nothing ties them to
				// it), never another author's
				m.killed++
				if claimed && claim != authBash {
					m.t.Fatalf("commit %s %s:%d: the killed call's line is attributed to %q\nsteps:\n%s", c[:12], f, l, claim, strings.Join(m.log, "\n"))
				}
				if claimed {
					m.killedKept++
				}
			case authInBash:
				m.inBash++
				if claimed {
					m.inBashCredited++
				}
			case authPerson, authOutside:
				m.personLines++
				if claimed && claim != "human" {
					m.t.Fatalf("commit %s %s:%d: a person's line (%s) is attributed to %q\nsteps:\n%s", c[:12], f, l, author, claim, strings.Join(m.log, "\n"))
				}
				if author == authOutside && claimed {
					m.t.Fatalf("commit %s %s:%d: a line nobody the journal knows wrote is attributed to %q", c[:12], f, l, claim)
				}
			}
		}
	}
	for f, ls := range claims {
		for l := range ls {
			if !slices.Contains(added[f], l) {
				m.t.Fatalf("commit %s: the note names %s:%d, which the commit does not add", c[:12], f, l)
			}
		}
	}
}

// why is what the journal holds of path f, for a failure's message.
func (m *model) why(c, f string) string {
	var b strings.Builder
	m.e.Journal().View(func(tx *journal.Tx) error {
		return tx.EachIndexed("path", f, func(e *journal.Event) error {
			fc, _ := e.File(f)
			fmt.Fprintf(&b, "  event %d %s %s %s/%s before=%s after=%s moved_from=%s\n", e.Seq, e.Kind, e.Tool, e.Actor.Kind, e.Actor.Session, fc.Before.Short(), fc.After.Short(), fc.MovedFrom)
			return nil
		})
	})
	fmt.Fprintf(&b, "  diff-tree: %s", m.mustGit("diff-tree", "-r", "-M", "--first-parent", "--name-status", c))
	blob := m.mustGit("show", c+":"+f)
	m.e.Journal().View(func(tx *journal.Tx) error {
		bl, err := replay.BlameContent(tx, f, []byte(blob))
		if err != nil {
			fmt.Fprintf(&b, "  BlameContent: %v\n", err)
			return nil
		}
		fmt.Fprintf(&b, "  blob %s\n", bl.Content.Short())
		for i, l := range bl.Lines {
			fmt.Fprintf(&b, "  %d %d %q\n", i+1, l.Seq, l.Text)
		}
		return nil
	})
	return b.String()
}

// authorAt is the author the line names: its text's first word.
func (m *model) authorAt(c, f string, l int) string {
	data := m.mustGit("show", c+":"+f)
	ls := strings.Split(data, "\n")
	if l < 1 || l > len(ls) {
		m.t.Fatalf("%s:%s has no line %d", c, f, l)
	}
	a, _, _ := strings.Cut(ls[l-1], "-")
	return a
}

// specReading is a note as the standard defines it, read without gitai.
type specReading struct {
	files    map[string]map[string][]int // path → attestation key → lines
	sessions map[string]string           // session id → agent_id.id
}

// specNote reads a note by the standard's §1.2: the attestation section
// (paths at the start of a line, quoted when they hold a space; entries
// indented by exactly two spaces, "key ranges"), a line holding exactly
// "---", then the metadata JSON with schema_version "authorship/3.0.0".
func specNote(t *testing.T, raw string) specReading {
	t.Helper()
	att, meta, ok := strings.Cut("\n"+raw, "\n---\n") // an empty attestation section: the divider first
	if !ok {
		t.Fatalf("no --- divider in\n%s", raw)
	}
	r := specReading{files: map[string]map[string][]int{}, sessions: map[string]string{}}
	var cur string
	for _, l := range strings.Split(att, "\n") {
		switch {
		case l == "":
		case strings.HasPrefix(l, "  ") && !strings.HasPrefix(l, "   "):
			key, ranges, ok := strings.Cut(l[2:], " ")
			if !ok || cur == "" || strings.Contains(ranges, " ") {
				t.Fatalf("bad entry line %q", l)
			}
			for _, part := range strings.Split(ranges, ",") {
				a, b, isRange := strings.Cut(part, "-")
				lo, err1 := strconv.Atoi(a)
				hi := lo
				var err2 error
				if isRange {
					hi, err2 = strconv.Atoi(b)
				}
				if err1 != nil || err2 != nil || lo < 1 || hi < lo {
					t.Fatalf("bad range %q in %q", part, l)
				}
				for x := lo; x <= hi; x++ {
					r.files[cur][key] = append(r.files[cur][key], x)
				}
			}
		default:
			cur = strings.Trim(l, `"`)
			r.files[cur] = map[string][]int{}
		}
	}
	var md struct {
		SchemaVersion string `json:"schema_version"`
		Base          string `json:"base_commit_sha"`
		Prompts       map[string]json.RawMessage
		Sessions      map[string]struct {
			AgentID struct{ Tool, ID, Model string } `json:"agent_id"`
		}
	}
	if err := json.Unmarshal([]byte(meta), &md); err != nil {
		t.Fatalf("metadata: %v\n%s", err, meta)
	}
	if md.SchemaVersion != "authorship/3.0.0" || md.Base == "" || md.Prompts == nil {
		t.Fatalf("metadata lacks a required field: %s", meta)
	}
	for sid, s := range md.Sessions {
		if len(sid) != 16 || s.AgentID.Tool == "" {
			t.Fatalf("session %q: %+v", sid, s)
		}
		r.sessions[sid] = s.AgentID.ID
	}
	return r
}

// start commits what the repository holds, opens a journal on it with a
// baseline of m.files, and the Journal the hooks use.
func (m *model) start() {
	t, dir := m.t, m.dir
	m.mustGit("add", "-A")
	m.mustGit("commit", "-qm", "start")
	e, err := replay.Open(replay.Options{Roots: []string{dir}, Actor: journal.Actor{Kind: "cli", User: "alice"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	m.e = e
	if _, err := e.Observe(context.Background(), replay.Observation{Paths: m.files, Tool: journal.ToolBaseline, Baseline: true}); err != nil {
		t.Fatal(err)
	}
	if m.repo, err = gitai.OpenRepo(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	m.j = gitai.Journal{
		View: e.Journal().View,
		Key: func(p string) (string, bool) {
			rp, err := e.Resolve(p)
			return rp.Key, err == nil
		},
		Flush: func(ctx context.Context, keys []string) error {
			_, err := e.Observe(ctx, replay.Observation{Paths: keys, Tool: journal.ToolWatch})
			return err
		},
	}
}

func TestGitNotes_Model(t *testing.T) {
	steps := 200
	if s, err := strconv.Atoi(os.Getenv("JOURNAL_GIT_MODEL_STEPS")); err == nil && s > 0 {
		steps = s
	}
	for _, seed := range []uint64{1, 2} {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) { runModel(t, seed, steps/2) })
	}
}

func runModel(t *testing.T, seed uint64, steps int) {
	dir := t.TempDir()
	m := &model{t: t, dir: dir, rng: rand.New(rand.NewPCG(seed, 45)), files: []string{"a.txt", "b.txt", "c.txt"}}
	m.mustGit("init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(dir, ".gitignore"), []byte(".journal/\n"), 0o644)
	for _, f := range m.files {
		os.WriteFile(filepath.Join(dir, f), []byte(strings.Join(m.newLines(authOutside, 3), "")), 0o644)
	}
	m.start()
	ops := []struct {
		name   string
		weight int
		do     func() bool // reports whether it made commits to note
	}{
		{"agent tool call", 6, func() bool { f := m.pick(); m.apply(toolActor, f, m.edit(f, authTool)); return false }},
		{"agent Bash call", 5, func() bool { f := m.pick(); m.bash(f, m.edit(f, authBash)); return false }},
		{"person through the journal", 3, func() bool { f := m.pick(); m.apply(cliActor, f, m.edit(f, authPerson)); return false }},
		{"person behind the journal", 3, func() bool { f := m.pick(); m.outside(f, m.edit(f, authOutside)); return false }},
		{"agent Write call, a person saving another file meanwhile", 3, func() bool {
			f, g := m.pickTwo()
			m.call("Write", f, func() {
				m.person(g)
				m.write(f, m.edit(f, authBash))
			}, "")
			return false
		}},
		{"agent Bash call killed, a person saving meanwhile", 2, func() bool {
			f, g := m.pickTwo()
			m.call("Bash", f, func() {
				m.write(f, m.edit(f, authKilled))
				m.person(g)
			}, []string{"prompt", "stop", "session-end"}[m.rng.IntN(3)])
			return false
		}},
		{"agent Bash call, a person saving meanwhile", 2, func() bool {
			f, g := m.pickTwo()
			m.call("Bash", f, func() {
				m.write(f, m.edit(f, authBash))
				if m.rng.IntN(2) == 0 {
					m.apply(cliActor, g, m.edit(g, authPerson)) // through the journal: the person's own
				} else {
					m.write(g, m.edit(g, authInBash)) // behind it: the gap
				}
			}, "")
			return false
		}},
		{"commit", 6, func() bool { return m.commit("work") }},
		{"amend", 2, func() bool {
			if m.commits() < 2 {
				return false
			}
			m.mustGit("add", "-A")
			m.mustGit("commit", "-q", "--amend", "--no-edit", "--allow-empty")
			return true
		}},
		{"rebase: swap the last two", 2, func() bool { return m.rebase(`sed -i -n '1h;1!{p;g;p}'`) }},
		{"rebase: squash the last two", 2, func() bool { return m.rebase(`sed -i '2s/^pick/squash/'`) }},
		{"rebase: fixup the last two", 1, func() bool { return m.rebase(`sed -i '2s/^pick/fixup/'`) }},
		{"rebase: drop the older", 1, func() bool { return m.rebase(`sed -i '1s/^pick/drop/'`) }},
		{"cherry-pick from a side branch", 2, func() bool {
			if m.dirty() || m.commits() < 2 {
				return false
			}
			m.mustGit("checkout", "-q", "-b", "side", "HEAD~1")
			m.observe()
			f := m.pick()
			m.apply(toolActor, f, m.edit(f, authTool))
			if !m.commit("side work") {
				m.mustGit("checkout", "-q", "main")
				m.mustGit("branch", "-q", "-D", "side")
				m.observe()
				return false
			}
			side := m.head()
			m.mustGit("checkout", "-q", "main")
			m.observe()
			m.mustGit("branch", "-q", "-D", "side")
			if _, err := m.git("cherry-pick", side); err != nil {
				m.mustGit("cherry-pick", "--abort")
				m.observe()
				return false
			}
			m.observe()
			return true
		}},
		{"stash and pop", 2, func() bool {
			if !m.dirty() {
				return false
			}
			m.mustGit("stash", "-q", "-u")
			m.observe()
			m.mustGit("stash", "pop", "-q")
			m.observe()
			return false
		}},
		{"reset --soft and commit again (squash)", 1, func() bool {
			if m.commits() < 3 {
				return false
			}
			m.mustGit("reset", "-q", "--soft", "HEAD~2")
			return m.commit("squashed")
		}},
		{"reset --hard HEAD~1", 1, func() bool {
			if m.commits() < 3 {
				return false
			}
			m.mustGit("reset", "-q", "--hard", "HEAD~1")
			m.observe()
			return false
		}},
		{"git mv with an edit", 1, func() bool {
			if m.dirty() {
				return false
			}
			i := m.rng.IntN(len(m.files))
			m.moves++
			old, nw := m.files[i], fmt.Sprintf("moved%d.txt", m.moves)
			m.mustGit("mv", old, nw)
			m.files[i] = nw
			m.observe()
			m.files = append(m.files, old) // its delete observed too
			m.observe()
			m.files = slices.DeleteFunc(m.files, func(s string) bool { return s == old })
			m.apply(toolActor, nw, m.edit(nw, authTool))
			return m.commit("move")
		}},
		{"git revert", 1, func() bool {
			if m.dirty() || m.commits() < 3 {
				return false
			}
			if _, err := m.git("revert", "--no-edit", "HEAD"); err != nil {
				m.mustGit("revert", "--abort")
				m.observe()
				return false
			}
			m.observe()
			return true
		}},
	}
	total := 0
	for _, op := range ops {
		total += op.weight
	}
	for step := range steps {
		k := m.rng.IntN(total)
		for _, op := range ops {
			if k -= op.weight; k < 0 {
				m.log = append(m.log, fmt.Sprintf("%d: %s", step, op.name))
				if op.do() {
					m.note()
				}
				break
			}
		}
	}
	m.commit("last")
	m.note()
	t.Logf("seed %d: %d steps, %d notes checked; %d agent lines of finished calls added by commits, %d attributed to their session (%.1f %%); %d lines of people, none to an agent; %d lines of killed calls, %d attributed to their session (untracked by design); inside finished Bash calls (not checked) %d lines of a person behind the journal, %d of them credited to the call",
		seed, steps, m.noted, m.agentLines, m.agentKept, 100*float64(m.agentKept)/float64(max(1, m.agentLines)), m.personLines, m.killed, m.killedKept, m.inBash, m.inBashCredited)
	if m.agentLines == 0 || m.noted == 0 {
		t.Fatal("the run checked no agent line")
	}
	if m.agentKept*100 < m.agentLines*95 {
		t.Fatalf("%d of %d agent lines attributed to their session: under 95 %%", m.agentKept, m.agentLines)
	}
}

func (m *model) pick() string { return m.files[m.rng.IntN(len(m.files))] }

// pickTwo picks two different files.
func (m *model) pickTwo() (string, string) {
	i := m.rng.IntN(len(m.files))
	j := (i + 1 + m.rng.IntN(len(m.files)-1)) % len(m.files)
	return m.files[i], m.files[j]
}

// write writes f on disk, as a process the journal does not know (the
// watcher sees it).
func (m *model) write(f, data string) {
	m.t.Helper()
	if err := os.WriteFile(filepath.Join(m.dir, f), []byte(data), 0o644); err != nil {
		m.t.Fatal(err)
	}
}

// person saves g behind the journal, a person nobody knows.
func (m *model) person(g string) { m.write(g, m.edit(g, authOutside)) }

// call runs during as session sB's call of tool (a Write's input naming
// f) through a watcher started for it, as the agent's hooks reach one:
// its before-hook, then its after-hook, or (closed set) none and the
// session's next hook of that kind instead.
func (m *model) call(tool, f string, during func(), closed string) {
	m.t.Helper()
	ctx := context.Background()
	// no recording but the calls' cuts and Close's: the model says when
	w, err := watch.Start(ctx, m.e, watch.Options{Settle: time.Hour, MaxDelay: time.Hour})
	if err != nil {
		m.t.Fatal(err)
	}
	m.calls++
	input, _ := json.Marshal(map[string]any{"file_path": filepath.Join(m.dir, f), "content": "..."})
	if tool == "Bash" {
		input, _ = json.Marshal(map[string]any{"command": "cat > " + f})
	}
	c := watch.Call{ID: fmt.Sprintf("toolu_%d", m.calls), Agent: "claude-code", Session: authBash, Tool: tool, Input: input, Origin: "hook"}
	if _, err := w.Begin(ctx, c); err != nil {
		m.t.Fatal(err)
	}
	during()
	if closed == "" {
		_, err = w.End(ctx, c)
	} else {
		_, err = w.Turn(ctx, c.Agent, c.Session, closed)
	}
	if err != nil {
		m.t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		m.t.Fatal(err)
	}
}

func (m *model) commits() int {
	n, _ := strconv.Atoi(strings.TrimSpace(m.mustGit("rev-list", "--count", "HEAD")))
	return n
}

// rebase rewrites the last two commits with an interactive rebase whose
// todo list script edits; a conflict aborts it (which must write no note).
func (m *model) rebase(script string) bool {
	m.t.Helper()
	if m.dirty() || m.commits() < 3 {
		return false
	}
	before := m.mustGit("notes", "--ref=ai", "list")
	cmd := exec.Command("git", "rebase", "-q", "-i", "HEAD~2")
	cmd.Dir = m.dir
	cmd.Env = append(os.Environ(), "GIT_SEQUENCE_EDITOR="+script, "GIT_EDITOR=true", "GIT_AUTHOR_NAME=Alice",
		"GIT_AUTHOR_EMAIL=alice@example.com", "GIT_COMMITTER_NAME=Alice", "GIT_COMMITTER_EMAIL=alice@example.com", "HOME="+m.dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		m.mustGit("rebase", "--abort")
		m.observe()
		if after := m.mustGit("notes", "--ref=ai", "list"); after != before {
			m.t.Fatalf("an aborted rebase changed the notes:\n%s\n%s", out, after)
		}
		return false
	}
	m.observe()
	return true
}
