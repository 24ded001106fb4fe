package main_test

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/journalfs/journal/replay"
)

// modeOf is a file's permission bits, or 0 when it does not exist.
func modeOf(t *testing.T, dir, name string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(filepath.Join(dir, name))
	if err != nil {
		return 0
	}
	return fi.Mode().Perm()
}

// TestRestore_Rewind_CLI: `journal restore --at N` without a path rewinds
// the whole workspace: --dry-run lists each file (created, modified,
// deleted, mode) and writes nothing, --json says the same as JSON, the
// rewind itself is one event that `journal undo` takes back — the files
// it removed come back and the one it recreated goes again.
func TestRestore_Rewind_CLI(t *testing.T) {
	dir := t.TempDir()
	e := engine(t, dir)
	apply(t, e, "write_file", "a.txt", "a1\n", "b.txt", "b1\n")
	apply(t, e, "edit_file", "a.txt", "a2\n", "c.txt", "c1\n")
	apply(t, e, "edit_file", "b.txt", nil, "c.txt", "c2\n")
	apply(t, e, "write_file", "d/new.txt", "new\n")
	if _, err := e.Apply(context.Background(), &replay.Batch{Tool: "chmod", Changes: []replay.Change{{Path: "a.txt", Data: []byte("a2\n"), Mode: 0o755}}}); err != nil {
		t.Fatal(err)
	}
	type file struct {
		data string
		mode os.FileMode
	}
	state := func() map[string]file {
		out := map[string]file{}
		for _, n := range []string{"a.txt", "b.txt", "c.txt", "d/new.txt"} {
			out[n] = file{readFile(t, dir, n), modeOf(t, dir, n)}
		}
		return out
	}
	now := state()
	at2 := map[string]file{"a.txt": {"a2\n", 0o644}, "b.txt": {"b1\n", 0o644}, "c.txt": {"c1\n", 0o644}, "d/new.txt": {"<absent>", 0}}

	out := ok(t, dir, "restore", "--at", "2", "--dry-run")
	for _, want := range []string{"dry run: would rewind the workspace to its state after event 2, changing 4 files; nothing changed",
		"    created   b.txt\n", "    deleted   d/new.txt\n", "    modified  c.txt\n", "    mode      a.txt  755 -> 644\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("dry run lacks %q:\n%s", want, out)
		}
	}
	var rep struct {
		At     uint64 `json:"at"`
		DryRun bool   `json:"dry_run"`
		Event  uint64 `json:"event"`
		Files  []struct {
			Change, Path string
			BeforeMode   uint32 `json:"before_mode"`
			AfterMode    uint32 `json:"after_mode"`
		} `json:"files"`
	}
	if err := json.Unmarshal([]byte(ok(t, dir, "restore", "--at", "2", "--dry-run", "--json")), &rep); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range rep.Files {
		got[f.Path] = f.Change
		if f.Path == "a.txt" && (f.BeforeMode != 0o755 || f.AfterMode != 0o644) {
			t.Errorf("a.txt's modes in JSON: %o -> %o", f.BeforeMode, f.AfterMode)
		}
	}
	if rep.At != 2 || !rep.DryRun || rep.Event != 0 || len(got) != 4 || got["a.txt"] != "mode" || got["b.txt"] != "created" ||
		got["c.txt"] != "modified" || got["d/new.txt"] != "deleted" {
		t.Fatalf("--json: %+v", rep)
	}
	if s := state(); !maps.Equal(s, now) {
		t.Fatalf("a dry run changed the files: %v, want %v", s, now)
	}

	out = ok(t, dir, "restore", "--at", "2")
	if !strings.Contains(out, "rewound the workspace to its state after event 2 as event 6, changing 4 files") || !strings.Contains(out, "`journal revert 6` takes it back") {
		t.Fatalf("rewind:\n%s", out)
	}
	if s := state(); !maps.Equal(s, at2) {
		t.Fatalf("after the rewind: %v, want %v", s, at2)
	}
	if _, err := os.Stat(filepath.Join(dir, "d")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the directory d, made for d/new.txt after event 2 and left empty: %v, want it removed", err)
	}
	if out := ok(t, dir, "log", "--oneline", "-n", "1"); !strings.Contains(out, "rewind to 2 a.txt,b.txt,c.txt,d/new.txt") {
		t.Errorf("log:\n%s", out)
	}
	if out := ok(t, dir, "undo"); !strings.Contains(out, "undid event 6 as event 7") {
		t.Fatalf("undo:\n%s", out)
	}
	if s := state(); !maps.Equal(s, now) {
		t.Fatalf("after the undo of the rewind: %v, want %v", s, now)
	}
	// the rewind's own event is an event like any other: a rewind to it redoes it
	if out := ok(t, dir, "restore", "--at", "6"); !strings.Contains(out, "as event 8") {
		t.Fatalf("rewind to the rewind:\n%s", out)
	}
	if s := state(); !maps.Equal(s, at2) {
		t.Fatalf("after the rewind to event 6: %v, want %v", s, at2)
	}
	ok(t, dir, "verify")

	for _, c := range []struct {
		args      []string
		code      int
		want, say string
	}{
		{[]string{"restore", "--at", "99"}, 1, "journal: event 99 does not exist (the newest is 8)", "hint: `journal log`"},
		{[]string{"restore", "--at", "8"}, 1, "already as it was after event 8", "hint: "},
		{[]string{"restore", "--at", "2", "--json", "a.txt"}, 2, "--json goes with the rewind of the whole workspace", ""},
		{[]string{"restore"}, 2, "restore needs --at N", ""},
	} {
		r := run(t, dir, c.args...)
		if r.code != c.code || !strings.Contains(r.stderr, c.want) || !strings.Contains(r.stderr, c.say) || r.stdout != "" {
			t.Errorf("journal %s: exit %d\n%s%s", strings.Join(c.args, " "), r.code, r.stdout, r.stderr)
		}
	}
	if s := state(); !maps.Equal(s, at2) {
		t.Fatalf("a refused rewind changed the files: %v", s)
	}
}

// TestRestore_Rewind_SymlinkRefused: a journaled file that is now a
// symbolic link refuses the whole rewind, with the path and a hint, and
// nothing is written.
func TestRestore_Rewind_SymlinkRefused(t *testing.T) {
	dir := t.TempDir()
	e := engine(t, dir)
	apply(t, e, "write_file", "a.txt", "a1\n", "b.txt", "b1\n")
	apply(t, e, "edit_file", "a.txt", "a2\n", "b.txt", "b2\n")
	os.Remove(filepath.Join(dir, "b.txt"))
	if err := os.Symlink("a.txt", filepath.Join(dir, "b.txt")); err != nil {
		t.Fatal(err)
	}
	r := run(t, dir, "restore", "--at", "1")
	if r.code != 1 || !strings.Contains(r.stderr, "b.txt: is a symbolic link") || !strings.Contains(r.stderr, "hint: nothing was changed: make b.txt a regular file") {
		t.Fatalf("rewind over a link: exit %d\n%s", r.code, r.stderr)
	}
	if got := readFile(t, dir, "a.txt"); got != "a2\n" {
		t.Fatalf("a refused rewind wrote a.txt: %q", got)
	}
}

// TestRestore_Rewind_ShellChanges: a shell command's changes recorded by
// `journal exec` — an edit by sed, a new file, an rm, a chmod — are
// rewound as a person would: to before the command, everything comes back
// but a file the journal first saw (a baseline) only after that point,
// which is left alone; one undo takes the rewind back; a rewind to the
// baseline restores that file too.
func TestRestore_Rewind_ShellChanges(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("b.py", "b = 1\n")
	write("c.py", "c = 1\n")
	ok(t, dir, "exec", "--", "true") // 1: the journal's first look, a baseline of b.py and c.py
	e := engine(t, dir)
	apply(t, e, "write_file", "a.py", "a = 1\n") // 2
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	write("notes.txt", "notes\n")                                                                                                    // 3: first seen by the next command's look, a baseline
	ok(t, dir, "exec", "--", "sh", "-c", `sed -i s/1/2/ b.py; printf 'd\n' > d.py; rm c.py; chmod 755 a.py; echo more >> notes.txt`) // 4
	type file struct {
		data string
		mode os.FileMode
	}
	state := func() map[string]file {
		out := map[string]file{}
		for _, n := range []string{"a.py", "b.py", "c.py", "d.py", "notes.txt"} {
			out[n] = file{readFile(t, dir, n), modeOf(t, dir, n)}
		}
		return out
	}
	after := state()
	log := ok(t, dir, "log", "--oneline")
	for _, want := range []string{"1 ", "first seen (baseline) b.py,c.py", "3 ", "first seen (baseline) notes.txt", "4 ", "exec: sh -c"} {
		if !strings.Contains(log, want) {
			t.Fatalf("log lacks %q:\n%s", want, log)
		}
	}

	out := ok(t, dir, "restore", "--at", "2")
	if !strings.Contains(out, "as event 5, changing 4 files") || strings.Contains(out, "notes.txt") {
		t.Fatalf("rewind to before the command:\n%s", out)
	}
	at2 := map[string]file{"a.py": {"a = 1\n", 0o644}, "b.py": {"b = 1\n", 0o644}, "c.py": {"c = 1\n", 0o644}, "d.py": {"<absent>", 0},
		"notes.txt": {"notes\nmore\n", 0o644}}
	if s := state(); !maps.Equal(s, at2) {
		t.Fatalf("after the rewind to 2: %v, want %v", s, at2)
	}
	if out := ok(t, dir, "undo"); !strings.Contains(out, "undid event 5 as event 6") {
		t.Fatalf("undo:\n%s", out)
	}
	if s := state(); !maps.Equal(s, after) {
		t.Fatalf("after the undo: %v, want %v", s, after)
	}
	ok(t, dir, "restore", "--at", "3")
	at2["notes.txt"] = file{"notes\n", 0o644}
	if s := state(); !maps.Equal(s, at2) {
		t.Fatalf("after the rewind to the baseline: %v, want %v", s, at2)
	}
	ok(t, dir, "verify")
}
