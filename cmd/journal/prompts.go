package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/audit"
	"github.com/journalfs/journal/replay"
)

// promptGroup is one prompt and the events that are its doing, as
// `log --prompts` lists them; Prompt nil for the events of no prompt
// recorded after the prompt before it began.
type promptGroup struct {
	Prompt *replay.Prompt `json:"prompt"`
	Events []logEntry     `json:"events"`
	start  uint64
}

// promptGroups walks the journal in order and puts each event f keeps
// under its prompt (replay.Prompts): the groups in the order their prompts
// began, each event of no prompt in the group of no prompt that follows
// the prompt begun last before it.
func (a *app) promptGroups(tx *journal.Tx, f logFlags, filter audit.ExportFilter) ([]*promptGroup, error) {
	ps := replay.NewPrompts()
	var groups []*promptGroup
	byKey := map[string]*promptGroup{}
	var loose *promptGroup // of no prompt, since the newest prompt began
	err := tx.Each(0, false, func(e *journal.Event) error {
		p := ps.Next(e)
		keep := filter.Match(e) && (f.actor == "" || actorMatches(e, f.actor)) && (f.session == "" || e.Actor.Session == f.session) &&
			(f.sinceTime.IsZero() || !e.Time.Before(f.sinceTime))
		var g *promptGroup
		me := a.mask().Event(e)
		if p != nil {
			k := p.Session + "\x00" + p.ID
			if g = byKey[k]; g == nil {
				g = &promptGroup{Prompt: p, start: e.Seq}
				byKey[k] = g
				groups = append(groups, g)
				loose = nil
			}
			if e.Kind == journal.KindPrompt {
				g.Prompt = replay.PromptOfEvent(me) // its text masked
			}
		} else {
			if loose == nil {
				loose = &promptGroup{start: e.Seq}
				groups = append(groups, loose)
			}
			g = loose
		}
		if keep {
			g.Events = append(g.Events, logEntry{Event: me, RevertedBy: tx.RevertedBy(e.Seq)})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := groups[:0]
	for _, g := range groups {
		if len(g.Events) > 0 {
			slices.Reverse(g.Events)
			out = append(out, g)
		}
	}
	slices.Reverse(out)
	return out, nil
}

// printPromptGroups prints `log --prompts`: each prompt, newest first, its
// id, agent, session, model and text, then its events as log prints them.
func (a *app) printPromptGroups(w io.Writer, tx *journal.Tx, groups []*promptGroup, f logFlags) error {
	for i, g := range groups {
		if f.n > 0 && i >= f.n {
			break
		}
		if f.jsonOut {
			b, err := json.Marshal(g)
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "%s\n", b)
			continue
		}
		if g.Prompt == nil {
			fmt.Fprintf(w, "%s\n", cBold("no prompt"))
		} else {
			p := g.Prompt
			head := fmt.Sprintf("%s %s  %s", cBold("prompt"), cSeq(p.ID), actorString(journal.Actor{Kind: "agent", Name: p.Agent, Session: p.Session}))
			if p.Seq != 0 {
				head += fmt.Sprintf("  event %d  %s", p.Seq, p.Time.In(zone()).Format("2006-01-02 15:04:05 MST"))
			} else {
				head += "  " + cDim("(named by its calls; its prompt's hook recorded nothing)")
			}
			if p.Model != "" {
				head += "  model " + p.Model
			}
			fmt.Fprintln(w, head)
			if p.Text != "" {
				for _, l := range strings.Split(strings.TrimRight(p.Text, "\n"), "\n") {
					fmt.Fprintf(w, "  > %s\n", l)
				}
			}
		}
		for _, e := range g.Events {
			if e.Kind == journal.KindPrompt {
				continue // the header
			}
			var b strings.Builder
			if err := a.printLogEntry(&b, tx, e.Event, logFlags{oneline: true, stat: f.stat}); err != nil {
				return err
			}
			fmt.Fprintf(w, "    %s", b.String())
		}
		fmt.Fprintln(w)
	}
	return nil
}

// promptWhat names a prompt event in log's listing: its id and the start
// of its text (e masked).
func promptWhat(e *journal.Event) string {
	r := newPromptRef(replay.PromptOfEvent(e))
	r.Seq = 0 // it is the event
	if r.Excerpt == "" && len(e.Args) == 0 {
		r.Excerpt = "(its text redacted)"
	}
	return r.String()
}

// promptRef names the prompt an event served, as log and show print it
// (and log --json under "prompt"): its id, its prompt event (0: none was
// recorded, its calls name it) and the start of its text, secrets masked.
type promptRef struct {
	Seq     uint64 `json:"seq,omitempty"`
	ID      string `json:"id"`
	Excerpt string `json:"excerpt,omitempty"`
}

// newPromptRef is p's reference, its text (masked by the caller) cut to
// one line of at most 60 characters.
func newPromptRef(p *replay.Prompt) *promptRef {
	text := []rune(strings.Join(strings.Fields(p.Text), " "))
	if len(text) > 60 {
		text = append(text[:57], []rune("...")...)
	}
	return &promptRef{Seq: p.Seq, ID: p.ID, Excerpt: string(text)}
}

// String is the one way log prints an event's prompt: prompt ID: "text",
// the id cut short (shortPrompt).
func (r *promptRef) String() string { return "prompt " + r.label(shortPrompt(r.ID)) }

// label is the prompt as id: "text" (no text: redacted, or a prompt only
// its calls name), and its event when it has one.
func (r *promptRef) label(id string) string {
	s := id
	if s == "" {
		s = "(its arguments redacted)"
	}
	if r.Excerpt != "" {
		s += fmt.Sprintf(": %q", r.Excerpt)
	}
	if r.Seq != 0 {
		s += fmt.Sprintf(" (event %d)", r.Seq)
	}
	return s
}

// promptCache tells the prompts of the events of one read (replay.PromptOf),
// their texts masked, without walking a long session back for each of its
// events: a walk's answer for a session holds for every event of it after
// the prompt found and up to the event asked (an event whose call names
// its prompt is asked for itself).
type promptCache struct {
	tx      *journal.Tx
	mask    audit.Masking
	session map[string]sessionPrompt
	refs    map[uint64]*promptRef // by prompt event
	calls   map[string]*promptRef // by the session and prompt id a call names (one prompt event each)
}

// sessionPrompt is the prompt a session's events after seq from and up to
// seq upTo serve (nil: none, from 0).
type sessionPrompt struct {
	ref      *promptRef
	from, to uint64
}

func newPromptCache(tx *journal.Tx, m audit.Masking) *promptCache {
	return &promptCache{tx: tx, mask: m, session: map[string]sessionPrompt{}, refs: map[uint64]*promptRef{}, calls: map[string]*promptRef{}}
}

// of is the prompt e (unmasked) served, nil for a prompt event (it names
// itself), for an event of no prompt, and where reading the session's
// events back fails (a damaged one: log lists around it, and names no
// prompt it cannot read).
func (c *promptCache) of(e *journal.Event) *promptRef {
	s := e.Actor.Session
	if e.Kind == journal.KindPrompt || s == "" {
		return nil
	}
	id := replay.CallPrompt(e)
	named := id != ""
	call := replay.CallSession(e) + "\x00" + id
	if ref := c.calls[call]; named && ref != nil {
		return ref // the events naming one prompt are read back once
	}
	if sp, ok := c.session[s]; ok && !named && sp.from < e.Seq && e.Seq <= sp.to {
		return sp.ref
	}
	if ss, ok := c.tx.Session(s); ok && ss.Actor.Kind == "mcp" && !named {
		// a session an MCP client began: its prompts are its agent's
		// hook session's, named by the calls (args.call.prompt) — not
		// looked for through its every event (thousands, and none)
		c.session[s] = sessionPrompt{to: math.MaxUint64}
		return nil
	}
	p, err := replay.PromptOf(c.tx, e)
	if err != nil {
		return nil
	}
	if p == nil {
		if !named {
			c.session[s] = sessionPrompt{from: 0, to: e.Seq}
		}
		return nil
	}
	ref := c.refs[p.Seq]
	if ref == nil || p.Seq == 0 {
		if p.Seq != 0 { // read by PromptOf: readable
			pe, err := c.tx.Event(p.Seq)
			if err != nil {
				return nil
			}
			p = replay.PromptOfEvent(c.mask.Event(pe))
		}
		ref = newPromptRef(p)
		if p.Seq != 0 {
			c.refs[p.Seq] = ref
		}
	}
	switch {
	case named && p.Seq != 0:
		c.calls[call] = ref
	case p.Seq != 0:
		c.session[s] = sessionPrompt{ref: ref, from: p.Seq, to: e.Seq}
	}
	return ref
}

// shortPrompt is a prompt's id cut to 13 characters (a made one's
// "made-" and 8 hex digits).
func shortPrompt(id string) string {
	if len(id) > 13 {
		return id[:13]
	}
	return id
}
