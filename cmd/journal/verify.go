package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/audit"
	"github.com/journalfs/journal/snapshot"
	"github.com/spf13/cobra"
)

func newVerifyCmd(a *app) *cobra.Command {
	var anchor, export, remoteName, ws, against, consistency string
	var keys, checkpoints []string
	var quorum int
	cmd := &cobra.Command{
		Use:   "verify [--anchor HASH] [--export FILE]",
		Short: "Recompute the hash chain and re-hash every stored content (or check an export on its own)",
		Long: `verify recomputes the journal's hash chain — every record's checksum, every event's hash and prev link,
numbers without gaps — and re-reads and re-hashes every content an event names. With --export FILE it
checks a jsonl export instead, without the database. --anchor HASH (a head hash recorded elsewhere earlier)
must be in the chain: this catches a truncated tail, which a chain alone cannot. The first bad record is
named; the exit status is non-zero on any failure. With --remote NAME it checks a remote instead: each workspace's
head, segments and chain, and every content and chunk re-hashed; every missing or altered object is named.

Checkpoints (journal checkpoint): the Merkle tree is recomputed from the events and every checkpoint the
journal or export holds must match it; with --key FILE.pub (repeatable) each must be signed by one of the keys,
and there must be one. --checkpoint FILE (repeatable; a signed checkpoint, or an earlier jsonl export with its
checkpoints) is an earlier record the history must still match: a journal deleted and made anew, cut, or
altered anywhere fails, naming the first event where the histories part (docs/VERIFY.md).

--consistency FILE checks a consistency proof (journal prove --consistency) on its own, without a journal:
both checkpoints signed by a --key, the proof leading from the older root to the newer, and each --checkpoint
FILE (the auditor's own copy) one of the two.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var id snapshot.ID
			if anchor != "" {
				var err error
				if id, err = snapshot.ParseID(anchor); err != nil {
					return usageError{fmt.Errorf("--anchor: want the full 64-digit head hash from an export or `journal verify`")}
				}
			}
			if consistency != "" {
				if anchor != "" || export != "" || remoteName != "" || against != "" || ws != "" {
					return usageError{errors.New("--consistency FILE checks a proof on its own: with --key and --checkpoint only")}
				}
				return a.verifyConsistency(consistency, keys, checkpoints, quorum)
			}
			o, err := checkOptions(keys, checkpoints, quorum)
			if err != nil {
				return err
			}
			if against != "" {
				if remoteName != "" {
					return usageError{errors.New("--against NAME checks the journal or an export against a remote; --remote NAME checks the remote itself")}
				}
				if err := a.againstRemote(&o, against, ws); err != nil {
					return err
				}
				ws = ""
			}
			if export != "" {
				return a.verifyExport(export, id, o)
			}
			if remoteName != "" {
				if ws == "" && (len(o.Checkpoints) > 0 || o.Reference != nil) {
					return usageError{errors.New("--checkpoint with --remote NAME checks one workspace: add --workspace ID (journal remote show NAME lists them)")}
				}
				return a.verifyRemote(remoteName, ws, o)
			}
			if ws != "" {
				return usageError{fmt.Errorf("--workspace goes with --remote NAME")}
			}
			return a.verifyJournal(id, o)
		},
	}
	cmd.Flags().StringVar(&anchor, "anchor", "", "a head hash recorded earlier that must be in the chain")
	cmd.Flags().StringVar(&export, "export", "", "check this jsonl export instead of the journal")
	cmd.Flags().StringVar(&remoteName, "remote", "", "check a remote instead: every workspace's chain, every content and chunk")
	cmd.Flags().StringVar(&ws, "workspace", "", "with --remote: only this workspace")
	cmd.Flags().StringVar(&against, "against", "", "the record a remote holds of this workspace (its events, under Object Lock with --retain, and checkpoints) must still match (with --workspace for an export)")
	cmd.Flags().StringArrayVar(&keys, "key", nil, "verifier key file the checkpoints must be signed by: FILE.pub of journal key generate, or an SSH allowed-signers file or .pub (repeatable)")
	cmd.Flags().IntVar(&quorum, "quorum", 1, "how many of the --key keys must each have signed every checkpoint (a signer and its witnesses: journal checkpoint --cosign)")
	cmd.Flags().StringVar(&consistency, "consistency", "", "check this consistency proof (journal prove --consistency's output) on its own, without a journal")
	cmd.Flags().StringArrayVar(&checkpoints, "checkpoint", nil, "an earlier signed checkpoint, or an earlier jsonl export, the history must still match (repeatable)")
	return cmd
}

func (a *app) verifyJournal(anchor snapshot.ID, o audit.CheckOptions) error {
	start := time.Now()
	var rep *journal.VerifyReport
	var anchored uint64
	var tree *audit.TreeReport
	// the structural check every time, not trusting the stamp of an earlier
	// one (damage it finds removes the stamp: the read below goes round it)
	if j, err := a.journal(); err == nil {
		_, _ = j.Check()
	}
	err := a.view(func(tx *journal.Tx) error {
		base, _ := tx.Base()
		b := a.progress(int64(tx.Last()-base), "verify", false)
		defer b.Done()
		var err error
		rep, err = tx.Verify(true, func(seq uint64) {
			if seq%256 == 0 {
				b.Set(int64(seq - base))
			}
		})
		if err != nil {
			return err
		}
		if tree, err = audit.VerifyTree(tx, o); err != nil {
			return err
		}
		if anchor.IsZero() {
			return nil
		}
		seq, ok := tx.FindHash(anchor)
		if !ok {
			return fmt.Errorf("anchor %s is not in the chain (head %s): events were removed from its tail, or it is another journal: %w",
				anchor.Short(), rep.Head.Short(), audit.ErrAnchor)
		}
		anchored = seq
		return nil
	})
	if err != nil {
		err = fmt.Errorf("verify failed: %w", err)
		if errors.Is(err, journal.ErrFormat) || errors.Is(err, journal.ErrBusy) {
			return err // not the chain's fault: hintFor says what to do
		}
		if h := treeHint(err); h != "" {
			return withHint(err, h)
		}
		return withHint(err, "the journal has been altered or damaged; keep a copy before changing anything")
	}
	el := time.Since(start)
	w := a.out
	fmt.Fprintf(w, "ok: %d events, chain intact, head %s\n", rep.Events, rep.Head)
	fmt.Fprintf(w, "ok: %d contents re-hashed, %s in %s (%.1f MB/s)\n", rep.Contents, humanBytes(rep.Bytes),
		el.Round(time.Millisecond), float64(rep.Bytes)/1e6/el.Seconds())
	if anchored != 0 {
		fmt.Fprintf(w, "ok: anchor %s is event %d\n", anchor.Short(), anchored)
	}
	if err := a.sayTree(tree, o, rep.Events); err != nil {
		return err
	}
	sayRedacted(w, rep.Redactions, rep.Redacted, rep.Unsalted, nil, rep.RedactedContents)
	if len(rep.Pending) > 0 {
		fmt.Fprintf(w, "note: %d event(s) pending (a batch in progress or a crash): %v\n", len(rep.Pending), rep.Pending)
	}
	return nil
}

// exportGC is the garbage collector's target while an export is checked:
// every line allocates its decoding and re-encoding and drops them, over a
// live heap of a few MB (the events' hashes, 32 bytes each), so the default
// (100) collects every few hundred lines; four times the live heap is still
// tens of MB, and the check spends less of its time collecting
// (BENCHMARKS.md "Signed checkpoints").
const exportGC = 400

func (a *app) verifyExport(path string, anchor snapshot.ID, o audit.CheckOptions) error {
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(exportGC))
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var size int64
	if fi, err := f.Stat(); err == nil {
		size = fi.Size()
	}
	b := a.progress(size, "verify", true)
	rep, err := audit.CheckExport(f, audit.ExportCheck{Anchor: anchor, Progress: func(n int64) { b.Set(n) }, CheckOptions: o})
	b.Done()
	if err != nil {
		hint := treeHint(err)
		if hint == "" {
			hint = "the export has been altered, truncated or damaged"
		}
		return withHint(exportError{fmt.Errorf("verify %s failed: %w", path, err)}, hint)
	}
	w := a.out
	fmt.Fprintf(w, "ok: %d events (%d..%d), chain intact, head %s\n", rep.Events, rep.First, rep.Last, rep.Head)
	if rep.Anchored != 0 {
		fmt.Fprintf(w, "ok: anchor %s is event %d\n", anchor.Short(), rep.Anchored)
	}
	if rep.Filtered && len(rep.Checkpoints) > 0 {
		fmt.Fprintf(w, "note: %d checkpoint(s) opened, but a filtered export's tree cannot be recomputed\n", len(rep.Checkpoints))
	} else if err := a.sayTree(rep.Tree, o, rep.Events); err != nil {
		return err
	}
	sayRedacted(w, rep.Redactions, rep.Redacted, rep.Unsalted, rep.Withheld, -1)
	if rep.Filtered {
		fmt.Fprintln(w, "note: a filtered export: each record and consecutive links are checked, completeness cannot be")
	}
	return nil
}

// sayRedacted reports what verify found taken out of the record: by redact
// events (redacted), before salting (unsalted), or left out of an export
// (withheld); contents < 0: not counted (an export holds none).
func sayRedacted(w io.Writer, redactions, redacted, unsalted, withheld []uint64, contents int) {
	if len(redactions) > 0 || len(redacted) > 0 || len(unsalted) > 0 || contents > 0 {
		evs := append(slices.Clone(redacted), unsalted...)
		slices.Sort(evs)
		what := fmt.Sprintf("the arguments of %d event(s)%s", len(evs), seqParen(evs))
		if contents >= 0 {
			what += fmt.Sprintf(" and %d content(s)", contents)
		}
		fmt.Fprintf(w, "ok: %d redact event(s)%s took out %s: the values are not in the record, what they were bound to verifies\n",
			len(redactions), seqParen(redactions), what)
	}
	if len(unsalted) > 0 {
		fmt.Fprintf(w, "note: event(s)%s were redacted though written before salted digests: their own hash cannot be recomputed; their links and place in the tree were checked\n", seqParen(unsalted))
	}
	if len(withheld) > 0 {
		fmt.Fprintf(w, "ok: the arguments of %d event(s)%s are withheld (they hold detected secrets; export --reveal includes them): their digests are in the chain\n", len(withheld), seqParen(withheld))
	}
}

// verifyConsistency checks a consistency proof file without a journal
// (checkConsistency): --checkpoint files are the auditor's earlier copies,
// each of which must be one of the proof's checkpoints.
func (a *app) verifyConsistency(path string, keys, checkpoints []string, quorum int) error {
	o, err := checkOptions(keys, nil, quorum)
	if err != nil {
		return err
	}
	vs := o.Keys
	var earlier []*audit.Checkpoint
	for _, p := range checkpoints {
		b, err := os.ReadFile(p)
		if err != nil {
			return withHint(usageError{fmt.Errorf("--checkpoint %s: %w", p, errors.Unwrap(err))}, "name a checkpoint file (journal checkpoint's output)")
		}
		c, err := audit.OpenCheckpoint(b, vs)
		if err != nil {
			return withHint(fmt.Errorf("--checkpoint %s: %w", p, err), "a checkpoint file is a signed note as `journal checkpoint` prints it; with --key, signed by one of the keys")
		}
		earlier = append(earlier, c)
	}
	_, cs, err := checkConsistency(path, vs, earlier)
	if err != nil {
		return err
	}
	if _, err := audit.Reopen(cs, vs, quorum, "the proof's"); err != nil {
		return withHint(err, "give the signer's and the witnesses' keys with --key; the checkpoints need --quorum of them")
	}
	signed := "signatures not checked (give --key FILE.pub)"
	if vs != nil {
		signed = "both signed by a key given"
	}
	fmt.Fprintf(a.out, "ok: the tree of %d events (root %s, signed %s) extends the tree of %d events (root %s, signed %s) of workspace %s; %s\n",
		cs[1].Size, cs[1].Root, cs[1].Time.Format(time.RFC3339), cs[0].Size, cs[0].Root, cs[0].Time.Format(time.RFC3339), cs[0].Workspace(), signed)
	return nil
}
