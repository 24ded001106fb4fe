package audit

import (
	"errors"
	"fmt"
	"strings"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/snapshot"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

// CheckOptions say what a verify checks a history's checkpoints against.
type CheckOptions struct {
	// Keys verify the checkpoints' signatures: every checkpoint the history
	// holds, and every one given, must be signed by one of them. Nil: the
	// signatures are not checked (the roots still are).
	Keys note.Verifiers
	// Quorum is how many of Keys must each have signed every checkpoint
	// (a signer and its witnesses: journal checkpoint --cosign); 0 or 1:
	// one.
	Quorum int
	// Checkpoints are checkpoints taken from elsewhere (an auditor's copy,
	// a remote's): the history must match each.
	Checkpoints []*Checkpoint
	// Reference is an earlier copy of the history's chain hashes by leaf,
	// from leaf RefStart (an earlier export's): the first event where the
	// two differ is named.
	Reference []snapshot.ID
	RefStart  int64
	// RefFrom names the reference in messages ("the export a.jsonl").
	RefFrom string
}

// TreeReport is what a check of checkpoints found.
type TreeReport struct {
	Checkpoints int         // checkpoints whose roots matched (the history's own and those given)
	Skipped     int         // checkpoints over events gc dropped that could not be recomputed (an export's)
	Signed      bool        // signatures were checked (Keys given)
	Size        int64       // leaves: the sealed events in the tree
	Root        tlog.Hash   // the root of all of them
	Newest      *Checkpoint // the largest checkpoint (nil: none)
}

// Reopen verifies the signatures of cps with keys (nil keys: returned as
// they are): each must be signed by quorum of them (at least one). what
// names them in errors ("the journal's", "the export's").
func Reopen(cps []*Checkpoint, keys note.Verifiers, quorum int, what string) ([]*Checkpoint, error) {
	if keys == nil {
		return cps, nil
	}
	out := make([]*Checkpoint, 0, len(cps))
	for _, cp := range cps {
		c, err := OpenCheckpoint(cp.Note, keys)
		if err == nil && len(c.Signers) < quorum {
			err = fmt.Errorf("journal: signed by %d of the keys given (%s), the quorum is %d: %w", len(c.Signers),
				strings.Join(c.Signers, ", "), quorum, ErrCheckpoint)
		}
		if err != nil {
			return nil, fmt.Errorf("journal: %s checkpoint of %d events dated %s: %w", what, cp.Size,
				cp.Time.Format("2006-01-02T15:04:05Z"), err)
		}
		out = append(out, c)
	}
	return out, nil
}

// NewCheck makes the TreeCheck of a history whose tree starts after event
// base, of workspace ws, holding own checkpoints (what names them in
// errors): those and o's, their signatures checked with o.Keys, and o's
// reference. It also returns all the checkpoints, smallest tree first.
func (o CheckOptions) NewCheck(base uint64, ws string, own []*Checkpoint, what string) (*TreeCheck, []*Checkpoint, error) {
	own, err := Reopen(own, o.Keys, o.Quorum, what)
	if err != nil {
		return nil, nil, err
	}
	given, err := Reopen(o.Checkpoints, o.Keys, o.Quorum, "the given")
	if err != nil {
		return nil, nil, err
	}
	all := append(own, given...)
	tc, err := NewTreeCheck(base, ws, all)
	if err != nil {
		return nil, nil, err
	}
	if o.Reference != nil {
		tc.Reference(o.Reference, o.RefStart, o.RefFrom)
	}
	sortCheckpoints(all)
	return tc, all, nil
}

func (tc *TreeCheck) report(all []*Checkpoint, signed bool) *TreeReport {
	r := &TreeReport{Checkpoints: tc.Matched, Skipped: tc.Skipped, Signed: signed, Size: tc.Size(), Root: tc.Root()}
	if len(all) > 0 {
		r.Newest = all[len(all)-1]
	}
	return r
}

// VerifyTree recomputes the Merkle tree from the sealed events and checks
// every checkpoint the journal holds, and those o gives, against it (see
// TreeCheck); with o.Keys, their signatures too. The first failure names
// the event where the history parts from a checkpoint or the reference,
// wrapping ErrRewritten, ErrCheckpoint or ErrTree. It is meant to follow
// Verify, which checks the chain the leaves are taken from.
func VerifyTree(t *journal.Tx, o CheckOptions) (*TreeReport, error) {
	own, err := Checkpoints(t)
	if err != nil {
		return nil, err
	}
	base := TreeBase(t)
	tc, all, err := o.NewCheck(base, t.Workspace(), own, "the journal's")
	if err != nil {
		return nil, err
	}
	n, seed, err := TreeSeed(t)
	if err != nil {
		return nil, err
	}
	if err := tc.Seed(n, seed, func(n int64) (tlog.Hash, error) { return TreeHash(t, n) }); err != nil {
		return nil, err
	}
	err = t.Each(base+uint64(n)+1, false, func(e *journal.Event) error {
		if e.Status == journal.StatusPending {
			return journal.ErrStop
		}
		first := e.Seq
		if e.Lost != nil && e.Lost.First != 0 && e.Spans(e.Lost.First) {
			first = e.Lost.First
		}
		return tc.Add(e.Seq, first, e.Hash)
	})
	if err != nil && !errors.Is(err, journal.ErrStop) {
		return nil, err
	}
	if err := tc.Finish(); err != nil {
		return nil, err
	}
	if err := checkStoredTree(t, own); err != nil {
		return nil, err
	}
	return tc.report(all, o.Keys != nil), nil
}

// checkStoredTree checks, from the stored hashes (what prove uses), each
// of the journal's checkpoints' roots and, with RFC 6962 consistency
// proofs, that each is consistent with the next: the events were checked
// against the roots by recomputing the tree, so this finds stored hashes
// damaged or altered on their own. Checkpoints over leaves gc dropped
// whole are left out, as in the walk.
func checkStoredTree(t *journal.Tx, cps []*Checkpoint) error {
	r := TreeHashes(t)
	bad := func(c *Checkpoint, what string) error {
		return fmt.Errorf("journal: verify: the tree's stored hashes %s the checkpoint of %d events: they were damaged or altered, and proofs would fail: %w",
			what, c.Size, journal.ErrCorrupt)
	}
	var prev *Checkpoint
	for _, c := range cps {
		h, err := tlog.TreeHash(c.Size, r)
		if errors.Is(err, ErrTree) {
			continue
		}
		if err != nil {
			return err
		}
		if h != c.Root {
			return bad(c, "give another root for")
		}
		if prev != nil && prev.Size < c.Size {
			p, err := tlog.ProveTree(c.Size, prev.Size, r)
			if err != nil {
				return err
			}
			if tlog.CheckTree(p, c.Size, c.Root, prev.Size, prev.Root) != nil {
				return bad(c, fmt.Sprintf("do not prove the checkpoint of %d events consistent with", prev.Size))
			}
		}
		prev = c
	}
	return nil
}
