package replay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/journalfs/journal/journal"
)

// ToolPrompt is the tool of a prompt event (journal.KindPrompt).
const ToolPrompt = "prompt"

// PromptArgs are a prompt event's arguments: salted like any event's
// (journal.Event.ArgsDigest), so `journal redact` takes the text out and the
// record still verifies; masked for printing like any arguments.
type PromptArgs struct {
	ID    string `json:"id"`              // the agent's id of the prompt (prompt_id, turn_id, generation_id), or one made up
	Text  string `json:"text"`            // what the user asked
	Model string `json:"model,omitempty"` // where the agent said it
	Event string `json:"event,omitempty"` // the agent's name of the hook ("UserPromptSubmit")
}

// RecordPrompt appends a prompt event: committed, of kind prompt, naming no
// file, its actor the agent's session (actor), its arguments p. The events
// of that session after it, until its next prompt, are the prompt's (see
// PromptOf). A caller that wants the changes made before the prompt
// recorded before it (a watcher, a hook) records them first.
func (e *Engine) RecordPrompt(ctx context.Context, actor journal.Actor, p PromptArgs) (uint64, error) {
	if p.ID == "" || actor.Session == "" {
		return 0, fmt.Errorf("a prompt needs an id and a session: %w", ErrBadEvent)
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	args, err := json.Marshal(p)
	if err != nil {
		return 0, err
	}
	ev := &journal.Event{Time: time.Now().UTC(), Kind: journal.KindPrompt, Status: journal.StatusCommitted,
		Actor: actor, Tool: ToolPrompt, Args: args, Files: []journal.FileChange{}}
	err = e.do(func(db *journal.DB) error {
		if err := e.recoverLocked(db); err != nil {
			return err
		}
		if err := e.flushSealLocked(db); err != nil { // the events before it in the bbolt file
			return err
		}
		return db.Update(func(tx *journal.Tx) error { return tx.Append(ev) })
	})
	if err != nil {
		return 0, classify(fmt.Errorf("replay: record a prompt: %w", err))
	}
	return ev.Seq, nil
}

// Prompt is a prompt as the journal knows it: its event (Seq, 0 when the
// agent named a prompt whose hook recorded none) and what it says.
type Prompt struct {
	Seq     uint64    `json:"seq,omitempty"`
	ID      string    `json:"id"`
	Text    string    `json:"text,omitempty"`
	Model   string    `json:"model,omitempty"`
	Agent   string    `json:"agent,omitempty"`
	Session string    `json:"session"`
	Time    time.Time `json:"time,omitzero"`
}

// PromptOfEvent reads a prompt event (nil for any other event).
func PromptOfEvent(ev *journal.Event) *Prompt {
	if ev.Kind != journal.KindPrompt {
		return nil
	}
	var a PromptArgs
	json.Unmarshal(ev.Args, &a) // redacted: no arguments, the prompt still stands
	return &Prompt{Seq: ev.Seq, ID: a.ID, Text: a.Text, Model: a.Model, Agent: ev.Actor.Name, Session: ev.Actor.Session, Time: ev.Time}
}

// CallPrompt is the prompt's id an event's arguments name for its call
// (args.call.prompt, as a hook records it; "" if none).
func CallPrompt(ev *journal.Event) string {
	p, _ := callOf(ev)
	return p
}

// CallSession is the session whose prompts ev serves: the agent's session
// its call names (args.call.session: an agent's call of our MCP tool, an
// event of the MCP server's session), else its own session.
func CallSession(ev *journal.Event) string {
	if _, s := callOf(ev); s != "" {
		return s
	}
	return ev.Actor.Session
}

// callOf reads the prompt and the agent's session an event's call names.
func callOf(ev *journal.Event) (prompt, session string) {
	if ev.Kind == journal.KindPrompt || len(ev.Args) == 0 {
		return "", ""
	}
	type about struct {
		Prompt  string `json:"prompt"`
		Session string `json:"session"`
	}
	var a struct {
		Call  about `json:"call"`
		Calls []struct {
			Call about `json:"call"`
		} `json:"calls"`
	}
	if json.Unmarshal(ev.Args, &a) != nil {
		return "", ""
	}
	if a.Call.Prompt == "" && len(a.Calls) > 0 {
		return a.Calls[0].Call.Prompt, a.Calls[0].Call.Session
	}
	return a.Call.Prompt, a.Call.Session
}

// PromptOf is the prompt event ev serves: for a prompt event, itself; for
// another event of an agent's session, the prompt its call names
// (args.call.prompt, see CallPrompt), else the session's latest prompt
// event before it — a subagent's events are its session's, so they come
// under their parent's prompt. nil for an event of no session, or of a
// session no prompt was recorded for before it.
func PromptOf(tx *journal.Tx, ev *journal.Event) (*Prompt, error) {
	if p := PromptOfEvent(ev); p != nil {
		return p, nil
	}
	id, s := callOf(ev)
	if s == "" {
		s = ev.Actor.Session
	}
	if s == "" {
		return nil, nil
	}
	var found *Prompt
	err := tx.EachIndexedSeq("session", s, func(seq uint64) error {
		if seq >= ev.Seq {
			return nil
		}
		pe, err := readEvent(tx, seq)
		if err != nil {
			return err
		}
		if p := PromptOfEvent(pe); p != nil && (id == "" || p.ID == id || p.ID == "") { // "": its arguments redacted
			found = p
			return journal.ErrStop
		}
		return nil
	})
	if found == nil && id != "" {
		found = &Prompt{ID: id, Agent: ev.Actor.Name, Session: s}
	}
	return found, err
}

// readEvent reads event seq as a scan does: a damaged page is an error,
// not the panic a lookup of it would be (a reader walking around damage,
// journal log, asks for prompts).
func readEvent(tx *journal.Tx, seq uint64) (*journal.Event, error) {
	var ev *journal.Event
	var bad error
	err := tx.Scan(seq, false, func(e *journal.Event) error {
		if e.Seq == seq {
			ev = e
		}
		return journal.ErrStop
	}, func(first, last uint64, err error) error {
		bad = fmt.Errorf("event %d: %w", seq, err)
		return journal.ErrStop
	})
	switch {
	case err != nil:
		return nil, err
	case ev == nil && bad != nil:
		return nil, bad
	case ev == nil:
		return nil, fmt.Errorf("event %d: %w", seq, journal.ErrNotFound)
	}
	return ev, nil
}

// Prompts tells the prompt of each event of a walk in journal order (oldest
// first), as PromptOf does, without looking back: Next must see every event
// from the first one on (or from wherever the walk starts: a prompt before
// that is then unknown).
type Prompts struct {
	latest map[string]*Prompt // session → its latest prompt event so far
	byID   map[string]*Prompt // session + "\x00" + id → the prompt
}

// NewPrompts starts a walk.
func NewPrompts() *Prompts {
	return &Prompts{latest: map[string]*Prompt{}, byID: map[string]*Prompt{}}
}

// Next is ev's prompt (nil: none), ev being the event after the one Next
// saw last.
func (ps *Prompts) Next(ev *journal.Event) *Prompt {
	if p := PromptOfEvent(ev); p != nil {
		ps.latest[p.Session] = p
		ps.byID[p.Session+"\x00"+p.ID] = p
		return p
	}
	id, s := callOf(ev)
	if s == "" {
		s = ev.Actor.Session
	}
	if s == "" {
		return nil
	}
	if id != "" {
		if p := ps.byID[s+"\x00"+id]; p != nil {
			return p
		}
		if p := ps.latest[s]; p != nil && p.ID == "" {
			return p // its arguments redacted: the id with them
		}
		p := &Prompt{ID: id, Agent: ev.Actor.Name, Session: s}
		ps.byID[s+"\x00"+id] = p
		return p
	}
	return ps.latest[s]
}

// FindPrompt finds the prompt ref names: the number of its prompt event,
// or its id (a unique prefix of one will do), recorded by a prompt event or
// named by calls' events alone. Start is the first event that is the
// prompt's: its prompt event, else the first event naming it. ErrBadEvent
// when no prompt, or more than one, fits.
func FindPrompt(tx *journal.Tx, ref string) (p *Prompt, start uint64, err error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return nil, 0, fmt.Errorf("no prompt given: %w", ErrBadEvent)
	}
	if n, perr := strconv.ParseUint(ref, 10, 64); perr == nil {
		if ev, err := tx.Event(n); err == nil {
			if p := PromptOfEvent(ev); p != nil {
				return p, ev.Seq, nil
			}
			return nil, 0, fmt.Errorf("event %d is a %s event, not a prompt (`journal log --prompts` lists them): %w", n, ev.Kind, ErrBadEvent)
		}
	}
	type hit struct {
		p     *Prompt
		start uint64
	}
	hits := map[string]*hit{} // session + id
	ps := NewPrompts()
	err = tx.Each(0, false, func(ev *journal.Event) error {
		q := ps.Next(ev)
		if q == nil || !(q.ID == ref || strings.HasPrefix(q.ID, ref)) {
			return nil
		}
		k := q.Session + "\x00" + q.ID
		if hits[k] == nil {
			hits[k] = &hit{q, ev.Seq}
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	var exact, all []*hit
	for _, h := range hits {
		all = append(all, h)
		if h.p.ID == ref {
			exact = append(exact, h)
		}
	}
	if len(exact) > 0 {
		all = exact
	}
	switch len(all) {
	case 0:
		return nil, 0, fmt.Errorf("no prompt %q in this journal (`journal log --prompts` lists them): %w", ref, ErrBadEvent)
	case 1:
		return all[0].p, all[0].start, nil
	}
	return nil, 0, fmt.Errorf("%d prompts fit %q: give more of its id, or its event's number: %w", len(all), ref, ErrBadEvent)
}

// UndoPrompt takes back everything the prompt ref names (FindPrompt) and
// the later prompts of its session did — the agent's tool calls, its
// shell commands, its subagents' calls and the outside changes hooks
// attributed to them — as ONE undo event, exactly as UndoSession does for
// the session's events from the prompt on: merged around what other
// sessions and people changed since (which stays), an overlap refusing
// the whole undo (a *ConflictError with the lines), o.Force putting every
// file back as it was before the prompt's first change to it, o.DryRun
// writing nothing. One undo (or a revert of the event) takes it back.
func (e *Engine) UndoPrompt(ctx context.Context, ref string, o RevertOptions) (*Result, error) {
	return e.Edit(ctx, func(r *Reader) (*Batch, error) {
		if err := e.flushSealLocked(r.db); err != nil { // the plan reads the events
			return nil, err
		}
		var p *Prompt
		var start uint64
		err := r.db.View(func(tx *journal.Tx) (err error) {
			p, start, err = FindPrompt(tx, ref)
			return err
		})
		if err != nil {
			return nil, err
		}
		evs, err := sessionTargets(r.db, p.Session, start, o.Through)
		if errors.Is(err, ErrNothing) {
			err = fmt.Errorf("nothing prompt %s and the later ones of session %s did still stands: %w", p.ID, p.Session, ErrNothing)
		}
		if err != nil {
			return nil, err
		}
		b, err := e.planSessionUndo(r, p.Session, evs, o)
		if ce := (*ConflictError)(nil); errors.As(err, &ce) {
			ce.Prompt = p.ID
		}
		if err != nil {
			return nil, err
		}
		b.Tool = "undo_prompt"
		b.Args = fmt.Appendf(nil, `{"prompt":%q,"session":%q,"from":%d,"force":%t}`, p.ID, p.Session, start, o.Force)
		return b, nil
	})
}

// RewindBeforePrompt returns every file to its exact state right before
// the prompt ref names (FindPrompt), as Rewind does: to the state after its
// prompt event, which changes no file and follows every change made before
// it (a hook records those first), else to the state before the first
// event naming it.
func (e *Engine) RewindBeforePrompt(ctx context.Context, ref string, o RevertOptions) (*Result, uint64, error) {
	var p *Prompt
	var start uint64
	err := e.j.View(func(tx *journal.Tx) (err error) {
		p, start, err = FindPrompt(tx, ref)
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	at := start
	if p.Seq == 0 {
		at = start - 1
	}
	if at == 0 {
		return nil, 0, fmt.Errorf("prompt %s came before anything the journal recorded: nothing to go back to: %w", p.ID, ErrNothing)
	}
	res, err := e.Rewind(ctx, at, o)
	return res, at, err
}
