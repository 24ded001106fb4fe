package gitai

import (
	"errors"
	"time"

	"github.com/journalfs/journal/journal"
)

// Call is the journal's event a trace id names: the tool call that wrote
// the lines (the writer derives trace ids from the event, CallTraceKey).
type Call struct {
	Event uint64    `json:"event"`
	Tool  string    `json:"tool,omitempty"`
	Time  time.Time `json:"time"`
}

// FindCalls looks traces (t_… ids) up among the journal's events, newest
// first, and returns those it finds. A trace no event gives (another
// machine's journal, or another tool's note) is simply not found.
func FindCalls(tx *journal.Tx, traces map[string]bool) (map[string]Call, error) {
	found := map[string]Call{}
	if len(traces) == 0 {
		return found, nil
	}
	err := tx.Each(0, true, func(e *journal.Event) error {
		if e.Hash.IsZero() {
			return nil
		}
		if k := CallTraceKey(e); traces[k] {
			found[k] = Call{Event: e.Seq, Tool: e.Tool, Time: e.Time}
			if len(found) == len(traces) {
				return journal.ErrStop
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, journal.ErrStop) {
		return nil, err
	}
	return found, nil
}

// Traces are the trace ids of the result's agent lines.
func (b *BlameResult) Traces() map[string]bool {
	m := map[string]bool{}
	for _, l := range b.Lines {
		if l.Author.Trace != "" {
			m[l.Author.Trace] = true
		}
	}
	return m
}

// AttachCalls names, on each agent line whose trace calls holds, its call.
func (b *BlameResult) AttachCalls(calls map[string]Call) {
	for i := range b.Lines {
		if c, ok := calls[b.Lines[i].Author.Trace]; ok {
			b.Lines[i].Author.Call = &c
		}
	}
}
