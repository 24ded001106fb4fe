package replay_test

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay"
	"github.com/journalfs/journal/snapshot"
)

var ctx = context.Background()

func open(t testing.TB, dir string) *replay.Engine {
	t.Helper()
	e, err := replay.Open(replay.Options{Roots: []string{dir}, Actor: journal.Actor{Kind: "mcp", Name: "test", Session: "s1"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func write(t testing.TB, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t testing.TB, dir, name string) (string, bool) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if errors.Is(err, fs.ErrNotExist) {
		return "", false
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b), true
}

func mustRead(t testing.TB, dir, name string) string {
	t.Helper()
	s, ok := read(t, dir, name)
	if !ok {
		t.Fatalf("%s does not exist", name)
	}
	return s
}

// snapshotDir returns every regular file under dir (outside .journal) with its content.
func snapshotDir(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == journal.DirName {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() {
			b, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			out[filepath.ToSlash(rel)] = string(b)
		}
		return nil
	})
	return out
}

func temps(dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && replay.IsTemp(d.Name()) {
			out = append(out, p)
		}
		return nil
	})
	return out
}

func verifyChain(t testing.TB, e *replay.Engine) *journal.VerifyReport {
	t.Helper()
	var r *journal.VerifyReport
	err := e.Journal().View(func(tx *journal.Tx) (err error) { r, err = tx.Verify(true, nil); return })
	if err != nil {
		t.Fatalf("chain: %v", err)
	}
	return r
}

func lastEvent(t testing.TB, e *replay.Engine) *journal.Event {
	t.Helper()
	var ev *journal.Event
	err := e.Journal().View(func(tx *journal.Tx) (err error) { ev, err = tx.Event(tx.Last()); return })
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

func equalMaps(a, b map[string]string) (string, bool) {
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return k, false
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			return k, false
		}
	}
	return "", true
}

func short(s string) string {
	if len(s) > 60 {
		return s[:60] + "..."
	}
	return strings.ReplaceAll(s, "\n", "⏎")
}

// openStreaming opens an engine on dir that streams files of 64 KiB and more.
func openStreaming(t testing.TB, dir string) *replay.Engine {
	t.Helper()
	e, err := replay.Open(replay.Options{Roots: []string{dir}, StreamThreshold: 64 << 10,
		Actor: journal.Actor{Kind: "mcp", Name: "test", Session: "s1"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// streamEdit replaces the bytes at off of a large file with the same number
// of bytes, with, by streaming, calling mid (if set) once the bytes before
// off are copied. It returns the version the batch saw before the edit.
func streamEdit(e *replay.Engine, name string, off int, with string, mid func()) (snapshot.ID, *replay.Result, error) {
	var before snapshot.ID
	res, err := e.Edit(ctx, func(r *replay.Reader) (*replay.Batch, error) {
		f, err := r.Read(name)
		if err != nil {
			return nil, err
		}
		before = f.ID
		src := func(w io.Writer) error {
			in, err := r.Open(f.Path)
			if err != nil {
				return err
			}
			defer in.Close()
			if _, err := io.CopyN(w, in, int64(off)); err != nil {
				return err
			}
			if mid != nil {
				mid()
			}
			io.WriteString(w, with)
			in.(io.Seeker).Seek(int64(len(with)), io.SeekCurrent)
			_, err = io.Copy(w, in)
			return err
		}
		return &replay.Batch{Changes: []replay.Change{{Path: name, Source: src}}}, nil
	})
	return before, res, err
}

// mustStreamEdit is streamEdit that fails the test on an error.
func mustStreamEdit(t testing.TB, e *replay.Engine, name string, off int, with string) (snapshot.ID, *replay.Result) {
	t.Helper()
	before, res, err := streamEdit(e, name, off, with, nil)
	if err != nil {
		t.Fatal(err)
	}
	return before, res
}

// writeAll writes each file of names under dir, its name as its content.
func writeAll(t *testing.T, dir string, names ...string) {
	t.Helper()
	for _, n := range names {
		write(t, dir, n, n+"\n")
	}
}
