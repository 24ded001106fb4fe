package lsp_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/journalfs/journal/replay/lsp"
)

// goModule is a module whose function greet.Greet is used from three
// packages; a.go has multi-byte text before the call on the same line.
func goModule(tb testing.TB) string {
	return workspace(tb, map[string]string{
		"go.mod":         "module example.com/m\n\ngo 1.22\n",
		"greet/greet.go": "package greet\n\n// Greet returns a greeting.\nfunc Greet(name string) string { return \"hello \" + name }\n",
		"a/a.go":         "package a\n\nimport \"example.com/m/greet\"\n\n// A greets a.\nfunc A() string { s := \"😀é\"; return s + greet.Greet(\"a\") }\n",
		"b/b.go":         "package b\n\nimport \"example.com/m/greet\"\n\n// B greets b.\nfunc B() string { return greet.Greet(\"b\") }\n",
		"c/c.go":         "package c\n\nimport g \"example.com/m/greet\"\n\n// C greets twice.\nfunc C() string { return g.Greet(\"c\") + g.Greet(\"cc\") }\n",
	})
}

// goGreet starts gopls over goModule and finds greet.Greet's declaration.
func goGreet(tb testing.TB) (dir string, m *lsp.Manager, def string, line, col int) {
	tb.Helper()
	need(tb, "gopls")
	dir = goModule(tb)
	def = filepath.Join(dir, "greet/greet.go")
	line, col = pos(tb, read(tb, def), "func Greet", len("func "))
	return dir, manager(tb, dir), def, line, col
}

// goFile starts gopls over a module whose only file is up/up.go.
func goFile(tb testing.TB, src string) (dir string, m *lsp.Manager, file string) {
	tb.Helper()
	need(tb, "gopls")
	dir = workspace(tb, map[string]string{"go.mod": "module example.com/m\n\ngo 1.22\n", "up/up.go": src})
	return dir, manager(tb, dir), filepath.Join(dir, "up/up.go")
}

func TestManager_Rename_Go(t *testing.T) {
	need(t, "gopls")
	dir := goModule(t)
	after := renameAt(t, manager(t, dir), dir, "greet/greet.go", "func Greet", len("func "), "Salute",
		"a/a.go", "b/b.go", "c/c.go", "greet/greet.go")
	contains(t, after, map[string]string{
		"a/a.go": `s := "😀é"; return s + greet.Salute("a")`,
		"c/c.go": `g.Salute("c") + g.Salute("cc")`,
	})
	goBuild(t, dir)
}

func TestManager_Diagnostics_GoOverlayBreaksCallers(t *testing.T) {
	need(t, "gopls")
	dir := goModule(t)
	m := manager(t, dir)
	ctx := testCtx(t)
	def := breakGreet(t, m, dir, nil)
	start := time.Now()
	after, err := m.Diagnostics(ctx, def)
	if err != nil {
		t.Fatal(err)
	}
	// Exactly the new errors: one per call of greet.Greet, in files that
	// are not open (gopls checks the whole workspace).
	want := map[string][]string{
		"a/a.go": {`6:59 not enough arguments in call to greet.Greet`},
		"b/b.go": {`6:40 not enough arguments in call to greet.Greet`},
		"c/c.go": {`6:36 not enough arguments in call to g.Greet`, `6:52 not enough arguments in call to g.Greet`},
	}
	if got := summary(t, dir, after); !reflect.DeepEqual(got, want) {
		t.Fatalf("diagnostics after breaking overlay (%v):\n got %q\nwant %q", time.Since(start), got, want)
	}
	// The workspace form (no paths) sees the same.
	all, err := m.Diagnostics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := summary(t, dir, all); !reflect.DeepEqual(got, want) {
		t.Fatalf("workspace diagnostics after breaking overlay:\n got %q\nwant %q", got, want)
	}
	if err := m.Reset(ctx, def); err != nil {
		t.Fatal(err)
	}
	again, err := m.Diagnostics(ctx, def)
	if err != nil {
		t.Fatal(err)
	}
	if got := summary(t, dir, again); len(got) != 0 {
		t.Fatalf("diagnostics after Reset: %q", got)
	}
}

// TestManager_Diagnostics_UnsettledWhileTheServerIsStopped: a document
// whose latest content the server has published nothing for when the wait
// runs out (gopls stopped with SIGSTOP after an overlay) is Unsettled, with
// why, instead of its older diagnostics passing for current ones; once the
// server runs again, the same call settles on the overlay's diagnostics.
func TestManager_Diagnostics_UnsettledWhileTheServerIsStopped(t *testing.T) {
	need(t, "gopls")
	dir := goModule(t)
	cfg := lsp.DefaultConfig()
	cfg.Max = 500 * time.Millisecond
	m := lsp.NewManager(cfg, []string{dir})
	t.Cleanup(func() { m.Close() })
	ctx := testCtx(t)
	var pid int
	def := breakGreet(t, m, dir, func() {
		pid = m.Servers()[0].PID
		if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
	})
	cont := func() { _ = syscall.Kill(pid, syscall.SIGCONT) }
	t.Cleanup(cont)
	stale, err := m.Diagnostics(ctx, def)
	if err != nil {
		t.Fatal(err)
	}
	if why := stale.Unsettled[def]; !strings.Contains(why, "gopls published no diagnostics for its latest content within") {
		t.Fatalf("a stopped server's diagnostics: Unsettled %q, want the reason for greet.go", stale.Unsettled)
	}
	cont()
	again, err := m.Diagnostics(ctx, def)
	if err != nil {
		t.Fatal(err)
	}
	if got := summary(t, dir, again); len(got["a/a.go"]) != 1 || len(got["c/c.go"]) != 2 {
		t.Fatalf("diagnostics once the server runs again: %q", got)
	}
}

// breakGreet checks that goModule in dir has no diagnostics, calls then
// (unless nil), and overlays greet.go with a Greet that takes one more
// argument; it returns greet.go's path.
func breakGreet(t *testing.T, m *lsp.Manager, dir string, then func()) string {
	t.Helper()
	ctx := testCtx(t)
	def := filepath.Join(dir, "greet/greet.go")
	clean, err := m.Diagnostics(ctx, def)
	if err != nil {
		t.Fatal(err)
	}
	if n := count(t, clean); n != 0 {
		t.Fatalf("clean module has %d diagnostics: %v", n, clean)
	}
	if then != nil {
		then()
	}
	broken := strings.Replace(read(t, def), "Greet(name string)", "Greet(name string, times int)", 1)
	if err := m.Overlay(ctx, def, []byte(broken)); err != nil {
		t.Fatal(err)
	}
	return def
}

// settled fails unless every asked path's diagnostics are of its latest
// content.
func settled(tb testing.TB, ds lsp.Diagnosed) {
	tb.Helper()
	if len(ds.Unsettled) > 0 || ds.Incomplete != "" {
		tb.Fatalf("diagnostics not settled: %v %s", ds.Unsettled, ds.Incomplete)
	}
}

// summary lists error diagnostics as "line:col first line of message" by
// slash path relative to dir.
func summary(tb testing.TB, dir string, ds lsp.Diagnosed) map[string][]string {
	tb.Helper()
	settled(tb, ds)
	out := map[string][]string{}
	for p, l := range ds.Files {
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			tb.Fatal(err)
		}
		for _, d := range l {
			if d.Severity != "error" {
				continue
			}
			msg, _, _ := strings.Cut(d.Message, "\n")
			out[filepath.ToSlash(rel)] = append(out[filepath.ToSlash(rel)], fmt.Sprintf("%d:%d %s", d.Line, d.Col, msg))
		}
	}
	return out
}

func count(tb testing.TB, ds lsp.Diagnosed) int {
	settled(tb, ds)
	n := 0
	for _, l := range ds.Files {
		n += len(l)
	}
	return n
}

func TestManager_QuickFixes_GoMissingImport(t *testing.T) {
	dir, m, file := goFile(t, "package up\n\n// Up shouts.\nfunc Up(s string) string { return strings.ToUpper(s) }\n")
	ctx := testCtx(t)
	d := oneDiagnostic(t, m, file, "undefined: strings")
	fixes, err := m.QuickFixes(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	var imp *lsp.Fix
	for i, f := range fixes {
		if strings.Contains(f.Title, `"strings"`) {
			imp = &fixes[i]
		}
	}
	if imp == nil {
		t.Fatalf("no import fix among %+v", fixes)
	}
	if imp.Kind != "quickfix" || len(imp.Edits) != 1 || imp.Edits[0].Path != file {
		t.Fatalf("import fix %+v", *imp)
	}
	apply(t, imp.Edits)
	goBuild(t, dir)
	cleanAfterChange(t, m, file)
}

func TestManager_References_Go(t *testing.T) {
	dir, m, def, line, col := goGreet(t)
	ctx := testCtx(t)
	var want []lsp.Location
	add := func(file, marker string, skip int) {
		p := filepath.Join(dir, file)
		l, c := pos(t, read(t, p), marker, skip)
		want = append(want, lsp.Location{Path: p, Line: l, Col: c, EndLine: l, EndCol: c + len("Greet")})
	}
	add("a/a.go", "greet.Greet(", len("greet."))
	add("b/b.go", "greet.Greet(", len("greet."))
	add("c/c.go", `g.Greet("c")`, len("g."))
	add("c/c.go", `g.Greet("cc")`, len("g."))
	refs, err := m.References(ctx, def, line, col, false)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(refs, want) {
		t.Fatalf("references\n got %+v\nwant %+v", refs, want)
	}
	refs, err = m.References(ctx, def, line, col, true)
	if err != nil {
		t.Fatal(err)
	}
	decl := lsp.Location{Path: def, Line: line, Col: col, EndLine: line, EndCol: col + len("Greet")}
	if len(refs) != 5 || !reflect.DeepEqual(refs[4], decl) {
		t.Fatalf("references with the declaration: %+v, want %+v last", refs, decl)
	}
}

// TestManager_Concurrent runs renames, references, overlays and diagnostics
// from several goroutines on one server (run with -race to check locking).
func TestManager_Concurrent(t *testing.T) {
	dir, m, def, line, col := goGreet(t)
	ctx := testCtx(t)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			file := filepath.Join(dir, []string{"a/a.go", "b/b.go", "c/c.go", "greet/greet.go"}[i])
			for j := range 3 {
				if _, err := m.Rename(ctx, def, line, col, fmt.Sprintf("G%d%d", i, j)); err != nil {
					errs <- err
				}
				if _, err := m.References(ctx, def, line, col, true); err != nil {
					errs <- err
				}
				if i < 3 {
					if err := m.Overlay(ctx, file, []byte(read(t, file)+fmt.Sprintf("// %d\n", j))); err != nil {
						errs <- err
					}
				}
				if _, err := m.Diagnostics(ctx, file); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if s := m.Servers(); len(s) != 1 || !s[0].Running {
		t.Fatalf("servers %+v, want one gopls", s)
	}
}

func TestManager_Close(t *testing.T) {
	need(t, "gopls")
	dir := goModule(t)
	m := lsp.NewManager(lsp.DefaultConfig(), []string{dir})
	ctx := testCtx(t)
	def := filepath.Join(dir, "greet/greet.go")
	if _, err := m.Diagnostics(ctx, def); err != nil {
		t.Fatal(err)
	}
	servers := m.Servers()
	if len(servers) != 1 {
		t.Fatalf("servers %+v", servers)
	}
	start := time.Now()
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("Close took %v", time.Since(start))
	if err := syscall.Kill(servers[0].PID, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("gopls (pid %d) after Close: kill 0 = %v, want ESRCH", servers[0].PID, err)
	}
	if _, err := m.Diagnostics(ctx, def); err == nil {
		t.Fatal("Diagnostics after Close succeeded")
	}
}

// TestManager_Changed_Go writes files behind the server's back and tells it
// with Changed: a created caller is renamed along, a changed open document is
// re-synced from disk, a deleted one is no longer renamed.
func TestManager_Changed_Go(t *testing.T) {
	dir, m, def, line, col := goGreet(t)
	ctx := testCtx(t)
	if _, err := m.Rename(ctx, def, line, col, "Salute"); err != nil {
		t.Fatal(err)
	}
	d := filepath.Join(dir, "d/d.go")
	if err := os.MkdirAll(filepath.Dir(d), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, d, "package d\n\nimport \"example.com/m/greet\"\n\nvar D = greet.Greet(\"d\")\n")
	b := filepath.Join(dir, "b/b.go")
	if err := m.Open(ctx, b); err != nil {
		t.Fatal(err)
	}
	writeFile(t, b, "package b\n\nimport \"example.com/m/greet\"\n\n// B greets b twice.\nfunc B() string { return greet.Greet(\"b\") + greet.Greet(\"b\") }\n")
	if err := os.Remove(filepath.Join(dir, "a/a.go")); err != nil {
		t.Fatal(err)
	}
	m.Changed(ctx, d, b, filepath.Join(dir, "a/a.go"))
	edits, err := m.Rename(ctx, def, line, col, "Salute")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := paths(edits, dir), []string{"b/b.go", "c/c.go", "d/d.go", "greet/greet.go"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("renamed files %v, want %v", got, want)
	}
	for _, fe := range edits {
		if fe.Path == b && len(fe.Edits) != 2 {
			t.Fatalf("b.go edits %+v, want two (the re-synced content)", fe.Edits)
		}
	}
	apply(t, edits)
	goBuild(t, dir)
}

// TestManager_OverlayThenSave_Go is the edit-before-write flow: a rename is
// asked on an overlay that adds a caller (not on disk), its edits apply to
// that overlay, the result is written and Saved, and the module builds.
func TestManager_OverlayThenSave_Go(t *testing.T) {
	need(t, "gopls")
	dir := goModule(t)
	m := manager(t, dir)
	ctx := testCtx(t)
	def, b := filepath.Join(dir, "greet/greet.go"), filepath.Join(dir, "b/b.go")
	overlay := read(t, b) + "\n// B2 is new.\nfunc B2() string { return greet.Greet(\"b2\") }\n"
	if err := m.Overlay(ctx, b, []byte(overlay)); err != nil {
		t.Fatal(err)
	}
	line, col := pos(t, read(t, def), "func Greet", len("func "))
	edits, err := m.Rename(ctx, def, line, col, "Salute")
	if err != nil {
		t.Fatal(err)
	}
	var written []string
	for _, fe := range edits {
		written = append(written, fe.Path)
		base := read(t, fe.Path)
		if fe.Path == b {
			if len(fe.Edits) != 2 {
				t.Fatalf("b.go edits %+v, want two (one in the overlay only)", fe.Edits)
			}
			base = overlay
		}
		out, err := lsp.ApplyEdits([]byte(base), fe.Edits)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, fe.Path, string(out))
		if fe.Path == b {
			if err := m.Saved(ctx, b); err != nil {
				t.Fatal(err)
			}
		}
	}
	m.Changed(ctx, written...)
	goBuild(t, dir)
	if !strings.Contains(read(t, b), `func B2() string { return greet.Salute("b2") }`) {
		t.Fatalf("b.go:\n%s", read(t, b))
	}
	ds, err := m.Diagnostics(ctx, def, b)
	if err != nil {
		t.Fatal(err)
	}
	if n := count(t, ds); n != 0 {
		t.Fatalf("diagnostics after the rename: %+v", ds)
	}
}

// TestManager_QuickFixes_GoResolved takes two fixes gopls computes lazily
// (codeAction/resolve): create a missing function, declare missing methods.
func TestManager_QuickFixes_GoResolved(t *testing.T) {
	dir, m, file := goFile(t, "package up\n\n// Up counts.\nfunc Up(s string) int { return missing(s, 2) }\n\n// I has M.\ntype I interface{ M() }\n\nvar _ I = T{}\n\n// T is no I yet.\ntype T struct{}\n")
	ctx := testCtx(t)
	ds, err := m.Diagnostics(ctx, file)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Files[file]) != 2 {
		t.Fatalf("diagnostics %+v, want two", ds)
	}
	var edits []lsp.TextEdit
	for i, want := range []string{"Create function missing", "Declare missing methods of I"} {
		fixes, err := m.QuickFixes(ctx, ds.Files[file][i])
		if err != nil {
			t.Fatal(err)
		}
		if len(fixes) == 0 || fixes[0].Title != want || len(fixes[0].Edits) != 1 || fixes[0].Edits[0].Path != file {
			t.Fatalf("fixes for %q: %+v, want %q", ds.Files[file][i].Message, fixes, want)
		}
		edits = append(edits, fixes[0].Edits[0].Edits...)
	}
	apply(t, []lsp.FileEdit{{Path: file, Edits: edits}})
	goBuild(t, dir)
	cleanAfterChange(t, m, file)
}

// TestManager_Rename_NotASymbol asks for a rename on a keyword and past
// the end of a line.
func TestManager_Rename_NotASymbol(t *testing.T) {
	_, m, def, _, _ := goGreet(t)
	ctx := testCtx(t)
	if _, err := m.Rename(ctx, def, 1, 0, "x"); err == nil || !strings.Contains(err.Error(), def+":1:0") {
		t.Errorf("rename of the package keyword: %v, want an error naming the position", err)
	}
	if _, err := m.Rename(ctx, def, 1, 99, "x"); err == nil || !strings.Contains(err.Error(), "column 99 out of range") {
		t.Errorf("rename past the end of the line: %v", err)
	}
}

// TestManager_Refresh_Go changes an open document behind the server's back
// (lines added above the call): without telling the manager which file, a
// Refresh makes the next rename's offsets those of the disk content.
func TestManager_Refresh_Go(t *testing.T) {
	dir, m, def, line, col := goGreet(t)
	ctx := testCtx(t)
	b := filepath.Join(dir, "b/b.go")
	if err := m.Open(ctx, b); err != nil {
		t.Fatal(err)
	}
	writeFile(t, b, "package b\n\nimport \"example.com/m/greet\"\n\n// Padding shifts the call.\nvar Padding = 1\n\n// B greets b.\nfunc B() string { return greet.Greet(\"b\") }\n")
	m.Refresh(ctx)
	edits, err := m.Rename(ctx, def, line, col, "Salute")
	if err != nil {
		t.Fatal(err)
	}
	apply(t, edits)
	if got := read(t, b); !strings.Contains(got, "return greet.Salute(\"b\")") {
		t.Fatalf("b.go after the rename:\n%s", got)
	}
	goBuild(t, dir)
}
