package replay_test

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay"
)

// fileState is a file as the rewind tests compare it: its content and mode.
type fileState struct {
	data string
	mode fs.FileMode
}

// dirState is every file of dir (outside .journal) with its content and mode.
func dirState(t testing.TB, dir string) map[string]fileState {
	t.Helper()
	out := map[string]fileState{}
	for name, data := range snapshotDir(t, dir) {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		out[name] = fileState{data, fi.Mode().Perm()}
	}
	return out
}

// sameState fails the test where got differs from want.
func sameState(t testing.TB, what string, got, want map[string]fileState) {
	t.Helper()
	for name, w := range want {
		if g, ok := got[name]; !ok || g != w {
			t.Errorf("%s: %s is %+v (exists %t), want %+v", what, name, g, ok, w)
		}
	}
	for name, g := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("%s: %s exists (%q), want it absent", what, name, short(g.data))
		}
	}
}

func batch(t testing.TB, e *replay.Engine, b *replay.Batch) uint64 {
	t.Helper()
	res, err := e.Apply(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	return res.Seq
}

// rewindWorkspace makes five events over five files — creates, edits, a
// delete, a mode change, a large (streamed) file, a file in a new
// directory — and returns the workspace as it was after event 2.
func rewindWorkspace(t *testing.T, dir string, e *replay.Engine) map[string]fileState {
	t.Helper()
	big := strings.Repeat("a line of a large file\n", 4000) // streamed: over the engine's 64 KiB
	batch(t, e, &replay.Batch{Tool: "t", Changes: []replay.Change{
		{Path: "a.txt", Data: []byte("a1\n")}, {Path: "b.txt", Data: []byte("b1\n")}, {Path: "big.txt", Data: []byte(big)}}})
	batch(t, e, &replay.Batch{Tool: "t", Changes: []replay.Change{
		{Path: "a.txt", Data: []byte("a2\n")}, {Path: "c.txt", Data: []byte("c1\n")}}})
	at2 := dirState(t, dir)
	batch(t, e, &replay.Batch{Tool: "t", Changes: []replay.Change{
		{Path: "b.txt", Delete: true}, {Path: "c.txt", Data: []byte("c2\n")}, {Path: "a.txt", Data: []byte("a2\n"), Mode: 0o755}}})
	batch(t, e, &replay.Batch{Tool: "t", Changes: []replay.Change{
		{Path: "d/new.txt", Data: []byte("new\n")}, {Path: "big.txt", Data: []byte(big + "one more\n")}}})
	batch(t, e, &replay.Batch{Tool: "t", Changes: []replay.Change{{Path: "c.txt", Data: []byte("c3\n"), Mode: 0o600}}})
	return at2
}

// TestRewind_WholeWorkspace: a rewind to event 2 recreates the deleted
// file, removes the files created since, puts contents and modes back
// (a large file streamed from the store), as ONE restore event; one undo
// brings every file back exactly, and a redo rewinds again.
func TestRewind_WholeWorkspace(t *testing.T) {
	dir := t.TempDir()
	e := openStreaming(t, dir)
	at2 := rewindWorkspace(t, dir, e)
	write(t, dir, "a.txt", "a2, edited outside\n") // not journaled: recorded before the rewind overwrites it
	os.Chmod(filepath.Join(dir, "a.txt"), 0o755)
	now := dirState(t, dir)

	res, err := e.Rewind(ctx, 2, replay.RevertOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sameState(t, "after the rewind", dirState(t, dir), at2)
	if _, err := os.Stat(filepath.Join(dir, "d")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the directory d, made by d/new.txt's creation after event 2 and left empty: %v, want it removed", err)
	}
	if len(res.Observed) != 1 {
		t.Errorf("observed %v, want one event for a.txt's outside edit", res.Observed)
	}
	ev := lastEvent(t, e)
	if ev.Seq != res.Seq || ev.Kind != journal.KindRestore || ev.Tool != "restore" || ev.Status != journal.StatusCommitted {
		t.Fatalf("the rewind's event: %+v (result %d)", ev, res.Seq)
	}
	var args struct{ At, Files int }
	if err := json.Unmarshal(ev.Args, &args); err != nil || args.At != 2 || args.Files != 5 {
		t.Fatalf("args %s", ev.Args)
	}
	what := map[string]string{}
	for _, f := range ev.Files {
		what[f.Path] = replay.RewindChange(f)
	}
	wantWhat := map[string]string{"a.txt": "modified", "b.txt": "created", "c.txt": "modified", "d/new.txt": "deleted", "big.txt": "modified"}
	if len(what) != len(wantWhat) {
		t.Errorf("the event's files: %v", what)
	}
	for p, w := range wantWhat {
		if what[p] != w {
			t.Errorf("%s: %q, want %q (%v)", p, what[p], w, what)
		}
	}

	// one undo takes the whole rewind back, the outside edit included
	u, err := e.Undo(ctx, replay.RevertOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ue := lastEvent(t, e); ue.Seq != u.Seq || ue.Reverts != res.Seq {
		t.Fatalf("the undo reverts %d, want the rewind %d", ue.Reverts, res.Seq)
	}
	sameState(t, "after undoing the rewind", dirState(t, dir), now) // d/new.txt back in its directory
	if _, err := e.Redo(ctx, replay.RevertOptions{}); err != nil {
		t.Fatal(err)
	}
	sameState(t, "after redoing the rewind", dirState(t, dir), at2)
	if _, err := e.Rewind(ctx, 2, replay.RevertOptions{}); !errors.Is(err, replay.ErrNothing) {
		t.Fatalf("a second rewind to 2: %v, want ErrNothing", err)
	}
	verifyChain(t, e)
}

// TestRewind_DryRun lists each file with what the rewind would do to it —
// created, modified, deleted, mode — and writes nothing.
func TestRewind_DryRun(t *testing.T) {
	dir := t.TempDir()
	e := openStreaming(t, dir)
	rewindWorkspace(t, dir, e)
	batch(t, e, &replay.Batch{Tool: "t", Changes: []replay.Change{{Path: "c.txt", Data: []byte("c1\n"), Mode: 0o644}}})
	before := dirState(t, dir)
	last := lastEvent(t, e).Seq
	res, err := e.Rewind(ctx, 2, replay.RevertOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	sameState(t, "after a dry run", dirState(t, dir), before)
	if got := lastEvent(t, e).Seq; got != last || res.Seq != 0 {
		t.Fatalf("a dry run made event %d (result %d)", got, res.Seq)
	}
	got := map[string]string{}
	for _, f := range res.Files {
		got[f.Path] = replay.RewindChange(f)
		if f.Path == "a.txt" && (f.BeforeMode != 0o755 || f.AfterMode != 0o644) {
			t.Errorf("a.txt's modes %o -> %o, want 755 -> 644", f.BeforeMode, f.AfterMode)
		}
		if f.Path == "big.txt" && f.After.IsZero() {
			t.Error("big.txt (streamed) is planned with no content")
		}
	}
	want := map[string]string{"a.txt": "mode", "b.txt": "created", "d/new.txt": "deleted", "big.txt": "modified"}
	if len(got) != len(want) {
		t.Fatalf("planned %v, want %v", got, want)
	}
	for p, w := range want {
		if got[p] != w {
			t.Errorf("%s: %q, want %q", p, got[p], w)
		}
	}
	if len(res.Planned) != len(res.Files) {
		t.Fatalf("%d planned changes for %d files", len(res.Planned), len(res.Files))
	}
}

// TestRewind_Baseline: a file a watcher's baseline first recorded after the
// rewind's event existed then with a content the journal never saw: the
// rewind leaves it alone, while it removes a file an event created; a
// rewind to the baseline or later restores the baseline's file too.
func TestRewind_Baseline(t *testing.T) {
	dir := t.TempDir()
	e := open(t, dir)
	batch(t, e, &replay.Batch{Tool: "t", Changes: []replay.Change{{Path: "x.txt", Data: []byte("x1\n")}}})
	write(t, dir, "y.txt", "y as first seen\n") // there all along; a watcher's scan finds it
	obs, err := e.Observe(ctx, replay.Observation{Paths: []string{"y.txt"}, Tool: journal.ToolWatch, Baseline: true})
	if err != nil {
		t.Fatal(err)
	}
	ev := lastEvent(t, e)
	if !ev.IsBaseline() || len(obs.Events) != 1 || ev.Seq != obs.Events[0] || !ev.Files[0].Before.IsZero() {
		t.Fatalf("the baseline event: %+v (observed %+v)", ev, obs)
	}
	base := ev.Seq
	batch(t, e, &replay.Batch{Tool: "t", Changes: []replay.Change{{Path: "y.txt", Data: []byte("y edited\n")}, {Path: "x.txt", Data: []byte("x2\n")}}})
	batch(t, e, &replay.Batch{Tool: "t", Changes: []replay.Change{{Path: "z.txt", Data: []byte("z\n")}}})

	if _, err := e.Rewind(ctx, 1, replay.RevertOptions{}); err != nil {
		t.Fatal(err)
	}
	sameState(t, "rewound to 1", dirState(t, dir), map[string]fileState{"x.txt": {"x1\n", 0o644}, "y.txt": {"y edited\n", 0o644}})
	for _, f := range lastEvent(t, e).Files {
		if f.Path == "y.txt" {
			t.Fatalf("the rewind changed y.txt: %+v", f)
		}
	}
	if _, err := e.Undo(ctx, replay.RevertOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Rewind(ctx, base, replay.RevertOptions{}); err != nil {
		t.Fatal(err)
	}
	sameState(t, "rewound to the baseline", dirState(t, dir), map[string]fileState{"x.txt": {"x1\n", 0o644}, "y.txt": {"y as first seen\n", 0o644}})
}

// TestRewind_RolledBackIgnored: a rolled-back event changed nothing, so a
// rewind to it gives the state of the event before it.
func TestRewind_RolledBackIgnored(t *testing.T) {
	dir := t.TempDir()
	e := open(t, dir)
	apply(t, e, "f.txt", "1\n")
	e.SetFault(func(step, path string) error {
		if step == "rename" {
			return errors.New("injected")
		}
		return nil
	})
	if _, err := e.Apply(ctx, &replay.Batch{Changes: []replay.Change{{Path: "f.txt", Data: []byte("2\n")}, {Path: "g.txt", Data: []byte("g\n")}}}); err == nil {
		t.Fatal("fault not injected")
	}
	e.SetFault(nil)
	rb := lastEvent(t, e)
	if rb.Status != journal.StatusRolledBack {
		t.Fatalf("status %s", rb.Status)
	}
	apply(t, e, "f.txt", "3\n", "g.txt", "g3\n")
	if _, err := e.Rewind(ctx, rb.Seq, replay.RevertOptions{}); err != nil {
		t.Fatal(err)
	}
	sameState(t, "rewound to a rolled-back event", dirState(t, dir), map[string]fileState{"f.txt": {"1\n", 0o644}})
}

// TestRewind_Refused: an event that does not exist, a stale preview, a
// path that is now a symbolic link or leads out of the root, and a rewind
// with nothing to do are refused with their errors, and nothing is written.
func TestRewind_Refused(t *testing.T) {
	dir := t.TempDir()
	e := open(t, dir)
	apply(t, e, "a.txt", "a1\n")
	apply(t, e, "a.txt", "a2\n", "d/b.txt", "b\n")
	last := apply(t, e, "c.txt", "c\n")
	for _, seq := range []uint64{0, last + 1} {
		_, err := e.Rewind(ctx, seq, replay.RevertOptions{})
		if !errors.Is(err, replay.ErrBadEvent) || !strings.Contains(err.Error(), "does not exist") {
			t.Errorf("rewind to %d: %v, want ErrBadEvent", seq, err)
		}
	}
	if _, err := e.Rewind(ctx, last, replay.RevertOptions{}); !errors.Is(err, replay.ErrNothing) {
		t.Errorf("rewind to the newest event: %v, want ErrNothing", err)
	}
	if _, err := e.Rewind(ctx, 1, replay.RevertOptions{Through: last - 1}); !errors.Is(err, replay.ErrConflict) {
		t.Errorf("a rewind whose preview saw event %d of %d: %v, want ErrConflict", last-1, last, err)
	}

	before := dirState(t, dir)
	outside := t.TempDir()
	write(t, outside, "b.txt", "b\n")
	if err := os.RemoveAll(filepath.Join(dir, "d")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "d")); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Rewind(ctx, 1, replay.RevertOptions{}); !errors.Is(err, replay.ErrOutsideRoot) {
		t.Errorf("d/ a link out of the root: %v, want ErrOutsideRoot", err)
	}
	os.Remove(filepath.Join(dir, "d"))
	write(t, dir, "d/b.txt", "b\n")
	os.Remove(filepath.Join(dir, "c.txt"))
	if err := os.Symlink("a.txt", filepath.Join(dir, "c.txt")); err != nil {
		t.Fatal(err)
	}
	var pe *replay.PathError
	if _, err := e.Rewind(ctx, 1, replay.RevertOptions{}); !errors.Is(err, replay.ErrInvalidPath) || !errors.As(err, &pe) || pe.Path != "c.txt" {
		t.Errorf("c.txt a symbolic link: %v, want ErrInvalidPath on c.txt", err)
	}
	if got := mustRead(t, dir, "a.txt"); got != before["a.txt"].data {
		t.Errorf("a refused rewind wrote a.txt: %q", got)
	}
	if got, _ := os.ReadFile(filepath.Join(outside, "b.txt")); string(got) != "b\n" {
		t.Errorf("a refused rewind wrote outside the root: %q", got)
	}
	if ev := lastEvent(t, e); ev.Seq != last {
		t.Errorf("a refused rewind made event %d", ev.Seq)
	}
}

// TestRewind_OtherRoots: a file of a second root is rewound by an engine
// with both roots, and left alone by one that serves the first root only.
func TestRewind_OtherRoots(t *testing.T) {
	r1, r2 := t.TempDir(), t.TempDir()
	two, err := replay.Open(replay.Options{Roots: []string{r1, r2}})
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(r2, "o.txt")
	apply(t, two, "a.txt", "a1\n", other, "o1\n")
	apply(t, two, "a.txt", "a2\n", other, "o2\n")
	if err := two.Close(); err != nil {
		t.Fatal(err)
	}
	one := open(t, r1)
	if _, err := one.Rewind(ctx, 1, replay.RevertOptions{}); err != nil {
		t.Fatal(err)
	}
	if mustRead(t, r1, "a.txt") != "a1\n" || mustRead(t, r2, "o.txt") != "o2\n" {
		t.Fatalf("one root's rewind: a.txt %q, o.txt %q", mustRead(t, r1, "a.txt"), mustRead(t, r2, "o.txt"))
	}
	if _, err := one.Undo(ctx, replay.RevertOptions{}); err != nil {
		t.Fatal(err)
	}
	one.Close()
	two, err = replay.Open(replay.Options{Roots: []string{r1, r2}})
	if err != nil {
		t.Fatal(err)
	}
	defer two.Close()
	if _, err := two.Rewind(ctx, 1, replay.RevertOptions{}); err != nil {
		t.Fatal(err)
	}
	if mustRead(t, r1, "a.txt") != "a1\n" || mustRead(t, r2, "o.txt") != "o1\n" {
		t.Fatalf("both roots' rewind: a.txt %q, o.txt %q", mustRead(t, r1, "a.txt"), mustRead(t, r2, "o.txt"))
	}
}

// TestRewind_ModeOnlyUndone: a rewind that changes only a file's mode is
// taken back by an undo, and by the undo of the whole session, which put
// the mode back though the content is already as before.
func TestRewind_ModeOnlyUndone(t *testing.T) {
	dir := t.TempDir()
	e := open(t, dir)
	apply(t, e, "run.sh", "echo hi\n")
	batch(t, e, &replay.Batch{Tool: "chmod", Changes: []replay.Change{{Path: "run.sh", Data: []byte("echo hi\n"), Mode: 0o755}}})
	person := journal.Actor{Kind: "mcp", Name: "test", Session: "s2"}
	for _, undo := range []func() error{
		func() error { _, err := e.Undo(ctx, replay.RevertOptions{}); return err },
		func() error { _, err := e.UndoSession(ctx, "s2", replay.RevertOptions{}); return err },
	} {
		res, err := e.Rewind(ctx, 1, replay.RevertOptions{Actor: &person})
		if err != nil {
			t.Fatal(err)
		}
		if f := lastEvent(t, e).Files; len(f) != 1 || replay.RewindChange(f[0]) != "mode" || res.Files[0].AfterMode != 0o644 {
			t.Fatalf("the rewind's files: %+v", f)
		}
		sameState(t, "rewound", dirState(t, dir), map[string]fileState{"run.sh": {"echo hi\n", 0o644}})
		if err := undo(); err != nil {
			t.Fatal(err)
		}
		sameState(t, "undone", dirState(t, dir), map[string]fileState{"run.sh": {"echo hi\n", 0o755}})
	}
}

// TestRewind_AbsentUnderAFile: a file to be absent whose directory is a
// file now cannot exist, and does not stop the rewind of the others.
func TestRewind_AbsentUnderAFile(t *testing.T) {
	dir := t.TempDir()
	e := open(t, dir)
	apply(t, e, "a.txt", "a1\n")
	apply(t, e, "a.txt", "a2\n", "d/new.txt", "new\n")
	if err := os.RemoveAll(filepath.Join(dir, "d")); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "d", "a file where the directory was\n")
	if _, err := e.Rewind(ctx, 1, replay.RevertOptions{}); err != nil {
		t.Fatal(err)
	}
	sameState(t, "rewound", dirState(t, dir), map[string]fileState{"a.txt": {"a1\n", 0o644}, "d": {"a file where the directory was\n", 0o644}})
}

// TestRewind_PrunesOnlyEmptyDirs: the directories a rewound creation made
// go where the rewind leaves them empty; one that holds a file the journal
// never saw stays, with that file.
func TestRewind_PrunesOnlyEmptyDirs(t *testing.T) {
	dir := t.TempDir()
	e := openStreaming(t, dir)
	first := batch(t, e, &replay.Batch{Tool: "t", Changes: []replay.Change{{Path: "a.txt", Data: []byte("a\n")}}})
	batch(t, e, &replay.Batch{Tool: "t", Changes: []replay.Change{{Path: "x/y/new.txt", Data: []byte("new\n")}, {Path: "p/q/r.txt", Data: []byte("r\n")}}})
	write(t, dir, "x/keep.txt", "a person's file, never journaled\n")
	if _, err := e.Rewind(ctx, first, replay.RevertOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, gone := range []string{"x/y", "p/q", "p"} {
		if _, err := os.Stat(filepath.Join(dir, gone)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: %v, want it removed (made by a creation the rewind took back, left empty)", gone, err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "x/keep.txt")); err != nil || string(b) != "a person's file, never journaled\n" {
		t.Errorf("x/keep.txt: %q %v, want it kept with its directory", b, err)
	}
	if _, err := e.Undo(ctx, replay.RevertOptions{}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "p/q/r.txt")); err != nil || string(b) != "r\n" {
		t.Errorf("after the undo p/q/r.txt: %q %v", b, err)
	}
}
