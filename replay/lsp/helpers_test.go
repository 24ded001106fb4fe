package lsp_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/journalfs/journal/replay/lsp"
)

// TestMain points the servers' lookup at what scripts/setup-lsp.sh installs
// when JOURNAL_LSP_PATH is not set: GOPATH/bin (gopls) and
// testdata/lsp/node_modules/.bin (pyright, typescript-language-server).
func TestMain(m *testing.M) {
	if os.Getenv(lsp.PathEnv) == "" {
		var dirs []string
		if out, err := exec.Command("go", "env", "GOBIN", "GOPATH").Output(); err == nil {
			f := strings.Split(strings.TrimSpace(string(out)), "\n")
			if len(f) == 2 {
				if f[0] != "" {
					dirs = append(dirs, f[0])
				}
				dirs = append(dirs, filepath.Join(strings.Split(f[1], string(os.PathListSeparator))[0], "bin"))
			}
		}
		if abs, err := filepath.Abs("../../testdata/lsp/node_modules/.bin"); err == nil {
			dirs = append(dirs, abs)
		}
		os.Setenv(lsp.PathEnv, strings.Join(dirs, string(os.PathListSeparator)))
	}
	os.Exit(m.Run())
}

// need fails the test when a server binary is missing (scripts/test.sh runs
// scripts/setup-lsp.sh first), or skips it if JOURNAL_LSP_OPTIONAL=1.
func need(tb testing.TB, bin string) {
	tb.Helper()
	if _, err := lsp.LookPath(bin); err != nil {
		msg := bin + " not found in JOURNAL_LSP_PATH=" + os.Getenv(lsp.PathEnv) + " or PATH: run scripts/setup-lsp.sh"
		if os.Getenv("JOURNAL_LSP_OPTIONAL") == "1" {
			tb.Skip(msg)
		}
		tb.Fatal(msg)
	}
}

// workspace writes files (slash paths relative to a new temp dir) and
// returns the dir with symlinks resolved, as servers report paths.
func workspace(tb testing.TB, files map[string]string) string {
	tb.Helper()
	dir, err := filepath.EvalSymlinks(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return dir
}

// manager starts a manager with the default servers over dir, closed at
// the end of the test.
func manager(tb testing.TB, dir string) *lsp.Manager {
	tb.Helper()
	cfg := lsp.DefaultConfig()
	m := lsp.NewManager(cfg, []string{dir})
	tb.Cleanup(func() { m.Close() })
	return m
}

func testCtx(tb testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	tb.Cleanup(cancel)
	return ctx
}

// apply writes the edits to disk and returns the new contents by path.
func apply(tb testing.TB, edits []lsp.FileEdit) map[string]string {
	tb.Helper()
	out := map[string]string{}
	for _, fe := range edits {
		b, err := os.ReadFile(fe.Path)
		if err != nil {
			tb.Fatal(err)
		}
		nb, err := lsp.ApplyEdits(b, fe.Edits)
		if err != nil {
			tb.Fatalf("apply %s: %v", fe.Path, err)
		}
		if err := os.WriteFile(fe.Path, nb, 0o644); err != nil {
			tb.Fatal(err)
		}
		out[fe.Path] = string(nb)
	}
	return out
}

func read(tb testing.TB, path string) string {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// pos returns the 1-based line and byte column of the first occurrence of
// marker in a file's content (plus skip bytes).
func pos(tb testing.TB, content, marker string, skip int) (line, col int) {
	tb.Helper()
	i := strings.Index(content, marker)
	if i < 0 {
		tb.Fatalf("marker %q not found", marker)
	}
	i += skip
	line = strings.Count(content[:i], "\n") + 1
	col = i - (strings.LastIndex(content[:i], "\n") + 1)
	return line, col
}

func paths(edits []lsp.FileEdit, dir string) []string {
	var out []string
	for _, fe := range edits {
		rel, _ := filepath.Rel(dir, fe.Path)
		out = append(out, filepath.ToSlash(rel))
	}
	return out
}

func writeFile(tb testing.TB, path, content string) {
	tb.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// renameAt renames the symbol after marker (+skip bytes) in file (slash path
// under dir), checks that exactly wantFiles are edited, applies the edits
// and returns the new contents by slash path.
func renameAt(tb testing.TB, m *lsp.Manager, dir, file, marker string, skip int, newName string, wantFiles ...string) map[string]string {
	tb.Helper()
	path := filepath.Join(dir, filepath.FromSlash(file))
	line, col := pos(tb, read(tb, path), marker, skip)
	edits, err := m.Rename(testCtx(tb), path, line, col, newName)
	if err != nil {
		tb.Fatal(err)
	}
	if got := paths(edits, dir); !slices.Equal(got, wantFiles) {
		tb.Fatalf("renamed files %v, want %v", got, wantFiles)
	}
	out := map[string]string{}
	for p, c := range apply(tb, edits) {
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = c
	}
	return out
}

// contains fails unless each file's content contains its text.
func contains(tb testing.TB, contents map[string]string, want map[string]string) {
	tb.Helper()
	for file, text := range want {
		if got := contents[file]; !strings.Contains(got, text) {
			tb.Errorf("%s:\n%s\nwant it to contain:\n%s", file, got, text)
		}
	}
}

// goBuild runs go build ./... in dir.
func goBuild(tb testing.TB, dir string) {
	tb.Helper()
	cmd := exec.Command("go", "build", "./...")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("go build: %v\n%s", err, out)
	}
}

// oneDiagnostic returns the only diagnostic of file, failing unless there
// is exactly one and it has message msg.
func oneDiagnostic(tb testing.TB, m *lsp.Manager, file, msg string) lsp.Diagnostic {
	tb.Helper()
	ds, err := m.Diagnostics(testCtx(tb), file)
	if err != nil {
		tb.Fatal(err)
	}
	if len(ds.Files[file]) != 1 || ds.Files[file][0].Message != msg {
		tb.Fatalf("diagnostics %+v, want one %q", ds, msg)
	}
	return ds.Files[file][0]
}

// cleanAfterChange tells the manager file changed on disk and fails unless
// the workspace then has no diagnostics.
func cleanAfterChange(tb testing.TB, m *lsp.Manager, file string) {
	tb.Helper()
	ctx := testCtx(tb)
	m.Changed(ctx, file)
	ds, err := m.Diagnostics(ctx, file)
	if err != nil {
		tb.Fatal(err)
	}
	for p, l := range ds.Files {
		if len(l) != 0 {
			tb.Fatalf("diagnostics of %s after the change: %+v", p, l)
		}
	}
}
