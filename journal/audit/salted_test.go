package audit_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/audit"
	"github.com/journalfs/journal/snapshot"
)

// redactSecret is the value the tests write and take out.
const redactSecret = "ghp_R3dact3dT0kenV4lueNobodyMayRead0001"

// redactJournal writes n events with arguments, the secret in event 3's
// arguments and in its content (a source file of ~40 KiB); event 4 takes
// the secret's line out of the file, stored as a delta or splice of the
// version before. It returns the journal and the two versions' IDs.
func redactJournal(t *testing.T, n int) (j *journal.Journal, v1, v2 snapshot.ID) {
	t.Helper()
	j, err := journal.Open(filepath.Join(t.TempDir(), journal.DirName, journal.FileName), journal.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	var src strings.Builder
	for i := range 800 {
		fmt.Fprintf(&src, "line %d: some code that does not change %d\n", i, i*7)
	}
	withSecret := strings.Replace(src.String(), "line 400:", "token := \""+redactSecret+"\" // line 400:", 1)
	err = j.Do(func(db *journal.DB) error {
		return db.Update(func(tx *journal.Tx) error {
			for i := 1; i <= n; i++ {
				ev := &journal.Event{Kind: journal.KindApply, Status: journal.StatusCommitted, Tool: "edit", Args: fmt.Appendf(nil, `{"i":%d}`, i), Files: []journal.FileChange{}}
				var err error
				switch i {
				case 3:
					ev.Args = fmt.Appendf(nil, `{"text":%q}`, redactSecret)
					v1, err = snapshot.PutTx(tx.Bolt(), []byte(withSecret))
					ev.Files = []journal.FileChange{{Path: "a.go", After: v1}}
				case 4:
					v2 = snapshot.Sum([]byte(src.String()))
					_, err = snapshot.PutDelta(tx.Bolt(), v2, []byte(src.String()), []byte(withSecret))
					ev.Files = []journal.FileChange{{Path: "a.go", Before: v1, After: v2}}
				}
				if err != nil {
					return err
				}
				if err := tx.Append(ev); err != nil {
					return err
				}
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return j, v1, v2
}

// TestExport_SaltedArguments: an export discloses a salted event's
// arguments and salt beside its hashed event and verifies; arguments
// changed in the line, a salt changed, arguments dropped without a redact
// event, or a withheld reason made up, fail it, naming the event; after a
// redaction the export says "redacted" and verifies, and Withhold's copy
// says "secret" and verifies too.
func TestExport_SaltedArguments(t *testing.T) {
	j, v1, _ := redactJournal(t, 5)
	export := func(withhold uint64) []byte {
		var buf bytes.Buffer
		err := j.View(func(tx *journal.Tx) error {
			return tx.Each(0, false, func(e *journal.Event) error {
				if e.Seq == withhold {
					e = audit.Withhold(e, audit.WithheldSecret)
				}
				line, err := audit.ExportLine(e)
				buf.Write(line)
				return err
			})
		})
		if err != nil {
			t.Fatal(err)
		}
		var last journal.Event
		j.View(func(tx *journal.Tx) error { e, err := tx.Event(tx.Last()); last = *e; return err })
		h, _ := json.Marshal(&audit.ExportHead{Type: "head", Version: audit.ExportVersionChain, Events: int(last.Seq), First: 1, Last: last.Seq, Head: last.Hash})
		return append(append(buf.Bytes(), h...), '\n')
	}
	check := func(b []byte) (*audit.ExportReport, error) {
		return audit.VerifyExport(bytes.NewReader(b), snapshot.ID{}, nil)
	}
	b := export(0)
	if _, err := check(b); err != nil {
		t.Fatal(err)
	}
	secret := fmt.Sprintf(`"args":{"text":%q}`, redactSecret)
	if !bytes.Contains(b, []byte(secret)) {
		t.Fatalf("the export does not disclose event 3's arguments:\n%s", b)
	}
	for name, bad := range map[string][]byte{
		"arguments changed": bytes.Replace(b, []byte(redactSecret), []byte(strings.ToUpper(redactSecret)), 1),
		"salt changed":      regexpReplace(b, `("args":\{"text":"[^"]*"\},"args_salt":")`, `${1}AA`),
		"arguments dropped": regexpReplace(b, `"args":\{"text":"[^"]*"\},"args_salt":"[^"]*"`, `"args_withheld":"redacted"`),
		"reason made up":    regexpReplace(b, `"args":\{"text":"[^"]*"\},"args_salt":"[^"]*"`, `"args_withheld":"lost"`),
	} {
		if bytes.Equal(bad, b) {
			t.Fatalf("%s: the line did not change", name)
		}
		if _, err := check(bad); !errors.Is(err, journal.ErrCorrupt) || !strings.Contains(err.Error(), "event 3") {
			t.Errorf("%s: %v", name, err)
		}
	}
	// withheld as a secret: verifies, reported
	w := export(3)
	if bytes.Contains(w, []byte(redactSecret)) {
		t.Fatal("the withheld export holds the secret")
	}
	if rep, err := check(w); err != nil || len(rep.Withheld) != 1 || rep.Withheld[0] != 3 {
		t.Fatalf("withheld: %+v %v", rep, err)
	}
	// redacted: verifies, reported
	if err := j.Do(func(db *journal.DB) error {
		_, err := db.Redact(journal.RedactRequest{Events: []uint64{3}, Contents: []snapshot.ID{v1}, Why: "token"})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	r := export(0)
	if rep, err := check(r); err != nil || len(rep.Redacted) != 1 || rep.Redacted[0] != 3 || len(rep.Redactions) != 1 {
		t.Fatalf("redacted: %+v %v", rep, err)
	}
}

func regexpReplace(b []byte, re, with string) []byte {
	return regexp.MustCompile(re).ReplaceAll(b, []byte(with))
}
