package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay"
	"github.com/spf13/cobra"
)

func newGCCmd(a *app) *cobra.Command {
	var keep string
	var dryRun, unpushed bool
	cmd := &cobra.Command{
		Use:   "gc --keep DURATION [--dry-run]",
		Short: "Drop events older than a window and contents nothing references",
		Long: `gc drops the events older than --keep (a prefix of the chain, so it stays verifiable) and every stored
content no kept event or file head references. The last state of every file is never dropped: a file
whose last event is dropped is carried into the gc event, which records that retention ran.
Nothing is dropped without --keep. Durations: 36h, 30d, 2w.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if keep == "" {
				return usageError{errors.New("gc needs --keep DURATION (nothing is ever dropped by default)")}
			}
			d, err := parseDuration(keep)
			if err != nil {
				return err
			}
			if d <= 0 {
				return usageError{errors.New("--keep must be positive")}
			}
			return a.runGC(d, dryRun, unpushed)
		},
	}
	cmd.Flags().StringVar(&keep, "keep", "", "keep events newer than this (required)")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "report what would be dropped, drop nothing")
	cmd.Flags().BoolVar(&unpushed, "unpushed", false, "drop events a remote does not hold yet (its chain then cannot continue from this journal)")
	return cmd
}

func (a *app) runGC(keep time.Duration, dryRun, unpushed bool) error {
	e, err := a.engine() // recovers crashed batches first, so the chain ends sealed
	if err != nil {
		return err
	}
	defer e.Close()
	if !dryRun && !unpushed {
		// events a remote has not received yet are not dropped: its chain
		// could never continue from this journal
		rs, err := e.Journal().Replications()
		if err != nil {
			return err
		}
		if len(rs) > 0 {
			plan, err := e.GC(journal.GCOptions{Keep: keep, Now: now(), DryRun: true, Actor: replay.CLIActor()})
			if err != nil {
				return err
			}
			for _, r := range rs {
				if plan.Dropped > 0 && r.Pushed < plan.FirstKept-1 {
					return withHint(fmt.Errorf("gc would drop events %d to %d, and remote %s holds events only to %d", r.Pushed+1, plan.FirstKept-1, r.Remote, r.Pushed),
						fmt.Sprintf("run `journal push %s` first (or gc --unpushed to drop them anyway: that remote's copy then cannot continue from this journal)", r.Remote))
				}
			}
		}
	}
	b := &bar{}
	var step string
	rep, err := e.GC(journal.GCOptions{Keep: keep, Now: now(), DryRun: dryRun, Actor: replay.CLIActor(),
		Progress: func(s string, done, total int) {
			if s != step {
				b.Done()
				step, b = s, a.progress(int64(total), "gc "+s, false)
			}
			if done%256 == 0 {
				b.Set(int64(done))
			}
		}})
	b.Done()
	if err != nil {
		return err
	}
	w := a.out
	verb := "dropped"
	if dryRun {
		verb = "would drop"
		fmt.Fprintln(w, "dry run: nothing changed")
	}
	if rep.Dropped == 0 {
		fmt.Fprintf(w, "no event is older than %s\n", rep.Cutoff.Format("2006-01-02T15:04:05Z07:00"))
	} else {
		fmt.Fprintf(w, "%s %d events (up to %d, older than %s); the chain now starts at event %d\n",
			verb, rep.Dropped, rep.FirstKept-1, rep.Cutoff.Format("2006-01-02T15:04:05Z07:00"), rep.FirstKept)
		if rep.Carried > 0 {
			fmt.Fprintf(w, "kept the last state of %d file(s) whose last event was dropped, in the gc event\n", rep.Carried)
		}
	}
	fmt.Fprintf(w, "%s %d contents, %d chunk lists, %d chunks (%s)\n", verb, rep.Contents, rep.Lists, rep.Chunks, humanBytes(rep.Bytes))
	if rep.Event != 0 && !dryRun {
		fmt.Fprintf(w, "recorded as event %s\n", cSeq(rep.Event))
	}
	if rep.FileAfter > 0 {
		fmt.Fprintln(w, fileSizeLine(rep))
	}
	return nil
}

// fileSizeLine says how the journal file's size changed in a gc that
// rewrote it: in bytes when the rounded sizes would read the same, and why
// when it did not shrink.
func fileSizeLine(rep *journal.GCReport) string {
	b, af := rep.FileBefore, rep.FileAfter
	why := fmt.Sprintf("bbolt grows its file in steps, not page by page, and what gc kept still fills this step (gc freed %s of stored data inside it, which new events use first)", humanBytes(rep.Bytes))
	switch {
	case af == b:
		return fmt.Sprintf("the journal file did not shrink: it is %s (%d bytes), as before: %s", humanBytes(af), af, why)
	case af > b:
		return fmt.Sprintf("the journal file grew from %d to %d bytes: %s", b, af, why)
	case humanBytes(b) == humanBytes(af):
		return fmt.Sprintf("the journal file went from %d to %d bytes (%s smaller)", b, af, humanBytes(b-af))
	}
	return fmt.Sprintf("the journal file went from %s to %s", humanBytes(b), humanBytes(af))
}
