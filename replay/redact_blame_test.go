package replay_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay"
)

// TestBlame_AfterRedactionAmongManyEvents: a file's redacted version, with
// other files' events after it, is passed over by its record (the owners of
// its lines), and journal repair carries the records into the journal it
// writes (replay.RepairCarried): blame after it is blame before it.
func TestBlame_AfterRedactionAmongManyEvents(t *testing.T) {
	dir := t.TempDir()
	e := open(t, dir)
	const token = "TOKEN = 'sk-live-0123456789abcdef'\n" // gitleaks:allow (a test's made-up key)
	step := func(path, data string) {
		t.Helper()
		if _, err := e.Apply(ctx, &replay.Batch{Tool: "edit_file", Changes: []replay.Change{{Path: path, Data: []byte(data)}}}); err != nil {
			t.Fatal(err)
		}
	}
	step("s.py", "def f():\n    return 1\n")
	step("s.py", "def f():\n    return 1\n"+token+"kept_line_one()\nkept_line_two()\n")
	for i := range 40 {
		step(fmt.Sprintf("filler%d.txt", i%4), fmt.Sprintf("filler %d\n", i))
	}
	step("s.py", "def f():\n    return 1\nkept_line_one()\nkept_line_two()\nlast_line()\n")
	if _, err := e.Redact(replay.RedactSelect{Pattern: regexp.MustCompile(`sk-live-[0-9a-f]+`), Why: "a leaked key"}); err != nil {
		t.Fatal(err)
	}
	blame := func(j *journal.Journal) []uint64 {
		t.Helper()
		var seqs []uint64
		err := j.View(func(tx *journal.Tx) error {
			b, err := replay.BlameTx(tx, "s.py", 0)
			if err != nil {
				return err
			}
			for _, l := range b.Lines {
				seqs = append(seqs, l.Seq)
			}
			return err
		})
		if err != nil {
			t.Fatalf("blame: %v", err)
		}
		return seqs
	}
	want := []uint64{1, 1, 2, 2, 0} // the kept lines by their digests in the record; the new one unproved (the token's line has none)
	if got := blame(e.Journal()); !slices.Equal(got, want) {
		t.Fatalf("blame after the redaction: %v, want %v", got, want)
	}
	path := e.Journal().Path()
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	// journal repair (which rewrites the file) carries the records: blame
	// is as before; without carrying them, the redacted version is a gap
	for _, carry := range []bool{false, true} {
		cp := filepath.Join(t.TempDir(), "journal.db")
		for _, suffix := range []string{"", replay.LineKeySuffix} {
			b, err := os.ReadFile(path + suffix)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(cp+suffix, b, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		j, err := journal.Open(cp, journal.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var c [][]byte
		if carry {
			c = replay.RepairCarried
		}
		rep, err := j.Repair(true, journal.Actor{Kind: "cli", User: "t"}, c...)
		if err != nil {
			t.Fatal(err)
		}
		got := blame(j)
		j.Close()
		switch {
		case carry && (!slices.Equal(got, want) || len(rep.Carried) != 1):
			t.Fatalf("blame after a repair carrying %v: %v, want %v", rep.Carried, got, want)
		case !carry && slices.Equal(got, want):
			t.Fatalf("blame after a repair carrying nothing: %v, want the kept lines unproved", got)
		}
	}
}
