package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/audit"
	"github.com/journalfs/journal/replay"
	"github.com/spf13/cobra"
)

type logFlags struct {
	n                    int
	since, until         string
	session, actor       string
	oneline, jsonOut     bool
	stat                 bool // with --oneline or --prompts: every file, one per line with its counts
	prompts              bool
	sinceTime, untilTime time.Time
	promptOf             *promptCache // names each event's prompt (nil: not, as under log --prompts' headers)
}

func newLogCmd(a *app) *cobra.Command {
	var f logFlags
	cmd := &cobra.Command{
		Use:   "log [PATH...]",
		Short: "List events, newest first",
		Long: `List the journal's events, newest first: number, time, who (client/session, cli:user or external),
tool and kind, the files with added/removed line counts, and whether the event was reverted or rolled back.
PATH limits the list to events that touched a file (or any file under a directory).

--prompts groups the events under the prompt each serves (an agent's prompt, recorded by its prompt hook:
journal hook AGENT): the prompt's id, agent, session, model and text (secrets masked), then its events
one per line — every event of the session from that prompt until its next, its subagents' included —;
events of no prompt (people's edits, other tools) are grouped as "no prompt" after the prompt begun last
before them. With --json, one object per group: {"prompt": {"seq", "id", "text", "model", "agent",
"session", "time"} or null, "events": [events as log --json prints them]}; -n counts groups.`,
		RunE: func(cmd *cobra.Command, args []string) error { return a.runLog(args, f) },
	}
	fl := cmd.Flags()
	fl.IntVarP(&f.n, "max-count", "n", 0, "show at most N events")
	addTimeFlags(cmd, &f.since, &f.until)
	fl.StringVar(&f.session, "session", "", "only events of MCP session S")
	fl.StringVar(&f.actor, "actor", "", "only events whose actor (client name, user, kind, or client/session) is A; an agent's hook session also lists its calls of the MCP tools")
	fl.BoolVar(&f.oneline, "oneline", false, "one line per event")
	fl.BoolVar(&f.jsonOut, "json", false, "one JSON object per event (JSON lines); with --prompts one per prompt")
	fl.BoolVar(&f.prompts, "prompts", false, "group the events under the agents' prompts they serve, newest prompt first")
	fl.BoolVar(&f.stat, "stat", false, "with --oneline or --prompts: list every file of an event on its own line with its line counts (without it an event of more than 5 files names 3 and counts the rest)")
	a.addReveal(cmd)
	return cmd
}

// addTimeFlags adds --since and --until, read by parseTime.
func addTimeFlags(cmd *cobra.Command, since, until *string) {
	cmd.Flags().StringVar(since, "since", "", "only events at or after T (RFC 3339, YYYY-MM-DD, or a duration ago: 2h, 3d)")
	cmd.Flags().StringVar(until, "until", "", "only events at or before T")
}

// onelineFiles is the most files a one-line entry names: past it, the
// first three and a count (--stat lists every one).
const onelineFiles = 5

// logEntry is an event as `log --json` prints it.
type logEntry struct {
	*journal.Event
	RevertedBy uint64     `json:"reverted_by,omitempty"`
	Prompt     *promptRef `json:"prompt,omitempty"` // the agent's prompt it served (not under log --prompts: its group names it)
}

func (a *app) runLog(args []string, f logFlags) error {
	var err error
	if f.sinceTime, err = parseTime(f.since); err != nil {
		return err
	}
	if f.untilTime, err = parseTime(f.until); err != nil {
		return err
	}
	if err := a.locate(); err != nil {
		return err
	}
	filter := audit.ExportFilter{Since: f.sinceTime, Until: f.untilTime}
	for _, p := range args {
		filter.Paths = append(filter.Paths, a.key(p))
	}
	if f.prompts {
		return a.view(func(tx *journal.Tx) error {
			for i, k := range filter.Paths {
				if !knownPath(tx, k) {
					return errNeverJournaled(args[i])
				}
			}
			groups, err := a.promptGroups(tx, f, filter)
			if err != nil {
				return err
			}
			if !f.jsonOut {
				a.startPager()
			}
			return a.printPromptGroups(a.out, tx, groups, f)
		})
	}
	started := false
	var bad []string // damaged events, as shown
	var damage *journal.DamageError
	err = a.view(func(tx *journal.Tx) error {
		damage = tx.Damage()
		f.promptOf = newPromptCache(tx, a.mask())
		for i, k := range filter.Paths {
			if !knownPath(tx, k) {
				return errNeverJournaled(args[i])
			}
		}
		shown := 0
		visit := func(e *journal.Event) error {
			if !f.sinceTime.IsZero() && e.Time.Before(f.sinceTime) {
				return journal.ErrStop // newest first: everything further is older
			}
			if !filter.Match(e) || f.actor != "" && !actorMatches(e, f.actor) ||
				f.session != "" && e.Actor.Session != f.session {
				return nil
			}
			if !started && !f.jsonOut {
				a.startPager()
				started = true
			}
			if err := a.printLogEntry(a.out, tx, e, f); err != nil {
				return err
			}
			if shown++; f.n > 0 && shown >= f.n {
				return journal.ErrStop
			}
			return nil
		}
		switch {
		case f.session != "":
			return tx.EachIndexed("session", f.session, visit)
		case len(filter.Paths) == 1:
			if _, ok := tx.Head(filter.Paths[0]); ok {
				return tx.EachIndexed("path", filter.Paths[0], visit)
			}
		}
		return tx.Scan(0, true, visit, func(first, last uint64, err error) error {
			which := fmt.Sprintf("event %d", first)
			if last != first {
				which = fmt.Sprintf("events %d-%d", min(first, last), max(first, last))
			}
			bad = append(bad, which)
			if !started && !f.jsonOut {
				a.startPager()
				started = true
			}
			why := strings.TrimPrefix(cleanMessage(err), "damaged: ")
			if f.jsonOut {
				b, _ := json.Marshal(map[string]any{"seq": first, "last_seq": last, "damaged": why})
				fmt.Fprintf(a.out, "%s\n", b)
			} else {
				fmt.Fprintf(a.out, "%s  %s\n\n", cSeq(which), cStatus("<damaged: "+why+">"))
			}
			if shown++; f.n > 0 && shown >= f.n {
				return journal.ErrStop
			}
			return nil
		})
	})
	switch {
	case err == nil && len(bad) > 0:
		err = fmt.Errorf("%s could not be read (shown above as damaged); every other event is listed: %w", strings.Join(bad, ", "), journal.ErrCorrupt)
	case err == nil && damage != nil:
		err = fmt.Errorf("every event shown reads, but %w", damage)
	}
	return err
}

// actorMatches reports whether e's actor is want: its kind, client name,
// user, session or client/session — the session being also the agent's
// hook session an MCP call names (replay.CallSession), so that
// `--actor AGENT/SESSION` lists the edits attribution and the prompts'
// readers give that session, its agent's calls of our MCP tools included.
func actorMatches(e *journal.Event, want string) bool {
	a := e.Actor
	for _, s := range []string{a.Kind, a.Name, a.User, a.Session, actorString(a)} {
		if s != "" && strings.EqualFold(s, want) {
			return true
		}
	}
	if s := replay.CallSession(e); s != "" && s != a.Session {
		a.Session = s
		return strings.EqualFold(s, want) || strings.EqualFold(actorString(a), want)
	}
	return false
}

// eventStatus is "" for a live committed event, else "rolled back", "pending" or "reverted by M".
func eventStatus(tx *journal.Tx, e *journal.Event) string {
	switch e.Status {
	case journal.StatusRolledBack:
		return "rolled back"
	case journal.StatusPending:
		return "pending"
	}
	if by := tx.RevertedBy(e.Seq); by != 0 && tx.Live(by) {
		return fmt.Sprintf("reverted by %d", by)
	}
	return ""
}

// lostText says what a damaged event (written by repair) stands for.
func lostText(l *journal.Lost) string {
	if l == nil {
		return "damaged"
	}
	var parts []string
	switch {
	case l.First != 0 && l.First == l.Last:
		parts = append(parts, fmt.Sprintf("event %d", l.First))
	case l.First != 0:
		parts = append(parts, fmt.Sprintf("events %d-%d", l.First, l.Last))
	}
	if n := len(l.Contents); n > 0 {
		parts = append(parts, fmt.Sprintf("%d content(s)", n))
	}
	return "damaged: lost " + strings.Join(parts, " and ") + " (journal repair)"
}

// what is the tool and kind: "edit_file", "undo of 7", "rewind to 3", "outside change", "gc".
func what(e *journal.Event) string {
	switch e.Kind {
	case journal.KindRevert, journal.KindUndo, journal.KindRedo:
		if len(e.Undone) > 0 {
			var a struct{ Session, Prompt string }
			json.Unmarshal(e.Args, &a)
			if a.Prompt != "" {
				return fmt.Sprintf("undo of prompt %s of session %s (%d events)", shortPrompt(a.Prompt), a.Session, len(e.Undone))
			}
			return fmt.Sprintf("undo of session %s (%d events)", a.Session, len(e.Undone))
		}
		return fmt.Sprintf("%s of %d", e.Kind, e.Reverts)
	case journal.KindObserve:
		return observeWhat(e)
	case journal.KindRedact:
		if r := e.Redaction; r != nil {
			s := fmt.Sprintf("redact: arguments of %d event(s), %d content(s)", len(r.Events)+len(r.Unsalted), len(r.Contents))
			if r.Why != "" {
				s += " — " + r.Why
			}
			return s
		}
		return "redact"
	case journal.KindRestore:
		var a struct {
			At   uint64
			Path string
		}
		if json.Unmarshal(e.Args, &a) == nil && a.Path == "" && a.At != 0 {
			return fmt.Sprintf("rewind to %d", a.At) // the whole workspace (replay.Engine.Rewind)
		}
		return "restore"
	case journal.KindGC:
		return "gc"
	case journal.KindPrompt:
		return promptWhat(e)
	case journal.KindDamaged:
		return lostText(e.Lost)
	}
	if e.Tool == "" {
		return string(e.Kind)
	}
	return e.Tool
}

func (a *app) printLogEntry(w io.Writer, tx *journal.Tx, e *journal.Event, f logFlags) error {
	var prompt *promptRef
	if f.promptOf != nil {
		prompt = f.promptOf.of(e)
	}
	e = a.mask().Event(e)
	status := eventStatus(tx, e)
	when := e.Time.In(zone())
	switch {
	case f.jsonOut:
		b, err := json.Marshal(logEntry{Event: e, RevertedBy: tx.RevertedBy(e.Seq), Prompt: prompt})
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	case f.oneline:
		var files []string
		listed := e.Listed()
		for _, fc := range listed {
			if fc.MovedFrom != "" {
				fc.Path = fc.MovedFrom + "->" + fc.Path
			}
			files = append(files, fc.Path)
		}
		switch {
		case e.Kind == journal.KindGC:
			files = []string{fmt.Sprintf("(%d files carried)", len(e.Files))}
		case f.stat:
			files = []string{fmt.Sprintf("(%d files)", len(files))}
		case len(files) > onelineFiles:
			// a baseline of hundreds of files is not one line's to list
			files = append(files[:3:3], fmt.Sprintf("and %d more (--stat lists them)", len(files)-3))
		}
		s := fmt.Sprintf("%s %s %s %s %s", cSeq(e.Seq), when.Format("2006-01-02 15:04:05"), actorString(e.Actor), what(e), strings.Join(files, ","))
		if prompt != nil {
			s += "  " + cDim(prompt.String())
		}
		if status != "" {
			s += " " + cStatus("["+status+"]")
		}
		if _, err := fmt.Fprintln(w, s); err != nil {
			return err
		}
		if f.stat && e.Kind != journal.KindGC {
			for _, fc := range listed {
				if _, err := fmt.Fprintf(w, "      %s\n", fileLine(fc)); err != nil {
					return err
				}
			}
		}
		return nil
	}
	head := fmt.Sprintf("%s  %s  %s  %s", cSeq(fmt.Sprintf("event %d", e.Seq)), when.Format("2006-01-02 15:04:05 MST"),
		cBold(actorString(e.Actor)), what(e))
	if status != "" {
		head += "  " + cStatus("["+status+"]")
	}
	fmt.Fprintln(w, head)
	if prompt != nil {
		fmt.Fprintf(w, "    %s\n", cDim(prompt.String()))
	}
	if e.Kind == journal.KindGC {
		fmt.Fprintf(w, "    %s\n", cDim(fmt.Sprintf("retention: %s; carried %d file states", e.Args, len(e.Files))))
	} else {
		for _, fc := range e.Listed() {
			fmt.Fprintf(w, "    %s\n", fileLine(fc))
		}
	}
	if e.Error != "" {
		fmt.Fprintf(w, "    %s\n", cDim("error: "+e.Error))
	}
	_, err := fmt.Fprintln(w)
	return err
}

// observeWhat names an observe event: what recorded it, and for an agent's
// call or journal exec the command (cut to one short line).
func observeWhat(e *journal.Event) string {
	switch e.Tool {
	case "":
		return "outside change"
	case journal.ToolWatch:
		return "outside change (watcher)"
	case journal.ToolCatchUp:
		return "changed while no watcher ran"
	case journal.ToolBaseline:
		return "first seen (baseline)"
	}
	type input struct {
		Command  string   `json:"command"`
		Commands []string `json:"commands"` // Cline CLI's run_commands
		FilePath string   `json:"file_path"`
		Path     string   `json:"path"`
	}
	var a struct {
		input
		Call  hookCall `json:"call"`
		Calls []struct {
			Input input `json:"input"`
		} `json:"calls"`
	}
	json.Unmarshal(e.Args, &a)
	in := a.input
	if len(a.Calls) > 0 {
		in = a.Calls[0].Input
	}
	what := first(in.Command, strings.Join(in.Commands, "; "), in.FilePath, in.Path)
	what = strings.Join(strings.Fields(what), " ")
	if len(what) > 60 {
		what = what[:57] + "..."
	}
	who := e.Tool
	if e.Actor.Kind != "agent" && e.Actor.Name != "" && e.Actor.Name != e.Tool {
		who = e.Actor.Name + " " + e.Tool // the agent is the actor column's
	}
	if n := len(a.Calls); n > 1 {
		who += fmt.Sprintf(" (%d calls at once)", n)
	}
	if c := a.Call; c.Subagent != "" || c.AgentType != "" {
		who += " (subagent " + strings.TrimSpace(c.AgentType+" "+c.Subagent) + ")"
	}
	if what == "" {
		return who
	}
	return fmt.Sprintf("%s: %s", who, what)
}

// hookCall is what an event of an agent's hook records of its call under
// its arguments' "call" (watch.About).
type hookCall struct {
	ID        string `json:"id"`
	Model     string `json:"model"`
	Prompt    string `json:"prompt"`
	Subagent  string `json:"subagent"`
	AgentType string `json:"agent_type"`
	// Session: an agent's call of our MCP tool, recorded by the server as
	// its session's event: the agent's session, as its hooks name it
	// (watch.About).
	Session string `json:"session"`
}

// first is the first non-empty string.
func first(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}
