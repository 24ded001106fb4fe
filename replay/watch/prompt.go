package watch

import (
	"context"
	"errors"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay"
)

// PromptRecord is a prompt an agent's hook reports: its session, agent and
// model as a Call says them (Call.Prompt is the prompt's id), its text, and
// the agent's name of the hook.
type PromptRecord struct {
	Call  Call   `json:"call"`
	Text  string `json:"text"`
	Event string `json:"event,omitempty"`
}

func (p PromptRecord) actor() journal.Actor {
	c := p.Call
	return journal.Actor{Kind: "agent", Name: c.Agent, Version: c.Version, Session: c.Session, User: c.User, Host: c.Host, Origin: c.Origin}
}

func (p PromptRecord) args() replay.PromptArgs {
	return replay.PromptArgs{ID: p.Call.Prompt, Text: p.Text, Model: p.Call.Model, Event: p.Event}
}

// Prompt records prompt p: first what changed before it — the session's
// calls still open are closed by it (their after-hook is not coming: the
// agent moved on), what changed since tied to no one (tie), else as the
// watcher's own — then, once every recording handed over before is stored,
// its prompt event, so that the journal's state right after the prompt
// event is the state the prompt was given in. It returns the prompt
// event's number.
func (w *Watcher) Prompt(ctx context.Context, p PromptRecord) (*replay.Observed, uint64, error) {
	rec, err := w.turnTake(ctx, p.Call.Agent, p.Call.Session, "prompt")
	if err == nil && rec == nil {
		rec, err = w.cut(ctx, nil, keep, nil)
	}
	if err != nil {
		return nil, 0, err
	}
	ob, err := rec()
	if err != nil {
		return nil, 0, err
	}
	w.record.Lock()
	defer w.record.Unlock()
	<-w.lastDone // every recording taken before this one is stored
	seq, err := w.eng.RecordPrompt(ctx, p.actor(), p.args())
	return ob, seq, err
}

// AskPrompt is Prompt asked of the running watcher of the journal whose
// watch directory is dir (Dir), without opening the journal: ErrNoWatcher
// when none answers there.
func AskPrompt(ctx context.Context, dir string, p PromptRecord) (*Result, error) {
	return send(ctx, dir, request{Op: "prompt", Prompt: &p})
}

// RecordPrompt records prompt p through the running watcher, or with none
// running, in this process: what changed since the journal last looked
// (walked, as Begin does without a watcher), then the prompt event.
func RecordPrompt(ctx context.Context, eng *replay.Engine, p PromptRecord) (*Result, error) {
	r, err := AskPrompt(ctx, Dir(eng), p)
	if !errors.Is(err, ErrNoWatcher) {
		return r, err
	}
	r, err = scan(ctx, eng, true, journal.ToolCatchUp, nil)
	if err != nil {
		return nil, err
	}
	r.Prompt, err = eng.RecordPrompt(ctx, p.actor(), p.args())
	return r, err
}
