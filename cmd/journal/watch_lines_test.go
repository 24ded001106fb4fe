package main_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// watching starts `journal watch` in dir and returns a function that waits for a line of its stderr
// holding s.
func watching(t *testing.T, dir string) (wait func(s string)) {
	t.Helper()
	cmd := exec.Command(bin, "watch")
	cmd.Dir = dir
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() })
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	wait = func(s string) {
		t.Helper()
		timeout := time.After(15 * time.Second)
		for {
			select {
			case l := <-lines:
				if strings.Contains(l, s) {
					return
				}
			case <-timeout:
				t.Fatalf("no %q from journal watch", s)
			}
		}
	}
	wait("watching")
	return wait
}

// numbered is n lines "line 1" ... "line n".
func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

// TestWatch_RmAndMvCountLines: the watcher's events count lines as a tool's do — an `rm` of a 33-line
// file is "D gone.md -33" — and an `mv a.md b.md` is one rename ("R a.md -> b.md", no separate
// "D a.md", no "+115") whose diff is a rename, not 115 added lines; undo puts a.md back.
func TestWatch_RmAndMvCountLines(t *testing.T) {
	dir := t.TempDir()
	files(t, dir, map[string]string{"gone.md": numbered(33), "a.md": numbered(115)})
	wait := watching(t, dir)
	bash(t, dir, `rm gone.md`)
	wait("recorded 1 file(s)")
	if out := ok(t, dir, "log", "-n", "1"); !regexp.MustCompile(`D  gone.md  -33\n`).MatchString(out) {
		t.Fatalf("rm of a 33-line file:\n%s", out)
	}
	bash(t, dir, `mv a.md b.md`)
	wait("recorded")
	out := ok(t, dir, "log", "-n", "1")
	if !strings.Contains(out, "R  a.md -> b.md\n") || strings.Contains(out, "D  a.md") || strings.Contains(out, "+115") {
		t.Fatalf("mv a.md b.md is not one rename:\n%s", out)
	}
	if one := ok(t, dir, "log", "--oneline", "-n", "1"); !strings.HasSuffix(strings.TrimSpace(one), " a.md->b.md") {
		t.Fatalf("log --oneline of the move: %s", one)
	}
	seq := strings.Fields(out)[1]
	for _, e := range logJSON(t, dir) { // nor do the event's own counts say a line changed (the web sums them)
		if fmt.Sprint(e["seq"]) == seq {
			for _, f := range e["files"].([]any) {
				if f := f.(map[string]any); f["added"] != nil || f["removed"] != nil {
					t.Fatalf("the move's %v counts lines: %v", f["path"], f)
				}
			}
		}
	}
	show := ok(t, dir, "show", seq)
	if !strings.Contains(show, "rename from a.md\nrename to b.md\n") || strings.Contains(show, "+line 1") || strings.Contains(show, "-line 1") {
		t.Fatalf("show %s of the move:\n%s", seq, show)
	}
	ok(t, dir, "undo")
	if b, err := os.ReadFile(dir + "/a.md"); err != nil || string(b) != numbered(115) {
		t.Fatalf("undo of the move: a.md %v", err)
	}
	if _, err := os.Stat(dir + "/b.md"); err == nil {
		t.Fatal("undo of the move left b.md")
	}
}
