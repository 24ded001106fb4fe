package replay_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay"
	"github.com/journalfs/journal/snapshot"
)

// TestLastChange_NoCommit: LastChange finds the newest change of a file
// among the engine's unsealed event (a create: the intent path) and logged
// batches (an edit: the write-ahead log) as committed, without the bbolt
// commit that Journal's flush would make — the line tools ask it before
// every call, so a commit there cost every write one (mcp/repeat.go) — and
// finds the same event in the bbolt file once it is there. Content reads a
// logged version from its record, without that commit either.
func TestLastChange_NoCommit(t *testing.T) {
	defer replay.SetLogDelays(time.Hour, time.Hour)()
	dir := t.TempDir()
	write(t, dir, "other.txt", "other\n")
	e := open(t, dir)
	ctx := context.Background()
	commits := 0
	e.SetCommitFault(func() error { commits++; return nil })
	check := func(step string, want *replay.Result) {
		t.Helper()
		before := commits
		ev, after, err := e.LastChange("a.txt")
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		if ev == nil || ev.Seq != want.Seq || ev.Status != journal.StatusCommitted || after != want.Files[0].After {
			t.Fatalf("%s: LastChange = %+v, %s; want event %d committed leaving %s", step, ev, after, want.Seq, want.Files[0].After)
		}
		if commits != before {
			t.Fatalf("%s: LastChange made %d journal commits, want none", step, commits-before)
		}
	}
	if ev, _, err := e.LastChange("a.txt"); err != nil || ev != nil {
		t.Fatalf("before any change: %+v, %v; want none", ev, err)
	}
	created, err := e.Apply(ctx, &replay.Batch{Tool: "create", Changes: []replay.Change{{Path: "a.txt", Data: []byte("one\n")}}})
	if err != nil {
		t.Fatal(err)
	}
	check("unsealed create", created)
	edited, err := e.Apply(ctx, &replay.Batch{Tool: "edit", Changes: []replay.Change{{Path: "a.txt", Data: []byte("two\n")}}})
	if err != nil {
		t.Fatal(err)
	}
	check("logged edit", edited)
	before := commits
	if data, ok, err := e.Content(edited.Files[0].After, 1<<20); err != nil || !ok || string(data) != "two\n" {
		t.Fatalf("Content of the logged edit's version: %q, %v, %v", data, ok, err)
	}
	if _, ok, err := e.Content(edited.Files[0].After, 2); err != nil || ok {
		t.Fatalf("Content over max: ok %v, %v; want not ok", ok, err)
	}
	if commits != before {
		t.Fatalf("Content of a logged version made %d journal commits, want none", commits-before)
	}
	// a later batch that leaves a.txt alone is not its last change
	if _, err := e.Apply(ctx, &replay.Batch{Tool: "edit", Changes: []replay.Change{{Path: "other.txt", Data: []byte("other, edited\n")}}}); err != nil {
		t.Fatal(err)
	}
	check("after another file's edit", edited)
	if err := e.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	check("in the bbolt file", edited)
}

// TestCheckpoint_EagerAfterALargeRecord: a logged batch whose record is
// eagerCheckpoint or more is checkpointed as soon as it is done, not
// sealDelay later (an hour here): storing it takes long, better done while
// the agent reads the reply than when its next call comes, and its chunks
// compressed before the checkpoint takes the journal's lock. A small one
// waits.
func TestCheckpoint_EagerAfterALargeRecord(t *testing.T) {
	defer replay.SetLogDelays(time.Hour, time.Hour)()
	dir := t.TempDir()
	write(t, dir, "small.txt", "small\n")
	write(t, dir, "big.txt", "big\n")
	e := open(t, dir)
	ctx := context.Background()
	if _, err := e.Apply(ctx, &replay.Batch{Changes: []replay.Change{{Path: "small.txt", Data: []byte("small, edited\n")}}}); err != nil {
		t.Fatal(err)
	}
	if n := e.Logged(); n != 1 {
		t.Fatalf("after a small edit: %d batches logged, want 1 (its checkpoint waits)", n)
	}
	big := []byte(strings.Repeat("a line of a large file written whole\n", 600<<10/37))
	used := snapshot.PrecompressUsed()
	if _, err := e.Apply(ctx, &replay.Batch{Changes: []replay.Change{{Path: "big.txt", Data: big}}}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for e.Logged() > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d batches still logged 30 s after a %d-byte batch", e.Logged(), len(big))
		}
		time.Sleep(5 * time.Millisecond)
	}
	if snapshot.PrecompressUsed() == used {
		t.Error("the checkpoint compressed the large content under the journal's lock: none of its chunks was compressed ahead")
	}
}

// TestLog_ReservedAhead: a server's engine (SpareTemps) makes its log file
// at open, not in its first batch; after the timer checkpoints a run longer
// than the file, the file is grown to half a run more, so the next run as
// long grows nothing in a batch; Close empties it.
func TestLog_ReservedAhead(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "big.txt", "x\n")
	e, err := replay.Open(replay.Options{Roots: []string{dir}, Actor: journal.Actor{Kind: "mcp", Name: "test"}, SpareTemps: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	wal := replay.DefaultJournalPath(dir) + ".wal"
	size := func() int64 {
		fi, err := os.Stat(wal)
		if err != nil {
			return -1
		}
		return fi.Size()
	}
	if n := size(); n < 1<<20 {
		t.Fatalf("the log file at open: %d bytes, want it made (1 MiB)", n)
	}
	ctx := context.Background()
	restore := replay.SetLogDelays(time.Hour, time.Hour)
	for v := range 4 { // a run of 4 × 400 KB: past the file's first megabyte
		data := []byte(strings.Repeat(fmt.Sprintf("version %d of a line of the file\n", v), 400<<10/34))
		if _, err := e.Apply(ctx, &replay.Batch{Changes: []replay.Change{{Path: "big.txt", Data: data}}}); err != nil {
			t.Fatal(err)
		}
	}
	grown := size()
	restore()
	if _, err := e.Apply(ctx, &replay.Batch{Changes: []replay.Change{{Path: "big.txt", Data: []byte("small\n")}}}); err != nil { // the timer: 20 ms
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for e.Logged() > 0 || size() <= grown {
		if time.Now().After(deadline) {
			t.Fatalf("30 s after the run: %d batches logged, the log file %d bytes (the run grew it to %d)", e.Logged(), size(), grown)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if n := size(); n != 0 {
		t.Errorf("the log file after Close: %d bytes, want emptied", n)
	}
}
