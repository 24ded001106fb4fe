package main_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// serveOnce runs an MCP entry's command as its agent would (cwd dir, the
// journal binary on PATH as "journal"): an initialize, then end of input.
func serveOnce(t *testing.T, dir, home, pathDir string, args []string) result {
	t.Helper()
	cmd := exec.Command(filepath.Join(pathDir, "journal"), args...)
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + home, "PATH=" + pathDir + ":/usr/bin:/bin", "JOURNAL_TZ=UTC"}
	cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n")
	return runCmd(t, cmd)
}

// mcpEntry reads the MCP server entry journal of a JSON settings file.
func mcpEntry(t *testing.T, p string) (string, []string) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatalf("%s: %v\n%s", p, err, b)
	}
	e, ok := f.MCPServers["journal"]
	if !ok {
		t.Fatalf("%s has no entry journal:\n%s", p, b)
	}
	return e.Command, e.Args
}

// TestInit_CommittedFilesWorkInAClone: journal init in a git repository,
// with journal not on PATH, writes project files that name no path of this
// machine (journal on PATH; no --root where the agent starts its server in
// the project; Cursor's ${workspaceFolder}) and says to put journal on
// PATH. Committed and cloned elsewhere, each entry, run as its agent runs
// it (Claude Code in the project or a subdirectory of it, Cursor in / with
// the variable expanded), serves the clone. doctor finds nothing to say
// about the committed files. journal serve without --root in the home
// directory (where desktop clients start servers) is refused, creating no
// journal there.
func TestInit_CommittedFilesWorkInAClone(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"claude-code", "cursor", "codex"} {
		copyFixture(t, filepath.Join("..", "..", "testdata", "init", f), dir)
	}
	os.WriteFile(filepath.Join(dir, ".gitignore"), []byte(".journal/\n"), 0o644)
	gitEnvInAllow(t, dir, "init", "-q", "-b", "main")
	gitEnvInAllow(t, dir, "add", "-A")
	gitEnvInAllow(t, dir, "commit", "-qm", "start")
	home := t.TempDir()

	r := runIn(t, dir, home, "init", "claude-code", "cursor", "codex", "gemini", "copilot", "kiro")
	if r.code != 0 || !strings.Contains(r.stderr, "the project's files run `journal`, as every clone of it will, but PATH does not find this binary") {
		t.Fatalf("init: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	self, _ := filepath.EvalSymlinks(bin)
	for _, l := range strings.Split(r.stdout, "\n") {
		verb, rest, _ := strings.Cut(l, " ")
		if verb != "wrote" && verb != "updated" {
			continue
		}
		name, _, _ := strings.Cut(rest, ":")
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		for _, machine := range []string{dir, home, self, bin} {
			if strings.Contains(string(b), machine) {
				t.Errorf("%s names %s, a path of this machine:\n%s", name, machine, b)
			}
		}
	}
	for p, want := range map[string][]string{
		".mcp.json":               {"serve"},
		".cursor/mcp.json":        {"serve", "--root", "${workspaceFolder}"},
		".gemini/settings.json":   {"serve"},
		".github/mcp.json":        {"serve"},
		".kiro/settings/mcp.json": {"serve"},
	} {
		if c, args := mcpEntry(t, filepath.Join(dir, p)); c != "journal" || !slices.Equal(args, want) {
			t.Errorf("%s: command %q args %q, want journal %q", p, c, args, want)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, ".codex", "config.toml")); !strings.Contains(string(b), "command = \"journal\"\nargs = [\"serve\"]\n") {
		t.Errorf(".codex/config.toml:\n%s", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, ".claude", "settings.json")); !strings.Contains(string(b), `"command": "journal hook claude-code"`) {
		t.Errorf(".claude/settings.json:\n%s", b)
	}

	gitEnvInAllow(t, dir, "add", "-A")
	gitEnvInAllow(t, dir, "commit", "-qm", "journal init")
	if r := runIn(t, dir, home, "doctor"); !strings.Contains(r.stdout, "ok  committed paths") || strings.Contains(r.stdout, "!!  committed paths") {
		t.Errorf("doctor on files init wrote:\n%s", r.stdout)
	}

	pathDir := t.TempDir()
	if err := os.Symlink(bin, filepath.Join(pathDir, "journal")); err != nil {
		t.Fatal(err)
	}
	clone := filepath.Join(t.TempDir(), "clone")
	gitEnvInAllow(t, filepath.Dir(clone), "clone", "-q", dir, clone)
	otherHome := t.TempDir()
	// Claude Code: started in the project
	_, args := mcpEntry(t, filepath.Join(clone, ".mcp.json"))
	if r := serveOnce(t, clone, otherHome, pathDir, args); r.code != 0 || !strings.Contains(r.stdout, `"serverInfo"`) {
		t.Fatalf("the clone's .mcp.json entry: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(clone, ".journal", "journal.db")); err != nil {
		t.Fatalf("the clone's server made no journal in the clone: %v", err)
	}
	// ... or in a subdirectory of it: the workspace is found from there up
	sub := filepath.Join(clone, ".claude")
	if r := serveOnce(t, sub, otherHome, pathDir, args); r.code != 0 {
		t.Fatalf("from a subdirectory: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(sub, ".journal")); err == nil {
		t.Errorf("serve from a subdirectory made a journal there instead of serving the clone's")
	}
	// Cursor: started in /, ${workspaceFolder} expanded to the clone
	clone2 := filepath.Join(t.TempDir(), "clone2")
	gitEnvInAllow(t, filepath.Dir(clone2), "clone", "-q", dir, clone2)
	_, args = mcpEntry(t, filepath.Join(clone2, ".cursor", "mcp.json"))
	for i := range args {
		args[i] = strings.ReplaceAll(args[i], "${workspaceFolder}", clone2)
	}
	if r := serveOnce(t, "/", otherHome, pathDir, args); r.code != 0 {
		t.Fatalf("the clone's .cursor/mcp.json entry: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(clone2, ".journal", "journal.db")); err != nil {
		t.Fatalf("Cursor's entry made no journal in the clone: %v", err)
	}
	// a desktop client starts its servers in the home directory: refused
	r = serveOnce(t, otherHome, otherHome, pathDir, []string{"serve"})
	if r.code == 0 || !strings.Contains(r.stderr, "give it the workspace") {
		t.Errorf("serve without --root in the home directory: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(otherHome, ".journal")); err == nil {
		t.Errorf("serve refused in the home directory made a journal there")
	}
}

// TestInit_EarlierForm: files an earlier journal init wrote — hooks
// running the binary by its absolute path, the MCP entry with --root
// naming the workspace — and committed. doctor names each committed file
// with its paths and says to run journal init again; --undo of that state
// gives the files their bytes back. journal init rewrites journal's
// entries in their place in the form every clone runs (the user's server
// beside it kept), doctor then has nothing to say, and --undo still takes
// everything out: the fixture's bytes back.
func TestInit_EarlierForm(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	for _, f := range []string{"claude-code", "codex"} {
		copyFixture(t, filepath.Join("..", "..", "testdata", "init", f), dir)
	}
	orig := tree(t, dir)
	old := "/opt/journal-0.9/bin/journal" // the binary of the teammate who ran init
	if r := runIn(t, dir, home, "init", "--no-mcp", "--bin", old, "claude-code", "codex"); r.code != 0 {
		t.Fatalf("init: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// the MCP entries as the earlier binary wrote them, and their record
	mcpPath := filepath.Join(dir, ".mcp.json")
	earlier(t, dir, mcpPath, "\n  }\n}", `,
    "journal": {
      "type": "stdio",
      "command": "`+old+`",
      "args": [
        "serve",
        "--root",
        "`+dir+`"
      ]
    }
  }
}`)
	earlier(t, dir, filepath.Join(dir, ".codex", "config.toml"), "", "\n# journal init: begin (journal init --undo removes this block)\n[mcp_servers.journal]\ncommand = \""+old+"\"\nargs = [\"serve\", \"--root\", \""+dir+"\"]\n# journal init: end\n")

	os.WriteFile(filepath.Join(dir, ".gitignore"), []byte(".journal/\n"), 0o644)
	gitEnvInAllow(t, dir, "init", "-q", "-b", "main")
	gitEnvInAllow(t, dir, "add", "-A")
	gitEnvInAllow(t, dir, "commit", "-qm", "with an earlier init's files")
	r := runIn(t, dir, home, "doctor")
	for _, w := range []string{
		"!!  committed paths    .codex/config.toml is committed (git tracks it) and names this machine's " + dir + "; " + old + ", not on this machine",
		"!!  committed paths    .codex/hooks.json is committed (git tracks it) and names " + old + ", not on this machine",
		"!!  committed paths    .claude/settings.json is committed (git tracks it) and names " + old + ", not on this machine",
		"!!  committed paths    .mcp.json is committed (git tracks it) and names this machine's " + dir + "; " + old + ", not on this machine",
		"run `journal init` again here",
	} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("doctor lacks %q:\n%s", w, r.stdout)
		}
	}
	if r.code != 1 {
		t.Errorf("doctor: exit %d", r.code)
	}

	// --undo of the earlier form, as it is: the fixture's bytes
	undone := filepath.Join(t.TempDir(), "undone")
	if out, err := exec.Command("cp", "-a", dir, undone).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	cmd := exec.Command(bin, "init", "--undo")
	cmd.Dir, cmd.Env = undone, []string{"HOME=" + home, "PATH=/usr/bin:/bin"}
	// the record names dir's files: point it at the copy's
	b, _ := os.ReadFile(filepath.Join(undone, ".journal", "init.json"))
	os.WriteFile(filepath.Join(undone, ".journal", "init.json"), []byte(strings.ReplaceAll(string(b), dir, undone)), 0o600)
	if r := runCmd(t, cmd); r.code != 0 {
		t.Fatalf("undo of the earlier form: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	got := tree(t, undone)
	for p, want := range orig {
		if got[p] != want {
			t.Errorf("undo of the earlier form: %s is\n%s\nwant\n%s", p, got[p], want)
		}
	}

	// init again: journal's entries rewritten in place
	r = runIn(t, dir, home, "init", "--bin", "journal", "claude-code", "codex")
	if r.code != 0 || !strings.Contains(r.stdout, "updated .claude/settings.json") || !strings.Contains(r.stdout, "updated .mcp.json") ||
		!strings.Contains(r.stdout, "updated .codex/config.toml") || !strings.Contains(r.stdout, "updated .codex/hooks.json") {
		t.Fatalf("init over the earlier form: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if c, args := mcpEntry(t, mcpPath); c != "journal" || !slices.Equal(args, []string{"serve"}) {
		t.Errorf(".mcp.json: %q %q", c, args)
	}
	b, _ = os.ReadFile(mcpPath)
	if !strings.Contains(string(b), `"github": {`) || strings.Count(string(b), `"journal": {`) != 1 {
		t.Errorf(".mcp.json after init:\n%s", b)
	}
	b, _ = os.ReadFile(filepath.Join(dir, ".claude", "settings.json"))
	if strings.Contains(string(b), old) || strings.Count(string(b), `"journal hook claude-code"`) != 9 {
		t.Errorf(".claude/settings.json after init (9 hooks running journal, none %s):\n%s", old, b)
	}
	b, _ = os.ReadFile(filepath.Join(dir, ".codex", "config.toml"))
	if !strings.HasSuffix(string(b), "\n\n# journal init: begin (journal init --undo removes this block)\n[mcp_servers.journal]\ncommand = \"journal\"\nargs = [\"serve\"]\n# journal init: end\n") || strings.Count(string(b), "[mcp_servers.journal]") != 1 {
		t.Errorf(".codex/config.toml after init:\n%s", b)
	}
	if r := runIn(t, dir, home, "doctor"); !strings.Contains(r.stdout, "ok  committed paths") {
		t.Errorf("doctor after init:\n%s", r.stdout)
	}
	if r := runIn(t, dir, home, "init", "--bin", "journal", "claude-code", "codex"); !strings.Contains(r.stdout, "nothing to do") {
		t.Errorf("a second init: %s%s", r.stdout, r.stderr)
	}
	if r := runIn(t, dir, home, "init", "--undo"); r.code != 0 {
		t.Fatalf("undo: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	got = tree(t, dir)
	for p, want := range orig {
		if got[p] != want {
			t.Errorf("after --undo %s is\n%s\nwant\n%s", p, got[p], want)
		}
	}
}

// earlier makes file p as an earlier binary's init left it — text put in
// place of the first at (appended when at is "") — and records it in the
// workspace's init.json as that init did.
func earlier(t *testing.T, dir, p, at, text string) {
	t.Helper()
	before, _ := os.ReadFile(p)
	after := string(before) + text
	if at != "" {
		after = strings.Replace(string(before), at, text, 1)
	}
	os.WriteFile(p, []byte(after), 0o644)
	recPath := filepath.Join(dir, ".journal", "init.json")
	var rec struct {
		Files []map[string]any `json:"files"`
	}
	b, _ := os.ReadFile(recPath)
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(after))
	rec.Files = append(rec.Files, map[string]any{"agent": "codex", "path": p, "before": before, "mode": 0o644,
		"after": hex.EncodeToString(sum[:]), "toml": strings.HasSuffix(p, ".toml")})
	if strings.HasSuffix(p, ".mcp.json") {
		rec.Files[len(rec.Files)-1]["agent"] = "claude-code"
	}
	b, _ = json.MarshalIndent(rec, "", "  ")
	os.WriteFile(recPath, b, 0o600)
}
