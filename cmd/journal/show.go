package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/ops"
	"github.com/journalfs/journal/snapshot"
	"github.com/spf13/cobra"
)

// maxDiffBytes bounds the contents `show` and `diff` load to diff.
const maxDiffBytes = 8 << 20

func newShowCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "show N",
		Short: "Show an event in full, with a unified diff per file",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			seq, err := parseSeq(args[0])
			if err != nil {
				return err
			}
			return a.view(func(tx *journal.Tx) error {
				e, err := eventOrErr(tx, seq)
				if err != nil {
					return err
				}
				a.startPager()
				a.printEvent(a.out, tx, e)
				return a.printDiffs(a.out, tx, e, "")
			})
		},
	}
	a.addReveal(cmd)
	return cmd
}

func newDiffCmd(a *app) *cobra.Command {
	var from, to uint64
	cmd := &cobra.Command{
		Use:   "diff N [PATH] | diff PATH --from N [--to M]",
		Short: "Diff what an event changed, or a file between two events",
		Long: `diff N shows event N's changes as unified diffs (only PATH's with PATH).
diff PATH --from N --to M compares PATH as it was right after event N with PATH right after event M
(default: its latest journaled state).`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("from") {
				if len(args) != 1 {
					return usageError{errors.New("diff PATH --from N takes exactly one PATH")}
				}
				return a.diffRange(args[0], from, to)
			}
			seq, err := parseSeq(args[0])
			if err != nil {
				return err
			}
			return a.view(func(tx *journal.Tx) error {
				e, err := eventOrErr(tx, seq)
				if err != nil {
					return err
				}
				only := ""
				if len(args) == 2 {
					only = a.key(args[1])
					if _, ok := e.File(only); !ok {
						return withHint(fmt.Errorf("event %d did not touch %s", seq, args[1]), fmt.Sprintf("`journal show %d` lists its files", seq))
					}
				}
				a.startPager()
				return a.printDiffs(a.out, tx, e, only)
			})
		},
	}
	cmd.Flags().Uint64Var(&from, "from", 0, "the event whose after-state is the old side")
	cmd.Flags().Uint64Var(&to, "to", 0, "the event whose after-state is the new side (default: the newest)")
	a.addReveal(cmd)
	return cmd
}

// eventOrErr returns event seq, or a one-line error naming the newest event.
func eventOrErr(tx *journal.Tx, seq uint64) (*journal.Event, error) {
	e, err := tx.Event(seq)
	if errors.Is(err, journal.ErrNotFound) {
		if base, _ := tx.Base(); seq <= base {
			return nil, fmt.Errorf("event %d was dropped by gc (the oldest kept is %d)", seq, base+1)
		}
		return nil, withHint(fmt.Errorf("event %d does not exist (the newest is %d)", seq, tx.Last()), "`journal log` lists the events")
	}
	return e, err
}

func (a *app) printEvent(w io.Writer, tx *journal.Tx, e *journal.Event) {
	prompt := newPromptCache(tx, a.mask()).of(e)
	e = a.mask().Event(e)
	status := string(e.Status)
	if s := eventStatus(tx, e); s != "" && e.Status == journal.StatusCommitted {
		status += ", " + s
	}
	fmt.Fprintf(w, "%s  %s\n", cSeq(fmt.Sprintf("event %d", e.Seq)), cStatus(status))
	row := func(k, v string) {
		if v != "" {
			fmt.Fprintf(w, "%-8s %s\n", k, v)
		}
	}
	row("time", e.Time.In(zone()).Format("2006-01-02 15:04:05.000 MST"))
	ac := e.Actor
	who := actorString(ac)
	var extra []string
	for _, kv := range [][2]string{{"version", ac.Version}, {"user", ac.User}, {"host", ac.Host}, {"origin", ac.Origin}} {
		if kv[1] != "" {
			extra = append(extra, kv[0]+" "+kv[1])
		}
	}
	if len(extra) > 0 {
		who += " (" + strings.Join(extra, ", ") + ")"
	}
	row("actor", who)
	row("kind", string(e.Kind))
	row("tool", e.Tool)
	if e.Actor.Origin == "hook" || e.Actor.Kind == "mcp" { // a hook's call, or an agent's call of our MCP tool its hook saw
		var a struct {
			Call hookCall `json:"call"`
		}
		json.Unmarshal(e.Args, &a)
		row("call", a.Call.ID)
		row("model", a.Call.Model)
		row("subagent", strings.TrimSpace(a.Call.AgentType+" "+a.Call.Subagent))
		row("agent", a.Call.Session) // the agent's session its hooks name, for our MCP tool's call
	}
	if prompt != nil {
		row("prompt", prompt.label(prompt.ID)) // in full, as the other rows
	}
	row("args", string(e.Args))
	if len(e.Args) == 0 {
		if by, ok := tx.ArgsRedactedBy(e.Seq); ok {
			row("args", fmt.Sprintf("(redacted by event %d)", by))
		}
	}
	if r := e.Redaction; r != nil {
		if evs := append(append([]uint64{}, r.Events...), r.Unsalted...); len(evs) > 0 {
			row("redacted", "arguments of events "+seqList(evs))
		}
		for _, id := range r.Contents {
			row("redacted", "content "+id.String())
		}
		if len(r.Paths) > 0 {
			row("paths", strings.Join(r.Paths, ", "))
		}
		row("why", r.Why)
	}
	if e.Reverts != 0 {
		row("reverts", fmt.Sprintf("event %d", e.Reverts))
	}
	if len(e.Undone) > 0 {
		seqs := make([]string, len(e.Undone))
		for i, s := range e.Undone {
			seqs[i] = strconv.FormatUint(s, 10)
		}
		row("undoes", "events "+strings.Join(seqs, ", "))
	}
	row("error", e.Error)
	row("prev", e.Prev.String())
	row("hash", e.Hash.String())
	fmt.Fprintln(w)
	for _, f := range e.Listed() {
		fmt.Fprintf(w, "    %s\n", fileLine(f))
	}
	fmt.Fprintln(w)
}

// printDiffs prints a unified diff per file of e (only the file `only`, if set).
func (a *app) printDiffs(w io.Writer, tx *journal.Tx, e *journal.Event, only string) error {
	for _, f := range e.Listed() {
		if only != "" && f.Path != only && f.MovedFrom != only || e.Kind == journal.KindGC {
			continue
		}
		oldName, newName := "a/"+f.Path, "b/"+f.Path
		before, bm := f.Before, f.BeforeMode
		if f.MovedFrom != "" {
			oldName = "a/" + f.MovedFrom
		}
		if src, ok := e.MoveSource(f); ok { // a rename: the diff is from the content it carried
			before, bm = src.Before, src.BeforeMode
		}
		if err := a.printDiff(w, tx, oldName, newName, before, f.After, bm, f.AfterMode); err != nil {
			return err
		}
	}
	return nil
}

func (a *app) printDiff(w io.Writer, tx *journal.Tx, oldName, newName string, before, after snapshot.ID, bm, am uint32) error {
	fmt.Fprintln(w, cBold(fmt.Sprintf("diff --journal %s %s", oldName, newName)))
	if bm != 0 && am != 0 && bm != am {
		fmt.Fprintf(w, "mode %o -> %o\n", bm&0o777, am&0o777)
	}
	renamed := !before.IsZero() && !after.IsZero() && diffPath(oldName) != diffPath(newName)
	if renamed {
		fmt.Fprintf(w, "rename from %s\nrename to %s\n", diffPath(oldName), diffPath(newName))
	}
	if before == after {
		if !renamed {
			fmt.Fprintln(w, "(no difference)")
		}
		return nil
	}
	if before.IsZero() {
		oldName = "/dev/null"
	}
	if after.IsZero() {
		newName = "/dev/null"
	}
	old, err := loadContent(tx, before)
	if errors.Is(err, journal.ErrRedacted) {
		by, _ := tx.Redacted(before)
		fmt.Fprintf(w, "%s: redacted by event %d\n", shortID(before), by)
		return nil
	}
	if err != nil {
		return err
	}
	cur, err := loadContent(tx, after)
	if errors.Is(err, journal.ErrRedacted) {
		by, _ := tx.Redacted(after)
		fmt.Fprintf(w, "%s: redacted by event %d\n", shortID(after), by)
		return nil
	}
	if err != nil {
		return err
	}
	if old == nil || cur == nil {
		fmt.Fprintf(w, "%s -> %s: too large to diff here (over %s)\n", shortID(before), shortID(after), humanBytes(maxDiffBytes))
		return nil
	}
	a.writeUnified(w, oldName, newName, old, cur)
	return nil
}

// writeUnified writes the unified diff of two texts (secrets masked, coloured), or says they are binary.
func (a *app) writeUnified(w io.Writer, oldName, newName string, old, cur []byte) {
	if bytes.IndexByte(old, 0) >= 0 || bytes.IndexByte(cur, 0) >= 0 {
		fmt.Fprintf(w, "Binary files %s and %s differ\n", oldName, newName)
		return
	}
	mo, mc := a.mask().File(diffPath(oldName), old), a.mask().File(diffPath(newName), cur)
	d := ops.Unified(oldName, newName, string(mo), string(mc))
	if d == "" && !bytes.Equal(old, cur) {
		// masked alike, the versions differ: say so, never an empty diff
		fmt.Fprintf(w, "%s: the change is inside a masked secret, its lines are not shown (--reveal shows them)\n", newName)
		return
	}
	for _, l := range strings.SplitAfter(d, "\n") {
		switch {
		case l == "":
		case strings.HasPrefix(l, "+++") || strings.HasPrefix(l, "---"):
			fmt.Fprint(w, cBold(strings.TrimSuffix(l, "\n"))+"\n")
		case strings.HasPrefix(l, "+"):
			fmt.Fprint(w, cAdd(strings.TrimSuffix(l, "\n"))+"\n")
		case strings.HasPrefix(l, "-"):
			fmt.Fprint(w, cDel(strings.TrimSuffix(l, "\n"))+"\n")
		case strings.HasPrefix(l, "@@"):
			fmt.Fprint(w, cHunk(strings.TrimSuffix(l, "\n"))+"\n")
		default:
			fmt.Fprint(w, l)
		}
	}
}

// loadContent returns a stored content ([]byte{} for the zero ID), or nil if it is too large to diff.
func loadContent(tx *journal.Tx, id snapshot.ID) ([]byte, error) {
	if id.IsZero() {
		return []byte{}, nil
	}
	n, err := snapshot.Size(tx.Bolt(), id)
	if err != nil {
		return nil, tx.ContentError(id, err) // an event names it: lost is damage, unless redacted
	}
	if n > maxDiffBytes {
		return nil, nil
	}
	b, err := snapshot.Bytes(tx.Bolt(), id)
	return b, tx.ContentError(id, err)
}

// stateAt returns path's content right after event seq: the after-content of
// the newest committed event at or before seq that touched it (zero: absent).
func stateAt(tx *journal.Tx, path string, seq uint64) (id snapshot.ID, mode uint32, err error) {
	err = tx.EachIndexed("path", path, func(e *journal.Event) error {
		if e.Seq > seq || e.Status != journal.StatusCommitted {
			return nil
		}
		f, _ := e.File(path)
		id, mode = f.After, f.AfterMode
		return journal.ErrStop
	})
	return id, mode, err
}

func (a *app) diffRange(p string, from, to uint64) error {
	if err := a.locate(); err != nil {
		return err
	}
	key := a.key(p)
	return a.view(func(tx *journal.Tx) error {
		if !knownPath(tx, key) {
			return errNeverJournaled(p)
		}
		if to == 0 {
			to = tx.Last()
		}
		for _, n := range []uint64{from, to} {
			if n == 0 || n > tx.Last() {
				return withHint(fmt.Errorf("event %d does not exist (the newest is %d)", n, tx.Last()), "`journal log "+p+"` lists its events")
			}
		}
		b, bm, err := stateAt(tx, key, from)
		if err != nil {
			return err
		}
		c, cm, err := stateAt(tx, key, to)
		if err != nil {
			return err
		}
		a.startPager()
		return a.printDiff(a.out, tx, fmt.Sprintf("a/%s@%d", key, from), fmt.Sprintf("b/%s@%d", key, to), b, c, bm, cm)
	})
}
