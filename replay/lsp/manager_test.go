package lsp_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/journalfs/journal/replay/lsp"
)

func TestManager_Available(t *testing.T) {
	dir := workspace(t, map[string]string{"notes.txt": "x\n"})
	cfg := lsp.DefaultConfig()
	cfg.Servers = append(cfg.Servers, lsp.ServerConfig{Language: "zig", Extensions: []string{".zig"}, Command: []string{"zls-that-is-not-installed"}})
	m := lsp.NewManager(cfg, []string{dir})
	defer m.Close()
	for _, c := range []struct{ path, why string }{
		{filepath.Join(dir, "notes.txt"), "no language server for .txt"},
		{filepath.Join(dir, "Makefile"), "no language server for Makefile"},
		{filepath.Join(dir, "main.zig"), "zls-that-is-not-installed not found on PATH"},
	} {
		ok, why := m.Available(c.path)
		if ok || why != c.why {
			t.Errorf("Available(%s) = %v, %q; want false, %q", filepath.Base(c.path), ok, why, c.why)
		}
	}
	_, err := m.Rename(testCtx(t), filepath.Join(dir, "main.zig"), 1, 0, "x")
	if !errors.Is(err, lsp.ErrNoServer) || !strings.Contains(err.Error(), "zls-that-is-not-installed not found on PATH") {
		t.Errorf("Rename without a server: %v, want ErrNoServer naming the binary", err)
	}

	off := lsp.NewManager(lsp.Config{Disabled: true, Servers: lsp.DefaultConfig().Servers}, []string{dir})
	defer off.Close()
	if ok, why := off.Available(filepath.Join(dir, "main.go")); ok || why != "disabled" {
		t.Errorf("disabled manager: Available = %v, %q", ok, why)
	}

	need(t, "gopls")
	if ok, why := m.Available(filepath.Join(dir, "main.go")); !ok {
		t.Errorf("Available(main.go) = false, %q with gopls installed", why)
	}
}

func TestManager_RestartsKilledServer(t *testing.T) {
	_, m, def, line, col := goGreet(t)
	ctx := testCtx(t)
	// An overlay the restarted server must see again: the rename is
	// computed on it (a second function renamed along).
	overlay := read(t, def) + "\n// Twice greets twice.\nfunc Twice(n string) string { return Greet(n) + Greet(n) }\n"
	if err := m.Overlay(ctx, def, []byte(overlay)); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Rename(ctx, def, line, col, "Salute"); err != nil {
		t.Fatal(err)
	}
	first := m.Servers()
	if len(first) != 1 || !first[0].Running {
		t.Fatalf("servers %+v, want one running gopls", first)
	}
	if err := syscall.Kill(first[0].PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for m.Servers()[0].Running && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if m.Servers()[0].Running {
		t.Fatal("killed server still reported running")
	}
	edits, err := m.Rename(ctx, def, line, col, "Salute")
	if err != nil {
		t.Fatalf("rename after kill: %v", err)
	}
	second := m.Servers()
	if len(second) != 1 || !second[0].Running || second[0].PID == first[0].PID {
		t.Fatalf("servers after restart %+v (before %+v)", second, first)
	}
	for _, fe := range edits {
		if fe.Path != def {
			continue
		}
		got, err := lsp.ApplyEdits([]byte(overlay), fe.Edits)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(got), "return Salute(n) + Salute(n)") {
			t.Fatalf("rename after restart ignored the overlay:\n%s", got)
		}
		return
	}
	t.Fatalf("no edits for %s in %+v", def, edits)
}

func TestManager_Overlay_TooLarge(t *testing.T) {
	need(t, "gopls")
	dir := workspace(t, map[string]string{"go.mod": "module example.com/m\n\ngo 1.22\n", "big.go": "package m\n"})
	m := manager(t, dir)
	big := make([]byte, lsp.MaxDocument+1)
	err := m.Overlay(testCtx(t), filepath.Join(dir, "big.go"), big)
	if !errors.Is(err, lsp.ErrUnsupported) || !strings.Contains(err.Error(), "big.go") {
		t.Fatalf("Overlay of %d bytes: %v, want ErrUnsupported naming the file", len(big), err)
	}
}

// TestManager_FailedStartBacksOff: a server that cannot start is reported
// unavailable with the reason, and tried again once the backoff has passed.
func TestManager_FailedStartBacksOff(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "main.go")
	if err := os.WriteFile(file, []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := lsp.NewManager(lsp.Config{Servers: []lsp.ServerConfig{{Language: "go", Extensions: []string{".go"},
		Command: []string{"sh", "-c", "exit 3"}}}}, []string{dir})
	defer m.Close()
	if err := m.Overlay(context.Background(), file, []byte("package main\n")); err == nil {
		t.Fatal("a server that exits at once started")
	}
	ok, why := m.Available(file)
	if ok || why == "" {
		t.Fatalf("after a failed start: Available = %v, %q", ok, why)
	}
	defer lsp.SetStartBackoff(0)()
	if ok, why := m.Available(file); !ok {
		t.Fatalf("after the backoff: Available = %v, %q", ok, why)
	}
}
