package main_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay"
	"github.com/journalfs/journal/snapshot"
	bolt "go.etcd.io/bbolt"
)

// The kept journals of the formats this version reads and an earlier one
// wrote, and of the format it writes: each was written by the version of its
// format, so later binaries are held to reading them (go test ./cmd/journal
// -run TestFormatSamples -update rewrites the current one only).
//
//   - compact-format5.db, format 5: compact event records (with compressed
//     arguments), delta chunks, inline manifests, and a prefix dropped by
//     the copying gc;
//   - splice-format6.db, format 6: the same history, whose one-line edits
//     are splice chunks;
//   - undone-format7.db, format 7: the same history and, before the last
//     edit, a second session's two edits and the undo of that session (an
//     event with Undone);
//   - whole-format8.db, format 8: the same history, whose contents of one
//     chunk have no manifest (their chunk is marked whole);
//   - actors-format9.db, format 9: the same history, whose event records
//     name their actor by number (the actors bucket);
//   - packed-format10.db, format 10: the same history and 480 more edits,
//     the oldest kept events packed into a block (journal/pack.go);
//   - baserefs-format11.db, format 11: the same history, whose splices name
//     their bases by the first 8 bytes of their IDs (snapshot/delta.go);
//   - salted-format12.db, format 12: the same history, whose events commit
//     to their arguments by salted digests (records of version 5 and 6),
//     then a .env holding a key and a redaction of it (event 528: the
//     creation's arguments and content);
//   - prompts-format13.db, format 13: the same history, then an agent's
//     prompt (a prompt event) and a call of its
//     session naming it.
var formatSamples = []struct {
	file   string
	format byte
	codec  int // a chunk codec the sample must hold: 2 delta, 3 splice
	events int // the kept events
}{
	{"compact-format5.db", journal.FormatCompact, 2, 22},
	{"splice-format6.db", journal.FormatSplice, 3, 22},
	{"undone-format7.db", journal.FormatUndone, 3, 26},
	{"whole-format8.db", journal.FormatWhole, 3, 26},
	{"actors-format9.db", journal.FormatActors, 3, 26},
	{"packed-format10.db", journal.FormatPacked, 3, 506},
	{"baserefs-format11.db", journal.FormatBaseRefs, 3, 506},
	{"salted-format12.db", journal.FormatSalted, 3, 508},
	{"prompts-format13.db", journal.FormatPrompts, 3, 510},
}

// TestFormatSamples: each kept journal verifies, lists its events (the gc
// event first among the kept ones), exports an audit trail that verifies,
// holds what its format means (compact records, deltas or splices, inline
// manifests), and takes new edits.
func TestFormatSamples(t *testing.T) {
	for _, sm := range formatSamples {
		t.Run(sm.file, func(t *testing.T) {
			sample := filepath.Join(repoRoot, "testdata", "journals", sm.file)
			if *update && sm.format == journal.Format {
				writeSample(t, sample)
			}
			formatSample(t, sample, sm.format, sm.codec, sm.events)
		})
	}
}

func formatSample(t *testing.T, sample string, wantFormat byte, codec, events int) {
	dir := t.TempDir()
	jp := filepath.Join(dir, journal.DirName, journal.FileName)
	copyFile(t, sample, jp)
	ok(t, dir, "verify")
	// written before secret detection: no secrets bucket, scanned as it is
	if st := ok(t, dir, "status"); !strings.Contains(st, "secrets   none detected") {
		t.Fatalf("status of the sample:\n%s", st)
	}
	log := ok(t, dir, "log", "--oneline")
	if !strings.Contains(log, " gc") || strings.Count(log, "\n") != events { // 20 kept edits, the gc event, ..., the newest
		t.Fatalf("log of the sample:\n%s", log)
	}
	if wantFormat >= journal.FormatUndone {
		if !strings.Contains(log, "undo of session s2 (2 events)") {
			t.Fatalf("log of the sample has no session undo:\n%s", log)
		}
		if show := ok(t, dir, "show", "45"); !strings.Contains(show, "events 44, 43") {
			t.Fatalf("show of the session undo:\n%s", show)
		}
	}
	ok(t, dir, "export", "-o", filepath.Join(dir, "a.jsonl"))
	out := ok(t, dir, "verify", "--export", filepath.Join(dir, "a.jsonl"))
	if wantFormat >= journal.FormatSalted {
		// the redaction: reported, and the value in no file
		if !strings.Contains(out, "1 redact event(s) (528) took out the arguments of 1 event(s) (527)") || !strings.Contains(ok(t, dir, "verify"), "(527) and 1 content(s)") {
			t.Fatalf("verify of the redacted sample:\n%s", out)
		}
		for _, f := range []string{jp, filepath.Join(dir, "a.jsonl")} {
			if b, _ := os.ReadFile(f); bytes.Contains(b, []byte(sampleSecret)) {
				t.Fatalf("%s holds the redacted value", f)
			}
		}
	}
	j, err := journal.Open(jp, journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var format byte
	var records [8]int
	var codecs, manifests, chunkFormats [4]int
	short := 0 // deltas naming their bases short (byte 3: 0x80 | count)
	err = j.View(func(tx *journal.Tx) error {
		format = tx.Bolt().Bucket([]byte("meta")).Get([]byte("format"))[0]
		tx.Bolt().Bucket([]byte("events")).ForEach(func(_, v []byte) error { records[v[0]&7]++; return nil })
		tx.Bolt().Bucket(snapshot.BucketChunks).ForEach(func(_, v []byte) error {
			codecs[v[1]&3]++
			chunkFormats[v[0]&3]++
			if v[1] >= 2 && v[3]&0x80 != 0 {
				short++
			}
			return nil
		})
		return tx.Bolt().Bucket(snapshot.BucketContents).ForEach(func(_, v []byte) error { manifests[v[0]&3]++; return nil })
	})
	j.Close()
	if err != nil {
		t.Fatal(err)
	}
	// inline manifests (format 5 to 7), or contents of one chunk marked
	// whole instead (8: byte 0 of the chunk record is 3)
	small := manifests[2]
	if wantFormat >= journal.FormatWhole {
		small = chunkFormats[3]
	}
	// compact records: v2 (format 5 to 8), v3 naming the actor by number (9)
	compact := records[2]
	if wantFormat >= journal.FormatActors {
		compact = records[3]
	}
	// blocks of events (10: byte 0 of the value is 4)
	packed := wantFormat < journal.FormatPacked || records[4] > 0
	// short base references (11), and none before
	refs := (wantFormat < journal.FormatBaseRefs) == (short == 0)
	// salted records (12: v6, naming the actor by number)
	if wantFormat >= journal.FormatSalted {
		compact = records[6]
	}
	if format != wantFormat || compact == 0 || codecs[codec] == 0 || small == 0 || !packed || !refs {
		t.Fatalf("format %d; records by version %v; chunks by codec %v; manifests by version %v; chunks by format %v; short base references %d", format, records, codecs, manifests, chunkFormats, short)
	}
	if wantFormat >= journal.FormatPrompts {
		grouped := ok(t, dir, "log", "--prompts")
		if !strings.Contains(grouped, "prompt p-sample") || !strings.Contains(grouped, "file_replace") {
			t.Fatalf("log --prompts of the sample:\n%s", grouped)
		}
	}
	e := engine(t, dir)
	apply(t, e, "file_create_new", "src/new.txt", "written by a later binary\n")
	e.Close()
	ok(t, dir, "verify")
	// an edit leaves the journal in its format (12 at least): one no
	// prompt was recorded in still opens with the binary of format 12
	if got := journalFormat(t, jp); got != max(wantFormat, journal.FormatSalted) {
		t.Fatalf("after an edit the journal is format %d, want %d", got, max(wantFormat, journal.FormatSalted))
	}
	// its first checkpoint builds its tree (which starts after what gc dropped): signed, exported, proven
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(t.TempDir(), "config"))
	ok(t, dir, "key", "generate", "--name", "alice")
	pub := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "journal", "checkpoint.key.pub")
	ok(t, dir, "checkpoint")
	if out := ok(t, dir, "verify", "--key", pub); !strings.Contains(out, fmt.Sprintf("1 checkpoint(s) match the Merkle tree (%d events", events+1)) {
		t.Fatalf("verify --key of the sample:\n%s", out)
	}
	ok(t, dir, "export", "-o", filepath.Join(dir, "b.jsonl"))
	ok(t, dir, "verify", "--export", filepath.Join(dir, "b.jsonl"), "--key", pub, "--checkpoint", filepath.Join(dir, "a.jsonl"))
	ok(t, dir, "prove", strconv.Itoa(int(lastSeq(t, jp))), "--key", pub)
}

// journalFormat is the format the journal at jp is marked.
func journalFormat(t *testing.T, jp string) byte {
	t.Helper()
	j, err := journal.Open(jp, journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	var v byte
	if err := j.View(func(tx *journal.Tx) error { v = tx.Bolt().Bucket([]byte("meta")).Get([]byte("format"))[0]; return nil }); err != nil {
		t.Fatal(err)
	}
	return v
}

// lastSeq is the newest event of the journal at jp.
func lastSeq(t *testing.T, jp string) uint64 {
	t.Helper()
	j, err := journal.Open(jp, journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var n uint64
	if err := j.View(func(tx *journal.Tx) error { n = tx.Last(); return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}

// writeSample writes a sample of the current format to path: 40 one-line
// edit_content calls on a 300-line file (arguments long enough to be
// compressed), a gc that drops the first half, a session's edits and their
// undo, then 481 more edits (enough for a block of events).
func writeSample(t *testing.T, path string) {
	dir := t.TempDir()
	e := engine(t, dir)
	lines := make([]string, 300)
	for i := range lines {
		lines[i] = fmt.Sprintf("line %d of a source file an agent edits: %d", i, i*i)
	}
	edit := func(i int) {
		old := lines[(i*7)%300]
		lines[(i*7)%300] = fmt.Sprintf("line %d, edit %d", (i*7)%300, i)
		args := fmt.Sprintf(`{"absolute_file_path":%q,"preview":false,"replace_text":%q,"search_text":%q}`,
			filepath.Join(dir, "src/a.go"), lines[(i*7)%300], old)
		b := &replay.Batch{Tool: "edit_content", Args: []byte(args),
			Changes: []replay.Change{{Path: "src/a.go", Data: []byte(strings.Join(lines, "\n") + "\n")}}}
		if _, err := e.Apply(context.Background(), b); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 20 {
		edit(i)
	}
	time.Sleep(50 * time.Millisecond)
	cutoff := time.Now()
	time.Sleep(50 * time.Millisecond)
	for i := 20; i < 40; i++ {
		edit(i)
	}
	rep, err := e.GC(journal.GCOptions{Keep: time.Since(cutoff), Actor: journal.Actor{Kind: "cli"}})
	if err != nil || rep.Dropped != 20 {
		t.Fatalf("gc: %+v %v", rep, err)
	}
	// a second session edits another file twice; its undo takes both back
	s2 := agent
	s2.Session = "s2"
	for _, data := range []string{"b\n", "b, s2\n", "b, s2 again\n"} {
		b := &replay.Batch{Tool: "file_replace", Actor: &s2, Changes: []replay.Change{{Path: "src/b.txt", Data: []byte(data)}}}
		if data == "b\n" {
			b.Actor = nil
		}
		if _, err := e.Apply(context.Background(), b); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.UndoSession(context.Background(), "s2", replay.RevertOptions{}); err != nil {
		t.Fatal(err)
	}
	for i := 40; i <= 520; i++ {
		edit(i)
	}
	// a key written, then taken out
	env := "AWS_SECRET_ACCESS_KEY=" + sampleSecret + "\n"
	none := snapshot.ID{}
	b := &replay.Batch{Tool: "file_create_new", Args: fmt.Appendf(nil, `{"path":".env","content":%q}`, env),
		Changes: []replay.Change{{Path: ".env", Data: []byte(env), Expect: &none}}}
	res, err := e.Apply(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Redact(replay.RedactSelect{Events: []uint64{res.Seq}, Why: "a key in the sample", Actor: journal.Actor{Kind: "cli"}}); err != nil {
		t.Fatal(err)
	}
	// an agent's prompt, and a call of its session naming it
	claude := journal.Actor{Kind: "agent", Name: "claude-code", Session: "sess-sample", Origin: "hook"}
	if _, err := e.RecordPrompt(context.Background(), claude, replay.PromptArgs{ID: "p-sample", Text: "tidy b.txt", Model: "claude-sonnet-5"}); err != nil {
		t.Fatal(err)
	}
	b = &replay.Batch{Tool: "file_replace", Actor: &claude, Args: []byte(`{"path":"src/b.txt","call":{"id":"toolu_s","prompt":"p-sample"}}`),
		Changes: []replay.Change{{Path: "src/b.txt", Data: []byte("b, the prompt's\n")}}}
	if _, err := e.Apply(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	copyFile(t, filepath.Join(dir, journal.DirName, journal.FileName), path)
	os.Remove(path + ".checked")
}

// sampleSecret is the value the format-12 sample wrote and redacted.
const sampleSecret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYSAMPLEKEYxq"

// TestFormat_TooNew: a journal a newer binary marked with a format this one
// does not read is refused by every command with JOURNAL_TOO_NEW and the
// way out (run the newer binary) — not taken for damage, and not changed.
func TestFormat_TooNew(t *testing.T) {
	dir := t.TempDir()
	jp := filepath.Join(dir, journal.DirName, journal.FileName)
	newer := tamper(t, filepath.Join(repoRoot, "testdata", "journals", "salted-format12.db"), func(tx *bolt.Tx) error {
		return tx.Bucket([]byte("meta")).Put([]byte("format"), []byte{journal.Format + 1})
	})
	copyFile(t, newer, jp)
	before, _ := os.ReadFile(jp)
	for _, args := range [][]string{{"verify"}, {"log"}, {"status"}, {"undo"}} {
		r := run(t, dir, args...)
		if r.code == 0 || !strings.Contains(r.stderr, "JOURNAL_TOO_NEW") || !strings.Contains(r.stderr, "newer journal binary") || strings.Contains(r.stderr, "damaged") {
			t.Errorf("journal %s: exit %d\n%s", strings.Join(args, " "), r.code, r.stderr)
		}
	}
	if after, _ := os.ReadFile(jp); !bytes.Equal(before, after) {
		t.Error("a refused command changed the journal")
	}
}
