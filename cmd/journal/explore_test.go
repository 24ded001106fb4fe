package main_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// exploreCall runs one Claude Code Bash call of session under its hooks
// (no watcher: the hook walks the workspace itself).
func exploreCall(t *testing.T, dir, session, id, command string) {
	t.Helper()
	for _, ev := range []string{"PreToolUse", "PostToolUse"} {
		if ev == "PostToolUse" {
			bash(t, dir, command)
		}
		if r := hookRun(t, dir, false, claudeCall(dir, ev, session, id, command), "hook", "claude-code"); r.code != 0 {
			t.Fatalf("%s: %+v", ev, r)
		}
	}
}

func explorePrompt(t *testing.T, dir, session, id string) {
	t.Helper()
	in := fmt.Sprintf(`{"session_id":%q,"cwd":%q,"hook_event_name":"UserPromptSubmit","prompt_id":%q,"prompt":"work"}`, session, dir, id)
	if r := hookRun(t, dir, false, in, "hook", "claude-code"); r.code != 0 {
		t.Fatalf("prompt: %+v", r)
	}
}

// TestExplore_DuplicateLinesOfAnotherSession: session S1 writes func c,
// session S2 then appends func d, whose body is the same text as c's. Every
// line of func d is S2's new text (the file now holds two copies of each):
// journal blame, journal git blame and the commit's note name S2 for d's
// body, not S1, and an agent's new "return 1" and "}" are the agent's, not
// the person's baseline's. Conservation (a changed line whose text the
// history holds under one owner is that owner's) used to apply even where
// the file still held the original copy: nothing was put back.
func TestExplore_DuplicateLinesOfAnotherSession(t *testing.T) {
	dir := committedRepo(t, map[string]string{"k.go": "func a() {\n\treturn 1\n}\n"})
	ok(t, dir, "exec", "--", "true") // the journal, with its baseline
	ok(t, dir, "git", "install")

	body := `\tif err := f(); err != nil {\n\t\treturn err\n\t}\n\treturn nil\n}\n`
	explorePrompt(t, dir, "S0", "P0")
	exploreCall(t, dir, "S0", "t0", `printf 'func b() {\n\treturn 1\n}\n' >> k.go`)
	explorePrompt(t, dir, "S1", "P1")
	exploreCall(t, dir, "S1", "t1", `printf 'func c() error {\n`+body+`' >> k.go`)
	explorePrompt(t, dir, "S2", "Q1")
	exploreCall(t, dir, "S2", "u1", `printf 'func d() error {\n`+body+`' >> k.go`)

	var owners []string // per line, its event number in journal blame
	for _, l := range strings.Split(strings.TrimRight(ok(t, dir, "blame", "k.go"), "\n"), "\n") {
		owners = append(owners, strings.Fields(l)[0])
	}
	if len(owners) != 18 {
		t.Fatalf("blame: %d lines: %q", len(owners), owners)
	}
	var bad []string
	for i := 3; i < 6; i++ { // func b: S0's three lines
		if owners[i] != owners[3] {
			bad = append(bad, fmt.Sprintf("journal blame line %d (func b, S0's): %q, want %q", i+1, owners[i], owners[3]))
		}
	}
	for i := 12; i < 18; i++ { // func d: S2's six lines
		if owners[i] != owners[12] {
			bad = append(bad, fmt.Sprintf("journal blame line %d (func d, S2's): %q, want %q", i+1, owners[i], owners[12]))
		}
	}
	gitEnvInAllow(t, dir, "commit", "-qam", "b c d")
	gb := strings.Split(strings.TrimRight(ok(t, dir, "git", "blame", "k.go"), "\n"), "\n")
	for i := 12; i < 18 && i < len(gb); i++ {
		if !strings.Contains(gb[i], "session S2") {
			bad = append(bad, fmt.Sprintf("journal git blame line %d (func d): %q, want session S2", i+1, gb[i]))
		}
	}
	for i := 3; i < 6 && i < len(gb); i++ {
		if !strings.Contains(gb[i], "session S0") {
			bad = append(bad, fmt.Sprintf("journal git blame line %d (func b): %q, want session S0", i+1, gb[i]))
		}
	}
	if len(bad) > 0 {
		t.Fatalf("%s\njournal git blame:\n%s", strings.Join(bad, "\n"), strings.Join(gb, "\n"))
	}
}

// TestExplore_MoveWithEditInOneCall: a person's m.go (committed, in the
// baseline); an agent's one Bash call `git mv m.go main2.go && sed -i ...`
// changes one line. journal blame, as journal git blame (git's rename),
// credits the agent with that one line only, not the person's "}" after it:
// the event's one delete and one create are a move edited on the way (it
// used to be seen as no move, and only distinctive lines carried over).
func TestExplore_MoveWithEditInOneCall(t *testing.T) {
	dir := committedRepo(t, map[string]string{"m.go": "package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n", "g.txt": "g1\ng-two\n"})
	ok(t, dir, "exec", "--", "true") // the journal, with its baseline
	explorePrompt(t, dir, "S2", "Q9")
	exploreCall(t, dir, "S2", "u9", `git mv m.go main2.go && sed -i 's/hi/hello/' main2.go`)
	explorePrompt(t, dir, "S2", "Q10")
	exploreCall(t, dir, "S2", "u10", `git mv g.txt g2.txt && echo g-three >> g2.txt`)
	var bad []string
	check := func(path string, agent int) {
		for i, l := range strings.Split(strings.TrimRight(ok(t, dir, "blame", path), "\n"), "\n") {
			isAgent := strings.Contains(l, "claude-code/S2")
			if isAgent != (i+1 == agent) {
				bad = append(bad, fmt.Sprintf("%s line %d: %q (the agent's line is %d only)", path, i+1, l, agent))
			}
		}
	}
	check("main2.go", 4)
	check("g2.txt", 3)
	if len(bad) > 0 {
		t.Fatalf("journal blame after a move with an edit in one call:\n%s", strings.Join(bad, "\n"))
	}
}

// TestExplore_TwoSessionsCallsOpenAtOnce: two agents' sessions, S1 and
// S2, each with a Bash call open (S1's a long `sleep`); S2's command writes
// r.txt, then S1's call ends first. The watcher names the event for both
// calls ("2 calls at once"); its actor used to be the first call's, S1, so
// journal blame and the note credited S2's line to S1. Calls of different
// sessions open at once cannot be told apart: the line is neither's to
// claim (fail closed: no session named), never the other session's.
func TestExplore_TwoSessionsCallsOpenAtOnce(t *testing.T) {
	dir := committedRepo(t, map[string]string{"a.txt": "a\n"})
	stop := startWatch(t, dir)
	defer stop()
	step := func(in string) {
		t.Helper()
		if r := hookRun(t, dir, false, in, "hook", "claude-code"); r.code != 0 || r.stderr != "" {
			t.Fatalf("hook: exit %d, stderr %q", r.code, r.stderr)
		}
	}
	step(claudeCall(dir, "PreToolUse", "S1", "a2", "sleep 1"))
	step(claudeCall(dir, "PreToolUse", "S2", "b2", "echo r-by-S2 > r.txt"))
	bash(t, dir, "echo r-by-S2 > r.txt")
	step(claudeCall(dir, "PostToolUse", "S1", "a2", "sleep 1"))
	step(claudeCall(dir, "PostToolUse", "S2", "b2", "echo r-by-S2 > r.txt"))
	ok(t, dir, "git", "install")
	gitEnvInAllow(t, dir, "add", "r.txt")
	gitEnvInAllow(t, dir, "commit", "-qm", "r")
	var bad []string
	if b := ok(t, dir, "blame", "r.txt"); strings.Contains(b, "claude-code/S1") {
		bad = append(bad, "journal blame: "+b)
	}
	if b := ok(t, dir, "git", "blame", "r.txt"); strings.Contains(b, "session S1") {
		bad = append(bad, "journal git blame: "+b)
	}
	if len(bad) > 0 {
		t.Fatalf("S2's line credited to session S1:\n%s", strings.Join(bad, "\n"))
	}
}

// TestExplore_MoveTextKeepsAuthors: a person's m.txt; an agent's MCP
// edit_move_text moves its first two lines (one of them the person's,
// untouched) to a new n.txt. README: "a move carries the lines over": the
// moved person's line stays the person's in journal blame (it used to be
// credited to the agent's move event, as if the agent wrote it).
func TestExplore_MoveTextKeepsAuthors(t *testing.T) {
	dir := t.TempDir()
	files(t, dir, map[string]string{"m.txt": "h1 by person\nh2 by person\nh3 by person\n"})
	ok(t, dir, "exec", "--", "true") // the journal, and its baseline
	c, stderr := serveStdio(t, dir, "agentX", "--watch=false")
	call := func(name string, args map[string]any) {
		t.Helper()
		req := mcp.CallToolRequest{}
		req.Params.Name = name
		req.Params.Arguments = args
		res, err := c.CallTool(context.Background(), req)
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v\n%s", name, err, res, stderr.String())
		}
	}
	call("file_read", map[string]any{"file": "m.txt"})
	call("edit_move_text", map[string]any{"ops": []map[string]any{{"source_path": "m.txt", "source_start_line": 1, "source_end_line": 2, "target_path": "n.txt", "target_line": -1}}})
	c.Close()
	b := ok(t, dir, "blame", "n.txt")
	for i, l := range strings.Split(strings.TrimRight(b, "\n"), "\n") {
		if strings.Contains(l, "agentX") {
			t.Errorf("n.txt line %d, moved unchanged from m.txt, credited to the agent's move: %q", i+1, l)
		}
	}
	if t.Failed() {
		t.Logf("journal blame n.txt:\n%s", b)
	}
}

// TestExplore_CommitInsideAgentsCall: an agent's one Bash call appends a
// line and commits (`printf ... >> f.txt && git commit -qam ...`), beside
// a running watcher. The post-commit hook asks the watcher to flush what
// it has not recorded; the flush names the open calls, so the agent's line
// is the agent's in journal blame and the note (the flush used to name no
// call: the line was an outside change, `external`, untracked).
func TestExplore_CommitInsideAgentsCall(t *testing.T) {
	dir := committedRepo(t, map[string]string{"f.txt": "a\n"})
	stop := startWatch(t, dir)
	defer stop()
	ok(t, dir, "git", "install")
	explorePrompt(t, dir, "S1", "P1")
	cmd := `printf 'agent line one\n' >> f.txt && git -c user.email=a@b -c user.name=A commit -qam agent`
	exploreCall(t, dir, "S1", "t1", cmd)
	var bad []string
	if b := ok(t, dir, "blame", "f.txt"); !strings.Contains(b, "claude-code/S1") {
		bad = append(bad, "journal blame:\n"+b)
	}
	if b := ok(t, dir, "git", "blame", "f.txt"); !strings.Contains(b, "session S1") {
		bad = append(bad, "journal git blame:\n"+b)
	}
	if len(bad) > 0 {
		t.Fatalf("the agent's line, committed inside its call, is not its:\n%s", strings.Join(bad, "\n"))
	}
}
