package replay_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/journalfs/journal/replay"
)

// openIn counts this process's descriptors open on files in dir (other
// tests' background closes do not move it).
func openIn(t *testing.T, dir string) int {
	t.Helper()
	es, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	if d, err := filepath.EvalSymlinks(dir); err == nil {
		dir = d
	}
	n := 0
	for _, e := range es {
		if target, err := os.Readlink("/proc/self/fd/" + e.Name()); err == nil && strings.HasPrefix(target, dir+string(filepath.Separator)) {
			n++
		}
	}
	return n
}

// A batch holds the old inodes of at most 64 of its files open across its
// renames (the rest are freed by the renames): a batch of 300 files does not
// hold 300 descriptors while its renames need some. By a logged batch and by
// a bbolt intent alike.
func TestApply_HoldsBoundedOldFiles(t *testing.T) {
	for _, logLimit := range []int{0, -1} {
		dir := t.TempDir()
		var cs []replay.Change
		for i := range 300 {
			name := fmt.Sprintf("f%03d.txt", i)
			write(t, dir, name, "old\n")
			cs = append(cs, replay.Change{Path: name, Data: []byte("new\n")})
		}
		e, err := replay.Open(replay.Options{Roots: []string{dir}, LogLimit: logLimit})
		if err != nil {
			t.Fatal(err)
		}
		held := 0
		e.SetFault(func(step, _ string) error {
			if step == "rename" {
				held = max(held, openIn(t, dir))
			}
			return nil
		})
		if _, err := e.Apply(ctx, &replay.Batch{Changes: cs}); err != nil {
			t.Fatal(err)
		}
		e.Close()
		if held < 64 || held > 64+4 {
			t.Fatalf("log limit %d: at most %d descriptors open on the workspace's files during the renames, want the 64 held (and a few of the batch's own)", logLimit, held)
		}
		if got := mustRead(t, dir, "f299.txt"); got != "new\n" {
			t.Fatalf("f299.txt = %q", got)
		}
	}
}
