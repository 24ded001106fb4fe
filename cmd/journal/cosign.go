package main

import (
	"fmt"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/audit"
)

// cosign adds the witness key's signature to one of the journal's
// checkpoints (arg: the size of one, a checkpoint file holding one, or ""
// for the newest) and stores it in place; it prints the cosigned note. The
// witness first checks that the journal's events up to the checkpoint still
// hash to its root: it signs what it saw, not what it was told.
func (a *app) cosign(keyFile, arg string) error {
	s, err := loadSigner(keyFile)
	if err != nil {
		return err
	}
	j, err := a.journal()
	if err != nil {
		return err
	}
	var c *audit.Checkpoint
	err = a.view(func(tx *journal.Tx) error {
		cps, err := audit.Checkpoints(tx)
		if err != nil {
			return err
		}
		if arg == "" {
			if len(cps) == 0 {
				return withHint(fmt.Errorf("checkpoint --cosign: the journal has no checkpoint to cosign: %w", audit.ErrCheckpoint),
					"the signer signs one first (`journal checkpoint`); a witness cosigns it")
			}
			c = cps[len(cps)-1]
		} else if c, err = checkpointArg(cps, arg, nil, "CHECKPOINT"); err != nil {
			return err
		}
		if c.Workspace() != tx.Workspace() {
			return withHint(fmt.Errorf("checkpoint --cosign: the checkpoint names another workspace (%s), not this one (%s): %w", c.Workspace(), tx.Workspace(), audit.ErrCheckpoint),
				"cosign a checkpoint of this workspace")
		}
		found := false
		for _, o := range cps {
			found = found || o.Size == c.Size && o.Root == c.Root && o.Time.Equal(c.Time)
		}
		if !found {
			return withHint(fmt.Errorf("checkpoint --cosign: the journal does not hold the checkpoint of %d events signed %s: %w", c.Size, c.Time.Format(time.RFC3339), audit.ErrCheckpoint),
				"cosign a checkpoint of this journal: its size (`journal export` lists them in its head line), or none for the newest")
		}
		h, err := audit.TreeHash(tx, c.Size)
		if err != nil {
			return err
		}
		if h != c.Root {
			return withHint(fmt.Errorf("checkpoint --cosign: the journal's events up to %d no longer hash to the root the checkpoint signed: %w", c.Size, audit.ErrRewritten),
				"a witness does not cosign a rewritten history: `journal verify --key FILE.pub` names where it parts")
		}
		return nil
	})
	if err != nil {
		return err
	}
	cs, err := audit.Cosign(c, s)
	if err != nil {
		return err
	}
	err = j.Do(func(db *journal.DB) error {
		return db.Update(func(tx *journal.Tx) error { return audit.PutCheckpoint(tx, cs) })
	})
	if err != nil {
		return err
	}
	_, err = a.out.Write(cs.Note)
	return err
}
