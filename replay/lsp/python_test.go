package lsp_test

import (
	"errors"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/journalfs/journal/replay/lsp"
)

// pyProject has a function pkg.greet.greet used from three modules (a
// from-import, a module alias, a dotted import); b.py has multi-byte text
// before the call on the same line.
func pyProject(tb testing.TB) string {
	return workspace(tb, map[string]string{
		"pkg/__init__.py": "",
		"pkg/greet.py":    "def greet(name: str) -> str:\n    return \"hello \" + name\n",
		"pkg/a.py":        "from pkg.greet import greet\n\n\ndef a() -> str:\n    return greet(\"a\")\n",
		"pkg/b.py":        "from pkg import greet as g\n\n\ndef b() -> str:\n    s = \"😀é\"; return s + g.greet(\"b\")\n",
		"main.py":         "import pkg.greet\nfrom pkg.a import a\nfrom pkg.b import b\n\nprint(pkg.greet.greet(\"m\"), a(), b())\n",
	})
}

func TestManager_Rename_Python(t *testing.T) {
	need(t, "pyright-langserver")
	dir := pyProject(t)
	after := renameAt(t, manager(t, dir), dir, "pkg/greet.py", "def greet", len("def "), "salute",
		"main.py", "pkg/a.py", "pkg/b.py", "pkg/greet.py")
	contains(t, after, map[string]string{
		"pkg/a.py": "from pkg.greet import salute\n\n\ndef a() -> str:\n    return salute(\"a\")\n",
		"pkg/b.py": "s = \"😀é\"; return s + g.salute(\"b\")\n",
		"main.py":  "print(pkg.greet.salute(\"m\"), a(), b())\n",
	})
	cmd := exec.Command("python3", "main.py")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil || string(out) != "hello m hello a 😀éhello b\n" {
		t.Fatalf("python3 main.py after rename: %v\n%s", err, out)
	}
}

func TestManager_Diagnostics_PythonOverlayBreaksCallers(t *testing.T) {
	need(t, "pyright-langserver")
	dir := pyProject(t)
	m := manager(t, dir)
	ctx := testCtx(t)
	def := filepath.Join(dir, "pkg/greet.py")
	before, err := m.Diagnostics(ctx, def)
	if err != nil {
		t.Fatal(err)
	}
	if got := summary(t, dir, before); len(got) != 0 {
		t.Fatalf("clean project has errors: %q", got)
	}
	broken := strings.Replace(read(t, def), "def greet(name: str)", "def greet(name: str, times: int)", 1)
	if err := m.Overlay(ctx, def, []byte(broken)); err != nil {
		t.Fatal(err)
	}
	after, err := m.Diagnostics(ctx, def)
	if err != nil {
		t.Fatal(err)
	}
	// pyright (diagnosticMode workspace) checks files that are not open.
	want := map[string][]string{
		"main.py":  {`5:6 Argument missing for parameter "times"`},
		"pkg/a.py": {`5:11 Argument missing for parameter "times"`},
		"pkg/b.py": {`5:29 Argument missing for parameter "times"`},
	}
	if got := summary(t, dir, after); !reflect.DeepEqual(got, want) {
		t.Fatalf("diagnostics after breaking overlay:\n got %q\nwant %q", got, want)
	}
}

// TestManager_ServerKilledDuringCall kills pyright while Diagnostics waits
// for its first analysis: the call fails with ErrServerExited, and the next
// call starts a new server that sees the overlay again.
func TestManager_ServerKilledDuringCall(t *testing.T) {
	need(t, "pyright-langserver")
	dir := pyProject(t)
	m := manager(t, dir)
	ctx := testCtx(t)
	def := filepath.Join(dir, "pkg/greet.py")
	broken := strings.Replace(read(t, def), "def greet(name: str)", "def greet(name: str, times: int)", 1)
	if err := m.Overlay(ctx, def, []byte(broken)); err != nil {
		t.Fatal(err)
	}
	inFlight, stop := lsp.InFlight()
	done := make(chan error, 1)
	go func() {
		_, err := m.Diagnostics(ctx, def)
		done <- err
	}()
	servers := m.Servers()
	if len(servers) != 1 {
		t.Fatalf("servers %+v", servers)
	}
	select { // the call waits on the server: kill it now
	case <-inFlight:
	case err := <-done:
		t.Fatalf("Diagnostics returned before the kill: %v", err)
	}
	stop()
	if err := syscall.Kill(servers[0].PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, lsp.ErrServerExited) {
		t.Fatalf("Diagnostics while the server was killed: %v, want ErrServerExited", err)
	}
	// The restarted server analyses the workspace anew, and may publish
	// a.py's diagnostics more than the quiet window after greet.py's: ask
	// until they are there (with the overlay lost they never would be, and
	// the context's end fails the test).
	for got := map[string][]string(nil); len(got["pkg/a.py"]) != 1; {
		ds, err := m.Diagnostics(ctx, def)
		if err != nil {
			t.Fatalf("Diagnostics after the kill (last seen %q): %v", got, err)
		}
		got = summary(t, dir, ds)
	}
	if s := m.Servers(); len(s) != 1 || s[0].PID == servers[0].PID || !s[0].Running {
		t.Fatalf("servers after restart %+v", s)
	}
}
