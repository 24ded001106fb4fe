package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/audit"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

// ConsistencyProof is what `journal prove --consistency` prints: enough to
// check, without the journal, that the tree a later checkpoint signs
// extends the tree an earlier one signed — every event the earlier covered
// is still there, unchanged and in order (docs/VERIFY.md "Two
// checkpoints").
type ConsistencyProof struct {
	OldSize int64       `json:"old_size"`
	OldRoot tlog.Hash   `json:"old_root"` // base64
	NewSize int64       `json:"new_size"`
	NewRoot tlog.Hash   `json:"new_root"`
	Proof   []tlog.Hash `json:"proof"` // RFC 6962 consistency proof (RFC 9162 §2.1.4), base64 hashes
	// OldCheckpoint and NewCheckpoint are the signed notes whose sizes and
	// roots these are.
	OldCheckpoint string `json:"old_checkpoint"`
	NewCheckpoint string `json:"new_checkpoint"`
}

// proveConsistency proves the checkpoint old names consistent with the one
// newer names ("": the journal's newest). Each is a checkpoint file or the
// size of one of the journal's checkpoints; with vs their signatures must
// check. A journal whose tree no longer has either root was rewritten
// (ErrRewritten): no proof is printed that would not check.
func proveConsistency(tx *journal.Tx, old, newer string, vs note.Verifiers) (*ConsistencyProof, error) {
	cps, err := audit.Checkpoints(tx)
	if err != nil {
		return nil, err
	}
	if cps, err = audit.Reopen(cps, vs, 1, "the journal's"); err != nil {
		return nil, withHint(err, "the journal holds a checkpoint not signed by the keys given: `journal verify --key FILE.pub` says which")
	}
	oc, err := checkpointArg(cps, old, vs, "OLD")
	if err != nil {
		return nil, err
	}
	var nc *audit.Checkpoint
	if newer == "" {
		if len(cps) == 0 {
			return nil, withHint(fmt.Errorf("prove: the journal has no checkpoint to prove %s consistent with: %w", old, audit.ErrCheckpoint),
				"run `journal checkpoint` (or serve with a cadence), then prove it")
		}
		nc = cps[len(cps)-1]
	} else if nc, err = checkpointArg(cps, newer, vs, "NEW"); err != nil {
		return nil, err
	}
	ws := tx.Workspace()
	for _, c := range []*audit.Checkpoint{oc, nc} {
		if c.Workspace() != ws {
			return nil, withHint(fmt.Errorf("prove: the checkpoint of %d events names another workspace (%s), not this one (%s): %w", c.Size, c.Workspace(), ws, audit.ErrCheckpoint),
				"give a checkpoint of this workspace (`journal status` shows its ID)")
		}
	}
	if oc.Size > nc.Size {
		return nil, withHint(usageError{fmt.Errorf("prove: OLD covers %d events, NEW %d: give the smaller tree first", oc.Size, nc.Size)},
			"journal prove --consistency OLD NEW proves that NEW extends OLD, the earlier and smaller tree")
	}
	rewritten := func(c *audit.Checkpoint, why string) error {
		return withHint(fmt.Errorf("prove: the checkpoint of %d events signed %s: %s: %w", c.Size, c.Time.Format("2006-01-02T15:04:05Z"), why, audit.ErrRewritten),
			"run `journal verify --checkpoint FILE` with that checkpoint to find the first event where the journal parts from it")
	}
	if n := audit.TreeSize(tx); nc.Size > n {
		return nil, rewritten(nc, fmt.Sprintf("the journal's tree has %d events (the tail was cut)", n))
	}
	for _, c := range []*audit.Checkpoint{oc, nc} {
		h, err := audit.TreeHash(tx, c.Size)
		if err != nil {
			return nil, err
		}
		if h != c.Root {
			return nil, rewritten(c, "the journal's events up to it have another root")
		}
	}
	p, err := audit.ProveTree(tx, nc.Size, oc.Size)
	if err != nil {
		return nil, err
	}
	if err := tlog.CheckTree(p, nc.Size, nc.Root, oc.Size, oc.Root); err != nil { // the stored hashes disagree with the events
		return nil, withHint(fmt.Errorf("prove: the tree's stored hashes do not prove %d events consistent with %d: %w", nc.Size, oc.Size, journal.ErrCorrupt),
			"run `journal verify` to check the stored tree")
	}
	return &ConsistencyProof{OldSize: oc.Size, OldRoot: oc.Root, NewSize: nc.Size, NewRoot: nc.Root, Proof: p,
		OldCheckpoint: string(oc.Note), NewCheckpoint: string(nc.Note)}, nil
}

// checkpointArg is the checkpoint arg names: the size of one of cps (the
// newest of that size), else a checkpoint file (its signature checked with
// vs). what is OLD or NEW, for messages.
func checkpointArg(cps []*audit.Checkpoint, arg string, vs note.Verifiers, what string) (*audit.Checkpoint, error) {
	if size, err := strconv.ParseInt(arg, 10, 64); err == nil {
		var found *audit.Checkpoint
		for _, c := range cps {
			if c.Size == size {
				found = c
			}
		}
		if found == nil {
			hint := "the journal has no checkpoint: sign one with `journal checkpoint`"
			if len(cps) > 0 {
				hint = fmt.Sprintf("give the size of one of the journal's %d checkpoints (%d to %d events; `journal export` lists them in its head line), or a checkpoint file",
					len(cps), cps[0].Size, cps[len(cps)-1].Size)
			}
			return nil, withHint(usageError{fmt.Errorf("prove: %s %d: the journal has no checkpoint of %d events", what, size, size)}, hint)
		}
		return found, nil
	}
	b, err := os.ReadFile(arg)
	if err != nil {
		return nil, withHint(usageError{fmt.Errorf("prove: %s %s: %w", what, arg, errors.Unwrap(err))},
			"give a checkpoint file (journal checkpoint's output) or the size of one of the journal's checkpoints")
	}
	c, err := audit.OpenCheckpoint(b, vs)
	if err != nil {
		return nil, withHint(fmt.Errorf("prove: %s %s: %w", what, arg, err), "a checkpoint file is a signed note as `journal checkpoint` prints it; with --key, signed by one of the keys")
	}
	return c, nil
}

// checkConsistency checks a consistency proof file on its own, as an
// auditor would (docs/VERIFY.md "Two checkpoints"): both checkpoints open
// (signed by a key of vs, when given) and name one workspace, the proof's
// sizes and roots are theirs, each of earlier (the auditor's own copies)
// is one of them, and the proof leads from the old root to the new.
func checkConsistency(path string, vs note.Verifiers, earlier []*audit.Checkpoint) (*ConsistencyProof, []*audit.Checkpoint, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, withHint(usageError{fmt.Errorf("--consistency %s: %w", path, errors.Unwrap(err))}, "name the file `journal prove --consistency` wrote")
	}
	var p ConsistencyProof
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, nil, withHint(exportError{fmt.Errorf("--consistency %s: %v: %w", path, err, audit.ErrCheckpoint)}, "the file is the JSON `journal prove --consistency` prints")
	}
	bad := func(format string, a ...any) error {
		return withHint(fmt.Errorf("--consistency %s: %s: %w", path, fmt.Sprintf(format, a...), audit.ErrRewritten),
			"the later checkpoint does not extend the earlier: the history was rewritten between them, or the proof altered")
	}
	var cs [2]*audit.Checkpoint
	for i, n := range []string{p.OldCheckpoint, p.NewCheckpoint} {
		if cs[i], err = audit.OpenCheckpoint([]byte(n), vs); err != nil {
			return nil, nil, withHint(fmt.Errorf("--consistency %s: %s checkpoint: %w", path, []string{"old", "new"}[i], err),
				"with --key, both checkpoints must be signed by one of the keys")
		}
	}
	oc, nc := cs[0], cs[1]
	switch {
	case oc.Workspace() != nc.Workspace():
		return nil, nil, withHint(fmt.Errorf("--consistency %s: the checkpoints name workspaces %s and %s: %w", path, oc.Workspace(), nc.Workspace(), audit.ErrCheckpoint),
			"a proof relates two checkpoints of one workspace")
	case oc.Size != p.OldSize || oc.Root != p.OldRoot || nc.Size != p.NewSize || nc.Root != p.NewRoot:
		return nil, nil, bad("old_size, old_root, new_size or new_root is not its checkpoint's")
	}
	for _, e := range earlier {
		if (e.Size != oc.Size || e.Root != oc.Root) && (e.Size != nc.Size || e.Root != nc.Root) || e.Workspace() != oc.Workspace() {
			return nil, nil, bad("the earlier checkpoint of %d events (root %s) is neither of the proof's (%d and %d events)", e.Size, e.Root, oc.Size, nc.Size)
		}
	}
	if err := tlog.CheckTree(p.Proof, nc.Size, nc.Root, oc.Size, oc.Root); err != nil {
		return nil, nil, bad("the proof does not lead from the root of %d events to the root of %d", oc.Size, nc.Size)
	}
	return &p, []*audit.Checkpoint{oc, nc}, nil
}
