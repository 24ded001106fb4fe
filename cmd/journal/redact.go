package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"regexp"
	"strconv"
	"strings"
	"syscall"

	"github.com/journalfs/journal/journal/remote"
	"github.com/journalfs/journal/replay"
	"github.com/journalfs/journal/snapshot"
	"github.com/spf13/cobra"
)

type redactFlags struct {
	paths    []string
	pattern  string
	why      string
	argsOnly bool
	secrets  bool
	dryRun   bool
	jsonOut  bool
}

func newRedactCmd(a *app) *cobra.Command {
	var f redactFlags
	cmd := &cobra.Command{
		Use:   "redact [EVENT...] [--path P]... [--pattern REGEX] --why TEXT",
		Short: "Take values out of the journal for good (a secret an agent wrote), keeping it verifiable",
		Long: `redact deletes values from the journal and records who did it, when and why as a redact event:
  EVENT...          the events' arguments and the contents they wrote (--args-only: the arguments alone)
  --path P          every version of P the journal holds, and the arguments of every event that touched it
  --pattern REGEX   every stored content and every event's arguments in which REGEX matches (Go syntax)
  --secrets         every stored content and every event's arguments holding a detected secret (journal status
                    lists them)
Events commit to their arguments by salted digests, so the chain, the Merkle tree and signed checkpoints
still verify; journal verify reports the values as redacted. The contents' bytes leave the journal file
(it is rewritten without free pages) and the write-ahead log is emptied. A redacted content cannot be
restored: undo, revert and restore that need it refuse, naming the redact event. The file in the workspace
is not touched: remove the value from it first, or its next change records it again.
Events written before salting (journal format 11 and older) can be redacted too, but their own hash can
then no longer be recomputed; verify says so. Remotes: the redact event reaches them with the next push.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			sel := replay.RedactSelect{ArgsOnly: f.argsOnly, Why: f.why, Actor: replay.CLIActor(), DryRun: f.dryRun}
			for _, s := range args {
				n, err := strconv.ParseUint(strings.TrimPrefix(s, "#"), 10, 64)
				if err != nil || n == 0 {
					return usageError{fmt.Errorf("redact: %q is not an event number", s)}
				}
				sel.Events = append(sel.Events, n)
			}
			if f.pattern != "" {
				re, err := regexp.Compile(f.pattern)
				if err != nil {
					return usageError{fmt.Errorf("redact: --pattern: %v", err)}
				}
				sel.Pattern = re
			}
			if f.secrets {
				sel.Match = holdsSecret
			}
			if len(sel.Events) == 0 && len(f.paths) == 0 && sel.Pattern == nil && sel.Match == nil {
				return usageError{errors.New("redact needs what to take out: event numbers, --path P, --pattern REGEX or --secrets")}
			}
			if strings.TrimSpace(f.why) == "" && !f.dryRun {
				return usageError{errors.New("redact needs --why TEXT: the reason is recorded with the redaction, for whoever audits it")}
			}
			return a.runRedact(sel, f)
		},
	}
	cmd.Flags().StringArrayVar(&f.paths, "path", nil, "every version of this file (repeatable)")
	cmd.Flags().StringVar(&f.pattern, "pattern", "", "contents and arguments in which this regular expression matches")
	cmd.Flags().BoolVar(&f.secrets, "secrets", false, "contents and arguments holding a detected secret (keys, tokens, passwords)")
	cmd.Flags().StringVar(&f.why, "why", "", "the reason, recorded in the redact event (required)")
	cmd.Flags().BoolVar(&f.argsOnly, "args-only", false, "for EVENT...: the arguments alone, not the contents the events wrote")
	cmd.Flags().BoolVar(&f.dryRun, "dry-run", false, "say what would be taken out, take nothing")
	cmd.Flags().BoolVar(&f.jsonOut, "json", false, "print the result as JSON")
	return cmd
}

// redactJSON is what redact --json prints.
type redactJSON struct {
	DryRun     bool          `json:"dry_run"`
	Event      uint64        `json:"event,omitempty"`
	Events     []uint64      `json:"events"`
	Unsalted   []uint64      `json:"unsalted,omitempty"`
	Contents   []snapshot.ID `json:"contents"`
	Chunks     int           `json:"chunks"`
	Rewritten  int           `json:"rewritten"`
	Heads      []string      `json:"heads_on_disk,omitempty"`
	FileBefore int64         `json:"file_before,omitempty"`
	FileAfter  int64         `json:"file_after,omitempty"`
	Remotes    []string      `json:"remotes,omitempty"`
	Shred      []string      `json:"remote_shred,omitempty"` // remote.ShredReport.Lines
}

func (a *app) runRedact(sel replay.RedactSelect, f redactFlags) error {
	e, err := a.engine()
	if err != nil {
		return err
	}
	defer e.Close()
	for _, p := range f.paths {
		sel.Paths = append(sel.Paths, a.key(p))
	}
	res, err := e.Redact(sel)
	if errors.Is(err, replay.ErrNothing) || errors.Is(err, replay.ErrBadEvent) {
		return withHint(err, "journal log lists the events; journal log PATH those of a file")
	}
	if err != nil {
		return err
	}
	rs, _ := e.Journal().Replications()
	var remotes, shred []string
	for _, r := range rs {
		remotes = append(remotes, r.Remote)
	}
	if !sel.DryRun && len(remotes) > 0 { // encrypted remotes: their keys destroyed now
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		sr, err := remote.Shred(ctx, e.Journal(), append(append([]uint64{}, res.Events...), res.Unsalted...), res.Contents)
		stop()
		if err != nil {
			return err
		}
		shred = sr.Lines()
	}
	if f.jsonOut {
		out := redactJSON{DryRun: sel.DryRun, Event: res.Event, Events: res.Events, Unsalted: res.Unsalted,
			Contents: res.Contents, Chunks: res.Chunks, Rewritten: res.Rewritten, Heads: res.Heads,
			FileBefore: res.FileBefore, FileAfter: res.FileAfter, Remotes: remotes, Shred: shred}
		if sel.DryRun {
			out.Events, out.Contents = res.Plan.Events, res.Plan.Contents
		}
		if out.Events == nil {
			out.Events = []uint64{}
		}
		if out.Contents == nil {
			out.Contents = []snapshot.ID{}
		}
		return json.NewEncoder(a.out).Encode(out)
	}
	w := a.out
	verb := "took out"
	if sel.DryRun {
		verb = "would take out"
		fmt.Fprintln(w, "dry run: nothing changed")
	}
	if n := len(res.Unreadable); n > 0 {
		fmt.Fprintf(w, "warning: %d stored content(s) could not be read (damaged), so the pattern was not looked for in them: `journal verify` names them, `journal repair` salvages the rest\n", n)
	}
	evs := append(append([]uint64{}, res.Events...), res.Unsalted...)
	fmt.Fprintf(w, "%s the arguments of %d event(s)%s and %d content(s)\n", verb, len(evs), seqParen(evs), len(res.Contents))
	if sel.DryRun {
		return nil
	}
	fmt.Fprintf(w, "deleted %d chunk(s); %d kept chunk(s) that were deltas against them are stored whole\n", res.Chunks, res.Rewritten)
	fmt.Fprintf(w, "recorded as event %s (redact)\n", cSeq(res.Event))
	fmt.Fprintf(w, "the journal file was rewritten without free pages (%s to %s); the write-ahead log is empty\n",
		humanBytes(res.FileBefore), humanBytes(res.FileAfter))
	if len(res.Unsalted) > 0 {
		fmt.Fprintf(w, "note: event(s)%s were written before salted digests: their own hash can no longer be recomputed (verify checks their links and says so)\n", seqParen(res.Unsalted))
	}
	for _, p := range res.Heads {
		fmt.Fprintf(w, "warning: %s: its last recorded state was taken out; if the file still holds the value, remove it there, or its next change records it again\n", p)
	}
	for _, l := range shred {
		fmt.Fprintln(w, l)
	}
	for _, r := range remotes {
		fmt.Fprintf(w, "remote %s: run `journal push %s` to carry the redaction there\n", r, r)
	}
	return nil
}

// seqParen is " (1, 2, 3)", or "" for none.
func seqParen(s []uint64) string {
	if len(s) == 0 {
		return ""
	}
	if len(s) > 10 {
		return fmt.Sprintf(" (%s, … %d more)", seqList(s[:10]), len(s)-10)
	}
	return " (" + seqList(s) + ")"
}
