package main

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay"
	"github.com/spf13/cobra"
)

func newRepairCmd(a *app) *cobra.Command {
	var apply bool
	cmd := &cobra.Command{
		Use:   "repair [--apply]",
		Short: "Salvage a damaged journal: every readable event and content into a new one",
		Long: `repair reads what it can of a damaged journal — every event and content — and reports what a
repair would keep and lose. With --apply it writes them into a new journal (records keep their hashes),
each run of unreadable events becoming one "damaged" event that names the lost numbers and the hash
links around them, so that verify and the audit export pass across the gap and show it; the damaged
journal is kept beside it as journal.db.damaged-TIME, never deleted. Stop servers on the workspace first.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return a.runRepair(apply) },
	}
	cmd.Flags().BoolVar(&apply, "apply", false, "write the new journal (default: report only)")
	return cmd
}

func (a *app) runRepair(apply bool) error {
	j, err := a.journal()
	if err != nil {
		return err
	}
	rep, err := j.Repair(apply, replay.CLIActor(), replay.RepairCarried...)
	if err != nil {
		return err
	}
	if apply && rep.LogCarried && len(rep.LostContents) > 0 {
		// the carried batches first (the engine rolls them forward), then
		// the damaged event naming the lost contents
		e, err := a.engine()
		if err != nil {
			return err
		}
		e.Close()
		if err := j.RecordLostContents(rep.LostContents, replay.CLIActor()); err != nil {
			return err
		}
		rep.Damaged++
	}
	w := a.out
	if rep.Check != nil {
		fmt.Fprintf(w, "structure  %s\n", cleanMessage(rep.Check))
		if rep.MetaRebuilt {
			fmt.Fprintln(w, "           read through a copy with both meta pages made again")
		}
	} else {
		fmt.Fprintln(w, "structure  ok")
	}
	fmt.Fprintf(w, "events     %d readable of %d", rep.Events, rep.Last)
	if len(rep.LostEvents) > 0 {
		var runs []string
		for _, r := range rep.LostEvents {
			if r[0] == r[1] {
				runs = append(runs, fmt.Sprint(r[0]))
			} else {
				runs = append(runs, fmt.Sprintf("%d-%d", r[0], r[1]))
			}
		}
		fmt.Fprintf(w, "; lost: %s", strings.Join(runs, ", "))
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "contents   %d readable (%s", rep.Contents, humanBytes(rep.Bytes))
	if rep.Salvaged > 0 {
		fmt.Fprintf(w, "; %d rebuilt from the file's bytes", rep.Salvaged)
	}
	fmt.Fprint(w, ")")
	if len(rep.LostContents) > 0 {
		var ids []string
		for _, id := range rep.LostContents {
			ids = append(ids, id.Short())
		}
		fmt.Fprintf(w, "; lost: %s", strings.Join(ids, ", "))
	}
	fmt.Fprintln(w)
	switch {
	case rep.LogErr != nil:
		fmt.Fprintf(w, "log        not readable (%s): set aside with the damaged journal\n", cleanMessage(rep.LogErr))
	case rep.LogEvents > 0 && rep.LogCarried:
		fmt.Fprintf(w, "log        %d event(s) ahead, continuing the salvaged chain: kept, the next process rolls them forward\n", rep.LogEvents)
	case rep.LogEvents > 0:
		fmt.Fprintf(w, "log        %d event(s) ahead that do not continue the salvaged chain: set aside with the damaged journal, named lost by a damaged event\n", rep.LogEvents)
	}
	for _, name := range slices.Sorted(maps.Keys(rep.NotCarried)) {
		fmt.Fprintf(w, "records    %s not readable (%s): not carried; blame treats what they proved as unknown\n", name, cleanMessage(errors.New(rep.NotCarried[name])))
	}
	switch {
	case !apply && rep.Sound() && rep.LogErr == nil:
		fmt.Fprintln(w, "nothing to repair: the journal reads whole (`journal verify` re-hashes everything)")
	case !apply:
		fmt.Fprintf(w, "a repair would write %d events and %d damaged event(s); run `journal repair --apply`\n", rep.Events, damagedEvents(rep))
	default:
		fmt.Fprintf(w, "repaired: %d events and %d damaged event(s) written; the damaged journal is kept as %s\n", rep.Events, rep.Damaged, rep.KeptAs)
		if rep.Log && (rep.LogEvents > 0 || rep.LogErr != nil) {
			fmt.Fprintf(w, "note: its write-ahead log, kept as %s.wal, was not carried over\n", rep.KeptAs)
		}
	}
	return nil
}

// damagedEvents is how many damaged events a repair would write.
func damagedEvents(rep *journal.RepairReport) int {
	n := len(rep.LostEvents)
	if len(rep.LostContents) > 0 {
		n++
	}
	if rep.LogEvents > 0 && !rep.LogCarried && rep.LogErr == nil {
		n++
	}
	return n
}
