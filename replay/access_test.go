package replay_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/journalfs/journal/replay"
	"github.com/journalfs/journal/snapshot"
)

func TestEngine_View_Strategies(t *testing.T) {
	dir := t.TempDir()
	small := []byte("hello\n")
	big := bytes.Repeat([]byte("0123456789abcdef\n"), 1<<14) // 272 KiB
	os.WriteFile(filepath.Join(dir, "small.txt"), small, 0o644)
	os.WriteFile(filepath.Join(dir, "big.txt"), big, 0o644)
	e, err := replay.Open(replay.Options{Roots: []string{dir}, StreamThreshold: 64 << 10})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, c := range []struct {
		name  string
		limit int64
		want  replay.Strategy
		data  []byte
	}{
		{"small.txt", 0, replay.StrategyMemory, small},
		{"big.txt", 0, replay.StrategyMmap, big},
		{"big.txt", 128 << 10, replay.StrategyStream, big},
	} {
		v, err := e.View(c.name, c.limit)
		if err != nil {
			t.Fatal(err)
		}
		if v.Strategy != c.want || v.ID != snapshot.Sum(c.data) || v.Size != int64(len(c.data)) {
			t.Fatalf("%s: %s %s %d", c.name, v.Strategy, v.ID.Short(), v.Size)
		}
		got, err := io.ReadAll(v.NewReader())
		if err != nil || !bytes.Equal(got, c.data) {
			t.Fatalf("%s: read back %d bytes, %v", c.name, len(got), err)
		}
		if (c.want == replay.StrategyStream) != (v.Data == nil) {
			t.Fatalf("%s: Data set for %s", c.name, v.Strategy)
		}
		if err := v.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.View("missing.txt", 0); !errors.Is(err, replay.ErrNotFound) {
		t.Fatalf("missing: %v", err)
	}
}

// TestEngine_View_VersionCache checks that a cached version never survives a
// change of the file, even one of the same size.
func TestEngine_View_VersionCache(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "big.txt")
	a := bytes.Repeat([]byte("a"), 200<<10)
	os.WriteFile(p, a, 0o644)
	old := time.Now().Add(-time.Hour)
	os.Chtimes(p, old, old)
	time.Sleep(150 * time.Millisecond) // past the racy margin of the change time
	e, err := replay.Open(replay.Options{Roots: []string{dir}, StreamThreshold: 64 << 10})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for range 2 {
		v, err := e.View("big.txt", 1)
		if err != nil || v.ID != snapshot.Sum(a) {
			t.Fatalf("view: %v", err)
		}
		v.Close()
	}
	b := bytes.Repeat([]byte("b"), len(a))
	os.WriteFile(p, b, 0o644)
	os.Chtimes(p, old, old) // same size and mtime: the change time still differs
	v, err := e.View("big.txt", 1)
	if err != nil || v.ID != snapshot.Sum(b) {
		t.Fatalf("stale version after a same-size rewrite: %v", err)
	}
	v.Close()
}
