package journal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/journalfs/journal/snapshot"
)

// redactSecret is the value the tests write and take out.
const redactSecret = "ghp_R3dact3dT0kenV4lueNobodyMayRead0001"

// redactJournal writes n events with arguments, the secret in event 3's
// arguments and in its content (a source file of ~40 KiB); event 4 takes
// the secret's line out of the file, stored as a delta or splice of the
// version before. It returns the journal and the two versions' IDs.
func redactJournal(t *testing.T, n int) (j *Journal, v1, v2 snapshot.ID) {
	t.Helper()
	j, err := Open(filepath.Join(t.TempDir(), DirName, FileName), Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	var src strings.Builder
	for i := range 800 {
		fmt.Fprintf(&src, "line %d: some code that does not change %d\n", i, i*7)
	}
	withSecret := strings.Replace(src.String(), "line 400:", "token := \""+redactSecret+"\" // line 400:", 1)
	err = j.Do(func(db *DB) error {
		return db.Update(func(tx *Tx) error {
			for i := 1; i <= n; i++ {
				ev := &Event{Kind: KindApply, Status: StatusCommitted, Tool: "edit", Args: fmt.Appendf(nil, `{"i":%d}`, i), Files: []FileChange{}}
				var err error
				switch i {
				case 3:
					ev.Args = fmt.Appendf(nil, `{"text":%q}`, redactSecret)
					v1, err = snapshot.PutTx(tx.Bolt(), []byte(withSecret))
					ev.Files = []FileChange{{Path: "a.go", After: v1}}
				case 4:
					v2 = snapshot.Sum([]byte(src.String()))
					_, err = snapshot.PutDelta(tx.Bolt(), v2, []byte(src.String()), []byte(withSecret))
					ev.Files = []FileChange{{Path: "a.go", Before: v1, After: v2}}
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

// holds reports whether any event's arguments or any stored chunk holds s.
func holds(t *testing.T, j *Journal, s string) bool {
	t.Helper()
	found := false
	err := j.View(func(tx *Tx) error {
		if err := tx.Each(0, false, func(e *Event) error {
			found = found || bytes.Contains(e.Args, []byte(s))
			return nil
		}); err != nil {
			return err
		}
		return snapshot.EachChunk(tx.Bolt(), func(_ snapshot.ID, b []byte) error {
			found = found || bytes.Contains(b, []byte(s))
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// TestRedact_KeepsWhatDependsOnIt: the secret's version is taken out while
// the next version, stored against it, is stored whole first and still
// reads; event 3 — packed in a block with 600 events — loses its
// arguments; verify passes and counts the redaction; the secret is in no
// record and no chunk, and the file was compacted (a new inode).
func TestRedact_KeepsWhatDependsOnIt(t *testing.T) {
	j, v1, v2 := redactJournal(t, 600)
	if !holds(t, j, redactSecret) {
		t.Fatal("the secret was never stored")
	}
	ino := fileInode(j.path)
	var rep *RedactReport
	err := j.Do(func(db *DB) (err error) {
		rep, err = db.Redact(RedactRequest{Events: []uint64{3}, Contents: []snapshot.ID{v1}, Why: "a token", Actor: Actor{Kind: "cli"}})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Event != 601 || len(rep.Events) != 1 || len(rep.Contents) != 1 || rep.Rewritten == 0 || rep.Chunks == 0 {
		t.Fatalf("report %+v", rep)
	}
	if holds(t, j, redactSecret) {
		t.Fatal("the secret is still stored")
	}
	if fileInode(j.path) == ino {
		t.Fatal("the file was not rewritten")
	}
	err = j.View(func(tx *Tx) error {
		b, err := snapshot.Bytes(tx.Bolt(), v2)
		if err != nil || snapshot.Sum(b) != v2 {
			t.Fatalf("the version after it: %v", err)
		}
		_, err = snapshot.Bytes(tx.Bolt(), v1)
		if cerr := tx.ContentError(v1, err); !errors.Is(cerr, ErrRedacted) || !strings.Contains(cerr.Error(), "redact event 601") {
			t.Fatalf("reading the redacted version: %v", cerr)
		}
		e, err := tx.Event(3)
		if err != nil || !e.ArgsRedacted() || ComputeHash(e) != e.Hash {
			t.Fatalf("event 3: %+v %v", e, err)
		}
		r, err := tx.Verify(true, nil)
		if err != nil {
			return err
		}
		if len(r.Redacted) != 1 || r.Redacted[0] != 3 || r.RedactedContents != 1 || len(r.Redactions) != 1 {
			t.Fatalf("verify %+v", r)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// nothing left to take out
	err = j.Do(func(db *DB) error {
		_, err := db.Redact(RedactRequest{Events: []uint64{3}, Contents: []snapshot.ID{v1}, Why: "again"})
		return err
	})
	if !errors.Is(err, ErrNothingToRedact) {
		t.Fatalf("a second redaction: %v", err)
	}
}

// TestRedact_TamperingIsNotRedaction: arguments removed or changed by hand
// (the record rewritten, its hash untouched) fail verify, as does an index
// entry claiming a redaction no redact event made.
func TestRedact_TamperingIsNotRedaction(t *testing.T) {
	for name, tamper := range map[string]func(tx *Tx) error{
		"arguments removed": func(tx *Tx) error {
			e, _ := tx.Event(2)
			e.Args, e.ArgsSalt = nil, nil
			return tx.rewrite(e)
		},
		"arguments changed": func(tx *Tx) error {
			e, _ := tx.Event(2)
			e.Args = json.RawMessage(`{"i":20}`)
			return tx.rewrite(e)
		},
		"a redaction claimed": func(tx *Tx) error {
			e, _ := tx.Event(2)
			e.Args, e.ArgsSalt = nil, nil
			if err := tx.rewrite(e); err != nil {
				return err
			}
			b, _ := tx.tx.CreateBucketIfNotExists(bucketRedacted)
			return b.Put(redactedKey('e', u64(2)), u64(5))
		},
	} {
		t.Run(name, func(t *testing.T) {
			j, _, _ := redactJournal(t, 5)
			if err := j.Do(func(db *DB) error { return db.Update(tamper) }); err != nil {
				t.Fatal(err)
			}
			err := j.View(func(tx *Tx) error { _, err := tx.Verify(false, nil); return err })
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "event 2") {
				t.Fatalf("verify: %v", err)
			}
		})
	}
}

// rewrite stores e as its record, as an insider editing the file would.
func (t *Tx) rewrite(e *Event) error {
	rec, err := t.encode(e)
	if err != nil {
		return err
	}
	return t.replaceRecord(e.Seq, rec)
}

// TestRedact_FinishedAfterACrash: a redaction whose process died after
// its transaction, before the compaction, is finished by the next
// FinishRedaction (the engine's recovery); one already finished is not
// redone.
func TestRedact_FinishedAfterACrash(t *testing.T) {
	j, v1, _ := redactJournal(t, 5)
	err := j.Do(func(db *DB) error {
		return db.Update(func(tx *Tx) error {
			if err := tx.tx.Bucket(bucketMeta).Put(metaRedactDue, []byte(fileInode(j.path))); err != nil {
				return err
			}
			return tx.redact(RedactRequest{Events: []uint64{3}, Contents: []snapshot.ID{v1}, Why: "crash"}, &RedactReport{})
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	ino := fileInode(j.path)
	if err := j.Do(func(db *DB) error { return db.FinishRedaction() }); err != nil {
		t.Fatal(err)
	}
	done := fileInode(j.path)
	if done == ino {
		t.Fatal("the interrupted redaction was not finished")
	}
	if err := j.Do(func(db *DB) error { return db.FinishRedaction() }); err != nil || fileInode(j.path) != done {
		t.Fatalf("a finished redaction was redone: %v", err)
	}
}

// BenchmarkArgsSalt: what salting adds to an event with a typical
// edit_content call's arguments (a fresh salt, the arguments re-marshaled,
// their digest), and to reading its record back (the digest recomputed).
func BenchmarkArgsSalt(b *testing.B) {
	args := json.RawMessage(`{"absolute_file_path":"/home/user/src/project/internal/server/handler.go","preview":false,` +
		`"replace_text":"\tif err := validate(req); err != nil {\n\t\treturn nil, fmt.Errorf(\"handler: %w\", err)\n\t}","search_text":"\tif err := validate(req); err != nil {\n\t\treturn nil, err\n\t}"}`)
	b.Run("salt", func(b *testing.B) {
		for b.Loop() {
			e := &Event{Args: args}
			if err := e.salt(); err != nil {
				b.Fatal(err)
			}
		}
	})
	e := &Event{Seq: 7, Kind: KindApply, Status: StatusCommitted, Tool: "edit_content", Args: args, Files: []FileChange{}}
	plain, err := Encode(e)
	if err != nil {
		b.Fatal(err)
	}
	if err := e.salt(); err != nil {
		b.Fatal(err)
	}
	salted, err := Encode(e)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("record: %d bytes unsalted, %d salted", len(plain), len(salted))
	for name, rec := range map[string][]byte{"decode/unsalted": plain, "decode/salted": salted} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Decode(rec); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
