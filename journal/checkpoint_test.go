package journal_test

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/journalfs/journal/journal"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

// keys makes a note signer and the verifiers of its key.
func keys(t testing.TB, name string) (note.Signer, note.Verifiers) {
	t.Helper()
	skey, vkey, err := note.GenerateKey(rand.Reader, name)
	if err != nil {
		t.Fatal(err)
	}
	s, err := note.NewSigner(skey)
	if err != nil {
		t.Fatal(err)
	}
	v, err := note.NewVerifier(vkey)
	if err != nil {
		t.Fatal(err)
	}
	return s, note.VerifierList(v)
}

// memTree is the tree of leaves kept the way tlog's own users keep it: every
// stored hash, in memory.
type memTree []tlog.Hash

func (m memTree) ReadHashes(idx []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(idx))
	for i, x := range idx {
		out[i] = m[x]
	}
	return out, nil
}

func memTreeOf(t *testing.T, j *journal.Journal) memTree {
	t.Helper()
	var m memTree
	err := j.View(func(tx *journal.Tx) error {
		leaves, err := tx.Leaves()
		for i, h := range leaves {
			hs, err := tlog.StoredHashes(int64(i), h[:], m)
			if err != nil {
				return err
			}
			m = append(m, hs...)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestTree_MatchesTlogAndProves(t *testing.T) {
	j := create(t)
	s, vs := keys(t, "alice")
	appendN(t, j, 700, "s1")
	if _, _, err := j.Checkpoint(s, time.Now()); err != nil { // stores tiles 0 and 1
		t.Fatal(err)
	}
	appendN(t, j, 333, "s1")
	m := memTreeOf(t, j)
	err := j.View(func(tx *journal.Tx) error {
		if n := tx.TreeSize(); n != 1033 {
			t.Fatalf("tree size %d", n)
		}
		for _, n := range []int64{1, 2, 255, 256, 257, 511, 512, 700, 1024, 1033} {
			got, err := tx.TreeHash(n)
			if err != nil {
				return err
			}
			want, err := tlog.TreeHash(n, m)
			if err != nil {
				return err
			}
			if got != want {
				t.Errorf("root of %d: %s, tlog %s", n, got, want)
			}
			for _, i := range []int64{0, n / 2, n - 1} {
				p, err := tx.ProveEvent(i, n)
				if err != nil {
					return err
				}
				e, err := tx.Event(uint64(i) + 1)
				if err != nil {
					return err
				}
				if err := tlog.CheckRecord(p, n, want, i, journal.LeafHash(e.Hash)); err != nil {
					t.Errorf("proof of %d in %d: %v", i, n, err)
				}
			}
			if n > 1 {
				p, err := tx.ProveTree(1033, n)
				if err != nil {
					return err
				}
				top, _ := tlog.TreeHash(1033, m)
				if err := tlog.CheckTree(p, 1033, top, n, want); err != nil {
					t.Errorf("consistency %d → 1033: %v", n, err)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	c, made, err := j.Checkpoint(s, time.Now())
	if err != nil || !made || c.Size != 1033 {
		t.Fatalf("checkpoint %+v %v %v", c, made, err)
	}
	if _, made, _ := j.Checkpoint(s, time.Now()); made {
		t.Fatal("a second checkpoint of the same tree was made")
	}
	opened, err := journal.OpenCheckpoint(c.Note, vs)
	if err != nil || opened.Root != c.Root || len(opened.Signers) != 1 || opened.Signers[0] != "alice" {
		t.Fatalf("open: %+v %v", opened, err)
	}
	if !strings.HasPrefix(string(c.Note), journal.OriginPrefix) {
		t.Fatalf("note %q", c.Note)
	}
	err = j.View(func(tx *journal.Tx) error {
		r, err := tx.VerifyTree(journal.CheckOptions{Keys: vs})
		if err != nil {
			return err
		}
		if r.Checkpoints != 2 || r.Size != 1033 || !r.Signed {
			t.Fatalf("report %+v", r)
		}
		_, other := keys(t, "mallory")
		if _, err := tx.VerifyTree(journal.CheckOptions{Keys: other}); !errors.Is(err, journal.ErrCheckpoint) {
			t.Fatalf("checkpoints checked against another key: %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestExport_CheckpointsInHeadVerify(t *testing.T) {
	j := create(t)
	s, vs := keys(t, "alice")
	appendN(t, j, 300, "s1")
	if _, _, err := j.Checkpoint(s, time.Now()); err != nil {
		t.Fatal(err)
	}
	appendN(t, j, 10, "s1")
	b, h := export(t, j, "jsonl", journal.ExportFilter{})
	if len(h.Checkpoints) != 1 || h.Version != journal.ExportVersion || h.Workspace == "" {
		t.Fatalf("head %+v", h)
	}
	rep, err := journal.CheckExport(bytes.NewReader(b), journal.ExportCheck{CheckOptions: journal.CheckOptions{Keys: vs}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Tree == nil || rep.Tree.Checkpoints != 1 || rep.Tree.Size != 310 {
		t.Fatalf("report %+v", rep.Tree)
	}
	// the same export, its last 20 events cut and the head rewritten to match: the checkpoint catches it
	lines := bytes.SplitAfter(b, []byte("\n"))
	cut := bytes.Join(lines[:280], nil)
	var cutHead bytes.Buffer
	err = j.View(func(tx *journal.Tx) error {
		// a head as the export of the first 280 events would have it
		e, err := tx.Event(280)
		if err != nil {
			return err
		}
		h2 := *h
		h2.Events, h2.Last, h2.Head = 280, 280, e.Hash
		cutHead.Write(mustJSON(t, &h2))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = journal.CheckExport(bytes.NewReader(append(cut, cutHead.Bytes()...)), journal.ExportCheck{})
	if !errors.Is(err, journal.ErrRewritten) || !strings.Contains(err.Error(), "the tail from event 281 cut") {
		t.Fatalf("cut tail: %v", err)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}
