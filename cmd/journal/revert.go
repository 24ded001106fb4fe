package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/ops"
	"github.com/journalfs/journal/replay"
	"github.com/spf13/cobra"
)

func newRevertCmd(a *app) *cobra.Command {
	o := byPerson()
	cmd := &cobra.Command{
		Use:   "revert N",
		Short: "Take event N's changes back, as a new event",
		Long: `Take event N's changes back as a new event. A file unchanged since N gets its old content exactly; a file
changed since gets N's change reversed by a three-way merge. Overlapping later changes refuse the revert and
print the lines; --force restores N's before-content exactly (still as a new event, so nothing is lost).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			seq, err := parseSeq(args[0])
			if err != nil {
				return err
			}
			return a.mutate(fmt.Sprintf("reverted event %d", seq), o.DryRun, func(e *replay.Engine) (*replay.Result, error) {
				return e.Revert(context.Background(), seq, o)
			})
		},
	}
	cmd.Flags().BoolVar(&o.DryRun, "dry-run", false, "show the diff of what would change, change nothing")
	cmd.Flags().BoolVar(&a.stat, "stat", false, "with --dry-run: list the files and their line counts instead of the diff")
	cmd.Flags().BoolVar(&o.Force, "force", false, "restore the before-content exactly even where later changes overlap")
	return cmd
}

func newUndoCmd(a *app) *cobra.Command {
	o := byPerson()
	var all bool
	var prompt string
	cmd := &cobra.Command{
		Use:   "undo",
		Short: "Revert the newest change not yet undone (of anyone, or of --session); --all: the whole session; --prompt: from a prompt on",
		Long: `Revert the newest change not yet undone, of anyone or of --session S, as a new event.

With --session S --all, take back everything session S did that still stands, as one new event: its changes
are reversed newest first, three-way merged around later changes by others; an overlap refuses the whole
undo (nothing is written) and names the event and lines; --force puts each file back exactly as it was
before the session's first change to it. Revert the new event to redo the session.

With --prompt P (a prompt's id, a unique start of one, or its event's number: journal log --prompts), take
back everything that prompt and the later prompts of its session did — the agent's tool calls, its shell
commands, its subagents' calls and the outside changes its hooks attributed to them — as one new event,
merged around what other sessions and people changed since (which stays): an overlap refuses the whole
undo and names the event and lines, as for a session. --dry-run shows what would change; journal redo
(or journal revert of the new event) takes it back.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if prompt != "" {
				if all || o.Session != "" {
					return usageError{errors.New("--prompt P names its session: it goes without --session and --all")}
				}
				verb := "undid prompt " + prompt
				if o.DryRun {
					verb = "undone prompt " + prompt
				}
				return a.mutate(verb, o.DryRun, func(e *replay.Engine) (*replay.Result, error) {
					return e.UndoPrompt(context.Background(), prompt, o)
				})
			}
			if all {
				if o.Session == "" {
					return usageError{errors.New("undo --all needs --session S (the session to take back)")}
				}
				verb := "undid session " + o.Session
				if o.DryRun {
					verb = "undone session " + o.Session
				}
				return a.mutate(verb, o.DryRun, func(e *replay.Engine) (*replay.Result, error) {
					res, err := e.UndoSession(context.Background(), o.Session, o)
					if errors.Is(err, replay.ErrBadEvent) {
						err = withHint(err, sessionsHint(e))
					}
					return res, err
				})
			}
			if o.DryRun || o.Force {
				return usageError{errors.New("--dry-run and --force go with --session S --all or --prompt P")}
			}
			return a.mutate("undid", false, func(e *replay.Engine) (*replay.Result, error) {
				return e.Undo(context.Background(), o)
			})
		},
	}
	cmd.Flags().StringVar(&o.Session, "session", "", "only undo changes of MCP session S")
	cmd.Flags().BoolVar(&all, "all", false, "with --session: undo everything the session did, as one event")
	cmd.Flags().StringVar(&prompt, "prompt", "", "undo everything prompt P and the later prompts of its session did, as one event")
	cmd.Flags().BoolVar(&o.DryRun, "dry-run", false, "with --all or --prompt: show the diff of what would change, change nothing")
	cmd.Flags().BoolVar(&a.stat, "stat", false, "with --dry-run: list the files and their line counts instead of the diff")
	cmd.Flags().BoolVar(&o.Force, "force", false, "with --all or --prompt: put files back exactly as before the session (or prompt), over later changes")
	return cmd
}

func newRedoCmd(a *app) *cobra.Command {
	o := byPerson()
	cmd := &cobra.Command{
		Use:   "redo",
		Short: "Revert the newest undo, unless a new change came after it",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.mutate("redid", false, func(e *replay.Engine) (*replay.Result, error) {
				return e.Redo(context.Background(), o)
			})
		},
	}
	cmd.Flags().StringVar(&o.Session, "session", "", "only redo undos of MCP session S")
	return cmd
}

func newRestoreCmd(a *app) *cobra.Command {
	var at uint64
	var jsonOut bool
	var beforePrompt string
	o := byPerson()
	cmd := &cobra.Command{
		Use:   "restore [PATH] --at N | --before-prompt P",
		Short: "Make a file, or without PATH the whole workspace, what it was right after event N, as a new event",
		Long: `With PATH: make that file what it was right after event N, as a new event.

Without PATH: rewind the whole workspace. Every file the journal knows goes back to its state right after event N
— files created since are removed, files deleted since are recreated, contents and modes are put back — as ONE new
event that one ` + "`journal undo`" + ` (or ` + "`journal revert`" + ` of it) takes back. A file the journal first saw in a watcher's
baseline after N is left alone (the journal does not know what it was at N). A file changed outside the journal
since its last event is recorded first, as an observe event, so the rewind loses nothing. A path that is now a
symbolic link or leads outside the workspace refuses the whole rewind, and nothing is written.

--dry-run lists each file and what the rewind would do to it (created, modified, deleted, mode) and writes
nothing; --json prints the same as one JSON object: {"at", "dry_run", "event", "observed", "files": [{"change",
"path", "before", "after", "before_mode", "after_mode", ...}]}.

--before-prompt P (a prompt's id, a unique start of one, or its event's number: journal log --prompts)
rewinds the whole workspace to its exact state right before that prompt — as --at its prompt event,
which changes no file and follows every change made before it.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if beforePrompt != "" {
				if at != 0 || len(args) > 0 {
					return usageError{errors.New("--before-prompt P rewinds the whole workspace: it goes without --at and PATH")}
				}
				return a.rewindBeforePrompt(beforePrompt, o, jsonOut)
			}
			if at == 0 {
				return usageError{errors.New("restore needs --at N (the event whose after-state to restore)")}
			}
			if len(args) == 0 {
				return a.rewind(at, o, jsonOut)
			}
			if jsonOut {
				return usageError{errors.New("--json goes with the rewind of the whole workspace (restore --at N without a path)")}
			}
			if err := a.locate(); err != nil {
				return err
			}
			abs, _ := filepath.Abs(args[0])
			return a.mutate(fmt.Sprintf("restored %s to its state after event %d", args[0], at), o.DryRun,
				func(e *replay.Engine) (*replay.Result, error) {
					return e.Restore(context.Background(), abs, at, o)
				})
		},
	}
	cmd.Flags().Uint64Var(&at, "at", 0, "the event whose after-state to restore")
	cmd.Flags().StringVar(&beforePrompt, "before-prompt", "", "rewind the whole workspace to its state right before prompt P")
	cmd.Flags().BoolVar(&o.DryRun, "dry-run", false, "show the diff of what would change (with PATH), change nothing")
	cmd.Flags().BoolVar(&a.stat, "stat", false, "with PATH and --dry-run: list the file and its line counts instead of the diff")
	cmd.Flags().BoolVar(&jsonOut, "json", false, "without PATH: print what the rewind did (or would do) as one JSON object")
	return cmd
}

// mutate runs one engine operation and prints what it changed and the new event number.
func (a *app) mutate(verb string, dryRun bool, op func(e *replay.Engine) (*replay.Result, error)) error {
	return a.change(op, func(e *replay.Engine, res *replay.Result) error {
		a.printMutation(e, res, verb, dryRun)
		return nil
	})
}

// change runs one engine operation, explains its failure, and hands its
// result to show while the engine is still open.
func (a *app) change(op func(e *replay.Engine) (*replay.Result, error), show func(e *replay.Engine, res *replay.Result) error) error {
	e, err := a.engine()
	if err != nil {
		return err
	}
	defer e.Close()
	res, err := op(e)
	if err != nil {
		return a.explain(err)
	}
	return show(e, res)
}

// printObserved says which outside changes a batch recorded first.
func (a *app) printObserved(res *replay.Result) {
	for _, s := range res.Observed {
		fmt.Fprintf(a.out, "recorded an outside change as event %s first\n", cSeq(s))
	}
}

// printMutation prints what a revert, undo, redo or restore changed (or,
// dry, would change) and its event.
func (a *app) printMutation(e *replay.Engine, res *replay.Result, verb string, dryRun bool) {
	w := a.out
	a.printObserved(res)
	switch {
	case dryRun:
		fmt.Fprintf(w, "dry run: would have %s; nothing changed\n", verb)
		a.printPlanned(w, e, res)
		return
	case res.Seq == 0:
		fmt.Fprintln(w, "nothing changed")
		return
	}
	var ev *journal.Event
	e.Journal().View(func(tx *journal.Tx) (err error) { ev, err = tx.Event(res.Seq); return })
	if ev != nil && ev.Reverts != 0 && (verb == "undid" || verb == "redid") {
		verb = fmt.Sprintf("%s event %d", verb, ev.Reverts)
	}
	fmt.Fprintf(w, "%s as event %s\n", verb, cSeq(res.Seq))
	for _, f := range res.Files {
		fmt.Fprintf(w, "    %s\n", fileLine(f))
	}
}

// explain turns a revert conflict into an error that lists the overlapping lines as they are now.
func (a *app) explain(err error) error {
	var ce *replay.ConflictError
	var h *hinted
	if errors.As(err, &h) {
		return err // the operation said what to do
	}
	if !errors.As(err, &ce) {
		if errors.Is(err, replay.ErrBadEvent) || errors.Is(err, replay.ErrNothing) {
			return withHint(err, "`journal log` shows each event's status")
		}
		return err
	}
	var cur []string
	if f, ferr := os.Open(filepath.Join(a.rootD[0], filepath.FromSlash(ce.Path))); ferr == nil {
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			cur = append(cur, sc.Text())
		}
		f.Close()
	}
	d := &detailed{err: err}
	for _, r := range ce.Lines {
		d.lines = append(d.lines, fmt.Sprintf("  %s lines %d-%d now:", ce.Path, r[0], r[1]))
		for n := r[0]; n <= r[1] && n-1 < len(cur) && n <= r[0]+20; n++ {
			if n >= 1 {
				d.lines = append(d.lines, fmt.Sprintf("  %5d | %s", n, cur[n-1]))
			}
		}
	}
	if ce.Prompt != "" {
		return withHint(d, fmt.Sprintf("nothing was changed; `journal undo --prompt %s --force` puts every file back exactly as before the prompt (as a new event)", ce.Prompt))
	}
	if ce.Session != "" {
		return withHint(d, fmt.Sprintf("nothing was changed; `journal undo --session %s --all --force` puts every file back exactly as before the session (as a new event)", ce.Session))
	}
	return withHint(d, fmt.Sprintf("nothing was changed; `journal revert %d --force` restores its before-content exactly (as a new event)", ce.Event))
}

// printPlanned prints a dry run's changes: the diff of each file from what
// is on disk to what the change would write, or with --stat one line per
// file with its line counts ("M  args.go  +3 -1").
func (a *app) printPlanned(w io.Writer, e *replay.Engine, res *replay.Result) {
	for i, f := range res.Files {
		var old, cur []byte
		known := true
		if !f.Before.IsZero() {
			if fl, err := e.Read(f.Path); err == nil && fl.Exists && fl.Data != nil {
				old = fl.Data
			} else {
				known = false
			}
		}
		if c := res.Planned[i]; !c.Delete {
			cur, known = c.Data, known && c.Data != nil // a streamed content is too large to diff here
		}
		if a.stat {
			if known {
				f.Added, f.Removed = diffCounts(old, cur)
			}
			fmt.Fprintf(w, "    %s\n", fileLine(f))
			continue
		}
		oldName, newName := "a/"+f.Path, "b/"+f.Path
		fmt.Fprintln(w, cBold(fmt.Sprintf("diff --journal %s %s", oldName, newName)))
		switch {
		case !known:
			fmt.Fprintf(w, "%s -> %s: too large to diff here\n", shortID(f.Before), shortID(f.After))
			continue
		case f.Before.IsZero():
			oldName = "/dev/null"
		case f.After.IsZero():
			newName = "/dev/null"
		}
		a.writeUnified(w, oldName, newName, old, cur)
	}
}

// diffCounts counts the lines the unified diff of two texts adds and removes.
func diffCounts(old, cur []byte) (added, removed int) {
	if bytes.IndexByte(old, 0) >= 0 || bytes.IndexByte(cur, 0) >= 0 {
		return 0, 0
	}
	for _, l := range strings.Split(ops.Unified("a", "b", string(old), string(cur)), "\n") {
		switch {
		case strings.HasPrefix(l, "+++") || strings.HasPrefix(l, "---"):
		case strings.HasPrefix(l, "+"):
			added++
		case strings.HasPrefix(l, "-"):
			removed++
		}
	}
	return added, removed
}

// sessionsHint says, for a session undo whose session the journal does not
// know, which sessions it does know (the newest five by their last event)
// and how to list one's events, or that it knows none.
func sessionsHint(e *replay.Engine) string {
	var ss []journal.Session
	e.Journal().View(func(tx *journal.Tx) error {
		return tx.Sessions(func(s journal.Session) error {
			if s.ID != "" {
				ss = append(ss, s)
			}
			return nil
		})
	})
	if len(ss) == 0 {
		return "this journal has no sessions (only MCP clients' sessions have them): `journal undo` takes back the newest change, `journal revert N` any event, `journal undo --prompt P` an agent's prompt"
	}
	slices.SortFunc(ss, func(x, y journal.Session) int { return cmp.Compare(y.Last, x.Last) })
	var names []string
	for _, s := range ss[:min(5, len(ss))] {
		who := s.Actor.Name
		if who == "" {
			who = s.Actor.Kind
		}
		names = append(names, fmt.Sprintf("%s (%s, %d events, the last #%d)", s.ID, who, s.Count, s.Last))
	}
	more := ""
	if len(ss) > 5 {
		more = fmt.Sprintf(" and %d more", len(ss)-5)
	}
	return fmt.Sprintf("the sessions with events here, newest first: %s%s; `journal log --session S` lists one's events (an agent's prompt: `journal undo --prompt P`, `journal log --prompts` lists them)", strings.Join(names, ", "), more)
}

// byPerson returns the options of a person's revert, undo, redo, restore or
// rewind: a file made read-only is theirs to write (they could chmod it as
// well), unlike an agent's tool call, which is refused there.
func byPerson() replay.RevertOptions { return replay.RevertOptions{WriteReadOnly: true} }
