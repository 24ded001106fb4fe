package audit_test

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/audit"
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
		leaves, err := audit.Leaves(tx)
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
	if _, _, err := audit.Sign(j, s, time.Now()); err != nil { // stores tiles 0 and 1
		t.Fatal(err)
	}
	appendN(t, j, 333, "s1")
	m := memTreeOf(t, j)
	err := j.View(func(tx *journal.Tx) error {
		if n := audit.TreeSize(tx); n != 1033 {
			t.Fatalf("tree size %d", n)
		}
		for _, n := range []int64{1, 2, 255, 256, 257, 511, 512, 700, 1024, 1033} {
			got, err := audit.TreeHash(tx, n)
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
				p, err := audit.ProveEvent(tx, i, n)
				if err != nil {
					return err
				}
				e, err := tx.Event(uint64(i) + 1)
				if err != nil {
					return err
				}
				if err := tlog.CheckRecord(p, n, want, i, audit.LeafHash(e.Hash)); err != nil {
					t.Errorf("proof of %d in %d: %v", i, n, err)
				}
			}
			if n > 1 {
				p, err := audit.ProveTree(tx, 1033, n)
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
	c, made, err := audit.Sign(j, s, time.Now())
	if err != nil || !made || c.Size != 1033 {
		t.Fatalf("checkpoint %+v %v %v", c, made, err)
	}
	if _, made, _ := audit.Sign(j, s, time.Now()); made {
		t.Fatal("a second checkpoint of the same tree was made")
	}
	opened, err := audit.OpenCheckpoint(c.Note, vs)
	if err != nil || opened.Root != c.Root || len(opened.Signers) != 1 || opened.Signers[0] != "alice" {
		t.Fatalf("open: %+v %v", opened, err)
	}
	if !strings.HasPrefix(string(c.Note), audit.OriginPrefix) {
		t.Fatalf("note %q", c.Note)
	}
	err = j.View(func(tx *journal.Tx) error {
		r, err := audit.VerifyTree(tx, audit.CheckOptions{Keys: vs})
		if err != nil {
			return err
		}
		if r.Checkpoints != 2 || r.Size != 1033 || !r.Signed {
			t.Fatalf("report %+v", r)
		}
		_, other := keys(t, "mallory")
		if _, err := audit.VerifyTree(tx, audit.CheckOptions{Keys: other}); !errors.Is(err, audit.ErrCheckpoint) {
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
	if _, _, err := audit.Sign(j, s, time.Now()); err != nil {
		t.Fatal(err)
	}
	appendN(t, j, 10, "s1")
	b, h := export(t, j, "jsonl", audit.ExportFilter{})
	if len(h.Checkpoints) != 1 || h.Version != audit.ExportVersion || h.Workspace == "" {
		t.Fatalf("head %+v", h)
	}
	rep, err := audit.CheckExport(bytes.NewReader(b), audit.ExportCheck{CheckOptions: audit.CheckOptions{Keys: vs}})
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
	_, err = audit.CheckExport(bytes.NewReader(append(cut, cutHead.Bytes()...)), audit.ExportCheck{})
	if !errors.Is(err, audit.ErrRewritten) || !strings.Contains(err.Error(), "the tail from event 281 cut") {
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

// TestTree_AfterGC: gc drops 300 events (the cut falls inside the second
// tile) of a checkpointed journal; the tree keeps what it needs, so verify,
// proofs of the kept events and the export's check still pass, and the
// checkpoints over dropped events are checked from the stored hashes.
func TestTree_AfterGC(t *testing.T) {
	j := create(t)
	s, vs := keys(t, "alice")
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	timed(t, j, t0, 200)
	if _, _, err := audit.Sign(j, s, t0); err != nil {
		t.Fatal(err)
	}
	timed(t, j, t0.Add(200*time.Hour), 400)
	if _, _, err := audit.Sign(j, s, t0); err != nil {
		t.Fatal(err)
	}
	before, err := viewTreeHash(j, 600)
	if err != nil {
		t.Fatal(err)
	}
	// the store alone would drop leaves the checkpoints cover: it refuses,
	// dropping nothing
	o := journal.GCOptions{Keep: 300 * time.Hour, Now: t0.Add(600 * time.Hour)}
	if _, err := j.GC(o); !errors.Is(err, journal.ErrState) || !strings.Contains(err.Error(), "KeepTree") {
		t.Fatalf("gc without KeepTree of a journal with checkpoints: %v", err)
	}
	if h, err := viewTreeHash(j, 600); err != nil || h != before {
		t.Fatalf("root of 600 after a refused gc: %v %v", h, err)
	}
	o.KeepTree = audit.KeepTreeForGC
	rep, err := j.GC(o)
	if err != nil || rep.Dropped < 290 {
		t.Fatalf("gc %+v %v", rep, err)
	}
	appendN(t, j, 5, "s9")
	err = j.View(func(tx *journal.Tx) error {
		if h, err := audit.TreeHash(tx, 600); err != nil || h != before {
			t.Fatalf("root of 600 after gc: %v %v", h, err)
		}
		r, err := audit.VerifyTree(tx, audit.CheckOptions{Keys: vs})
		if err != nil {
			return err
		}
		// the checkpoint of 200 needs leaves of a tile gc dropped whole: skipped, not failed
		if r.Checkpoints != 1 || r.Skipped != 1 || r.Size != 606 {
			t.Fatalf("report %+v", r)
		}
		for _, seq := range []uint64{rep.FirstKept, rep.FirstKept + 1, 600} {
			i, err := audit.LeafIndex(tx, seq)
			if err != nil {
				return err
			}
			p, err := audit.ProveEvent(tx, i, 600)
			if err != nil {
				return err
			}
			e, _ := tx.Event(seq)
			if err := tlog.CheckRecord(p, 600, before, i, audit.LeafHash(e.Hash)); err != nil {
				t.Errorf("event %d after gc: %v", seq, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	b, h := export(t, j, "jsonl", audit.ExportFilter{})
	if len(h.TreeSeed) == 0 {
		t.Fatalf("head %+v", h)
	}
	xr, err := audit.CheckExport(bytes.NewReader(b), audit.ExportCheck{CheckOptions: audit.CheckOptions{Keys: vs}})
	if err != nil {
		t.Fatal(err)
	}
	if xr.Tree.Checkpoints != 1 || xr.Tree.Skipped != 1 {
		t.Fatalf("export: %+v", xr.Tree)
	}
	// an event after the cut, altered with the chain recomputed, fails the checkpoint
	lines := bytes.SplitAfter(b, []byte("\n"))
	var rec audit.ExportRecord
	json.Unmarshal(lines[5], &rec)
	e := new(journal.Event)
	json.Unmarshal(rec.Event, e)
	e.Args, e.ArgsSalt = rec.What.Args, rec.What.ArgsSalt
	e.Tool = "forged"
	e.Hash = journal.ComputeHash(e)
	lines[5], _ = audit.ExportLine(e)
	for i := 6; i < len(lines)-2; i++ { // the events after it; then the head line, then ""
		json.Unmarshal(lines[i], &rec)
		n := new(journal.Event)
		json.Unmarshal(rec.Event, n)
		n.Args, n.ArgsSalt = rec.What.Args, rec.What.ArgsSalt
		n.Prev = e.Hash
		n.Hash = journal.ComputeHash(n)
		lines[i], _ = audit.ExportLine(n)
		e = n
	}
	var hd audit.ExportHead
	json.Unmarshal(lines[len(lines)-2], &hd)
	hd.Head = e.Hash
	lines[len(lines)-2] = mustJSON(t, &hd)
	if _, err := audit.CheckExport(bytes.NewReader(bytes.Join(lines, nil)), audit.ExportCheck{}); !errors.Is(err, audit.ErrRewritten) {
		t.Fatalf("rewritten after gc: %v", err)
	}
}

// TestVerifyTree_StoredHashAltered: a stored tile hash altered on its own
// (the events intact) fails verify, which checks the checkpoints from the
// stored hashes, as prove uses them.
func TestVerifyTree_StoredHashAltered(t *testing.T) {
	j := create(t)
	s, vs := keys(t, "alice")
	appendN(t, j, 600, "s1")
	if _, _, err := audit.Sign(j, s, time.Now()); err != nil {
		t.Fatal(err)
	}
	appendN(t, j, 100, "s1")
	if _, _, err := audit.Sign(j, s, time.Now()); err != nil {
		t.Fatal(err)
	}
	err := j.Do(func(db *journal.DB) error {
		return db.Update(func(tx *journal.Tx) error {
			k := append([]byte{9}, make([]byte, 8)...) // tiles 0 and 1's hash, which both roots use
			b := tx.Bolt().Bucket([]byte("merkle"))
			bad := bytes.Clone(b.Get(k))
			bad[0] ^= 1
			return b.Put(k, bad)
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	err = j.View(func(tx *journal.Tx) error {
		_, err := audit.VerifyTree(tx, audit.CheckOptions{Keys: vs})
		return err
	})
	if !errors.Is(err, journal.ErrCorrupt) || !strings.Contains(err.Error(), "stored hashes") {
		t.Fatalf("an altered tile hash: %v", err)
	}
}

// viewTreeHash is the root of the tree's first n leaves, read in a
// transaction of its own.
func viewTreeHash(j *journal.Journal, n int64) (h tlog.Hash, err error) {
	err = j.View(func(tx *journal.Tx) (err error) { h, err = audit.TreeHash(tx, n); return })
	return h, err
}
