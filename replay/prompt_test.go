package replay_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay"
)

// TestPromptOf_AgreesWithWalk: each event's prompt, read back from its
// session (PromptOf) and in one walk of the journal (Prompts), is the
// same — for calls naming their prompt (args.call.prompt), calls naming
// none (the session's latest prompt before them), a subagent's call,
// another session's events and a person's (none); FindPrompt finds a
// prompt by id, by a start of it and by its event's number, and refuses
// an event that is no prompt; undo passes over prompt events.
func TestPromptOf_AgreesWithWalk(t *testing.T) {
	e := open(t, t.TempDir())
	a := journal.Actor{Kind: "agent", Name: "claude-code", Session: "A", Origin: "hook"}
	b := journal.Actor{Kind: "agent", Name: "codex", Session: "B", Origin: "hook"}
	n := 0
	step := func(actor *journal.Actor, call string) uint64 {
		t.Helper()
		n++
		args := `{}`
		if call != "" {
			args = `{"call":` + call + `}`
		}
		res, err := e.Apply(ctx, &replay.Batch{Tool: "Bash", Actor: actor, Args: []byte(args), Changes: []replay.Change{{Path: fmt.Sprintf("f%d.txt", n), Data: []byte("x\n")}}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Seq
	}
	prompt := func(actor journal.Actor, id string) uint64 {
		t.Helper()
		seq, err := e.RecordPrompt(ctx, actor, replay.PromptArgs{ID: id, Text: "do " + id})
		if err != nil {
			t.Fatal(err)
		}
		return seq
	}
	want := map[uint64]string{}
	want[step(nil, "")] = ""
	want[prompt(a, "a1")] = "a1"
	want[step(&a, `{"id":"t1","prompt":"a1"}`)] = "a1"
	want[step(&a, `{"id":"t2","subagent":"sub"}`)] = "a1" // names none: the latest
	want[prompt(b, "b1")] = "b1"
	want[step(&b, `{"id":"t3"}`)] = "b1"
	want[step(&a, `{"id":"t4","prompt":"a1"}`)] = "a1" // across B's prompt
	want[step(nil, "")] = ""
	want[prompt(a, "a2")] = "a2"
	want[step(&a, `{"id":"t5","prompt":"a2"}`)] = "a2"
	want[step(&a, `{"id":"t6","prompt":"gone"}`)] = "gone" // a prompt whose hook recorded nothing
	j := e.Journal()
	ps := replay.NewPrompts()
	err := j.View(func(tx *journal.Tx) error {
		return tx.Each(0, false, func(ev *journal.Event) error {
			walk := ps.Next(ev)
			read, err := replay.PromptOf(tx, ev)
			if err != nil {
				return err
			}
			id := func(p *replay.Prompt) string {
				if p == nil {
					return ""
				}
				return p.ID
			}
			if id(walk) != want[ev.Seq] || id(read) != want[ev.Seq] || (walk != nil && walk.Seq != read.Seq) {
				t.Errorf("event %d: walk %+v, read %+v, want %q", ev.Seq, walk, read, want[ev.Seq])
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	j.View(func(tx *journal.Tx) error {
		for ref, w := range map[string]string{"a1": "a1", "b": "b1", "2": "a1", "gone": "gone"} {
			if p, _, err := replay.FindPrompt(tx, ref); err != nil || p.ID != w {
				t.Errorf("FindPrompt(%q): %+v %v, want %s", ref, p, err, w)
			}
		}
		for _, ref := range []string{"1", "a", "zz"} { // not a prompt; two fit; none
			if _, _, err := replay.FindPrompt(tx, ref); !errors.Is(err, replay.ErrBadEvent) {
				t.Errorf("FindPrompt(%q): %v", ref, err)
			}
		}
		return nil
	})
	// undo takes back the newest change, not the prompt event
	if _, err := e.UndoPrompt(ctx, "gone", replay.RevertOptions{}); err != nil {
		t.Fatal(err)
	}
	res, err := e.Undo(ctx, replay.RevertOptions{Session: "B"})
	if err != nil || res.Seq == 0 {
		t.Fatalf("undo of session B: %+v %v", res, err)
	}
}
