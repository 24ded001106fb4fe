package main_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay"
)

// log (one line, in full, --json) and show name the prompt each event of
// an agent's session served — its id, its event and the start of its text,
// the key in it masked (--reveal prints it) — whether the event's call
// names the prompt or the prompt is only its session's latest, a long text
// cut short, a redacted one still by its event; an event of no prompt
// names none.
func TestLog_NamesEventsPrompt(t *testing.T) {
	dir, p1 := promptWorkspace(t) // 1 a.txt (an MCP session of no prompt), p1 its prompt, 3 b.txt naming it
	e := engine(t, dir)
	claude := journal.Actor{Kind: "agent", Name: "claude-code", Session: "sess-1", Origin: "hook"}
	observe := func(path string) uint64 {
		t.Helper()
		res, err := e.Apply(context.Background(), &replay.Batch{Tool: "Bash", Kind: journal.KindObserve, Actor: &claude,
			Args: []byte(`{"command":"touch ` + path + `"}`), Changes: []replay.Change{{Path: path, Data: []byte(path + "\n")}}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Seq
	}
	latest := observe("c.txt") // no call names its prompt: the session's latest
	long := strings.Repeat("word ", 20)
	p2, err := e.RecordPrompt(context.Background(), claude, replay.PromptArgs{ID: "p-2", Text: long})
	if err != nil {
		t.Fatal(err)
	}
	second := observe("d.txt")
	person := apply(t, e, "edit_file", "a.txt", "a2\n")
	e.Close()

	first := fmt.Sprintf(`prompt p-1: "deploy with AKIA…[secret: aws-access-token]" (event %d)`, p1)
	cut := fmt.Sprintf(`prompt p-2: %q (event %d)`, strings.Repeat("word ", 11)+"wo...", p2)
	want := map[uint64]string{1: "", p1 + 1: first, latest: first, second: cut, person: ""}
	lines := map[uint64]string{}
	for _, l := range strings.Split(ok(t, dir, "log", "--oneline"), "\n") {
		var n uint64
		fmt.Sscan(l, &n)
		lines[n] = l
	}
	for seq, w := range want {
		l := lines[seq]
		if w == "" && strings.Contains(l, "prompt") || w != "" && !strings.Contains(l, w) || strings.Contains(l, promptKey) {
			t.Errorf("log --oneline, event %d: %q, want %q", seq, l, w)
		}
	}
	full := ok(t, dir, "log")
	for _, w := range []string{first, cut} {
		if !strings.Contains(full, "    "+w+"\n") || strings.Contains(full, promptKey) {
			t.Errorf("log lacks %q:\n%s", w, full)
		}
	}
	for _, l := range strings.Split(strings.TrimSpace(ok(t, dir, "log", "--json")), "\n") {
		var ev struct {
			Seq    uint64
			Kind   string
			Prompt *struct{ Seq, ID, Excerpt any }
		}
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatal(err)
		}
		got := ""
		if ev.Prompt != nil {
			got = fmt.Sprintf("prompt %v: %q (event %v)", ev.Prompt.ID, ev.Prompt.Excerpt, ev.Prompt.Seq)
		}
		if w, ok := want[ev.Seq]; ok && got != w || ev.Kind == "prompt" && ev.Prompt != nil {
			t.Errorf("log --json, event %d: prompt %q, want %q", ev.Seq, got, w)
		}
	}
	if out := ok(t, dir, "show", fmt.Sprint(latest)); !strings.Contains(out, `prompt   p-1: "deploy with AKIA…[secret: aws-access-token]" (event `+fmt.Sprint(p1)+")") || strings.Contains(out, promptKey) {
		t.Errorf("show %d:\n%s", latest, out)
	}
	if out := ok(t, dir, "show", fmt.Sprint(person)); strings.Contains(out, "prompt ") {
		t.Errorf("show %d names a prompt:\n%s", person, out)
	}
	if out := ok(t, dir, "log", "--oneline", "--reveal"); !strings.Contains(out, `prompt p-1: "deploy with `+promptKey+`"`) {
		t.Errorf("log --reveal:\n%s", out)
	}
	// its text redacted, its id with it: the events still name its event
	ok(t, dir, "redact", fmt.Sprint(p1), "--why", "a key in a prompt")
	out := ok(t, dir, "log", "--oneline", "--reveal")
	if want := fmt.Sprintf("prompt (its arguments redacted) (event %d)", p1); strings.Count(out, want) != 2 || strings.Contains(out, promptKey) {
		t.Errorf("log after the redaction, want %q twice:\n%s", want, out)
	}
}
