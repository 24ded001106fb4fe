package replay_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay"
)

// TestCrashLinkChild is the child process of TestRecover_UnreachableTemp: it
// edits top.txt and sw/secret.txt in one batch and is killed (SIGKILL, by
// itself) at the second rename, so top.txt holds the new content, the temp of
// sw/secret.txt is still there and the event is pending. Its intent is a
// bbolt transaction (LogLimit -1); with JOURNAL_CRASH_LINK_LOGGED set, a
// write-ahead log record, and no event is pending: the batch is in the log.
func TestCrashLinkChild(t *testing.T) {
	o := replay.Options{Fault: killAt("rename", 2), LogLimit: -1}
	if os.Getenv("JOURNAL_CRASH_LINK_LOGGED") != "" {
		o.LogLimit = 0
	}
	crashChild(t, "JOURNAL_CRASH_LINK_ROOT", o,
		replay.Change{Path: "top.txt", Data: []byte("top, edited\n")},
		replay.Change{Path: "sw/secret.txt", Data: []byte("secret, edited\n")})
}

// crashWithTempIn runs TestCrashLinkChild on root and returns the name of the
// temp it left (relative to root).
func crashWithTempIn(t *testing.T, root string, env ...string) string {
	t.Helper()
	runKilled(t, "TestCrashLinkChild", append(env, "JOURNAL_CRASH_LINK_ROOT="+root)...)
	tmp := temps(root)
	if len(tmp) != 1 || filepath.Dir(tmp[0]) != filepath.Join(root, "sw") {
		t.Fatalf("the child should have left one temp in sw/: %v", tmp)
	}
	rel, _ := filepath.Rel(root, tmp[0])
	return filepath.ToSlash(rel)
}

// journalState is what recovery may change in a journal: its events (with
// their status and reason) and the staging list.
func journalState(t *testing.T, e *replay.Engine) (events []string, staged []string) {
	t.Helper()
	err := e.Journal().View(func(tx *journal.Tx) error {
		staged = tx.Staged()
		return tx.Each(0, false, func(ev *journal.Event) error {
			events = append(events, string(ev.Status)+" "+ev.Hash.String()+" "+ev.Error)
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return events, staged
}

// recoverTwice runs recovery twice and fails if either run changed the
// journal or the disk (inside the root and in outside).
func recoverTwice(t *testing.T, e *replay.Engine, root, outside string) {
	t.Helper()
	evs, staged := journalState(t, e)
	in, out := snapshotDir(t, root), snapshotDir(t, outside)
	for i := 0; i < 2; i++ {
		done, err := e.Recover()
		if err != nil || len(done) != 0 {
			t.Fatalf("recovery %d: rolled back %v: %v", i, done, err)
		}
		evs2, staged2 := journalState(t, e)
		if !slices.Equal(evs, evs2) || !slices.Equal(staged, staged2) {
			t.Fatalf("recovery %d changed the journal: %v %v → %v %v", i, evs, staged, evs2, staged2)
		}
		if k, ok := equalMaps(in, snapshotDir(t, root)); !ok {
			t.Fatalf("recovery %d changed %s in the root", i, k)
		}
		if k, ok := equalMaps(out, snapshotDir(t, outside)); !ok {
			t.Fatalf("recovery %d changed %s outside", i, k)
		}
	}
}

// TestRecover_UnreachableTemp: a crashed batch's temp whose directory was
// then swapped for a symbolic link outside the root (or a loop) does not hold
// up the journal: the next batch rolls the event back as far as it can
// reach, seals it rolled_back naming the temp, and succeeds; the temp is
// remembered in the staging list, and removed by the first recovery after
// the directory is back. Nothing outside the root is touched.
func TestRecover_UnreachableTemp(t *testing.T) {
	if os.Getenv("JOURNAL_CRASH_LINK_ROOT") != "" {
		t.Skip("in child")
	}
	for _, link := range []string{"outside", "loop"} {
		t.Run(link, func(t *testing.T) {
			base, _ := filepath.EvalSymlinks(t.TempDir())
			root, outside, held := filepath.Join(base, "root"), filepath.Join(base, "outside"), filepath.Join(base, "held")
			write(t, root, "top.txt", "top\n")
			write(t, root, "other.txt", "other\n")
			write(t, root, "sw/secret.txt", "secret\n")
			tmp := crashWithTempIn(t, root)
			if got := mustRead(t, root, "top.txt"); got != "top, edited\n" {
				t.Fatalf("the child should have renamed top.txt: %q", got)
			}

			outsideBefore, heldBefore := swapForLink(t, root, outside, held, tmp, link)

			e := open(t, root) // recovers
			res, err := e.Apply(ctx, &replay.Batch{Changes: []replay.Change{{Path: "other.txt", Data: []byte("other, edited\n")}}})
			if err != nil {
				t.Fatalf("a batch on another file: %v", err)
			}
			if got := mustRead(t, root, "other.txt"); got != "other, edited\n" {
				t.Fatalf("other.txt: %q", got)
			}
			if got := mustRead(t, root, "top.txt"); got != "top\n" {
				t.Fatalf("top.txt was not put back: %q", got)
			}
			var ev *journal.Event
			var staged []string
			e.Journal().View(func(tx *journal.Tx) (err error) {
				staged = tx.Staged()
				ev, err = tx.Event(res.Seq - 1)
				return
			})
			if ev == nil || ev.Status != journal.StatusRolledBack || ev.Tool != "crash" || !strings.Contains(ev.Error, tmp) {
				t.Fatalf("the crashed event is not rolled back with a reason naming %s: %+v", tmp, ev)
			}
			t.Logf("reason: %s", ev.Error)
			key := e.Roots()[0].Dir + "\x00" + tmp
			if !slices.Equal(staged, []string{key}) {
				t.Fatalf("staged %q, want %q", staged, key)
			}
			if k, ok := equalMaps(outsideBefore, snapshotDir(t, outside)); !ok {
				t.Fatalf("outside the root changed at %s", k)
			}
			if k, ok := equalMaps(heldBefore, snapshotDir(t, held)); !ok {
				t.Fatalf("the moved directory changed at %s", k)
			}
			if fi, err := os.Lstat(filepath.Join(root, "sw")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Fatalf("the link is gone: %v", err)
			}
			verifyChain(t, e)
			recoverTwice(t, e, root, outside)

			// The directory comes back: the next batch's recovery removes
			// the temp and forgets it.
			if err := os.Remove(filepath.Join(root, "sw")); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(held, filepath.Join(root, "sw")); err != nil {
				t.Fatal(err)
			}
			if _, err := e.Apply(ctx, &replay.Batch{Changes: []replay.Change{{Path: "other.txt", Data: []byte("other, again\n")}}}); err != nil {
				t.Fatal(err)
			}
			if left := temps(base); len(left) != 1 || left[0] != filepath.Join(outside, filepath.Base(tmp)) {
				t.Fatalf("temps: %v (only the outside decoy should be left)", left)
			}
			if got := mustRead(t, root, "sw/secret.txt"); got != "secret\n" {
				t.Fatalf("sw/secret.txt: %q", got)
			}
			if _, staged := journalState(t, e); len(staged) != 0 {
				t.Fatalf("still staged: %q", staged)
			}
			if k, ok := equalMaps(outsideBefore, snapshotDir(t, outside)); !ok {
				t.Fatalf("outside the root changed at %s", k)
			}
			verifyChain(t, e)
			recoverTwice(t, e, root, outside)
		})
	}
}

// swapForLink moves root/sw out of the root (to held) and puts a symbolic
// link in its place: to outside (link "outside"), which holds a decoy of the
// temp's name, or to itself ("loop"). It returns outside and held as they
// are then.
func swapForLink(t *testing.T, root, outside, held, tmp, link string) (outsideBefore, heldBefore map[string]string) {
	t.Helper()
	if err := os.Rename(filepath.Join(root, "sw"), held); err != nil {
		t.Fatal(err)
	}
	write(t, outside, filepath.Base(tmp), "outside, not ours\n")
	write(t, outside, "secret.txt", "outside secret\n")
	target := outside
	if link == "loop" {
		target = "sw"
	}
	if err := os.Symlink(target, filepath.Join(root, "sw")); err != nil {
		t.Fatal(err)
	}
	return snapshotDir(t, outside), snapshotDir(t, held)
}

// TestRecover_FileBecameLink: after a crash, a file of the pending batch is
// replaced by a symbolic link (to a file outside the root, or inside it).
// Recovery cannot read the file through the link and must not write through
// it: it leaves the link as it is, rolls the rest back, seals the event
// rolled_back naming the file, and the next batch succeeds.
func TestRecover_FileBecameLink(t *testing.T) {
	if os.Getenv("JOURNAL_CRASH_LINK_ROOT") != "" {
		t.Skip("in child")
	}
	for _, target := range []string{"outside", "inside"} {
		t.Run(target, func(t *testing.T) {
			base, _ := filepath.EvalSymlinks(t.TempDir())
			root, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
			write(t, root, "top.txt", "top\n")
			write(t, root, "other.txt", "other\n")
			write(t, root, "sw/secret.txt", "secret\n")
			write(t, outside, "top.txt", "outside top\n")
			tmp := crashWithTempIn(t, root)
			dest := filepath.Join(outside, "top.txt")
			if target == "inside" {
				dest = filepath.Join(root, "other.txt")
			}
			os.Remove(filepath.Join(root, "top.txt"))
			if err := os.Symlink(dest, filepath.Join(root, "top.txt")); err != nil {
				t.Fatal(err)
			}
			outsideBefore := snapshotDir(t, outside)

			e := open(t, root) // recovers
			res, err := e.Apply(ctx, &replay.Batch{Changes: []replay.Change{{Path: "other.txt", Data: []byte("other, edited\n")}}})
			if err != nil {
				t.Fatalf("a batch on another file: %v", err)
			}
			if l, err := os.Readlink(filepath.Join(root, "top.txt")); err != nil || l != dest {
				t.Fatalf("the link was touched: %q, %v", l, err)
			}
			if k, ok := equalMaps(outsideBefore, snapshotDir(t, outside)); !ok {
				t.Fatalf("outside the root changed at %s", k)
			}
			if got := mustRead(t, root, "sw/secret.txt"); got != "secret\n" {
				t.Fatalf("sw/secret.txt: %q", got)
			}
			if left := temps(root); len(left) != 0 {
				t.Fatalf("temps left: %v (%s)", left, tmp)
			}
			var ev *journal.Event
			e.Journal().View(func(tx *journal.Tx) (err error) { ev, err = tx.Event(res.Seq - 1); return })
			if ev == nil || ev.Status != journal.StatusRolledBack || ev.Tool != "crash" || !strings.Contains(ev.Error, "top.txt") {
				t.Fatalf("the crashed event is not rolled back with a reason naming top.txt: %+v", ev)
			}
			t.Logf("reason: %s", ev.Error)
			verifyChain(t, e)
			recoverTwice(t, e, root, outside)
		})
	}
}
