package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLines_WriteCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.txt")
	m := newLines(1000, bigLine)
	if err := m.write(path); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); st.Size() != 50*1000 {
		t.Fatalf("size = %d, want 50 bytes per line", st.Size())
	}
	if err := m.check(path); err != nil {
		t.Fatalf("check of the file just written: %v", err)
	}
	m.set(500, "changed")
	if err := m.check(path); err == nil || !strings.Contains(err.Error(), "line 501") {
		t.Fatalf("check after a model change: %v, want a difference at line 501", err)
	}
	if err := m.write(path); err != nil {
		t.Fatal(err)
	}
	if err := m.check(path); err != nil {
		t.Fatal(err)
	}
	if got := m.line(500); got != "changed" {
		t.Fatalf("line(500) = %q", got)
	}
	if got := m.line(7); got != "L00000007 lorem ipsum dolor sit amet, consectetur" {
		t.Fatalf("line(7) = %q", got)
	}
}

func TestLines_CheckTrailingContentAndMissingNewline(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.txt")
	m := newLines(3, smallLine)
	if err := m.write(path); err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("extra\n")
	f.Close()
	if err := m.check(path); err == nil {
		t.Fatal("check passed with an extra line")
	}
	content := m.line(0) + "\n" + m.line(1) + "\n" + m.line(2) // no final newline
	os.WriteFile(path, []byte(content), 0o644)
	if err := m.check(path); err == nil {
		t.Fatal("check passed without the final newline")
	}
}

func TestGenerators_UniqueLines(t *testing.T) {
	seen := map[string]bool{}
	for _, g := range []func([]byte, int) []byte{smallLine, batchLine(3), batchLine(4)} {
		for i := 0; i < 300; i++ {
			l := string(g(nil, i))
			if seen[l] {
				t.Fatalf("line %q is not unique", l)
			}
			seen[l] = true
		}
	}
	// a search text must not occur inside another line
	for l := range seen {
		for o := range seen {
			if l != o && strings.Contains(o, l) {
				t.Fatalf("%q occurs inside %q", l, o)
			}
		}
	}
}

func TestReplacement_Deterministic(t *testing.T) {
	a, b := newRNG(7), newRNG(7)
	for i := 0; i < 5; i++ {
		if x, y := replacement(a, "t", i, 3), replacement(b, "t", i, 3); x != y {
			t.Fatalf("%q != %q", x, y)
		}
	}
}

func TestDu(t *testing.T) {
	dir := t.TempDir()
	if got := du(filepath.Join(dir, "missing")); got != 0 {
		t.Fatalf("du(missing) = %d", got)
	}
	os.WriteFile(filepath.Join(dir, "a"), make([]byte, 10000), 0o644)
	if got := du(dir); got < 10000 {
		t.Fatalf("du = %d, want at least the file's 10000 bytes", got)
	}
}
