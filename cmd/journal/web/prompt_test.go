package web_test

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/journalfs/journal/cmd/journal/web"
	"github.com/journalfs/journal/cmd/journal/web/webtest"
	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay"
)

// TestWeb_BrowserPrompts drives the prompts in headless Chromium: the
// timeline groups an agent's events under its two prompts (their text,
// a key in it masked), a person's edit between them apart; "Undo this
// prompt…" on the first previews the diffs, then takes back both prompts'
// calls as one event and keeps the person's edit; "Restore the state
// before it…" on the second previews the rewind and gives the exact state
// before that prompt.
func TestWeb_BrowserPrompts(t *testing.T) {
	dir := t.TempDir()
	claude := journal.Actor{Kind: "agent", Name: "claude-code", Session: "sess-w", Origin: "hook"}
	e, err := replay.Open(replay.Options{Roots: []string{dir}, Actor: replay.CLIActor()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx0 := context.Background()
	step := func(actor *journal.Actor, args, path, data string) {
		t.Helper()
		b := &replay.Batch{Tool: "Bash", Kind: journal.KindObserve, Actor: actor, Args: []byte(args), Changes: []replay.Change{{Path: path, Data: []byte(data)}}}
		if actor == nil {
			b.Tool, b.Kind = "edit_file", ""
		}
		if _, err := e.Apply(ctx0, b); err != nil {
			t.Fatal(err)
		}
	}
	step(nil, `{}`, "a.txt", "a = 1\n")
	step(nil, `{}`, "notes.md", "notes\n")
	if _, err := e.RecordPrompt(ctx0, claude, replay.PromptArgs{ID: "p-one", Text: "set a to 2 with AKIAIOSFODNN7EXAMPLQ", Model: "claude-sonnet-5"}); err != nil { // gitleaks:allow (a test's made-up key)
		t.Fatal(err)
	}
	step(&claude, `{"command":"a2","call":{"id":"t1","prompt":"p-one"}}`, "a.txt", "a = 2\n")
	step(&claude, `{"command":"one","call":{"id":"t2","prompt":"p-one","subagent":"sub-1"}}`, "one.txt", "one\n")
	step(nil, `{}`, "notes.md", "notes\nmine\n") // the person, between the prompts
	if _, err := e.RecordPrompt(ctx0, claude, replay.PromptArgs{ID: "p-two", Text: "now set a to 3"}); err != nil {
		t.Fatal(err)
	}
	step(&claude, `{"command":"a3","call":{"id":"t3","prompt":"p-two"}}`, "a.txt", "a = 3\n")
	if err := e.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	actor := replay.CLIActor()
	actor.Origin = "web"
	s, err := web.New(e, actor)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	defer srv.Close()
	base := srv.URL
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return "<absent>"
		}
		return string(b)
	}

	ctx := webtest.Browser(t)
	webtest.Do(t, ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS("div.prompt")))
	prompts := webtest.Eval[[]string](t, ctx, `Array.from(document.querySelectorAll("div.prompt")).map(p => p.dataset.prompt + ": " + p.innerText.replace(/\s+/g, " "))`)
	if len(prompts) != 2 || !strings.HasPrefix(prompts[0], "p-two:") || !strings.Contains(prompts[0], "now set a to 3") ||
		!strings.HasPrefix(prompts[1], "p-one:") || !strings.Contains(prompts[1], "AKIA…[secret: aws-access-token]") || strings.Contains(prompts[1], "AKIAIOSFODNN7EXAMPLQ") { // gitleaks:allow (a test's made-up key)
		t.Fatalf("the timeline's prompts: %q", prompts)
	}
	// each group's rows: p-two's call; the person's edit in a group of no prompt; p-one's two calls
	groups := webtest.Eval[[]string](t, ctx, `Array.from(document.querySelectorAll("section.group")).map(g => (g.querySelector("div.prompt") ? g.querySelector("div.prompt").dataset.prompt : "-") + " " + Array.from(g.querySelectorAll("a.seq")).map(a => a.innerText).join(","))`)
	if strings.Join(groups, " | ") != "p-two #8,#7 | - #6 | p-one #5,#4,#3 | - #2,#1" {
		t.Fatalf("the timeline's groups: %q", groups)
	}
	webtest.Shot(t, ctx, "prompts-timeline")
	// a prompt event's own page: its text masked, no revert offered
	webtest.Do(t, ctx, chromedp.Navigate(base+"/event/3"), chromedp.WaitVisible(chromedp.CSS("dl.meta")))
	if page := webtest.Text(t, ctx, "main"); !strings.Contains(page, "AKIA…[secret: aws-access-token]") || strings.Contains(page, "AKIAIOSFODNN7EXAMPLQ") { // gitleaks:allow (a test's made-up key)
		t.Fatalf("the prompt event's page:\n%s", page)
	}
	if n := webtest.Eval[int](t, ctx, `document.querySelectorAll("#revert").length`); n != 0 {
		t.Fatal("the prompt event's page offers a revert")
	}
	webtest.Do(t, ctx, chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS("div.prompt")))
	// undo the first prompt (and the later one): previewed, then one event
	webtest.Do(t, ctx, chromedp.Click(chromedp.CSS(`div.prompt[data-prompt="p-one"] a.undo-prompt`)), chromedp.WaitVisible(chromedp.CSS("#confirm")))
	preview := webtest.Text(t, ctx, "main")
	if !strings.Contains(preview, "a.txt") || !strings.Contains(preview, "one.txt") || strings.Contains(preview, "notes.md") {
		t.Fatalf("the undo's preview:\n%s", preview)
	}
	if read("a.txt") != "a = 3\n" {
		t.Fatal("the preview changed a file")
	}
	webtest.Shot(t, ctx, "prompts-undo-preview")
	webtest.Do(t, ctx, chromedp.Click(chromedp.CSS("#confirm")), chromedp.WaitVisible(chromedp.CSS("dl.meta")))
	if h1 := webtest.Text(t, ctx, "h1"); !strings.Contains(h1, "#9") {
		t.Fatalf("after the undo: %q", h1)
	}
	if got := read("a.txt") + read("one.txt") + read("notes.md"); got != "a = 1\n<absent>notes\nmine\n" {
		t.Fatalf("after the undo: %q", got)
	}
	// redo it, then restore the state before the second prompt
	if _, err := e.Redo(ctx0, replay.RevertOptions{}); err != nil {
		t.Fatal(err)
	}
	webtest.Do(t, ctx, chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS(`div.prompt[data-prompt="p-two"]`)),
		chromedp.Click(chromedp.CSS(`div.prompt[data-prompt="p-two"] a.before-prompt`)), chromedp.WaitVisible(chromedp.CSS("#confirm")))
	if list := webtest.Text(t, ctx, "table.rewind"); !strings.Contains(list, "a.txt") || strings.Contains(list, "notes.md") {
		t.Fatalf("the rewind's list:\n%s", list)
	}
	webtest.Do(t, ctx, chromedp.Click(chromedp.CSS("#confirm")), chromedp.WaitVisible(chromedp.CSS("dl.meta")))
	if got := read("a.txt") + read("one.txt") + read("notes.md"); got != "a = 2\none\nnotes\nmine\n" {
		t.Fatalf("after the restore before p-two: %q", got)
	}
}
