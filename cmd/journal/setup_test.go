package main_test

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// tree reads every file under dir but .journal, by relative path, with
// its mode.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(dir, p)
		if e.IsDir() {
			if rel == ".journal" {
				return filepath.SkipDir
			}
			out[rel+"/"] = ""
			return nil
		}
		if rel == "SOURCE.md" {
			return nil
		}
		b, _ := os.ReadFile(p)
		fi, _ := e.Info()
		out[rel] = fi.Mode().String() + "\n" + string(b)
		return nil
	})
	return out
}

func copyFixture(t *testing.T, from, to string) {
	t.Helper()
	if out, err := exec.Command("cp", "-a", from+"/.", to).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	os.Remove(filepath.Join(to, "SOURCE.md"))
}

// copyFixtureHome copies a fixture into the project dir, its HOME/ (the
// user's files) into home.
func copyFixtureHome(t *testing.T, from, dir, home string) {
	t.Helper()
	copyFixture(t, from, dir)
	h := filepath.Join(dir, "HOME")
	if _, err := os.Stat(h); err != nil {
		return
	}
	copyFixture(t, h, home)
	if err := os.RemoveAll(h); err != nil {
		t.Fatal(err)
	}
}

// trees is tree of the project dir and of home, its paths under "~/".
func trees(t *testing.T, dir, home string) map[string]string {
	t.Helper()
	out := tree(t, dir)
	for p, b := range tree(t, home) {
		out["~/"+p] = b
	}
	return out
}

// runIn runs the binary in dir with HOME set to home and PATH without any
// agent's command.
func runIn(t *testing.T, dir, home string, args ...string) result {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + home, "PATH=/usr/bin:/bin", "JOURNAL_TZ=UTC"}
	return runCmd(t, cmd)
}

// kept checks that every line of before (its closing brackets aside)
// is in after, in the same order: the user's settings, keys and order kept.
func kept(t *testing.T, name, before, after string) {
	t.Helper()
	rest := after
	for _, l := range strings.Split(before, "\n") {
		l = strings.TrimRight(strings.TrimSpace(l), ",")
		if l == "" || strings.Trim(l, "{}[], ") == "" {
			continue
		}
		i := strings.Index(rest, l)
		if i < 0 {
			t.Errorf("%s: the user's line %q is gone or out of order:\n%s", name, l, after)
			return
		}
		rest = rest[i+len(l):]
	}
}

// journal init cursor hooks both Cursor's tool events and the shell and
// file-edit events of the Cursors before them (1.7 on: beforeSubmitPrompt,
// before/afterShellExecution, afterFileEdit), each running journal hook
// cursor: an older Cursor's calls are named too (TestHook_Cursor), a newer
// one's recorded once (TestHook_CursorBothHookKinds).
func TestInit_CursorBothHookKinds(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	if r := runIn(t, dir, home, "init", "--bin", "journal", "cursor"); r.code != 0 {
		t.Fatalf("init: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	b, err := os.ReadFile(filepath.Join(dir, ".cursor", "hooks.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Version int
		Hooks   map[string][]struct{ Command string }
	}
	if err := json.Unmarshal(b, &f); err != nil || f.Version != 1 {
		t.Fatalf("hooks.json: %v version %d\n%s", err, f.Version, b)
	}
	for _, ev := range []string{"beforeSubmitPrompt", "preToolUse", "postToolUse", "postToolUseFailure",
		"beforeShellExecution", "afterShellExecution", "afterFileEdit", "stop"} {
		if l := f.Hooks[ev]; len(l) != 1 || l[0].Command != "journal hook cursor" {
			t.Errorf("%s: %+v, want journal hook cursor", ev, l)
		}
	}
}

// TestInit_EachAgent: journal init AGENT against each agent's realistic
// settings (testdata/init/<agent>/): --dry-run writes nothing, init merges
// the hooks (and the MCP server) into the user's settings, a second run
// changes nothing, --undo gives every file its bytes back.
func TestInit_EachAgent(t *testing.T) {
	want := map[string][]string{ // file: what init must have put there
		"claude-code": {".claude/settings.json", "PostToolUseFailure", ".mcp.json", `"journal": {`},
		"codex":       {".codex/hooks.json", "UserPromptSubmit", ".codex/config.toml", "[mcp_servers.journal]"},
		"cursor":      {".cursor/hooks.json", "beforeSubmitPrompt", ".cursor/mcp.json", `"journal": {`},
		"cline":       {".clinerules/hooks/PreToolUse", "exec journal hook cline", ".clinerules/hooks/UserPromptSubmit", "exec journal hook cline"},
		"gemini":      {".gemini/settings.json", "BeforeAgent", ".gemini/settings.json", `"journal": {`},
		"copilot":     {".github/hooks/journal.json", "journal hook copilot --event userPromptSubmitted", ".github/mcp.json", `"type": "local",`},
		"windsurf":    {".windsurf/hooks.json", "pre_user_prompt", "~/.codeium/windsurf/mcp_config.json", `"journal": {`},
		"kiro":        {".kiro/hooks/journal.json", `"trigger": "UserPromptSubmit"`, ".kiro/settings/mcp.json", `"journal": {`},
		// JSON with comments: each kept where it was
		"gemini-jsonc": {".gemini/settings.json", "BeforeAgent", ".gemini/settings.json", "// muscle memory\n"},
	}
	mcpWant := map[string][]string{ // the user's MCP files init must give an entry journal serving the project
		"cline": {"~/.config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json"},
	}
	for fixture, w := range want {
		agent, _, _ := strings.Cut(fixture, "-")
		if fixture == "claude-code" {
			agent = fixture
		}
		t.Run(fixture, func(t *testing.T) {
			dir, home := t.TempDir(), t.TempDir()
			copyFixtureHome(t, filepath.Join("..", "..", "testdata", "init", fixture), dir, home)
			orig := trees(t, dir, home)

			r := runIn(t, dir, home, "init", "--bin", "journal", "--dry-run", agent)
			if r.code != 0 || !strings.Contains(r.stdout, "+++ b/"+w[0]) {
				t.Fatalf("dry run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			if got := trees(t, dir, home); len(got) != len(orig) || !equalTrees(orig, got) {
				t.Fatal("--dry-run wrote something")
			}

			r = runIn(t, dir, home, "init", "--bin", "journal", agent)
			if r.code != 0 {
				t.Fatalf("init: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			after := trees(t, dir, home)
			for i := 0; i < len(w); i += 2 {
				body := after[w[i]]
				if !strings.Contains(body, w[i+1]) || !strings.Contains(body, "journal") {
					t.Errorf("%s lacks %q:\n%s", w[i], w[i+1], body)
				}
			}
			for _, p := range mcpWant[fixture] {
				if !strings.Contains(after[p], `"journal": {`) || !strings.Contains(after[p], `"serve",`) || !strings.Contains(after[p], dir) {
					t.Errorf("%s lacks the MCP server journal serving %s:\n%s", p, dir, after[p])
				}
			}
			for p := range after {
				if _, ok := orig[p]; !ok && strings.HasPrefix(p, "~/") && !strings.HasSuffix(p, "/") && !slices.Contains(w, p) && !slices.Contains(mcpWant[fixture], p) {
					t.Errorf("init wrote %s in the home directory", p)
				}
			}
			if strings.HasSuffix(fixture, "-jsonc") {
				for _, l := range strings.Split(orig[w[0]], "\n") {
					if i := strings.Index(l, "//"); i >= 0 && !strings.Contains(after[w[0]], strings.TrimSpace(l[i:])) {
						t.Errorf("the comment %q is gone:\n%s", l[i:], after[w[0]])
					}
					if i := strings.Index(l, "/*"); i >= 0 && !strings.Contains(after[w[0]], strings.TrimSpace(l[i:])) {
						t.Errorf("the comment %q is gone:\n%s", l[i:], after[w[0]])
					}
				}
			}
			for p, b := range orig {
				if strings.HasSuffix(p, ".json") || strings.HasSuffix(p, ".toml") {
					kept(t, p, b, after[p])
				} else if after[p] != b {
					t.Errorf("%s changed: a file of the user's init does not edit", p)
				}
			}
			if agent == "cline" && !strings.Contains(r.stderr, "TaskStart is a hook of your own") {
				t.Errorf("no word about the user's own TaskStart: %q", r.stderr)
			}

			r = runIn(t, dir, home, "init", "--bin", "journal", agent)
			if r.code != 0 || !strings.Contains(r.stdout, "nothing to do") || !equalTrees(after, trees(t, dir, home)) {
				t.Fatalf("second init changed something (exit %d): %s%s", r.code, r.stdout, r.stderr)
			}

			r = runIn(t, dir, home, "init", "--undo")
			if r.code != 0 {
				t.Fatalf("undo: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			if got := trees(t, dir, home); !equalTrees(orig, got) {
				for p := range got {
					if orig[p] != got[p] {
						t.Errorf("after --undo %s differs:\n%s\nwant\n%s", p, got[p], orig[p])
					}
				}
				for p := range orig {
					if _, ok := got[p]; !ok {
						t.Errorf("after --undo %s is missing", p)
					}
				}
			}
			if _, err := os.Stat(filepath.Join(dir, ".journal", "init.json")); !os.IsNotExist(err) {
				t.Errorf("the record is still there after --undo: %v", err)
			}
		})
	}
}

func equalTrees(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestInit_FindsAgentsAndUndoKeepsLaterEdits: init with no AGENT finds the
// agents whose directories are in the project or the home directory; a
// file the user edits after init keeps that edit through --undo, which
// takes out only journal's entries.
func TestInit_FindsAgentsAndUndoKeepsLaterEdits(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	copyFixture(t, filepath.Join("..", "..", "testdata", "init", "claude-code"), dir)
	os.MkdirAll(filepath.Join(home, ".gemini"), 0o755)
	r := runIn(t, dir, home, "init", "--bin", "journal")
	if r.code != 0 || !strings.Contains(r.stdout, ".claude/settings.json") || !strings.Contains(r.stdout, ".gemini/settings.json") {
		t.Fatalf("init: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r.code != 0 || strings.Contains(r.stdout, ".cursor") {
		t.Fatalf("init wrote an agent not in use:\n%s", r.stdout)
	}
	p := filepath.Join(dir, ".claude", "settings.json")
	b, _ := os.ReadFile(p)
	edited := strings.Replace(string(b), `"Read(~/.zshrc)"`, `"Read(~/.zshrc)",
      "Bash(make:*)"`, 1)
	os.WriteFile(p, []byte(edited), 0o644)
	r = runIn(t, dir, home, "init", "--undo")
	if r.code != 0 || !strings.Contains(r.stdout, "only journal's entries taken out") {
		t.Fatalf("undo: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	b, _ = os.ReadFile(p)
	orig, _ := os.ReadFile(filepath.Join("..", "..", "testdata", "init", "claude-code", ".claude", "settings.json"))
	wantNow := strings.Replace(string(orig), `"Read(~/.zshrc)"`, `"Read(~/.zshrc)",
      "Bash(make:*)"`, 1)
	if string(b) != wantNow {
		t.Errorf("after --undo of an edited file:\n%s\nwant\n%s", b, wantNow)
	}
	if _, err := os.Stat(filepath.Join(dir, ".gemini")); !os.IsNotExist(err) {
		t.Errorf(".gemini made by init is still there: %v", err)
	}
}

// TestInit_UserMCPFiles: Windsurf and Cline list their MCP servers only in
// the user's files, which serve every project. A second project's init
// leaves the entry journal serving the first as it is and says so, with
// the lines to add; its --undo leaves the user's file alone, the first's
// gives it its bytes back. With none of the agent's directories in the
// home directory, init writes none and gives the lines to add. A JSONC
// file of the user's (a comment, a trailing comma) edited after init keeps
// its comments through --undo, which takes out only journal's entry.
func TestInit_UserMCPFiles(t *testing.T) {
	a, b, home := t.TempDir(), t.TempDir(), t.TempDir()
	copyFixtureHome(t, filepath.Join("..", "..", "testdata", "init", "windsurf"), a, home)
	cfg := filepath.Join(home, ".codeium", "windsurf", "mcp_config.json")
	orig, _ := os.ReadFile(cfg)
	if r := runIn(t, a, home, "init", "--bin", "journal", "windsurf"); r.code != 0 {
		t.Fatalf("init in a: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	afterA, _ := os.ReadFile(cfg)
	r := runIn(t, b, home, "init", "--bin", "journal", "windsurf")
	if r.code != 0 || !strings.Contains(r.stderr, "its entry journal serves another workspace: left as it is") ||
		!strings.Contains(r.stderr, `{"mcpServers":{"journal":{"command":"journal","args":["serve","--root","`+b+`"]}}}`) {
		t.Fatalf("init in b: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if now, _ := os.ReadFile(cfg); string(now) != string(afterA) {
		t.Errorf("init in b changed the entry serving a:\n%s", now)
	}
	if r := runIn(t, b, home, "init", "--undo"); r.code != 0 {
		t.Fatalf("undo in b: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if now, _ := os.ReadFile(cfg); string(now) != string(afterA) {
		t.Errorf("undo in b changed the user's file:\n%s", now)
	}
	// the user adds a server of their own, with a comment and a trailing comma
	edited := strings.Replace(string(afterA), `"mcpServers": {`, `"mcpServers": {
    // added by hand after journal init
    "mine": {"command": "mine",},`, 1)
	os.WriteFile(cfg, []byte(edited), 0o644)
	if r := runIn(t, a, home, "init", "--undo"); r.code != 0 || !strings.Contains(r.stdout, "only journal's entries taken out") {
		t.Fatalf("undo in a: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	want := strings.Replace(string(orig), `"mcpServers": {`, `"mcpServers": {
    // added by hand after journal init
    "mine": {"command": "mine",},`, 1)
	if now, _ := os.ReadFile(cfg); string(now) != want {
		t.Errorf("undo in a:\n%s\nwant\n%s", now, want)
	}

	c, home2 := t.TempDir(), t.TempDir()
	r = runIn(t, c, home2, "init", "--bin", "journal", "cline")
	if r.code != 0 || !strings.Contains(r.stderr, "cline lists its MCP servers in your user settings (~/.cline/data/settings/cline_mcp_settings.json), which are not there") ||
		!strings.Contains(r.stderr, `"--root","`+c+`"`) {
		t.Fatalf("init of cline, no MCP settings: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if got := tree(t, home2); len(got) != 1 { // "./" alone
		t.Errorf("init wrote in the home directory: %v", got)
	}
}

// TestDoctor: through the binary, with no watcher, then a watcher running
// and a hook fired: what it says, and its exit status.
func TestDoctor(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	copyFixture(t, filepath.Join("..", "..", "testdata", "init", "claude-code"), dir)
	r := runIn(t, dir, home, "doctor")
	if r.code != 1 || !strings.Contains(r.stdout, "no journal") || !strings.Contains(r.stdout, "journal init") {
		t.Fatalf("doctor without a journal: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := runIn(t, dir, home, "init", "claude-code"); r.code != 0 {
		t.Fatalf("init: %d %s%s", r.code, r.stdout, r.stderr)
	}
	limit := filepath.Join(t.TempDir(), "max")
	os.WriteFile(limit, []byte("2\n"), 0o644)
	r = runIn(t, dir, home, "doctor")
	for _, w := range []string{"!!  watcher", "journal watch", "!!  hooks claude-code", "never fired", "ok  inotify"} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("doctor, no watcher: lacks %q:\n%s", w, r.stdout)
		}
	}
	if r.code != 1 {
		t.Errorf("doctor with problems: exit %d", r.code)
	}
	cmd := exec.Command(bin, "doctor")
	cmd.Dir, cmd.Env = dir, []string{"HOME=" + home, "PATH=/usr/bin:/bin", "JOURNAL_MAX_WATCHES_FILE=" + limit}
	out, _ := cmd.Output()
	if !strings.Contains(string(out), "!!  inotify") || !strings.Contains(string(out), "sysctl fs.inotify.max_user_watches") {
		t.Errorf("doctor under a limit of 2 watches:\n%s", out)
	}

	stop := startWatch(t, dir)
	defer stop()
	in := `{"session_id":"s1","cwd":"` + dir + `","hook_event_name":"SessionStart","source":"startup"}`
	if r := hookRun(t, dir, false, in, "hook", "claude-code"); r.code != 0 || r.stderr != "" {
		t.Fatalf("hook: %d %q", r.code, r.stderr)
	}
	time.Sleep(10 * time.Millisecond)
	r = runIn(t, dir, home, "doctor")
	for _, w := range []string{"ok  watcher", "ok  hooks claude-code", "last fired", "(SessionStart)"} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("doctor, watcher running: lacks %q:\n%s", w, r.stdout)
		}
	}
	if r.code != 0 {
		t.Errorf("doctor with nothing to do: exit %d\n%s", r.code, r.stdout)
	}
}

// TestInit_UserScope: --user writes the hooks in the user's file (under
// HOME), the MCP entry still in the project's; --undo removes both and the
// directory init made.
func TestInit_UserScope(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	r := runIn(t, dir, home, "init", "--user", "--bin", "journal", "claude-code")
	if r.code != 0 || !strings.Contains(r.stdout, "~/.claude/settings.json") || !strings.Contains(r.stdout, ".mcp.json") {
		t.Fatalf("init --user: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	b, err := os.ReadFile(filepath.Join(home, ".claude", "settings.json"))
	if err != nil || !strings.Contains(string(b), `"command": "journal hook claude-code"`) {
		t.Fatalf("user settings: %v\n%s", err, b)
	}
	if r := runIn(t, dir, home, "init", "--user", "--bin", "journal", "claude-code"); !strings.Contains(r.stdout, "nothing to do") {
		t.Errorf("second init --user: %s%s", r.stdout, r.stderr)
	}
	if r := runIn(t, dir, home, "init", "--undo"); r.code != 0 {
		t.Fatalf("undo: %d %s%s", r.code, r.stdout, r.stderr)
	}
	for _, p := range []string{filepath.Join(home, ".claude"), filepath.Join(dir, ".mcp.json")} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s is still there after --undo: %v", p, err)
		}
	}
}
