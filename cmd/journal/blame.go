package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay"
	"github.com/journalfs/journal/snapshot"
	"github.com/spf13/cobra"
)

func newBlameCmd(a *app) *cobra.Command {
	var at uint64
	var jsonOut, porcelain bool
	cmd := &cobra.Command{
		Use:   "blame PATH",
		Short: "Show, for every line of a file, the event that last changed it",
		Long: `blame prints every line of PATH as it is on disk (or as it was right after event N with --at N),
each with the event that last changed it: its number, who made it (the MCP client and session, a
person at the CLI, or "external" for a change made outside any tool, which the journal recorded when
it next saw the file), the tool and the time. Attribution follows content: a change that puts back
lines the file held (a git checkout, stash pop or reset, a revert, undo or restore) keeps who wrote
them, and only lines new to the file are the change's; a move carries the lines over from the old
path; the lines of a file that was there before the journal first saw it are owned by the event that
recorded it as found (the watcher's baseline, "first seen", or a catch-up), lines whose events a gc
dropped show event 0 ("before the journal"), and lines changed on disk since the journal last saw the
file show "*" (not journaled yet: the next edit of
the file records the change as an outside one).

--porcelain prints, for each line, "<event> <line>" (the event "*" when not journaled yet) and then
the line itself after a tab; the
first line of each event is preceded by its details, one per line: "time <RFC 3339>",
"kind <kind>", "tool <tool>", "actor <who>", and "prompt <id>" when the event served an agent's prompt.
A line whose event served an agent's prompt (journal log --prompts) names it in a column of its own.
--json prints one object: {"path", "at", "content", "lines": [{"line", "event", "unjournaled", "prompt",
"text"}], "events": [the events, as journal log --json prints them], "prompts": {event: prompt}}.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if jsonOut && porcelain {
				return usageError{errors.New("--json and --porcelain are alternatives")}
			}
			if err := a.locate(); err != nil {
				return err
			}
			key := a.key(args[0])
			return a.view(func(tx *journal.Tx) error {
				if at > tx.Last() {
					return withHint(fmt.Errorf("event %d does not exist (the newest is %d)", at, tx.Last()), "`journal log "+args[0]+"` lists its events")
				}
				b, err := replay.BlameTx(tx, key, at)
				switch {
				case errors.Is(err, replay.ErrBinary):
					return withHint(fmt.Errorf("%s: %w: it has no lines to blame", args[0], err), "`journal log "+args[0]+"` lists the events that changed it")
				case errors.Is(err, journal.ErrNotFound) && !knownPath(tx, key):
					return errNeverJournaled(args[0])
				case errors.Is(err, journal.ErrNotFound):
					return withHint(err, "`journal log "+args[0]+"` lists its events; blame it --at one that left it in place")
				case err != nil:
					return err
				}
				if at == 0 { // the file as it is: lines changed since the journal saw it are not journaled yet
					if data, rerr := readBounded(args[0], replay.MaxBlameBytes); rerr == nil && snapshot.Sum(data) != b.Content {
						if b, err = b.OnDisk(data); err != nil {
							return withHint(fmt.Errorf("%s: %w", args[0], err), "`journal blame "+args[0]+" --at N` blames a journaled version")
						}
					}
				}
				a.maskBlame(b)
				prompts := map[uint64]*replay.Prompt{}
				for seq, e := range b.Events {
					if e == nil {
						continue
					}
					if p, err := replay.PromptOf(tx, e); err == nil && p != nil {
						q := *p
						q.Text = "" // blame names the prompt; log --prompts shows its text
						prompts[seq] = &q
					}
				}
				switch {
				case jsonOut:
					return printBlameJSON(a.out, b, prompts)
				case porcelain:
					return printBlamePorcelain(a.out, b, prompts)
				}
				a.startPager()
				return printBlame(a.out, b, prompts)
			})
		},
	}
	cmd.Flags().Uint64Var(&at, "at", 0, "blame the file as it was right after this event")
	cmd.Flags().BoolVar(&jsonOut, "json", false, "one JSON object (see above)")
	cmd.Flags().BoolVar(&porcelain, "porcelain", false, "a line-oriented format for scripts (see above)")
	a.addReveal(cmd)
	return cmd
}

// blameWho is who made the event owning line l, for blame's columns.
func blameWho(l replay.BlameLine, e *journal.Event) string {
	switch {
	case l.Seq == replay.Unjournaled:
		return "(not journaled yet)"
	case e == nil:
		return "(before the journal)"
	}
	return actorString(e.Actor)
}

// blameSeq is the event column of line l: its number, or "*" for a line
// not journaled yet.
func blameSeq(l replay.BlameLine) string {
	if l.Seq == replay.Unjournaled {
		return "*"
	}
	return fmt.Sprint(l.Seq)
}

// readBounded reads the file at p if it is at most limit bytes.
func readBounded(p string, limit int64) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err == nil && int64(len(data)) > limit {
		err = fmt.Errorf("%s is over %d bytes", p, limit)
	}
	return data, err
}

// printBlame prints the blame as columns: event, who, tool, time, the
// prompt (when a line's event served an agent's prompt), line number, then
// the line.
func printBlame(out io.Writer, b *replay.Blame, prompts map[uint64]*replay.Prompt) error {
	w := bufio.NewWriter(out)
	seqW, whoW, toolW := 1, 1, 1
	for _, l := range b.Lines {
		e := b.Events[l.Seq]
		seqW = max(seqW, len(blameSeq(l)))
		whoW = max(whoW, min(len(blameWho(l, e)), 28))
		if e != nil {
			toolW = max(toolW, min(len(e.Tool), 20))
		}
	}
	promptW := 0
	for _, p := range prompts {
		promptW = max(promptW, len("prompt ")+len(shortPrompt(p.ID)))
	}
	numW := len(fmt.Sprint(len(b.Lines)))
	for i, l := range b.Lines {
		e := b.Events[l.Seq]
		tool, when := "", strings.Repeat(" ", 19)
		if e != nil {
			tool, when = e.Tool, e.Time.In(zone()).Format("2006-01-02 15:04:05")
		}
		if promptW > 0 {
			p := ""
			if q := prompts[l.Seq]; q != nil && l.Seq != replay.Unjournaled {
				p = "prompt " + shortPrompt(q.ID)
			}
			when += " " + pad(p, promptW)
		}
		text := strings.TrimRight(string(l.Text), "\r\n")
		fmt.Fprintf(w, "%s %s %s %s %*d) %s\n", cSeq(fmt.Sprintf("%*s", seqW, blameSeq(l))),
			cDim(pad(blameWho(l, e), whoW)), pad(tool, toolW), cDim(when), numW, i+1, text)
	}
	return w.Flush()
}

// pad cuts s to n bytes (marking the cut) or pads it with spaces to n.
func pad(s string, n int) string {
	if len(s) > n {
		return s[:n-1] + "…"
	}
	return s + strings.Repeat(" ", n-len(s))
}

func printBlamePorcelain(out io.Writer, b *replay.Blame, prompts map[uint64]*replay.Prompt) error {
	w := bufio.NewWriter(out)
	seen := map[uint64]bool{}
	for i, l := range b.Lines {
		fmt.Fprintf(w, "%s %d\n", blameSeq(l), i+1)
		if e := b.Events[l.Seq]; e != nil && !seen[l.Seq] {
			seen[l.Seq] = true
			fmt.Fprintf(w, "time %s\nkind %s\ntool %s\nactor %s\n", e.Time.UTC().Format(time.RFC3339Nano), e.Kind, e.Tool, actorString(e.Actor))
			if p := prompts[l.Seq]; p != nil {
				fmt.Fprintf(w, "prompt %s\n", p.ID)
			}
		}
		fmt.Fprintf(w, "\t%s\n", strings.TrimRight(string(l.Text), "\r\n"))
	}
	return w.Flush()
}

// blameJSON is the blame as --json prints it.
type blameJSON struct {
	Path    string           `json:"path"`
	At      uint64           `json:"at"`
	Content string           `json:"content"`
	Lines   []blameLineJSON  `json:"lines"`
	Events  []*journal.Event `json:"events"`
	// Prompts are the agents' prompts the lines' events served, by event
	// number (their text left to log --prompts).
	Prompts map[uint64]*replay.Prompt `json:"prompts,omitempty"`
}

type blameLineJSON struct {
	Line        int    `json:"line"`
	Event       uint64 `json:"event"`
	Unjournaled bool   `json:"unjournaled,omitempty"`
	Prompt      string `json:"prompt,omitempty"` // the id of the prompt its event served
	Text        string `json:"text"`
}

func printBlameJSON(out io.Writer, b *replay.Blame, prompts map[uint64]*replay.Prompt) error {
	j := blameJSON{Path: b.Path, At: b.At, Content: b.Content.String(), Lines: make([]blameLineJSON, len(b.Lines)), Events: []*journal.Event{}}
	if len(prompts) > 0 {
		j.Prompts = prompts
	}
	for i, l := range b.Lines {
		j.Lines[i] = blameLineJSON{Line: i + 1, Event: l.Seq, Text: string(l.Text)}
		if p := prompts[l.Seq]; p != nil && l.Seq != replay.Unjournaled {
			j.Lines[i].Prompt = p.ID
		}
		if l.Seq == replay.Unjournaled {
			j.Lines[i].Event, j.Lines[i].Unjournaled = 0, true
		}
	}
	for _, e := range b.Events {
		j.Events = append(j.Events, e)
	}
	slices.SortFunc(j.Events, func(x, y *journal.Event) int { return cmp.Compare(x.Seq, y.Seq) })
	enc := json.NewEncoder(out)
	return enc.Encode(j)
}
