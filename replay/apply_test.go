package replay_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay"
	"github.com/journalfs/journal/snapshot"
)

func TestApply_CreateModifyDeleteMove(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a.txt", "one\ntwo\n")
	write(t, dir, "old/b.txt", "bee\n")
	os.Chmod(filepath.Join(dir, "a.txt"), 0o755)
	e := open(t, dir)
	res, err := e.Apply(ctx, &replay.Batch{Tool: "test", Changes: []replay.Change{
		{Path: "a.txt", Data: []byte("one\r\nTWO\r\n")},
		{Path: filepath.Join(dir, "new/deep/c.bin"), Data: []byte{0, 1, 2, 0}},
		{Path: "old/b.txt", Delete: true},
		{Path: "moved/b.txt", Data: []byte("bee\n"), MovedFrom: "old/b.txt"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Seq != 1 || len(res.Files) != 4 {
		t.Fatalf("result %+v", res)
	}
	want := map[string]string{"a.txt": "one\r\nTWO\r\n", "new/deep/c.bin": "\x00\x01\x02\x00", "moved/b.txt": "bee\n"}
	if k, ok := equalMaps(snapshotDir(t, dir), want); !ok {
		t.Fatalf("disk differs at %s: %v", k, snapshotDir(t, dir))
	}
	if fi, _ := os.Stat(filepath.Join(dir, "a.txt")); fi.Mode().Perm() != 0o755 {
		t.Fatalf("mode not preserved: %v", fi.Mode())
	}
	ev := lastEvent(t, e)
	if ev.Status != journal.StatusCommitted || ev.Tool != "test" || ev.Actor.Session != "s1" {
		t.Fatalf("event %+v", ev)
	}
	if f, _ := ev.File("a.txt"); f.Added != 2 || f.Removed != 2 || f.Before != snapshot.Sum([]byte("one\ntwo\n")) {
		t.Fatalf("file change %+v", f)
	}
	if len(temps(dir)) != 0 {
		t.Fatal("temp files left")
	}
	verifyChain(t, e)

	// Revert restores everything exactly, including the deleted file and modes.
	if _, err := e.Revert(ctx, 1, replay.RevertOptions{}); err != nil {
		t.Fatal(err)
	}
	want = map[string]string{"a.txt": "one\ntwo\n", "old/b.txt": "bee\n"}
	if k, ok := equalMaps(snapshotDir(t, dir), want); !ok {
		t.Fatalf("after revert differs at %s: %v", k, snapshotDir(t, dir))
	}
	if fi, _ := os.Stat(filepath.Join(dir, "a.txt")); fi.Mode().Perm() != 0o755 {
		t.Fatalf("mode not restored: %v", fi.Mode())
	}
}

func TestApply_ObserveOutsideChange(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "f.txt", "v1\n")
	e := open(t, dir)
	if _, err := e.Apply(ctx, &replay.Batch{Changes: []replay.Change{{Path: "f.txt", Data: []byte("v2\n")}}}); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "f.txt", "outside\n") // behind the journal's back
	st, err := e.Status()
	if err != nil || len(st.Changed) != 1 || st.Changed[0].Path != "f.txt" {
		t.Fatalf("status %+v %v", st, err)
	}
	res, err := e.Apply(ctx, &replay.Batch{Changes: []replay.Change{{Path: "f.txt", Data: []byte("v3\n")}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Observed) != 1 || res.Seq != 3 {
		t.Fatalf("want one observe event before the apply, got %+v", res)
	}
	// The outside content is recoverable: restore the file as it was after the observe event.
	if _, err := e.Restore(ctx, "f.txt", res.Observed[0], replay.RevertOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, dir, "f.txt"); got != "outside\n" {
		t.Fatalf("restored %q", got)
	}
	verifyChain(t, e)
}

func TestApply_ExpectConflict(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "f.txt", "v1\n")
	e := open(t, dir)
	stale := snapshot.Sum([]byte("v0\n"))
	_, err := e.Apply(ctx, &replay.Batch{Changes: []replay.Change{
		{Path: "g.txt", Data: []byte("new\n")},
		{Path: "f.txt", Data: []byte("v2\n"), Expect: &stale},
	}})
	if !errors.Is(err, replay.ErrConflict) {
		t.Fatalf("got %v, want ErrConflict", err)
	}
	if _, ok := read(t, dir, "g.txt"); ok {
		t.Fatal("a failed batch created a file")
	}
	absent := snapshot.ID{}
	_, err = e.Apply(ctx, &replay.Batch{Changes: []replay.Change{{Path: "f.txt", Data: []byte("x"), Expect: &absent}}})
	if !errors.Is(err, replay.ErrConflict) {
		t.Fatalf("create over existing: %v", err)
	}
}

func TestApply_NoChangeNoEvent(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "f.txt", "same\n")
	e := open(t, dir)
	res, err := e.Apply(ctx, &replay.Batch{Changes: []replay.Change{{Path: "f.txt", Data: []byte("same\n")}}})
	if err != nil || res.Seq != 0 {
		t.Fatalf("%+v %v", res, err)
	}
}

func TestResolve_BadPaths(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	write(t, outside, "secret.txt", "secret\n")
	write(t, dir, "ok.txt", "ok\n")
	os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(dir, "abs-link"))
	os.Symlink("../"+filepath.Base(outside)+"/secret.txt", filepath.Join(dir, "rel-link"))
	os.Symlink(outside, filepath.Join(dir, "dirlink"))
	os.Symlink(filepath.Join(outside, "missing"), filepath.Join(dir, "dangling"))
	os.Symlink("ok.txt", filepath.Join(dir, "inside-link"))
	os.Link(filepath.Join(outside, "secret.txt"), filepath.Join(dir, "hard"))
	e := open(t, dir)
	cases := []struct {
		path string
		want error
	}{
		{"", replay.ErrInvalidPath},
		{"a\x00b", replay.ErrInvalidPath},
		{"../x", replay.ErrOutsideRoot},
		{"a/../../x", replay.ErrOutsideRoot},
		{dir + "2/x", replay.ErrOutsideRoot},
		{filepath.Join(outside, "secret.txt"), replay.ErrOutsideRoot},
		{".journal/journal.db", replay.ErrOutsideRoot},
		{"sub/../.journal/x", replay.ErrOutsideRoot},
		{"abs-link", replay.ErrInvalidPath},
		{"rel-link", replay.ErrInvalidPath},
		{"dirlink/secret.txt", replay.ErrOutsideRoot},
		{"dangling", replay.ErrInvalidPath},
		{"inside-link", replay.ErrInvalidPath},
		{"hard", replay.ErrInvalidPath},
		{".", replay.ErrInvalidPath},
	}
	for _, c := range cases {
		_, err := e.Apply(ctx, &replay.Batch{Changes: []replay.Change{{Path: c.path, Data: []byte("pwned\n")}}})
		if !errors.Is(err, c.want) {
			t.Errorf("%q: got %v, want %v", c.path, err, c.want)
		}
	}
	if got := mustRead(t, outside, "secret.txt"); got != "secret\n" {
		t.Fatal("outside file changed")
	}
	if _, ok := read(t, outside, "missing"); ok {
		t.Fatal("dangling symlink target created")
	}
}

func TestOpen_Errors(t *testing.T) {
	if _, err := replay.Open(replay.Options{Roots: []string{filepath.Join(t.TempDir(), "missing")}}); err == nil {
		t.Fatal("missing root accepted")
	}
	ro := t.TempDir()
	os.Chmod(ro, 0o555)
	defer os.Chmod(ro, 0o755)
	if os.Geteuid() != 0 { // root ignores permissions
		if _, err := replay.Open(replay.Options{Roots: []string{ro}}); err == nil {
			t.Fatal("read-only root accepted")
		}
	}
	// A journal held by another process: a clear ErrBusy after the timeout.
	dir := t.TempDir()
	e := open(t, dir)
	err := e.Journal().Do(func(*journal.DB) error {
		e2, err := replay.Open(replay.Options{Roots: []string{dir}, LockTimeout: 100e6})
		if err == nil {
			e2.Close()
		}
		return err
	})
	if !errors.Is(err, journal.ErrBusy) {
		t.Fatalf("second opener: %v", err)
	}
}

// TestReader_Prefetch: files read ahead, several at once, read as they do
// one by one — small and streamed ones, missing ones, directories, paths
// outside the root — and an error is still the Read's.
func TestReader_Prefetch(t *testing.T) {
	for _, streamed := range []bool{false, true} {
		dir := t.TempDir()
		var e *replay.Engine
		if streamed {
			e = openStreaming(t, dir)
		} else {
			e = open(t, dir)
		}
		write(t, dir, "a.txt", "a\n")
		write(t, dir, "b.txt", strings.Repeat("b line\n", 50000))
		write(t, dir, "d/c.txt", "c\n")
		paths := []string{"a.txt", "b.txt", "a.txt", "missing.txt", "d", "../outside.txt", "d/c.txt"}
		type got struct {
			exists bool
			id     snapshot.ID
			size   int64
			data   string
			err    string
		}
		read := func(prefetch bool) []got {
			var out []got
			_, err := e.Edit(ctx, func(r *replay.Reader) (*replay.Batch, error) {
				if prefetch {
					r.Prefetch(paths)
				}
				for _, p := range paths {
					f, err := r.Read(p)
					if err != nil {
						out = append(out, got{err: err.Error()})
						continue
					}
					out = append(out, got{f.Exists, f.ID, f.Size, string(f.Data), ""})
				}
				return &replay.Batch{}, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			return out
		}
		one, ahead := read(false), read(true)
		if !reflect.DeepEqual(one, ahead) {
			t.Fatalf("streamed %v: prefetched reads differ:\n%+v\n%+v", streamed, one, ahead)
		}
		if one[0].data != "a\n" || !one[1].exists || one[3].exists || one[4].err == "" || one[5].err == "" || one[6].data != "c\n" {
			t.Fatalf("streamed %v: %+v", streamed, one)
		}
	}
}

// TestApply_ObserveOutsideChmod: a chmod made behind the journal's back is a
// change as Observe records one: Status names it, and the next batch on the
// file first records it in an observe event (content unchanged, modes 644 ->
// 755), so the batch's own event starts from the mode the disk had.
func TestApply_ObserveOutsideChmod(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a.txt", "v1\n")
	os.Chmod(filepath.Join(dir, "a.txt"), 0o644)
	e := open(t, dir)
	if _, err := e.Apply(ctx, &replay.Batch{Changes: []replay.Change{{Path: "a.txt", Data: []byte("v2\n")}}}); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(dir, "a.txt"), 0o755); err != nil {
		t.Fatal(err)
	}
	st, err := e.Status()
	if err != nil || len(st.Changed) != 1 {
		t.Fatalf("status after a chmod: %+v %v", st, err)
	}
	if d := st.Changed[0]; d.Path != "a.txt" || !d.ModeOnly() || d.HeadMode != 0o644 || d.DiskMode != 0o755 || d.Head != snapshot.Sum([]byte("v2\n")) {
		t.Fatalf("the drift: %+v", d)
	}
	res, err := e.Apply(ctx, &replay.Batch{Changes: []replay.Change{{Path: "a.txt", Data: []byte("v3\n")}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Observed) != 1 || res.Seq != 3 {
		t.Fatalf("want one observe event before the apply, got %+v", res)
	}
	ob, err := e.Event(res.Observed[0])
	if err != nil {
		t.Fatal(err)
	}
	v2 := snapshot.Sum([]byte("v2\n"))
	if f, _ := ob.File("a.txt"); ob.Kind != journal.KindObserve || f.Before != v2 || f.After != v2 || f.BeforeMode != 0o644 || f.AfterMode != 0o755 || f.Added != 0 || f.Removed != 0 {
		t.Fatalf("the observe event: %+v %+v", ob, f)
	}
	if f, _ := lastEvent(t, e).File("a.txt"); f.BeforeMode != 0o755 || f.AfterMode != 0o755 || f.Before != v2 {
		t.Fatalf("the batch's event: %+v", f)
	}
	if fi, _ := os.Stat(filepath.Join(dir, "a.txt")); fi.Mode().Perm() != 0o755 {
		t.Fatalf("the batch changed the mode: %v", fi.Mode())
	}
	if st, err := e.Status(); err != nil || len(st.Changed) != 0 {
		t.Fatalf("status after the batch: %+v %v", st, err)
	}
	verifyChain(t, e)
}
