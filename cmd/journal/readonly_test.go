package main_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/journalfs/journal/replay"
)

// TestReadOnly_PersonWrites: a file made read-only (chmod 444) is refused
// to an agent's batch (replay.ErrReadOnlyFile), but a person's journal
// revert, undo and restore write it — theirs to write, as a chmod would be;
// undo and revert leave it read-only, a restore puts the mode of its event
// back with the content (issue 59 §4).
func TestReadOnly_PersonWrites(t *testing.T) {
	dir := t.TempDir()
	e := engine(t, dir)
	apply(t, e, "write_file", "a.txt", "v1\n")
	apply(t, e, "write_file", "a.txt", "v2\n")
	apply(t, e, "write_file", "a.txt", "v3\n")
	p := filepath.Join(dir, "a.txt")
	if err := os.Chmod(p, 0o444); err != nil {
		t.Fatal(err)
	}
	_, err := e.Apply(context.Background(), &replay.Batch{Tool: "write_file", Changes: []replay.Change{{Path: "a.txt", Data: []byte("agent\n")}}})
	if !errors.Is(err, replay.ErrReadOnlyFile) || !errors.Is(err, replay.ErrPermission) || readFile(t, dir, "a.txt") != "v3\n" {
		t.Fatalf("an agent's batch on a read-only file: %v, file %q", err, readFile(t, dir, "a.txt"))
	}
	ok(t, dir, "undo")
	if got := readFile(t, dir, "a.txt"); got != "v2\n" {
		t.Fatalf("undo wrote %q", got)
	}
	ok(t, dir, "revert", "2")
	if got := readFile(t, dir, "a.txt"); got != "v1\n" {
		t.Fatalf("revert wrote %q", got)
	}
	if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o444 {
		t.Fatalf("mode %v, %v: the person's undo and revert must leave it read-only", fi.Mode(), err)
	}
	// a restore puts the file as it was at that event, its mode too
	ok(t, dir, "restore", "a.txt", "--at", "3")
	if fi, err := os.Stat(p); err != nil || readFile(t, dir, "a.txt") != "v3\n" || fi.Mode().Perm() != 0o644 {
		t.Fatalf("restore: %q, mode %v, %v", readFile(t, dir, "a.txt"), fi.Mode(), err)
	}
}
