package replay_test

import (
	"strings"
	"testing"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/audit"
	"github.com/journalfs/journal/replay"
)

// TestScanSecrets_StoredAfterCheckpoint: an engine with ScanSecrets finds a
// key an edit wrote after its timed checkpoint, with no call of its own,
// and stores where it is; edits without secrets move the scanned mark only
// at Close (no commit of their own).
func TestScanSecrets_StoredAfterCheckpoint(t *testing.T) {
	dir := t.TempDir()
	e, err := replay.Open(replay.Options{Roots: []string{dir}, Actor: journal.Actor{Kind: "cli"}, ScanSecrets: true})
	if err != nil {
		t.Fatal(err)
	}
	apply := func(name, content string) uint64 {
		t.Helper()
		res, err := e.Apply(ctx, &replay.Batch{Tool: "write_file", Args: []byte(`{"path":"` + name + `"}`),
			Changes: []replay.Change{{Path: name, Data: []byte(content)}}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Seq
	}
	plain := apply("a.txt", "nothing here\n")
	seq := apply(".env", "X=1\nAWS_ACCESS_KEY_ID=AKIALALEMEL33243OLIB\n") // gitleaks:allow (made up for the test)
	var got []audit.Secret
	deadline := time.Now().Add(10 * time.Second)
	for len(got) == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		if err := e.Journal().View(func(tx *journal.Tx) (err error) {
			got, _, err = audit.Secrets(tx, seq)
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	if len(got) != 1 || got[0].Path != ".env" || got[0].Rule != "aws-access-token" || got[0].Line != 2 || got[0].Start != 22 {
		t.Fatalf("stored secrets of event %d: %+v", seq, got)
	}
	after := apply("b.txt", "still nothing\n")
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	j, err := journal.Open(replay.DefaultJournalPath(dir), journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if err := j.View(func(tx *journal.Tx) error {
		if n := audit.SecretsScanned(tx); n != after {
			t.Errorf("scanned to %d, want %d (Close stores the mark)", n, after)
		}
		if s, scanned, _ := audit.Secrets(tx, plain); len(s) != 0 || !scanned {
			t.Errorf("event %d: %+v, scanned %v", plain, s, scanned)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// TestScanSecrets_LargeContent: a content over journal.StreamScanSize,
// which the detector reads in pieces while it scans, has its secrets found
// and stored like a small one's — a key on the content's last line, after
// its first MiB, included.
func TestScanSecrets_LargeContent(t *testing.T) {
	dir := t.TempDir()
	e, err := replay.Open(replay.Options{Roots: []string{dir}, Actor: journal.Actor{Kind: "cli"}, ScanSecrets: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	big := strings.Repeat("an ordinary line of a large file, nothing to see here\n", 3<<20/54)
	big += "AWS_ACCESS_KEY_ID=AKIALALEMEL33243OLIB\n" // gitleaks:allow (made up for the test)
	res, err := e.Apply(ctx, &replay.Batch{Tool: "write_file", Args: []byte(`{"path":"big.env"}`),
		Changes: []replay.Change{{Path: "big.env", Data: []byte(big)}}})
	if err != nil {
		t.Fatal(err)
	}
	var got []audit.Secret
	deadline := time.Now().Add(20 * time.Second)
	for len(got) == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		if err := e.Journal().View(func(tx *journal.Tx) (err error) {
			got, _, err = audit.Secrets(tx, res.Seq)
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	if len(got) != 1 || got[0].Rule != "aws-access-token" || got[0].Start != len(big)-21 || got[0].Line != strings.Count(big, "\n") {
		t.Fatalf("stored secrets of the %d-byte content: %+v", len(big), got)
	}
}
