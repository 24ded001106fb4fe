package replay_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/journalfs/journal/replay"
)

// walked lists what Walk of rel passes, leaving out the journal's directory
// ("d/" for a directory, else the file).
func walked(t *testing.T, r *replay.Root, rel string, during func(e replay.WalkEntry)) []string {
	t.Helper()
	var got []string
	err := r.Walk(rel, func(e replay.WalkEntry) error {
		if e.Rel == ".journal" {
			return fs.SkipDir
		}
		if during != nil {
			during(e)
		}
		if e.Dir {
			got = append(got, e.Rel+"/")
		} else {
			got = append(got, e.Rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// A walk passes directories and regular files in name order, each file
// with the identity a stat of it gives; it neither follows nor reports
// symbolic links (to a file or a directory outside the root), pipes, or
// skipped directories.
func TestRoot_Walk(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	write(t, outside, "secret.txt", "outside\n")
	writeAll(t, dir, "b/z.txt", "b/a.txt", "top.txt", "skip/x.txt")
	os.Symlink(outside, filepath.Join(dir, "b", "out"))
	os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(dir, "link.txt"))
	syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644)
	e := open(t, dir)
	r := e.Roots()[0]
	var stamps = map[string]replay.Stamp{}
	var got []string
	err := r.Walk(".", func(w replay.WalkEntry) error {
		if w.Rel == ".journal" || w.Rel == "skip" {
			return fs.SkipDir
		}
		got = append(got, w.Rel)
		if !w.Dir {
			stamps[w.Rel] = w.Stamp
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{".", "b", "b/a.txt", "b/z.txt", "top.txt"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("walked %q, want %q", got, want)
	}
	for rel, st := range stamps {
		fi, _ := os.Lstat(filepath.Join(dir, rel))
		if want, _ := replay.StampOf(fi); st != want {
			t.Errorf("%s: stamp %+v, a stat gives %+v", rel, st, want)
		}
	}
	if got := walked(t, r, "b", nil); !reflect.DeepEqual(got, []string{"b/", "b/a.txt", "b/z.txt"}) {
		t.Errorf("walk of b: %q", got)
	}
}

// A walk that starts at a symbolic link, a file or a missing directory
// fails, naming why; one that starts below a link fails too.
func TestRoot_Walk_BadStart(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	write(t, outside, "sub/secret.txt", "outside\n")
	writeAll(t, dir, "f.txt")
	os.Symlink(outside, filepath.Join(dir, "out"))
	r := open(t, dir).Roots()[0]
	for rel, want := range map[string]error{"out": replay.ErrInvalidPath, "out/sub": replay.ErrInvalidPath,
		"f.txt": replay.ErrInvalidPath, "gone": replay.ErrNotFound} {
		err := r.Walk(rel, func(replay.WalkEntry) error { t.Errorf("walk of %s passed an entry", rel); return nil })
		if !errors.Is(err, want) {
			t.Errorf("walk of %s: %v, want %v", rel, err, want)
		}
	}
}

// A directory replaced by a symbolic link to a directory outside the root
// after the walk found it (here: when it is passed, before it is opened) is
// not entered; nor is one replaced by another directory.
func TestRoot_Walk_DirSwapped(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	write(t, outside, "secret.txt", "outside\n")
	writeAll(t, dir, "a/in.txt", "b/in.txt", "c/in.txt")
	r := open(t, dir).Roots()[0]
	got := walked(t, r, ".", func(e replay.WalkEntry) {
		switch e.Rel {
		case "a":
			os.RemoveAll(filepath.Join(dir, "a"))
			os.Symlink(outside, filepath.Join(dir, "a"))
		case "b":
			os.Rename(filepath.Join(dir, "b"), filepath.Join(dir, "b.old"))
			write(t, dir, "b/new.txt", "new\n")
		}
	})
	want := []string{"./", "a/", "b/", "c/", "c/in.txt"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("walked %q, want %q", got, want)
	}
}

// Names removed or replaced by symbolic links between a directory's listing
// and their stat are skipped; the walk goes on.
func TestRoot_Walk_ChangedAfterListing(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	write(t, outside, "secret.txt", "outside\n")
	writeAll(t, dir, "d/gone.txt", "d/keep.txt", "d/link.txt", "d/sub/x.txt")
	r := open(t, dir).Roots()[0]
	defer replay.SetWalkListed(func(rel string, names []string) {
		if rel != "d" {
			return
		}
		os.Remove(filepath.Join(dir, "d", "gone.txt"))
		os.Remove(filepath.Join(dir, "d", "link.txt"))
		os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(dir, "d", "link.txt"))
		os.RemoveAll(filepath.Join(dir, "d", "sub"))
		os.Symlink(outside, filepath.Join(dir, "d", "sub"))
	})()
	got := walked(t, r, "d", nil)
	if want := []string{"d/", "d/keep.txt"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("walked %q, want %q", got, want)
	}
}

// A directory that cannot be opened (permission denied) is passed but not
// entered; the walk goes on with its siblings.
func TestRoot_Walk_Unreadable(t *testing.T) {
	dir := t.TempDir()
	writeAll(t, dir, "locked/x.txt", "open/y.txt")
	r := open(t, dir).Roots()[0]
	defer replay.SetWalkOpenDir(func(name string) bool { return name == "locked" }, syscall.EACCES)()
	got := walked(t, r, ".", nil)
	if want := []string{"./", "locked/", "open/", "open/y.txt"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("walked %q, want %q", got, want)
	}
	if os.Geteuid() != 0 { // the same through the file system's own refusal
		replay.SetWalkOpenDir(func(string) bool { return false }, nil)
		os.Chmod(filepath.Join(dir, "locked"), 0)
		defer os.Chmod(filepath.Join(dir, "locked"), 0o755)
		if got := walked(t, r, ".", nil); strings.Join(got, " ") != "./ locked/ open/ open/y.txt" {
			t.Fatalf("walked %q", got)
		}
	}
}

// A walk told which files need their identity stats only those: the others
// are passed from the listing's types with a zero Stamp, and the walk
// passes just what it passes with every stamp (no link, no pipe).
func TestRoot_Walk_StampOnlyAsked(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	write(t, outside, "secret.txt", "outside\n")
	writeAll(t, dir, "a.txt", "b/c.txt", "b/d/e.txt")
	os.Symlink(outside, filepath.Join(dir, "b", "out"))
	os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(dir, "link.txt"))
	syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644)
	r := open(t, dir).Roots()[0]
	var asked []string
	stamps := map[string]replay.Stamp{}
	var got []string
	err := r.WalkWith(".", func(e replay.WalkEntry) error {
		if e.Rel == ".journal" {
			return fs.SkipDir
		}
		got = append(got, e.Rel)
		if !e.Dir {
			stamps[e.Rel] = e.Stamp
		}
		return nil
	}, replay.WalkOptions{Stamp: func(rel string) bool {
		asked = append(asked, rel)
		return rel == "b/c.txt"
	}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{".", "a.txt", "b", "b/c.txt", "b/d", "b/d/e.txt"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("walked %q, want %q", got, want)
	}
	if want := []string{"a.txt", "b/c.txt", "b/d/e.txt"}; !reflect.DeepEqual(asked, want) {
		t.Errorf("asked about %q, want the regular files %q", asked, want)
	}
	fi, _ := os.Lstat(filepath.Join(dir, "b", "c.txt"))
	if want, _ := replay.StampOf(fi); stamps["b/c.txt"] != want {
		t.Errorf("b/c.txt: stamp %+v, a stat gives %+v", stamps["b/c.txt"], want)
	}
	for _, rel := range []string{"a.txt", "b/d/e.txt"} {
		if stamps[rel] != (replay.Stamp{}) {
			t.Errorf("%s: stamp %+v, though none was asked for", rel, stamps[rel])
		}
	}
}
