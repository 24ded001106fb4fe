package journal

import (
	"bytes"
	"errors"
	"path/filepath"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// TestActors: events name their actor by number (v3 records), one number
// per actor however many events and handles (processes) write it; a
// number handed out in a transaction that rolled back is never trusted
// (another handle gives it to another actor); every event reads back with
// its own actor and hash; and the actor records are found again in the
// file's bytes when the bucket is gone (repair).
func TestActors(t *testing.T) {
	path := filepath.Join(t.TempDir(), DirName, FileName)
	j, err := Open(path, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	other, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	a1 := Actor{Kind: "mcp", Name: "claude-code", Version: "2.1", Session: "stdio-1", User: "dev", Host: "box", Origin: "stdio"}
	a2 := a1
	a2.Session = "stdio-2"
	ghost := a1
	ghost.Session = "rolled-back"
	add := func(j *Journal, a Actor) {
		t.Helper()
		err := j.Do(func(db *DB) error {
			return db.Update(func(tx *Tx) error {
				return tx.Append(&Event{Time: time.Now().UTC(), Kind: KindApply, Status: StatusCommitted, Tool: "edit_content", Actor: a,
					Args: []byte(`{"path":"a.txt"}`), Files: []FileChange{{Path: "a.txt"}}})
			})
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	add(j, a1)
	add(j, a1)
	// a number given to an actor whose transaction rolls back...
	err = j.Do(func(db *DB) error {
		return db.Update(func(tx *Tx) error {
			if _, err := tx.actorID(ghost); err != nil {
				return err
			}
			return errors.New("roll back")
		})
	})
	if err == nil {
		t.Fatal("the transaction did not roll back")
	}
	// ...goes to another actor in another process
	add(other, a2)
	add(j, ghost)
	add(other, a1)
	add(j, a2)
	want := []Actor{a1, a1, a2, ghost, a1, a2}
	for _, h := range []*Journal{j, other} {
		err := h.View(func(tx *Tx) error {
			if n := tx.Bolt().Bucket(bucketActors).Stats().KeyN; n != 6 {
				t.Errorf("%d actor records stored, want 3 and their mirrors", n)
			}
			for i, a := range want {
				e, err := tx.Event(uint64(i + 1))
				if err != nil {
					return err
				}
				if e.Actor != a {
					t.Errorf("event %d: actor %+v, want %+v", i+1, e.Actor, a)
				}
				rec := tx.Bolt().Bucket(bucketEvents).Get(u64(uint64(i + 1)))
				if rec[0] != recordV3 && rec[0] != recordV6 {
					t.Errorf("event %d: record version %d", i+1, rec[0])
				}
				if ComputeHash(e) != e.Hash {
					t.Errorf("event %d: hash", i+1)
				}
			}
			_, err := tx.Verify(true, nil)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	j.Close()
	other.Close()
	// the records in the file's bytes, without the bucket
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var raw bytes.Buffer
	var ids []uint64
	db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketActors).ForEach(func(k, v []byte) error {
			if keySeq(k) >= mirrorBit {
				return nil
			}
			raw.Write([]byte("junk"))
			raw.Write(v)
			ids = append(ids, keySeq(k))
			return nil
		})
	})
	db.Close()
	got := salvageActors(raw.Bytes())
	if len(got) != 3 {
		t.Fatalf("salvaged %d actors", len(got))
	}
	for _, a := range []Actor{a1, a2, ghost} {
		found := false
		for _, id := range ids {
			found = found || got[id] == a
		}
		if !found {
			t.Errorf("actor %+v not salvaged", a)
		}
	}
	// a damaged copy is not taken, nor a number found with two actors
	b := raw.Bytes()
	b[len(b)-1] ^= 1
	if len(salvageActors(b)) != 2 {
		t.Error("a damaged actor record was salvaged")
	}
	twice := append(bytes.Clone(raw.Bytes()), encodeActor(ids[0], Actor{Kind: "cli"})...)
	if _, ok := salvageActors(twice)[ids[0]]; ok {
		t.Error("a number found with two actors was salvaged")
	}
}
