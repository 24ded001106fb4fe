package replay_test

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/secrets"
	"github.com/journalfs/journal/replay"
)

var updateSample = flag.Bool("update", false, "rewrite testdata/journals/redactlines-format12.db")

// A redaction keeps who wrote the redacted versions' lines, never their
// text: the agent's lines kept after it are still the agent's, whether the
// file changes on (its next version is compared by the lines' keyed
// digests) or a commit's blob is the redacted version itself (its record's
// owners); the secret line has no digest and stays unproved; without the
// key beside the journal, blame fails closed as before the records.
func TestBlame_RedactedKeepsOwners(t *testing.T) {
	w := &contentWorld{t: t, dir: t.TempDir()}
	w.e = open(t, w.dir)
	const token = "TOKEN = 'sk-live-0123456789abcdef'\n" // gitleaks:allow (a test's made-up key)
	c1 := w.tool(person, "s.py", "def f():\n    return personValue\n")
	v2 := "def f():\n    return personValue\n" + token + "agent_line_one()\nagent_line_two()\nagent_scratch_only()\n"
	a2 := w.tool(agentA, "s.py", v2)
	w.tool(person, "s.py", "def f():\n    return personValue\nagent_line_one()\nagent_line_two()\nperson_line()\n")
	holds := func(b []byte) bool { return len(secrets.Scan(b)) > 0 }
	if !holds([]byte(token)) {
		t.Fatal("the scanner does not flag the test's token")
	}
	res, err := w.e.Redact(replay.RedactSelect{Match: holds, Why: "a leaked key"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Contents) != 1 {
		t.Fatalf("redacted %d contents, want the one holding the token", len(res.Contents))
	}
	// the next version: the agent's lines it kept by their digests; the
	// person's line is unproved (the token's line has no digest: it could
	// have been that line), never the agent's
	if got, want := w.blame("s.py"), []uint64{c1, c1, a2, a2, 0}; !slices.Equal(got, want) {
		t.Fatalf("after the redaction: %v, want %v", got, want)
	}
	// a commit's blob that is the redacted version: its record's owners
	if got, want := w.content("s.py", v2), []uint64{c1, c1, 0, a2, a2, a2}; !slices.Equal(got, want) {
		t.Fatalf("the redacted version itself: %v, want %v (the token's line unproved)", got, want)
	}
	// one that differs from both: the line only the redacted version held
	// by its digest
	if got, want := w.content("s.py", "def f():\n    return personValue\nagent_line_one()\nagent_scratch_only()\n"), []uint64{c1, c1, a2, a2}; !slices.Equal(got, want) {
		t.Fatalf("a version beside the redacted one: %v, want %v", got, want)
	}
	// the token stays unproved, even put back
	if got, want := w.content("s.py", token+"agent_line_one()\n"), []uint64{0, a2}; !slices.Equal(got, want) {
		t.Fatalf("the token put back: %v, want %v", got, want)
	}
	// a version whose every line has a digest (nothing flagged): the next
	// version is compared line for line, its new lines its event's
	a4 := w.tool(agentA, "t.py", "alpha_line()\nbeta_line()\n")
	p5 := w.tool(person, "t.py", "alpha_line()\nbeta_line()\ngamma_line()\n")
	if _, err := w.e.Redact(replay.RedactSelect{Events: []uint64{a4}, Why: "the agent's call"}); err != nil {
		t.Fatal(err)
	}
	if got, want := w.blame("t.py"), []uint64{a4, a4, p5}; !slices.Equal(got, want) {
		t.Fatalf("after a redaction of a version nothing flagged: %v, want %v", got, want)
	}
	// the text of the redacted versions is in no byte of the journal
	db, err := os.ReadFile(w.e.Journal().Path())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"sk-live-0123456789abcdef", "agent_scratch_only"} {
		if bytes.Contains(db, []byte(s)) {
			t.Errorf("the journal file still holds %q", s)
		}
	}
	// without the key, the records prove nothing: as a journal redacted
	// before them
	if err := os.Remove(w.e.Journal().Path() + replay.LineKeySuffix); err != nil {
		t.Fatal(err)
	}
	if got, want := w.blame("s.py"), []uint64{c1, c1, 0, 0, 0}; !slices.Equal(got, want) {
		t.Fatalf("without the key: %v, want %v", got, want)
	}
	if got, want := w.blame("t.py"), []uint64{0, 0, 0}; !slices.Equal(got, want) {
		t.Fatalf("without the key: %v, want %v", got, want)
	}
}

// sampleToken is the made-up key of the redacted-lines sample.
const sampleToken = "TOKEN = 'sk-live-0123456789abcdef'\n" // gitleaks:allow (a test's made-up key)

// The redacted-lines sample (testdata/journals/redactlines-format12.db and
// its line key beside it; go test ./replay -run TestBlame_RedactedLinesSample
// -update rewrites them): a person's two lines, an agent's version adding a
// key and three lines, the person's next taking the key and one line out,
// then a redaction of the agent's version by the secret scanner. Later
// binaries are held to reading its record: the agent's lines are the
// agent's, the person's new line unproved.
func TestBlame_RedactedLinesSample(t *testing.T) {
	sample := filepath.Join("..", "testdata", "journals", "redactlines-format12.db")
	if *updateSample {
		dir := t.TempDir()
		e := open(t, dir)
		w := &contentWorld{t: t, dir: dir, e: e}
		w.tool(person, "s.py", "def f():\n    return personValue\n")
		w.tool(agentA, "s.py", "def f():\n    return personValue\n"+sampleToken+"agent_line_one()\nagent_line_two()\nagent_scratch_only()\n")
		w.tool(person, "s.py", "def f():\n    return personValue\nagent_line_one()\nagent_line_two()\nperson_line()\n")
		if _, err := e.Redact(replay.RedactSelect{Match: func(b []byte) bool { return len(secrets.Scan(b)) > 0 }, Why: "the sample's key"}); err != nil {
			t.Fatal(err)
		}
		jp := e.Journal().Path()
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		for _, suffix := range []string{"", replay.LineKeySuffix} {
			b, err := os.ReadFile(jp + suffix)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(sample+suffix, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	j := copyJournal(t, sample, replay.LineKeySuffix)
	err := j.View(func(tx *journal.Tx) error {
		b, err := replay.BlameTx(tx, "s.py", 0)
		if err != nil {
			return err
		}
		var got []uint64
		for _, l := range b.Lines {
			got = append(got, l.Seq)
		}
		if want := []uint64{1, 1, 2, 2, 0}; !slices.Equal(got, want) {
			t.Errorf("blame of the sample: %v, want %v", got, want)
		}
		if a := b.Events[2].Actor; a.Session != agentA.Session {
			t.Errorf("the agent's lines name %+v", a)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// copyJournal copies a kept journal, and the files beside it with the
// suffixes given that exist, into a directory of the test's, and opens it.
func copyJournal(t *testing.T, sample string, suffixes ...string) *journal.Journal {
	t.Helper()
	jp := filepath.Join(t.TempDir(), journal.DirName, journal.FileName)
	if err := os.MkdirAll(filepath.Dir(jp), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, suffix := range append([]string{""}, suffixes...) {
		b, err := os.ReadFile(sample + suffix)
		if errors.Is(err, os.ErrNotExist) && suffix != "" {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(jp+suffix, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	j, err := journal.Open(jp, journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// A journal an earlier binary redacted has no records: it opens and
// blames as it did, the redacted version a gap (fail closed).
func TestBlame_RedactedByAnEarlierVersion(t *testing.T) {
	j := copyJournal(t, filepath.Join("..", "testdata", "journals", "prompts-format13.db"))
	err := j.View(func(tx *journal.Tx) error {
		if _, err := replay.BlameTx(tx, ".env", 0); !errors.Is(err, journal.ErrRedacted) {
			t.Errorf("blame of the redacted .env: %v, want journal.ErrRedacted", err)
		}
		b, err := replay.BlameContent(tx, ".env", []byte("AWS_SECRET_ACCESS_KEY=whatever\n"))
		if err != nil {
			return err
		}
		if len(b.Lines) != 1 || b.Lines[0].Seq != 0 {
			t.Errorf("blame of a version beside it: %+v, want the line unproved", b.Lines)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// An owner a record names that a gc dropped since proves nothing: its
// lines are owned by no event, as any line held only past a gc.
func TestBlame_RedactedOwnerPastGC(t *testing.T) {
	w := &contentWorld{t: t, dir: t.TempDir()}
	w.e = open(t, w.dir)
	w.tool(person, "s.py", "def f():\n    return personValue\n")
	a2 := w.tool(agentA, "s.py", "def f():\n    return personValue\nagent_line_one()\n")
	time.Sleep(20 * time.Millisecond)
	cutoff := time.Now()
	time.Sleep(20 * time.Millisecond)
	a3 := w.tool(agentA, "s.py", "def f():\n    return personValue\nagent_line_one()\nlater_line()\n")
	w.tool(agentA, "s.py", "def f():\n    return personValue\nagent_line_one()\nlater_line()\nlast_line()\n")
	if _, err := w.e.Redact(replay.RedactSelect{Events: []uint64{a2, a3}, Why: "the calls"}); err != nil {
		t.Fatal(err)
	}
	if got, want := w.blame("s.py"), []uint64{1, 1, a2, a3, a3 + 1}; !slices.Equal(got, want) {
		t.Fatalf("before the gc: %v, want %v", got, want)
	}
	now := time.Now()
	if rep, err := w.e.GC(journal.GCOptions{Keep: now.Sub(cutoff), Now: now, Actor: journal.Actor{Kind: "cli"}}); err != nil || rep.Dropped != 2 {
		t.Fatalf("gc: %+v %v", rep, err)
	}
	if got, want := w.blame("s.py"), []uint64{0, 0, 0, a3, a3 + 1}; !slices.Equal(got, want) {
		t.Fatalf("after the gc: %v, want %v", got, want)
	}
}

// A commit's blob beside a file whose newest version was redacted: its
// lines are read against that version's record (no version of the file is
// left to diff against).
func TestBlame_RedactedNewest(t *testing.T) {
	w := &contentWorld{t: t, dir: t.TempDir()}
	w.e = open(t, w.dir)
	a1 := w.tool(agentA, "k.py", "def agent_fn():\n"+sampleToken+"    return agent_value\n")
	if _, err := w.e.Redact(replay.RedactSelect{Match: func(b []byte) bool { return len(secrets.Scan(b)) > 0 }, Why: "the key"}); err != nil {
		t.Fatal(err)
	}
	var err error
	w.e.Journal().View(func(tx *journal.Tx) error { _, err = replay.BlameTx(tx, "k.py", 0); return nil })
	if !errors.Is(err, journal.ErrRedacted) {
		t.Fatalf("blame of the redacted newest version: %v", err)
	}
	if got, want := w.content("k.py", "def agent_fn():\n    return agent_value\nsomeone_else()\n"), []uint64{a1, a1, 0}; !slices.Equal(got, want) {
		t.Fatalf("a blob beside it: %v, want %v", got, want)
	}
}

// TestBlame_RedactedSharedContent: one content in two files, written by
// an agent in one and by a person in the other, then redacted: each file's
// lines keep their own file's owners — the person's lines are never the
// agent's (a record kept per content named the first file's owners for
// both). A record under the content alone (an earlier binary's) is used
// only where its owners are the blamed file's events.
func TestBlame_RedactedSharedContent(t *testing.T) {
	w := &contentWorld{t: t, dir: t.TempDir()}
	w.e = open(t, w.dir)
	const token = "TOKEN = 'sk-live-0123456789abcdef'\n" // gitleaks:allow (a test's made-up key)
	v := "shared_line_one()\nshared_line_two()\n" + token
	a1 := w.tool(agentA, "a.py", v)
	p2 := w.tool(person, "b.py", v)
	w.tool(person, "a.py", "shared_line_one()\nshared_line_two()\nperson_after()\n")
	w.tool(agentA, "b.py", "shared_line_one()\nshared_line_two()\nagent_after()\n")
	if _, err := w.e.Redact(replay.RedactSelect{Match: func(b []byte) bool { return len(secrets.Scan(b)) > 0 }, Why: "a leaked key"}); err != nil {
		t.Fatal(err)
	}
	// the new last lines are unproved: the token's line, which has no
	// digest, could have been either
	if got, want := w.blame("a.py"), []uint64{a1, a1, 0}; !slices.Equal(got, want) {
		t.Errorf("a.py after the redaction: %v, want %v", got, want)
	}
	if got, want := w.blame("b.py"), []uint64{p2, p2, 0}; !slices.Equal(got, want) {
		t.Errorf("b.py after the redaction: %v, want %v (the person's lines, never the agent's)", got, want)
	}
	// as an earlier binary left it: the record under the content alone
	// (a.py's owners) is a.py's, and a gap for b.py
	err := w.e.Journal().Do(func(db *journal.DB) error {
		return db.Update(func(tx *journal.Tx) error {
			bk := tx.Bolt().Bucket([]byte("redactlines"))
			var perFile [][]byte
			bk.ForEach(func(k, _ []byte) error {
				if len(k) > 32 {
					perFile = append(perFile, slices.Clone(k))
				}
				return nil
			})
			if len(perFile) != 2 {
				t.Errorf("%d records per file, want a.py's and b.py's", len(perFile))
			}
			for _, k := range perFile {
				if err := bk.Delete(k); err != nil {
					return err
				}
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := w.blame("a.py"), []uint64{a1, a1, 0}; !slices.Equal(got, want) {
		t.Errorf("a.py by the content's record alone: %v, want %v", got, want)
	}
	if got, want := w.blame("b.py"), []uint64{0, 0, 0}; !slices.Equal(got, want) {
		t.Errorf("b.py by the content's record alone (a.py's owners): %v, want %v (a gap)", got, want)
	}
}
