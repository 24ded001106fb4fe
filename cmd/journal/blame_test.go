package main_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBlame_CLI: blame through the binary — a change made outside any tool
// is owned by the observe event that recorded it (external), and every
// refusal says why, with a code where there is one and a hint.
func TestBlame_CLI(t *testing.T) {
	dir := basicWorkspace(t) // notes.md was edited by hand after its last event
	e := engine(t, dir)
	seq := apply(t, e, "edit_file", "notes.md", "# Notes\nedited by hand\n")
	apply(t, e, "write_file", "bin.dat", "a\x00b")
	e.Close()

	var b struct {
		Lines []struct {
			Line  int    `json:"line"`
			Event uint64 `json:"event"`
			Text  string `json:"text"`
		} `json:"lines"`
		Events []struct {
			Seq   uint64 `json:"seq"`
			Kind  string `json:"kind"`
			Actor struct {
				Kind string `json:"kind"`
			} `json:"actor"`
		} `json:"events"`
	}
	if err := json.Unmarshal([]byte(ok(t, dir, "blame", "--json", "notes.md")), &b); err != nil {
		t.Fatal(err)
	}
	if len(b.Lines) != 2 || b.Lines[0].Event != seq || b.Lines[1].Event != seq-1 || b.Lines[1].Text != "edited by hand\n" {
		t.Fatalf("blame of notes.md: %+v", b.Lines)
	}
	if len(b.Events) != 2 || b.Events[0].Seq != seq-1 || b.Events[0].Kind != "observe" || b.Events[0].Actor.Kind != "external" {
		t.Fatalf("events: %+v", b.Events)
	}
	if out := ok(t, dir, "blame", "notes.md"); !strings.Contains(out, "external") {
		t.Fatalf("blame does not name the outside change:\n%s", out)
	}

	for _, c := range []struct {
		args []string
		code int
		msg  string
		hint string
	}{
		{[]string{"blame", "nowhere.txt"}, 1, "never journaled", "journal status"},
		{[]string{"blame", "src/b.go"}, 1, "did not exist after event", "--at"},
		{[]string{"blame", "bin.dat"}, 1, "binary file", "journal log bin.dat"},
		{[]string{"blame", "a.txt", "--at", "99"}, 1, "does not exist (the newest is", "journal log a.txt"},
		{[]string{"blame", "a.txt", "--json", "--porcelain"}, 2, "alternatives", ""},
		{[]string{"blame"}, 2, "arg", ""},
	} {
		r := run(t, dir, c.args...)
		if r.code != c.code || !strings.Contains(r.stderr, c.msg) || (c.hint != "" && !strings.Contains(r.stderr, "hint: ")) || !strings.Contains(r.stderr, c.hint) {
			t.Errorf("journal %s: exit %d\n%s", strings.Join(c.args, " "), r.code, r.stderr)
		}
	}
	// a line changed on disk since the journal saw the file: not journaled yet
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\ntwo, by hand\nthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := ok(t, dir, "blame", "a.txt"); !strings.Contains(out, "* (not journaled yet)") || strings.Count(out, "\n") != 3 {
		t.Fatalf("blame of a file changed on disk:\n%s", out)
	}
	if out := ok(t, dir, "blame", "--porcelain", "a.txt"); !strings.Contains(out, "* 2\n\ttwo, by hand\n") {
		t.Fatalf("porcelain blame of a file changed on disk:\n%s", out)
	}
	if out := ok(t, dir, "blame", "a.txt", "--at", "5"); strings.Contains(out, "by hand") {
		t.Fatalf("--at shows the journaled version, not the disk:\n%s", out)
	}
	// blame of a file deleted and looked at before its delete
	if out := ok(t, dir, "blame", "src/b.go", "--at", "1"); !strings.Contains(out, "package b") {
		t.Fatalf("blame --at 1 of src/b.go:\n%s", out)
	}
}

// blameWorkspace makes a 2,000-line file with 1,000 one-line edits on it
// (issue #18's blame workload) and returns the workspace.
func blameWorkspace(t testing.TB) string {
	dir := t.TempDir()
	e := engine(t, dir)
	lines := make([]string, 2000)
	for i := range lines {
		lines[i] = fmt.Sprintf("\tline %d of a source file, as long as lines in source files are: %d\n", i, i*i)
	}
	apply(t, e, "write_file", "big.go", strings.Join(lines, ""))
	for k := 1; k < 1000; k++ {
		lines[k*7%2000] = fmt.Sprintf("\tline %d, edit %d\n", k*7%2000, k)
		apply(t, e, "edit_file", "big.go", strings.Join(lines, ""))
	}
	e.Close()
	return dir
}

// TestBlame_CLIManyEvents: the blame of a file with 1,000 events names, for
// every line, the last of them that changed it.
func TestBlame_CLIManyEvents(t *testing.T) {
	if testing.Short() {
		t.Skip("makes 1,000 events")
	}
	dir := blameWorkspace(t)
	out := ok(t, dir, "blame", "--porcelain", "big.go")
	want := make([]uint64, 2000)
	for i := range want {
		want[i] = 1
	}
	for k := 1; k < 1000; k++ {
		want[k*7%2000] = uint64(k + 1)
	}
	n := 0
	for _, l := range strings.Split(out, "\n") {
		var seq uint64
		var line int
		if _, err := fmt.Sscanf(l, "%d %d", &seq, &line); err != nil || strings.HasPrefix(l, "\t") {
			continue
		}
		if n++; line != n || seq != want[line-1] {
			t.Fatalf("line %d owned by %d, want %d", line, seq, want[line-1])
		}
	}
	if n != 2000 {
		t.Fatalf("%d lines blamed", n)
	}
}
