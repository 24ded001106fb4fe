package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay"
)

// rewindReport is `journal restore --at N --json`: what the rewind of the
// whole workspace did (or, dry, would do).
type rewindReport struct {
	At       uint64       `json:"at"`
	DryRun   bool         `json:"dry_run"`
	Event    uint64       `json:"event,omitempty"`    // the restore event (0 for a dry run)
	Observed []uint64     `json:"observed,omitempty"` // outside changes recorded first
	Files    []rewindFile `json:"files"`
}

// rewindFile is one file of a rewind: what it does to it (replay.RewindChange) and the change itself.
type rewindFile struct {
	Change string `json:"change"`
	journal.FileChange
}

// rewindBeforePrompt returns the whole workspace to its state right
// before prompt ref (replay.Engine.RewindBeforePrompt).
func (a *app) rewindBeforePrompt(ref string, o replay.RevertOptions, jsonOut bool) error {
	var at uint64
	return a.rewindBy(func(e *replay.Engine) (*replay.Result, error) {
		res, seq, err := e.RewindBeforePrompt(context.Background(), ref, o)
		at = seq
		return res, err
	}, &at, o, jsonOut)
}

// rewind returns the whole workspace to its state right after event at (replay.Engine.Rewind).
func (a *app) rewind(at uint64, o replay.RevertOptions, jsonOut bool) error {
	return a.rewindBy(func(e *replay.Engine) (*replay.Result, error) {
		return e.Rewind(context.Background(), at, o)
	}, &at, o, jsonOut)
}

// rewindBy runs a rewind and prints it; *at is the event it went back to
// once it ran.
func (a *app) rewindBy(do func(e *replay.Engine) (*replay.Result, error), atp *uint64, o replay.RevertOptions, jsonOut bool) error {
	op := func(e *replay.Engine) (*replay.Result, error) {
		res, err := do(e)
		var pe *replay.PathError
		if errors.As(err, &pe) {
			err = withHint(err, fmt.Sprintf("nothing was changed: make %s a regular file inside the workspace again (or move it away), then rewind again", pe.Path))
		}
		return res, err
	}
	return a.change(op, func(_ *replay.Engine, res *replay.Result) error {
		at := *atp
		if jsonOut {
			rep := rewindReport{At: at, DryRun: o.DryRun, Event: res.Seq, Observed: res.Observed, Files: []rewindFile{}}
			for _, f := range res.Files {
				rep.Files = append(rep.Files, rewindFile{Change: replay.RewindChange(f), FileChange: f})
			}
			return json.NewEncoder(a.out).Encode(rep)
		}
		a.printObserved(res)
		n := len(res.Files)
		if o.DryRun {
			fmt.Fprintf(a.out, "dry run: would rewind the workspace to its state after event %s, changing %s; nothing changed\n", cSeq(at), fileCount(n))
		} else {
			fmt.Fprintf(a.out, "rewound the workspace to its state after event %s as event %s, changing %s\n", cSeq(at), cSeq(res.Seq), fileCount(n))
		}
		for _, f := range res.Files {
			fmt.Fprintf(a.out, "    %s\n", rewindLine(f))
		}
		if !o.DryRun {
			fmt.Fprintf(a.out, "`journal revert %d` takes it back\n", res.Seq)
		}
		return nil
	})
}

// rewindLine is one file of a rewind: "created   path", "mode      path  755 -> 644".
func rewindLine(f journal.FileChange) string {
	what := replay.RewindChange(f)
	s := fmt.Sprintf("%-8s  %s", what, f.Path)
	switch what {
	case "created":
		s = cAdd(fmt.Sprintf("%-8s", what)) + "  " + f.Path
	case "deleted":
		s = cDel(fmt.Sprintf("%-8s", what)) + "  " + f.Path
	}
	if f.BeforeMode != f.AfterMode && f.BeforeMode != 0 && f.AfterMode != 0 {
		s += fmt.Sprintf("  %o -> %o", f.BeforeMode, f.AfterMode)
	}
	return s
}

// fileCount is "1 file" or "n files".
func fileCount(n int) string {
	if n == 1 {
		return "1 file"
	}
	return fmt.Sprintf("%d files", n)
}
