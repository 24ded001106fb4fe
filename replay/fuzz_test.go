package replay_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/journalfs/journal/replay"
)

var resolveSentinels = []error{replay.ErrInvalidPath, replay.ErrOutsideRoot}

// FuzzResolve feeds the path resolver arbitrary tool paths (relative, and
// absolute under the root): it never panics, fails only with ErrInvalidPath or
// ErrOutsideRoot, and what it accepts lies inside the root, outside .journal,
// with a clean relative name.
func FuzzResolve(f *testing.F) {
	for _, s := range []string{"a.txt", "../x", "a/../../x", "/etc/passwd", ".journal/journal.db", "sub/./b", "a\x00b", "",
		".", "..", "./.journal", "a/b/../../.journal/x", "\uff0e\uff0e/x", strings.Repeat("a", 300), "a//b", "a/./../b/"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	dir := f.TempDir()
	dir, _ = filepath.EvalSymlinks(dir)
	write(f, dir, "sub/b.txt", "b")
	e := open(f, dir)
	f.Fuzz(func(t *testing.T, p string, abs bool) {
		if abs {
			p = dir + "/" + p
		}
		rp, err := e.Resolve(p)
		if err != nil {
			ok := false
			for _, s := range resolveSentinels {
				ok = ok || errors.Is(err, s)
			}
			if !ok {
				t.Fatalf("Resolve(%q): %v wraps no sentinel", p, err)
			}
			return
		}
		rel, rerr := filepath.Rel(dir, rp.Abs())
		if rerr != nil || rel == ".." || strings.HasPrefix(rel, "../") || rel == "." {
			t.Fatalf("Resolve(%q) = %s, outside the root %s", p, rp.Abs(), dir)
		}
		if rp.Rel != filepath.ToSlash(filepath.Clean(rp.Rel)) || strings.HasPrefix(rp.Rel, "/") {
			t.Fatalf("Resolve(%q): unclean Rel %q", p, rp.Rel)
		}
		if strings.Split(rp.Rel, "/")[0] == ".journal" {
			t.Fatalf("Resolve(%q) = %q, inside the journal", p, rp.Rel)
		}
	})
}

// FuzzApply drives the engine's applier with arbitrary batches over a small
// workspace and compares it with a reference (a map of files): the result is
// what the reference gives, or an error that leaves the workspace unchanged.
// It never panics.
func FuzzApply(f *testing.F) {
	f.Add([]byte{0, 1, 'x', 1, 2, 2, 3, 0})
	f.Add([]byte{4, 0, 5, 0, 6, 0, 0, 9})
	f.Add([]byte{7, 7, 7, 7, 7, 7, 7, 7, 7})
	f.Add([]byte{0, 3, 1, 3})
	names := []string{"a.txt", "b.txt", "d/c.txt", "d/e/f.txt", "../out.txt", ".journal/x", "a.txt", "d", "", "d/c.txt/x"}
	f.Fuzz(func(t *testing.T, prog []byte) {
		if len(prog) > 64 {
			prog = prog[:64]
		}
		dir := t.TempDir()
		write(t, dir, "a.txt", "A\n")
		write(t, dir, "d/c.txt", "C\n")
		e := open(t, dir)
		ref := map[string]string{"a.txt": "A\n", "d/c.txt": "C\n"}
		b := &replay.Batch{Tool: "fuzz"}
		for i := 0; i+1 < len(prog); i += 2 {
			c := replay.Change{Path: names[int(prog[i])%len(names)]}
			switch op := prog[i+1]; {
			case op%5 == 0:
				c.Delete = true
			case op%5 == 1:
				c.Data = nil // empty file
			default:
				c.Data = bytes.Repeat([]byte{'a' + op%26}, int(op))
			}
			b.Changes = append(b.Changes, c)
		}
		before := snapshotDir(t, dir)
		_, err := e.Apply(ctx, b)
		after := snapshotDir(t, dir)
		if err != nil {
			if !sameMaps(before, after) {
				t.Fatalf("failed batch (%v) changed the workspace: %v → %v", err, before, after)
			}
			return
		}
		for _, c := range b.Changes {
			if c.Delete {
				delete(ref, c.Path)
			} else {
				ref[c.Path] = string(c.Data)
			}
		}
		for k, v := range ref {
			got, err := os.ReadFile(filepath.Join(dir, k))
			if err != nil || string(got) != v {
				t.Fatalf("%s: got %q (%v), reference %q", k, got, err, v)
			}
		}
		for k := range after {
			if _, ok := ref[k]; !ok && !strings.HasSuffix(k, "/") {
				t.Fatalf("%s on disk, not in the reference", k)
			}
		}
	})
}

func sameMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
