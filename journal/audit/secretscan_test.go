package audit_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/audit"
	"github.com/journalfs/journal/snapshot"
)

// TestSecrets_StoredAndScannedLazily: events not yet scanned are scanned by
// ScanSecrets (nothing stored); PutSecrets stores findings and the scanned
// mark, which never moves back; Secrets says whether an event was scanned.
func TestSecrets_StoredAndScannedLazily(t *testing.T) {
	j := create(t)
	defer j.Close()
	put := func(path, content, args string) {
		t.Helper()
		if err := j.Do(func(db *journal.DB) error {
			return db.Update(func(tx *journal.Tx) error {
				id, err := snapshot.PutTx(tx.Bolt(), []byte(content))
				if err != nil {
					return err
				}
				ev := &journal.Event{Kind: journal.KindApply, Actor: journal.Actor{Kind: "mcp"}, Args: []byte(args),
					Files: []journal.FileChange{{Path: path, After: id}}}
				if err := tx.Append(ev); err != nil {
					return err
				}
				_, err = tx.Seal(ev.Seq, journal.StatusCommitted, "")
				return err
			})
		}); err != nil {
			t.Fatal(err)
		}
	}
	put("a.txt", "nothing\n", `{"path":"a.txt"}`)
	put(".env", "X=1\nAWS_ACCESS_KEY_ID=AKIALALEMEL33243OLIB\n", `{"path":".env","token":"ghp_R4nd0mT0k3nV4lu3Xy9Zq8W7e6R5t4Y3u2I1"}`) // gitleaks:allow (made up for the test)
	var found map[uint64][]audit.Secret
	if err := j.View(func(tx *journal.Tx) (err error) {
		if _, scanned, _ := audit.Secrets(tx, 2); scanned || audit.SecretsScanned(tx) != 0 {
			t.Errorf("a journal nobody scanned says event 2 was")
		}
		found, err = audit.ScanSecrets(tx)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	s := found[2]
	if len(found) != 1 || len(s) != 2 || s[0].Path != ".env" || s[0].Line != 2 || s[0].InArgs() ||
		s[1].Arg != "/token" || s[1].Path != ".env" || s[1].Rule != "github-pat" || !s[1].Content.IsZero() {
		t.Fatalf("found %+v", found)
	}
	if err := j.Do(func(db *journal.DB) error {
		return db.Update(func(tx *journal.Tx) error {
			if err := audit.PutSecrets(tx, 2, found); err != nil {
				return err
			}
			return audit.PutSecrets(tx, 1, nil) // an older mark changes nothing
		})
	}); err != nil {
		t.Fatal(err)
	}
	if err := j.View(func(tx *journal.Tx) error {
		got, scanned, err := audit.Secrets(tx, 2)
		if err != nil || !scanned || len(got) != 2 || got[1].Arg != "/token" {
			t.Errorf("event 2: %+v scanned %v %v", got, scanned, err)
		}
		if got, scanned, _ := audit.Secrets(tx, 1); len(got) != 0 || !scanned {
			t.Errorf("event 1: %+v scanned %v", got, scanned)
		}
		if audit.SecretsScanned(tx) != 2 {
			t.Errorf("scanned mark %d", audit.SecretsScanned(tx))
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// TestSecrets_AnotherDetectorsFindingsScannedAgain: findings an earlier
// detector stored (a bucket of findings and a scanned mark, but no record
// of the detector, as an earlier binary leaves them) count as none: the
// events are scanned again, so the export masks a password only the
// heuristics find, and the next PutSecrets replaces what was stored.
func TestSecrets_AnotherDetectorsFindingsScannedAgain(t *testing.T) {
	j := create(t)
	defer j.Close()
	const secret = "Xk9mQ2vL7pR4zTq8"
	if err := j.Do(func(db *journal.DB) error {
		return db.Update(func(tx *journal.Tx) error {
			ev := &journal.Event{Kind: journal.KindPrompt, Actor: journal.Actor{Kind: "agent", Session: "s"}, Tool: "prompt",
				Args: []byte(`{"id":"p","text":"the db password is ` + secret + `"}`)}
			if err := tx.Append(ev); err != nil {
				return err
			}
			if _, err := tx.Seal(ev.Seq, journal.StatusCommitted, ""); err != nil {
				return err
			}
			b, err := tx.Bolt().CreateBucketIfNotExists([]byte("secrets")) // an earlier detector: scanned, found nothing
			if err != nil {
				return err
			}
			return b.SetSequence(ev.Seq)
		})
	}); err != nil {
		t.Fatal(err)
	}
	var csv bytes.Buffer
	var found map[uint64][]audit.Secret
	if err := j.View(func(tx *journal.Tx) (err error) {
		if n := audit.SecretsScanned(tx); n != 0 {
			t.Errorf("another detector's mark trusted: scanned to %d", n)
		}
		if _, err := audit.Export(tx, &csv, "csv", audit.ExportFilter{}, nil); err != nil {
			return err
		}
		found, err = audit.ScanSecrets(tx)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(csv.String(), secret) || !strings.Contains(csv.String(), "[secret: credential-assignment]") {
		t.Errorf("export:\n%s", csv.String())
	}
	if len(found[1]) != 1 || found[1][0].Rule != "credential-assignment" {
		t.Fatalf("found %+v", found)
	}
	if err := j.Do(func(db *journal.DB) error {
		return db.Update(func(tx *journal.Tx) error { return audit.PutSecrets(tx, 1, found) })
	}); err != nil {
		t.Fatal(err)
	}
	if err := j.View(func(tx *journal.Tx) error {
		got, scanned, err := audit.Secrets(tx, 1)
		if err != nil || !scanned || len(got) != 1 || audit.SecretsScanned(tx) != 1 {
			t.Errorf("after PutSecrets: %+v scanned %v, mark %d, %v", got, scanned, audit.SecretsScanned(tx), err)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}
