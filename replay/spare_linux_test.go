package replay_test

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay"
)

func openSpares(t *testing.T, dir string, logLimit int) *replay.Engine {
	t.Helper()
	e, err := replay.Open(replay.Options{Roots: []string{dir}, LogLimit: logLimit, SpareTemps: true,
		Actor: journal.Actor{Kind: "mcp", Name: "test", Session: "s1"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func inode(t *testing.T, p string) uint64 {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}

// withSpare returns a workspace whose a.txt an engine with spares edited
// once ("a1\n"), and the engine, holding a spare for it.
func withSpare(t *testing.T) (string, *replay.Engine) {
	t.Helper()
	dir := t.TempDir()
	write(t, dir, "a.txt", "a0\n")
	e := openSpares(t, dir, 0)
	if _, err := e.Apply(ctx, &replay.Batch{Changes: []replay.Change{{Path: "a.txt", Data: []byte("a1\n")}}}); err != nil {
		t.Fatal(err)
	}
	if n := e.Spares(); n != 1 {
		t.Fatalf("spares: %d, want 1", n)
	}
	return dir, e
}

// A serving engine's temps come from spares made after each batch: the
// files get their contents and keep their modes, a reader of the old file
// keeps reading the old content (a spare is a new inode, never an old one),
// nothing is left beside the files, and the chain verifies — by a logged
// batch and by a bbolt intent alike.
func TestSpareTemps(t *testing.T) {
	for _, mode := range []struct {
		name     string
		logLimit int
	}{{"logged", 0}, {"intent", -1}} {
		t.Run(mode.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, "a.txt", "a0\n")
			write(t, dir, "sub/b.txt", "b0\n")
			if err := os.Chmod(filepath.Join(dir, "a.txt"), 0o640); err != nil {
				t.Fatal(err)
			}
			e := openSpares(t, dir, mode.logLimit)
			apply := func(files map[string]string) {
				t.Helper()
				var cs []replay.Change
				for p, s := range files {
					cs = append(cs, replay.Change{Path: p, Data: []byte(s)})
				}
				if _, err := e.Apply(ctx, &replay.Batch{Tool: "test", Changes: cs}); err != nil {
					t.Fatal(err)
				}
			}
			apply(map[string]string{"a.txt": "a1\n"}) // no spare yet: created by name
			if n := e.Spares(); n != 1 {
				t.Fatalf("spares after the first batch: %d, want 1", n)
			}
			old, err := os.Open(filepath.Join(dir, "a.txt"))
			if err != nil {
				t.Fatal(err)
			}
			defer old.Close()
			before, ino := replay.SpareLinks(), inode(t, filepath.Join(dir, "a.txt"))
			apply(map[string]string{"a.txt": "a2\n", "sub/b.txt": "b1\n"}) // a.txt's from the spare, sub's by name
			if got := replay.SpareLinks() - before; got != 1 {
				t.Fatalf("temps from spares: %d, want 1", got)
			}
			if n := e.Spares(); n != 2 {
				t.Fatalf("spares after the second batch: %d, want 2", n)
			}
			apply(map[string]string{"a.txt": "a3\n", "sub/b.txt": "b2\n"}) // both from spares
			if got := replay.SpareLinks() - before; got != 3 {
				t.Fatalf("temps from spares: %d, want 3", got)
			}
			if got := mustRead(t, dir, "a.txt"); got != "a3\n" {
				t.Fatalf("a.txt = %q", got)
			}
			if got := mustRead(t, dir, "sub/b.txt"); got != "b2\n" {
				t.Fatalf("sub/b.txt = %q", got)
			}
			if fi, _ := os.Stat(filepath.Join(dir, "a.txt")); fi.Mode().Perm() != 0o640 {
				t.Fatalf("a.txt's mode %v, want 0640", fi.Mode().Perm())
			}
			if inode(t, filepath.Join(dir, "a.txt")) == ino {
				t.Fatal("a.txt kept its inode: it was written in place")
			}
			b := make([]byte, 16)
			n, _ := old.ReadAt(b, 0)
			if string(b[:n]) != "a1\n" {
				t.Fatalf("a reader of the old a.txt reads %q, want a1", b[:n])
			}
			if ts := temps(dir); len(ts) > 0 {
				t.Fatalf("temps left: %v", ts)
			}
			if err := e.Checkpoint(); err != nil {
				t.Fatal(err)
			}
			verifyChain(t, e)
		})
	}
}

// A spare that cannot be linked (no /proc here) leaves the batch to create
// its temp by name, and the engine stops making spares and lets go of those
// it holds.
func TestSpareTemps_Fallback(t *testing.T) {
	dir, e := withSpare(t)
	write(t, dir, "sub/b.txt", "b0\n") // a second directory, so that a spare is left when the first fails
	if _, err := e.Apply(ctx, &replay.Batch{Changes: []replay.Change{{Path: "sub/b.txt", Data: []byte("b1\n")}}}); err != nil {
		t.Fatal(err)
	}
	if n := e.Spares(); n != 2 {
		t.Fatalf("spares: %d, want 2", n)
	}
	defer replay.SetProcSelfFD(filepath.Join(dir, "no-proc") + "/")()
	before := replay.SpareLinks()
	if _, err := e.Apply(ctx, &replay.Batch{Changes: []replay.Change{{Path: "a.txt", Data: []byte("a2\n")}}}); err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, dir, "a.txt"); got != "a2\n" || replay.SpareLinks() != before {
		t.Fatalf("a.txt = %q, %d temps from spares", got, replay.SpareLinks()-before)
	}
	if !e.SparesOff() || e.Spares() != 0 {
		t.Fatalf("spares still made: off %v, %d held", e.SparesOff(), e.Spares())
	}
	if ts := temps(dir); len(ts) > 0 {
		t.Fatalf("temps left: %v", ts)
	}
}

// A step failing while a temp is written from a spare fails the batch as
// it fails one whose temp was created by name: the file as it was, no temp,
// and the next batch goes through.
func TestSpareTemps_Fault(t *testing.T) {
	for _, step := range []string{"create", "write", "written", "log", "rename"} {
		t.Run(step, func(t *testing.T) {
			dir, e := withSpare(t)
			boom := errors.New("boom")
			e.SetFault(func(s, _ string) error {
				if s == step {
					return boom
				}
				return nil
			})
			if _, err := e.Apply(ctx, &replay.Batch{Changes: []replay.Change{{Path: "a.txt", Data: []byte("a2\n")}}}); !errors.Is(err, boom) {
				t.Fatalf("err = %v, want boom", err)
			}
			if got := mustRead(t, dir, "a.txt"); got != "a1\n" {
				t.Fatalf("a.txt = %q after a failed batch", got)
			}
			if ts := temps(dir); len(ts) > 0 {
				t.Fatalf("temps left: %v", ts)
			}
			e.SetFault(nil)
			if _, err := e.Apply(ctx, &replay.Batch{Changes: []replay.Change{{Path: "a.txt", Data: []byte("a3\n")}}}); err != nil {
				t.Fatal(err)
			}
			if got := mustRead(t, dir, "a.txt"); got != "a3\n" {
				t.Fatalf("a.txt = %q", got)
			}
			if err := e.Checkpoint(); err != nil {
				t.Fatal(err)
			}
			verifyChain(t, e)
		})
	}
}
