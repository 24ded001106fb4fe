package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/journalfs/journal/journal/audit"
)

// checkOptions reads verify's --key and --checkpoint files. A --checkpoint
// file is a signed checkpoint, or an earlier jsonl export: then its events
// are the reference the history must start with, and its checkpoints are
// taken too.
func checkOptions(keys, checkpoints []string, quorum int) (audit.CheckOptions, error) {
	o := audit.CheckOptions{Quorum: quorum}
	var err error
	if o.Keys, err = loadVerifiers(keys); err != nil {
		return o, err
	}
	if quorum < 1 || quorum > 1 && len(keys) == 0 {
		return o, withHint(usageError{fmt.Errorf("--quorum %d: want how many of the --key files must each have signed every checkpoint (1 or more)", quorum)},
			"give the signer's and the witnesses' keys with --key (repeatable) and --quorum 2 or more")
	}
	for _, p := range checkpoints {
		b, err := os.ReadFile(p)
		if err != nil {
			return o, withHint(fmt.Errorf("--checkpoint %s: %w", p, errors.Unwrap(err)), "name a checkpoint file (journal checkpoint's output) or an earlier jsonl export")
		}
		if bytes.HasPrefix(b, []byte(`{"type":`)) {
			rep, err := audit.CheckExport(bytes.NewReader(b), audit.ExportCheck{CheckOptions: audit.CheckOptions{Keys: o.Keys, Quorum: quorum}})
			if err != nil {
				return o, withHint(exportError{fmt.Errorf("--checkpoint %s: the earlier export does not verify: %w", p, err)},
					"an earlier record must verify on its own first: `journal verify --export "+p+"`")
			}
			if rep.Filtered {
				return o, usageError{fmt.Errorf("--checkpoint %s: a filtered export cannot be the reference (it is not the whole history)", p)}
			}
			if o.Reference != nil {
				return o, usageError{fmt.Errorf("--checkpoint %s: one earlier export at a time", p)}
			}
			o.Checkpoints = append(o.Checkpoints, rep.Checkpoints...)
			o.Reference, o.RefFrom = rep.Leaves, "the earlier export "+p
			if rep.First > rep.TreeBase {
				o.RefStart = int64(rep.First - rep.TreeBase - 1)
			}
			continue
		}
		c, err := audit.OpenCheckpoint(b, o.Keys)
		if err != nil {
			return o, withHint(fmt.Errorf("--checkpoint %s: %w", p, err), "a checkpoint file is a signed note as `journal checkpoint` prints it; with --key, signed by one of the keys")
		}
		o.Checkpoints = append(o.Checkpoints, c)
	}
	return o, nil
}

// treeHint is the hint for a failed check of checkpoints ("" for others).
func treeHint(err error) string {
	switch {
	case errors.Is(err, audit.ErrRewritten):
		return "the history is not the one signed earlier: keep this copy and the earlier record as evidence; compare them with `journal export` and the earlier export"
	case errors.Is(err, audit.ErrCheckpoint):
		return "a checkpoint not signed by the keys given, or of another workspace, was not made by you: check that --key names the right FILE.pub"
	case errors.Is(err, audit.ErrTree):
		return "gc dropped events the tree needs: verify against an export or remote taken before gc"
	}
	return ""
}

// sayTree prints what the check of the checkpoints found; with keys, a
// history without any checkpoint fails (a journal made anew by someone
// without the key has none).
func (a *app) sayTree(r *audit.TreeReport, o audit.CheckOptions, events int) error {
	w := a.out
	if r == nil || r.Newest == nil {
		if o.Keys != nil {
			return withHint(fmt.Errorf("verify: no checkpoint signed by the keys given: %w", audit.ErrCheckpoint),
				"a journal made anew by someone without the key has none; if this one never had any, sign one with `journal checkpoint`")
		}
		if events > 0 {
			fmt.Fprintln(w, "note: no signed checkpoint: a journal rewritten whole would pass (`journal checkpoint` signs one)")
		}
		return nil
	}
	signed := "signatures not checked (give --key FILE.pub)"
	if r.Signed {
		signed = "each signed by a key given (the newest by " + strings.Join(r.Newest.Signers, ", ") + ")"
	}
	fmt.Fprintf(w, "ok: %d checkpoint(s) match the Merkle tree (%d events, root %s); %s\n", r.Checkpoints, r.Size, r.Root, signed)
	if r.Skipped > 0 {
		fmt.Fprintf(w, "note: %d checkpoint(s) over events gc dropped could not be recomputed (the later ones cover them)\n", r.Skipped)
	}
	if r.Newest.Size < r.Size {
		fmt.Fprintf(w, "note: the newest checkpoint covers %d of %d events: the last %d are not signed yet\n", r.Newest.Size, r.Size, r.Size-r.Newest.Size)
	}
	return nil
}
