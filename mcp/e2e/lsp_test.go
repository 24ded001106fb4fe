package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/journalfs/journal/replay/lsp"
)

// TestSDK_LanguageServerBridge drives rename propagation, rename_symbol and
// diagnostics through the TypeScript SDK against `journal serve` with gopls
// found on PATH (scripts/setup-lsp.sh installs it).
func TestSDK_LanguageServerBridge(t *testing.T) {
	requireNode(t)
	gopls := requireGopls(t)
	root := t.TempDir()
	files := map[string]string{
		"go.mod":     "module example.com/w\n\ngo 1.22\n",
		"lib/lib.go": "package lib\n\n// Greet says hello.\nfunc Greet(name string) string {\n\treturn \"hello \" + name\n}\n",
		"a/a.go":     "package a\n\nimport \"example.com/w/lib\"\n\n// Run greets.\nfunc Run() string { return lib.Greet(\"a\") }\n",
		"b/b.go":     "package b\n\nimport \"example.com/w/lib\"\n\n// Run greets.\nfunc Run() string { return lib.Greet(\"b\") }\n",
	}
	for name, content := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755)
		os.WriteFile(filepath.Join(root, name), []byte(content), 0o644)
	}
	steps := runSteps(t, "lsp.mjs", root, "PATH="+filepath.Dir(gopls)+string(os.PathListSeparator)+os.Getenv("PATH"))
	if len(steps) != 4 {
		t.Fatalf("%d steps", len(steps))
	}
	for _, s := range steps {
		if s.IsError {
			t.Fatalf("%s failed:\n%s", s.Name, s.Text)
		}
	}
	var edit struct {
		Propagated []struct {
			FilesAffected []string `json:"filesAffected"`
		} `json:"propagated"`
	}
	json.Unmarshal(steps[0].Structured, &edit)
	if len(edit.Propagated) != 1 || strings.Join(edit.Propagated[0].FilesAffected, ",") != "a/a.go,b/b.go" {
		t.Fatalf("file_edit did not propagate the rename:\n%s", steps[0].Text)
	}
	if !strings.Contains(steps[1].Text, "No problems found") {
		t.Fatalf("diagnostics after the propagated rename:\n%s", steps[1].Text)
	}
	if !strings.Contains(steps[2].Text, "a/a.go") || !strings.Contains(steps[2].Text, "b/b.go") {
		t.Fatalf("revert_edit did not take back every file of the event:\n%s", steps[2].Text)
	}
	var ren struct {
		FilesChanged []string `json:"filesChanged"`
	}
	json.Unmarshal(steps[3].Structured, &ren)
	if strings.Join(ren.FilesChanged, ",") != "lib/lib.go,a/a.go,b/b.go" {
		t.Fatalf("rename_symbol:\n%s", steps[3].Text)
	}
	for name, want := range map[string]string{"lib/lib.go": "func Hello(name string) string {\n\treturn \"hello \" + name", "a/a.go": "lib.Hello(\"a\")", "b/b.go": "lib.Hello(\"b\")"} {
		if got := readFile(t, filepath.Join(root, name)); !strings.Contains(got, want) {
			t.Fatalf("%s:\n%s", name, got)
		}
	}
	// Three events (edit, revert, rename), each visible to the CLI, after
	// the watcher's baseline of the files the server found.
	if log := runJournal(t, root, "log", "--oneline", "--no-pager"); strings.Count(log, "\n") != 4 || !strings.Contains(log, "first seen (baseline)") {
		t.Fatalf("journal log:\n%s", log)
	}
}

// requireGopls finds gopls on PATH or in GOPATH/bin, failing loudly without it.
func requireGopls(t *testing.T) string {
	t.Helper()
	if p, err := lsp.LookPath("gopls"); err == nil {
		return p
	}
	if gp, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		p := filepath.Join(strings.TrimSpace(string(gp)), "bin", "gopls")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	t.Fatal("gopls is not installed: run scripts/setup-lsp.sh")
	return ""
}

// TestServe_LanguageServerFlags: --lsp=false turns the servers off (the edit
// says why nothing was propagated), --lsp-server replaces a language's server
// (a missing binary is reported, not fatal), --lsp-config disables or
// replaces servers, and a malformed spec stops serve.
func TestServe_LanguageServerFlags(t *testing.T) {
	gopls := requireGopls(t)
	t.Setenv("PATH", filepath.Dir(gopls)+string(os.PathListSeparator)+os.Getenv("PATH"))
	edit := func(args ...string) string {
		root := t.TempDir()
		os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/w\n\ngo 1.22\n"), 0o644)
		os.WriteFile(filepath.Join(root, "m.go"), []byte("package w\n\n// F is f.\nfunc F() int { return 1 }\n\nvar x = F()\n"), 0o644)
		r := startStdio(t, root, args...)
		r.initialize("flags")
		res := r.tool("file_edit", map[string]any{"file": "m.go", "target": "F", "code": "// G is f.\nfunc G() int { return 1 }"})
		b, _ := json.Marshal(res["structuredContent"])
		return string(b)
	}
	if out := edit(); !strings.Contains(out, `"propagated":[{`) || !strings.Contains(out, `var x = G()`) {
		t.Fatalf("default: %s", out)
	}
	if out := edit("--lsp=false"); !strings.Contains(out, `"propagated":[]`) || !strings.Contains(out, "no language server is configured") {
		t.Fatalf("--lsp=false: %s", out)
	}
	if out := edit("--lsp-server", "go=no-such-gopls"); !strings.Contains(out, `"propagated":[]`) || !strings.Contains(out, "no-such-gopls") {
		t.Fatalf("--lsp-server with a missing binary: %s", out)
	}
	cfg := filepath.Join(t.TempDir(), "lsp.json")
	os.WriteFile(cfg, []byte(`{"disable":["go"]}`), 0o644)
	if out := edit("--lsp-config", cfg); !strings.Contains(out, `"propagated":[]`) || !strings.Contains(out, "no language server for .go") {
		t.Fatalf("--lsp-config disabling go: %s", out)
	}
	os.WriteFile(cfg, []byte(`{"servers":[{"language":"go","command":["gopls"],"settings":{"gopls":{"diagnosticsDelay":"50ms"}}}]}`), 0o644)
	if out := edit("--lsp-config", cfg); !strings.Contains(out, `"propagated":[{`) {
		t.Fatalf("--lsp-config replacing gopls: %s", out)
	}
	cmd := exec.Command(binary, "serve", "--root", t.TempDir(), "--lsp-server", "nonsense")
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "--lsp-server") {
		t.Fatalf("a malformed --lsp-server: %v\n%s", err, out)
	}
}
