package main_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay"
)

func readFile(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return "<absent>"
	}
	return string(b)
}

func TestRevert_DryRunThenRevert(t *testing.T) {
	dir := t.TempDir()
	e := engine(t, dir)
	apply(t, e, "write_file", "a.txt", "one\n")
	apply(t, e, "edit_file", "a.txt", "one\ntwo\n")
	out := ok(t, dir, "revert", "2", "--dry-run")
	if !strings.Contains(out, "nothing changed") || readFile(t, dir, "a.txt") != "one\ntwo\n" {
		t.Fatalf("dry run changed something or said nothing:\n%s", out)
	}
	out = ok(t, dir, "revert", "2")
	if !strings.Contains(out, "reverted event 2 as event 3") || !strings.Contains(out, "M  a.txt  -1") {
		t.Fatalf("revert output:\n%s", out)
	}
	if got := readFile(t, dir, "a.txt"); got != "one\n" {
		t.Fatalf("a.txt = %q", got)
	}
	// Reverting it again is refused with one line and a non-zero exit.
	r := run(t, dir, "revert", "2")
	if r.code == 0 || !strings.Contains(r.stderr, "already reverted by event 3") {
		t.Fatalf("second revert: %+v", r)
	}
}

func TestUndoRedoRestore(t *testing.T) {
	dir := t.TempDir()
	e := engine(t, dir)
	apply(t, e, "write_file", "a.txt", "v1\n")
	apply(t, e, "write_file", "a.txt", "v2\n")
	apply(t, e, "write_file", "a.txt", "v3\n")
	if out := ok(t, dir, "undo"); !strings.Contains(out, "undid event 3 as event 4") || readFile(t, dir, "a.txt") != "v2\n" {
		t.Fatalf("undo: %s / %q", out, readFile(t, dir, "a.txt"))
	}
	if out := ok(t, dir, "redo"); !strings.Contains(out, "redid event 4 as event 5") || readFile(t, dir, "a.txt") != "v3\n" {
		t.Fatalf("redo: %s / %q", out, readFile(t, dir, "a.txt"))
	}
	if r := run(t, dir, "undo", "--session", "nobody"); r.code == 0 || !strings.Contains(r.stderr, "no change to undo") {
		t.Fatalf("undo of an unknown session: %+v", r)
	}
	if out := ok(t, dir, "restore", "a.txt", "--at", "1"); !strings.Contains(out, "as event 6") || readFile(t, dir, "a.txt") != "v1\n" {
		t.Fatalf("restore: %s / %q", out, readFile(t, dir, "a.txt"))
	}
	// From a subdirectory, paths are relative to it and the journal is found upwards.
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	apply(t, e, "write_file", "sub/b.txt", "b1\n")
	apply(t, e, "write_file", "sub/b.txt", "b2\n")
	if out := ok(t, filepath.Join(dir, "sub"), "restore", "b.txt", "--at", "7"); !strings.Contains(out, "as event 9") {
		t.Fatalf("restore from a subdirectory: %s", out)
	}
	if got := readFile(t, dir, "sub/b.txt"); got != "b1\n" {
		t.Fatalf("sub/b.txt = %q", got)
	}
}

// TestUndoSession_CLI: `journal undo --session S --all` previews, then takes
// back everything session S did as one event (log, show and the export
// name it); an overlap later refuses it with a hint that works when re-run.
func TestUndoSession_CLI(t *testing.T) {
	dir := t.TempDir()
	e := engine(t, dir)
	apply(t, e, "write_file", "a.txt", "1\n2\n3\n")
	other := journal.Actor{Kind: "mcp", Name: "cursor", Session: "s9"}
	for _, c := range []replay.Change{{Path: "a.txt", Data: []byte("1\nTWO\n3\n")}, {Path: "b.txt", Data: []byte("b\n")}} {
		if _, err := e.Apply(context.Background(), &replay.Batch{Tool: "file_replace", Actor: &other, Changes: []replay.Change{c}}); err != nil {
			t.Fatal(err)
		}
	}
	if r := run(t, dir, "undo", "--all"); r.code != 2 || !strings.Contains(r.stderr, "--session") {
		t.Fatalf("--all without a session: %+v", r)
	}
	// a session with no events: the hint names the sessions there are
	if r := run(t, dir, "undo", "--session", "s8", "--all", "--dry-run"); r.code == 0 || !strings.Contains(r.stderr, `session "s8" has no events`) ||
		!strings.Contains(r.stderr, "hint: the sessions with events here, newest first: s9 (cursor, 2 events, the last #3)") || !strings.Contains(r.stderr, "journal log --session S") {
		t.Fatalf("undo of a session with no events: %+v", r)
	}
	if out := ok(t, dir, "undo", "--session", "s9", "--all", "--dry-run"); !strings.Contains(out, "would have undone session s9") ||
		!strings.Contains(out, "a.txt") || !strings.Contains(out, "b.txt") || readFile(t, dir, "a.txt") != "1\nTWO\n3\n" {
		t.Fatalf("dry run: %s", out)
	}
	if out := ok(t, dir, "undo", "--session", "s9", "--all"); !strings.Contains(out, "undid session s9 as event 4") || readFile(t, dir, "a.txt") != "1\n2\n3\n" {
		t.Fatalf("undo of s9: %s / %q", out, readFile(t, dir, "a.txt"))
	}
	if _, err := os.Stat(filepath.Join(dir, "b.txt")); !os.IsNotExist(err) {
		t.Fatalf("b.txt, made by s9, is still there: %v", err)
	}
	if out := ok(t, dir, "log", "--oneline"); !strings.Contains(out, "undo of session s9 (2 events)") || strings.Count(out, "reverted by 4") != 2 {
		t.Fatalf("log:\n%s", out)
	}
	if out := ok(t, dir, "show", "4"); !strings.Contains(out, "events 3, 2") {
		t.Fatalf("show:\n%s", out)
	}
	ok(t, dir, "export", "-o", filepath.Join(dir, "audit.jsonl"))
	ok(t, dir, "verify", "--export", filepath.Join(dir, "audit.jsonl"))
	if b, _ := os.ReadFile(filepath.Join(dir, "audit.jsonl")); !strings.Contains(string(b), `"undone":[3,2]`) {
		t.Fatalf("the export does not name the undone events:\n%s", b)
	}

	// redo it (revert the undo), then s1 changes the line s9 changed: the undo refuses
	ok(t, dir, "revert", "4")
	apply(t, e, "edit_file", "a.txt", "1\nTWO, then s1\n3\n")
	r := run(t, dir, "undo", "--session", "s9", "--all")
	if r.code == 0 || !strings.Contains(r.stderr, "undo of session s9: its event 2 conflicts in a.txt") || !strings.Contains(r.stderr, "--session s9 --all --force") {
		t.Fatalf("conflicting undo: %+v", r)
	}
	if out := ok(t, dir, "undo", "--session", "s9", "--all", "--force"); !strings.Contains(out, "as event 7") || readFile(t, dir, "a.txt") != "1\n2\n3\n" {
		t.Fatalf("forced undo: %s / %q", out, readFile(t, dir, "a.txt"))
	}
	ok(t, dir, "verify")
}

func TestRevert_ConflictPrintsLinesAndChangesNothing(t *testing.T) {
	dir := t.TempDir()
	e := engine(t, dir)
	apply(t, e, "write_file", "a.txt", "1\n2\n3\n4\n5\n")
	apply(t, e, "edit_file", "a.txt", "1\nTWO\n3\n4\n5\n")
	apply(t, e, "edit_file", "a.txt", "1\nTWO!\n3\n4\n5\n")
	r := run(t, dir, "revert", "2")
	if r.code == 0 || !strings.Contains(r.stderr, "journal: revert of event 2 conflicts in a.txt") ||
		!strings.Contains(r.stderr, "|") || !strings.Contains(r.stderr, "TWO!") || !strings.Contains(r.stderr, "--force") {
		t.Fatalf("conflict: %+v", r)
	}
	if got := readFile(t, dir, "a.txt"); got != "1\nTWO!\n3\n4\n5\n" {
		t.Fatalf("conflict changed a.txt: %q", got)
	}
	if out := ok(t, dir, "log", "--oneline"); strings.Count(out, "\n") != 3 {
		t.Fatalf("conflict added an event:\n%s", out)
	}
	if out := ok(t, dir, "revert", "2", "--force"); !strings.Contains(out, "as event 4") || readFile(t, dir, "a.txt") != "1\n2\n3\n4\n5\n" {
		t.Fatalf("force: %s", out)
	}
}

// rolledBack appends a rolled-back event through the journal directly, as
// another process: first it finishes what is pending (the engine's last
// batch, whose seal is deferred), as a writer does.
func rolledBack(t *testing.T, dir string) uint64 {
	e, err := replay.Open(replay.Options{Roots: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	e.Close()
	j, err := journal.Open(filepath.Join(dir, journal.DirName, journal.FileName), journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ev := &journal.Event{Time: time.Now().UTC(), Kind: journal.KindApply, Actor: agent, Tool: "write_file",
		Status: journal.StatusRolledBack, Error: "disk full", Files: []journal.FileChange{}}
	err = j.Do(func(db *journal.DB) error { return db.Update(func(tx *journal.Tx) error { return tx.Append(ev) }) })
	if err != nil {
		t.Fatal(err)
	}
	return ev.Seq
}

func TestBadInput_OneLineErrorNothingChanged(t *testing.T) {
	dir := t.TempDir()
	e := engine(t, dir)
	apply(t, e, "write_file", "a.txt", "one\n")
	rb := rolledBack(t, dir)
	ro := filepath.Join(dir, "ro")
	os.Mkdir(ro, 0o555)
	empty := t.TempDir()
	before := ok(t, dir, "export")
	for _, c := range []struct {
		dir  string
		args []string
		want string
	}{
		{dir, []string{"show", "99"}, "event 99 does not exist (the newest is 2)"},
		{dir, []string{"diff", "99"}, "event 99 does not exist"},
		{dir, []string{"revert", "99"}, "event 99 does not exist"},
		{dir, []string{"log", "never.txt"}, "never.txt: never journaled"},
		{dir, []string{"diff", "never.txt", "--from", "1"}, "never.txt: never journaled"},
		{dir, []string{"restore", "never.txt", "--at", "1"}, "never.txt: has no journaled state"},
		{dir, []string{"revert", itoa(rb)}, "is rolled_back: it changed nothing"},
		{dir, []string{"export", "-o", filepath.Join(ro, "x", "out.jsonl")}, "export: cannot write"},
		{dir, []string{"show", "abc"}, `"abc" is not an event number`},
		{dir, []string{"gc"}, "gc needs --keep"},
		{empty, []string{"log"}, "no journal found in"},
		{empty, []string{"--journal", filepath.Join(empty, "nope.db"), "status"}, "no journal found"},
	} {
		r := run(t, c.dir, c.args...)
		lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
		if r.code == 0 || !strings.HasPrefix(lines[0], "journal: ") || !strings.Contains(lines[0], c.want) ||
			len(lines) > 2 || r.stdout != "" {
			t.Errorf("journal %s: exit %d\nstdout %q\nstderr %q\nwant one line containing %q", strings.Join(c.args, " "), r.code, r.stdout, r.stderr, c.want)
		}
	}
	if after := ok(t, dir, "export"); after != before {
		t.Fatalf("bad input changed the journal")
	}
	if _, err := os.Stat(filepath.Join(empty, journal.DirName)); err == nil {
		t.Fatalf("a failed command created a journal")
	}
	if entries, _ := os.ReadDir(ro); len(entries) != 0 {
		t.Fatalf("failed export left %v", entries)
	}
}

// TestConcurrent_WhileAnotherProcessWrites runs every read-only command (and
// a revert) while an engine keeps applying batches to the same journal.
func TestConcurrent_WhileAnotherProcessWrites(t *testing.T) {
	dir := t.TempDir()
	e := engine(t, dir)
	apply(t, e, "write_file", "a.txt", "one\n")
	apply(t, e, "write_file", "b.txt", "bee\n")
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			b := &replay.Batch{Tool: "write_file", Changes: []replay.Change{{Path: "busy.txt", Data: []byte(strings.Repeat("x\n", i%50+1))}}}
			if _, err := e.Apply(context.Background(), b); err != nil {
				t.Error(err)
				return
			}
			time.Sleep(5 * time.Millisecond) // an agent between tool calls
		}
	}()
	for _, args := range [][]string{{"log", "-n", "5"}, {"show", "1"}, {"diff", "1"}, {"status"}, {"export"},
		{"verify"}, {"revert", "2"}, {"log", "--json"}} {
		ok(t, dir, args...)
	}
	close(stop)
	wg.Wait()
	ok(t, dir, "verify")
}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }

// TestDryRun_ShowsTheDiff: revert N, restore F --at N and undo --session S --all, each with --dry-run,
// print the diff of what they would write (from the file on disk), --stat one line per file with its line
// counts — never "M args.go <hash> -> <hash>" — and change nothing.
func TestDryRun_ShowsTheDiff(t *testing.T) {
	dir := t.TempDir()
	e := engine(t, dir)
	apply(t, e, "write_file", "args.go", "package main\n\nfunc a() {}\nfunc b() {}\n", "x/new.txt", "hi\n")
	apply(t, e, "edit_file", "args.go", "package main\n\nfunc a() {}\nfunc b() { panic(1) }\n")
	e.Close()
	wantDiff := []string{"diff --journal a/args.go b/args.go", "--- a/args.go", "+++ b/args.go", "@@ -1,4 +1,4 @@", "-func b() { panic(1) }\n", "+func b() {}\n"}
	hashes := regexp.MustCompile(`[0-9a-f]{12} -> [0-9a-f]{12}`)
	for _, c := range []struct {
		args []string
		diff []string
		stat []string
	}{
		{[]string{"revert", "2"}, wantDiff, []string{"M  args.go  +1 -1\n"}},
		{[]string{"restore", "args.go", "--at", "1"}, wantDiff, []string{"M  args.go  +1 -1\n"}},
		// the session made both files: its undo deletes them
		{[]string{"undo", "--session", "s1", "--all"}, []string{"--- a/args.go\n+++ /dev/null\n@@ -1,4 +0,0 @@\n-package main\n", "--- a/x/new.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-hi\n"},
			[]string{"D  args.go  -4\n", "D  x/new.txt  -1\n"}},
	} {
		out := ok(t, dir, append(c.args, "--dry-run")...)
		for _, w := range c.diff {
			if !strings.Contains(out, w) {
				t.Errorf("journal %s --dry-run does not show %q:\n%s", strings.Join(c.args, " "), w, out)
			}
		}
		stat := ok(t, dir, append(c.args, "--dry-run", "--stat")...)
		for _, w := range c.stat {
			if !strings.Contains(stat, w) {
				t.Errorf("journal %s --dry-run --stat does not show %q:\n%s", strings.Join(c.args, " "), w, stat)
			}
		}
		if hashes.MatchString(out) || hashes.MatchString(stat) || strings.Contains(stat, "@@") {
			t.Errorf("journal %s --dry-run shows hashes or a diff in the short form:\n%s\n%s", strings.Join(c.args, " "), out, stat)
		}
		if got := readFile(t, dir, "args.go"); got != "package main\n\nfunc a() {}\nfunc b() { panic(1) }\n" || readFile(t, dir, "x/new.txt") != "hi\n" {
			t.Fatalf("a dry run changed args.go: %q", got)
		}
	}
}
