package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/journalfs/journal/journal/audit"
	"github.com/journalfs/journal/journal/secrets"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/sshnote"
	"github.com/spf13/cobra"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

// Proof is what `journal prove` prints: enough to check one event against a
// signed checkpoint without the journal (docs/VERIFY.md).
type Proof struct {
	Seq        uint64      `json:"seq"`
	Event      string      `json:"event"` // the hashed JSON, as a string: blake3 of its UTF-8 bytes is Hash
	Hash       string      `json:"hash"`  // the event's chain hash, hex
	LeafIndex  int64       `json:"leaf_index"`
	TreeSize   int64       `json:"tree_size"`
	Proof      []tlog.Hash `json:"proof"`      // RFC 6962 inclusion proof, base64 hashes
	Checkpoint string      `json:"checkpoint"` // the signed note
	// Args and ArgsSalt are, for an event that commits to its arguments
	// by a salted digest (its event's args_digest), the arguments' JSON
	// exactly as digested and the salt (base64): blake3(salt ‖ args) is
	// the digest. Absent when the arguments were redacted.
	Args     string `json:"args,omitempty"`
	ArgsSalt []byte `json:"args_salt,omitempty"`
	// ArgsWithheld says why Args are absent though the event has them:
	// "secret" (they hold a detected secret; prove --reveal prints them).
	ArgsWithheld string `json:"args_withheld,omitempty"`
	// SSHSignatures are the checkpoint's SSH signatures by principal,
	// armored, over CheckpointText: `ssh-keygen -Y verify -n
	// journal-checkpoint` checks them with an allowed-signers file.
	SSHSignatures  map[string]string `json:"ssh_signatures,omitempty"`
	CheckpointText string            `json:"checkpoint_text,omitempty"`
}

func newProveCmd(a *app) *cobra.Command {
	var keys []string
	var old string
	cmd := &cobra.Command{
		Use:   "prove EVENT [--key FILE.pub] | prove --consistency OLD [NEW] [--key FILE.pub]",
		Short: "Print an inclusion proof of one event, or a consistency proof between two checkpoints (JSON)",
		Long: `prove prints, as JSON, one event's hashed record, its leaf index, the RFC 6962 inclusion proof of its
leaf in the Merkle tree and the newest signed checkpoint that covers it: an auditor handed the record checks
it without the journal (docs/VERIFY.md). With --key the checkpoint's signature is checked first.

With --consistency OLD [NEW] it prints the RFC 6962 consistency proof that the tree NEW signs extends the
tree OLD signed (every event OLD covered still there, unchanged), with both signed checkpoints: OLD and NEW
are checkpoint files or sizes of the journal's checkpoints; NEW defaults to the newest. An auditor holding
OLD checks it without the journal (docs/VERIFY.md), or with ` + "`journal verify --consistency FILE --checkpoint OLD`" + `.`,
		Args: cobra.RangeArgs(0, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			vs, err := loadVerifiers(keys)
			if err != nil {
				return err
			}
			var out any
			if cmd.Flags().Changed("consistency") {
				newer := ""
				if len(args) == 1 {
					newer = args[0]
				}
				err = a.view(func(tx *journal.Tx) (err error) { out, err = proveConsistency(tx, old, newer, vs); return err })
			} else {
				if len(args) != 1 {
					return withHint(usageError{errors.New("prove: which event? (prove EVENT, or prove --consistency OLD [NEW])")}, "`journal log` lists the events")
				}
				seq, perr := parseSeq(args[0])
				if perr != nil {
					return usageError{fmt.Errorf("prove: %q is not an event number", args[0])}
				}
				err = a.view(func(tx *journal.Tx) (err error) { out, err = prove(tx, seq, vs, a.reveal); return err })
			}
			if err != nil {
				return err
			}
			b, _ := json.MarshalIndent(out, "", "  ")
			_, err = a.out.Write(append(b, '\n'))
			return err
		},
	}
	cmd.Flags().StringArrayVar(&keys, "key", nil, "verifier key file the checkpoints must be signed by: FILE.pub of journal key generate, or an SSH allowed-signers file (repeatable)")
	a.addReveal(cmd)
	cmd.Flags().StringVar(&old, "consistency", "", "prove the tree of this earlier checkpoint (a checkpoint file, or the size of one of the journal's) consistent with NEW (default: the newest)")
	return cmd
}

// prove is journal prove EVENT; without reveal, arguments holding a
// detected secret are left out of the proof (ArgsWithheld), whose record
// still checks by their digest.
func prove(tx *journal.Tx, seq uint64, vs note.Verifiers, reveal bool) (*Proof, error) {
	e, err := tx.Event(seq)
	if errors.Is(err, journal.ErrNotFound) {
		return nil, withHint(fmt.Errorf("prove: no event %d (the newest is %d)", seq, tx.Last()), "`journal log` lists the events")
	}
	if err != nil {
		return nil, err
	}
	i, err := audit.LeafIndex(tx, seq)
	if err != nil {
		return nil, withHint(err, "gc dropped the events before this one's tile: it cannot be proven")
	}
	cps, err := audit.Checkpoints(tx)
	if err != nil {
		return nil, err
	}
	var c *audit.Checkpoint
	if len(cps) > 0 {
		c = cps[len(cps)-1]
	}
	if c == nil || c.Size <= i {
		return nil, withHint(fmt.Errorf("prove: no checkpoint covers event %d yet: %w", seq, audit.ErrCheckpoint),
			"run `journal checkpoint` (or serve with a cadence: --checkpoint-every, or journal checkpoint config), then prove it")
	}
	if vs != nil {
		if c, err = audit.OpenCheckpoint(c.Note, vs); err != nil {
			return nil, withHint(err, "the journal's newest checkpoint is not signed by the key given: the journal may have been rewritten")
		}
	}
	if n := audit.TreeSize(tx); n < c.Size {
		return nil, withHint(fmt.Errorf("prove: the newest checkpoint covers %d events, the journal's tree has %d: %w", c.Size, n, audit.ErrRewritten),
			"run `journal verify --key FILE.pub` to find where the journal parts from its checkpoints")
	}
	rp, err := audit.ProveEvent(tx, i, c.Size)
	if err != nil {
		return nil, err
	}
	// a proof that cannot check is not printed: the journal was rewritten after the checkpoint
	if err := tlog.CheckRecord(rp, c.Size, c.Root, i, audit.LeafHash(e.Hash)); err != nil {
		return nil, withHint(fmt.Errorf("prove: event %d is not in the tree the newest checkpoint (%d events) signed: %w", seq, c.Size, audit.ErrRewritten),
			"run `journal verify --key FILE.pub` to find where the journal parts from its checkpoints")
	}
	p := &Proof{Seq: seq, Event: string(journal.Canonical(e)), Hash: e.Hash.String(), LeafIndex: i, TreeSize: c.Size, Proof: rp,
		Checkpoint: string(c.Note)}
	switch {
	case !e.Salted() || len(e.Args) == 0:
	case !reveal && len(secrets.ScanArgs(e.Args)) > 0:
		p.ArgsWithheld = audit.WithheldSecret
	default:
		p.Args, p.ArgsSalt = string(e.Args), e.ArgsSalt
	}
	if text, sigs, err := sshnote.Signatures(c.Note); err == nil && len(sigs) > 0 {
		p.CheckpointText, p.SSHSignatures = text, sigs
	}
	return p, nil
}
