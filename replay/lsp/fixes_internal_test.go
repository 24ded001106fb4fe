package lsp

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestManager_QuickFixes_CommandCaptured declares no codeAction
// resolveSupport, so gopls answers with a command-only action
// (gopls.apply_fix): QuickFixes runs it, captures the workspace/applyEdit it
// sends back, and returns the edit while the file on disk stays as it was.
func TestManager_QuickFixes_CommandCaptured(t *testing.T) {
	if _, err := LookPath("gopls"); err != nil {
		if os.Getenv("JOURNAL_LSP_OPTIONAL") == "1" {
			t.Skip("gopls not found: run scripts/setup-lsp.sh")
		}
		t.Fatal("gopls not found: run scripts/setup-lsp.sh")
	}
	resolveEdits = false
	defer func() { resolveEdits = true }()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "up/up.go")
	src := "package up\n\n// Up shouts.\nfunc Up(s string) int { return missing(s, 2) }\n"
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	for p, c := range map[string]string{filepath.Join(dir, "go.mod"): "module example.com/m\n\ngo 1.22\n", file: src} {
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m := NewManager(DefaultConfig(), []string{dir})
	defer m.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ds, err := m.Diagnostics(ctx, file)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Files[file]) != 1 || ds.Files[file][0].Message != "undefined: missing" {
		t.Fatalf("diagnostics %+v", ds)
	}
	fixes, err := m.QuickFixes(ctx, ds.Files[file][0])
	if err != nil {
		t.Fatal(err)
	}
	if len(fixes) != 1 || fixes[0].Title != "Create function missing" || len(fixes[0].Edits) != 1 {
		t.Fatalf("fixes %+v, want Create function missing", fixes)
	}
	if b, _ := os.ReadFile(file); string(b) != src {
		t.Fatalf("the command's edit reached the disk:\n%s", b)
	}
	out, err := ApplyEdits([]byte(src), fixes[0].Edits[0].Edits)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "func missing(s string, i int) int {") {
		t.Fatalf("after the fix:\n%s", out)
	}
	if err := os.WriteFile(file, out, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "build", "./...")
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build after the fix: %v\n%s", err, b)
	}
}
