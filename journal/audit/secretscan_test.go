package audit_test

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/audit"
	"github.com/journalfs/journal/journal/secrets"
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

// TestCollector_InOrderAsWholeReads: the in-order scan (a Collector reading
// each file's versions against the one before, in passes of a transaction
// each, with a commit of what was found between them) finds what reading
// every content whole from the store finds — a secret in a version the next
// edit overwrites, one in an event's arguments — and a scan interrupted
// after some passes (its collector and a collected pass lost, as a killed
// status loses them) resumes from the stored mark to the same findings.
func TestCollector_InOrderAsWholeReads(t *testing.T) {
	j := create(t)
	defer j.Close()
	const key = "AWS_ACCESS_KEY_ID=AKIALALEMEL33243OLIB" // gitleaks:allow (made up for the test)
	paths := []string{"a.go", "b.go", "config.py"}
	cur := map[string][]byte{}
	for i, p := range paths {
		var b bytes.Buffer
		for k := range 300 {
			fmt.Fprintf(&b, "line %d of file %d, as a source file has them // %d\n", k, i, k*k)
		}
		cur[p] = b.Bytes()
	}
	// 420 one-line edits, 140 a file: chains of splices past their
	// bound; the key is in config.py's 50th version (event 150) only
	const edits, withKey, argsKey = 420, 150, 200
	for batch := 0; batch < edits; batch += 20 {
		if err := j.Do(func(db *journal.DB) error {
			return db.Update(func(tx *journal.Tx) error {
				for i := batch; i < batch+20; i++ {
					p := paths[i%len(paths)]
					lines := bytes.SplitAfter(cur[p], []byte("\n"))
					k := i * 7 % 300
					if i+1 == withKey+len(paths) { // the file's next edit overwrites the key
						k = (withKey - 1) * 7 % 300
					}
					lines[k] = fmt.Appendf(nil, "edit %d of line %d\n", i, k)
					if i+1 == withKey {
						lines[k] = []byte(key + "\n")
					}
					next := bytes.Join(lines, nil)
					id := snapshot.Sum(next)
					if _, err := snapshot.PutDelta(tx.Bolt(), id, next, cur[p]); err != nil {
						return err
					}
					cur[p] = next
					args := fmt.Sprintf(`{"path":%q}`, p)
					if i+1 == argsKey {
						args = fmt.Sprintf(`{"path":%q,"token":"ghp_R4nd0mT0k3nV4lu3Xy9Zq8W7e6R5t4Y3u2I1"}`, p) // gitleaks:allow (made up)
					}
					ev := &journal.Event{Kind: journal.KindApply, Actor: journal.Actor{Kind: "mcp"}, Args: []byte(args),
						Files: []journal.FileChange{{Path: p, After: id}}}
					if err := tx.Append(ev); err != nil {
						return err
					}
					if _, err := tx.Seal(ev.Seq, journal.StatusCommitted, ""); err != nil {
						return err
					}
				}
				return nil
			})
		}); err != nil {
			t.Fatal(err)
		}
	}
	// what reading every content whole finds
	var want map[uint64][]audit.Secret
	if err := j.View(func(tx *journal.Tx) error {
		var texts []audit.ScanText
		if err := tx.Each(1, false, func(e *journal.Event) error {
			st := audit.ScanText{Seq: e.Seq, Args: e.Args}
			for _, f := range e.Files {
				b, err := snapshot.Bytes(tx.Bolt(), f.After)
				if err != nil {
					return err
				}
				st.Paths, st.Contents = append(st.Paths, f.Path), append(st.Contents, f.After)
				st.Bytes, st.Sizes = append(st.Bytes, b), append(st.Sizes, int64(len(b)))
			}
			texts = append(texts, st)
			return nil
		}); err != nil {
			return err
		}
		var err error
		want, err = audit.ScanSecretTexts(nil, texts, j.View)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if s := want[withKey]; len(s) != 1 || s[0].Path != "config.py" || s[0].InArgs() {
		t.Fatalf("whole reads found %+v in event %d", s, withKey)
	}
	if s := want[argsKey]; len(s) != 1 || s[0].Arg != "/token" {
		t.Fatalf("whole reads found %+v in event %d", s, argsKey)
	}
	if len(want) != 2 {
		t.Fatalf("whole reads found secrets in %d events: %+v", len(want), want)
	}
	// the in-order scan, in passes of ~16 events, interrupted after 10
	scan := func(passes int) (stored uint64) {
		t.Helper()
		var c audit.Collector
		cache := secrets.NewCache()
		for n := 0; ; n++ {
			var texts []audit.ScanText
			var from, last uint64
			if err := j.View(func(tx *journal.Tx) (err error) {
				from = audit.SecretsScanned(tx)
				texts, last, err = c.CollectSecretTexts(tx, from, 200<<10)
				return err
			}); err != nil {
				t.Fatal(err)
			}
			if n == passes || last == from { // killed with a pass collected, or done
				return from
			}
			found, err := audit.ScanSecretTexts(cache, texts, j.View)
			if err != nil {
				t.Fatal(err)
			}
			if err := j.Do(func(db *journal.DB) error {
				return db.Update(func(tx *journal.Tx) error { return audit.PutSecrets(tx, last, found) })
			}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if at := scan(10); at == 0 || at >= edits {
		t.Fatalf("the interrupted scan stopped at event %d", at)
	}
	if at := scan(-1); at != edits {
		t.Fatalf("the resumed scan stopped at event %d", at)
	}
	got := map[uint64][]audit.Secret{}
	if err := j.View(func(tx *journal.Tx) error {
		return audit.EachSecrets(tx, func(seq uint64, s []audit.Secret) error { got[seq] = s; return nil })
	}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the in-order scan stored %+v\nreading whole found %+v", got, want)
	}
}
