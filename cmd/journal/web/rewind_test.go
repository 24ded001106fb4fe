package web_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/journalfs/journal/cmd/journal/web/webtest"
	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay"
)

// TestWeb_BrowserRewind drives "rewind to here" in headless Chromium: the
// preview lists every file and what the rewind does to it (a file a
// watcher's baseline first saw later is not among them) and changes
// nothing; a confirm after a newer event is refused and asks for a new
// look; the confirm of a fresh preview makes one restore event that puts
// the files on disk back as they were, and the revert of that event, from
// its page, brings them all back.
func TestWeb_BrowserRewind(t *testing.T) {
	base, dir, agentEngine := workspace(t) // 1, 2: a.txt; 3: b.txt
	bg := context.Background()
	if _, err := agentEngine.Apply(bg, &replay.Batch{Tool: "file_replace", Changes: []replay.Change{
		{Path: "a.txt", Data: []byte("one\nTWO\nthree\nfour\n"), Mode: 0o755}, {Path: "b.txt", Delete: true}, {Path: "c.txt", Data: []byte("sea\n")}}}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "seen.txt"), []byte("there before the watcher\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := agentEngine.Observe(bg, replay.Observation{Paths: []string{"seen.txt"}, Tool: journal.ToolWatch, Baseline: true}); err != nil {
		t.Fatal(err)
	}
	if err := agentEngine.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	type file struct {
		data string
		mode os.FileMode
	}
	disk := func() map[string]file {
		out := map[string]file{}
		for _, n := range []string{"a.txt", "b.txt", "c.txt", "seen.txt"} {
			if fi, err := os.Stat(filepath.Join(dir, n)); err == nil {
				b, _ := os.ReadFile(filepath.Join(dir, n))
				out[n] = file{string(b), fi.Mode().Perm()}
			}
		}
		return out
	}
	same := func(what string, want map[string]file) {
		t.Helper()
		got := disk()
		if len(got) != len(want) {
			t.Fatalf("%s: %v, want %v", what, got, want)
		}
		for n, w := range want {
			if got[n] != w {
				t.Fatalf("%s: %s is %+v, want %+v", what, n, got[n], w)
			}
		}
	}
	now := disk()
	seen := file{"there before the watcher\n", 0o644}
	at3 := map[string]file{"a.txt": {"one\nTWO\nthree\n", 0o644}, "b.txt": {"bee\n", 0o644}, "seen.txt": seen}

	ctx := webtest.Browser(t)
	webtest.Do(t, ctx, chromedp.EmulateViewport(1280, 800), chromedp.Navigate(base+"/event/3"), chromedp.Click(chromedp.CSS("#rewind")),
		chromedp.WaitVisible(chromedp.CSS("#confirm")))
	rows := webtest.Eval[[]string](t, ctx, `Array.from(document.querySelectorAll("table.rewind tr")).map(r => r.innerText.replace(/\s+/g, " ").trim())`)
	if strings.Join(rows, "|") != "MODIFIED a.txt 755 → 644|CREATED b.txt|DELETED c.txt" {
		t.Fatalf("the rewind's list: %q", rows)
	}
	if p := webtest.Text(t, ctx, "main"); !strings.Contains(p, "changes 3 files") || !strings.Contains(p, "+bee") || !strings.Contains(p, "-sea") || strings.Contains(p, "seen.txt") {
		t.Fatalf("the rewind's preview:\n%s", p)
	}
	webtest.Shot(t, ctx, "rewind")
	same("after the preview", now)

	// the agent edits on while the preview is open: the confirm is refused, nothing is changed
	if _, err := agentEngine.Apply(bg, &replay.Batch{Tool: "file_replace", Changes: []replay.Change{{Path: "c.txt", Data: []byte("sea, again\n")}}}); err != nil {
		t.Fatal(err)
	}
	now["c.txt"] = file{"sea, again\n", 0o644}
	webtest.Do(t, ctx, chromedp.Click(chromedp.CSS("#confirm")), chromedp.WaitVisible(chromedp.CSS("p.hint")))
	if p := webtest.Text(t, ctx, "main"); !strings.Contains(p, "did not show") || !strings.Contains(p, "open the rewind page again") {
		t.Fatalf("a confirm after a newer event:\n%s", p)
	}
	same("after the refused confirm", now)

	webtest.Do(t, ctx, chromedp.Navigate(base+"/event/3/rewind"), chromedp.WaitVisible(chromedp.CSS("#confirm")),
		chromedp.Click(chromedp.CSS("#confirm")), chromedp.WaitVisible(chromedp.CSS("dl.meta")))
	if h1 := webtest.Text(t, ctx, "h1"); !strings.Contains(h1, "#7") || !strings.Contains(h1, "restore") {
		t.Fatalf("after the rewind: %q", h1)
	}
	if args := webtest.Text(t, ctx, "code.args"); args != `{"at":3,"files":3}` {
		t.Fatalf("the rewind's arguments: %q", args)
	}
	same("after the rewind", at3)

	webtest.Do(t, ctx, chromedp.Click(chromedp.CSS("#revert")), chromedp.WaitVisible(chromedp.CSS("#confirm")),
		chromedp.Click(chromedp.CSS("#confirm")), chromedp.WaitVisible(chromedp.CSS("dl.meta")))
	if h1 := webtest.Text(t, ctx, "h1"); !strings.Contains(h1, "#8") || !strings.Contains(h1, "revert") {
		t.Fatalf("after the revert of the rewind: %q", h1)
	}
	same("after the revert of the rewind", now)

	// an event that does not exist, and a rewind that would change nothing
	webtest.Do(t, ctx, chromedp.Navigate(base+"/event/99/rewind"), chromedp.WaitVisible(chromedp.CSS("main")))
	if p := webtest.Text(t, ctx, "main"); !strings.Contains(p, "event 99 does not exist") {
		t.Fatalf("rewind to event 99:\n%s", p)
	}
	webtest.Do(t, ctx, chromedp.Navigate(base+"/event/8/rewind"), chromedp.WaitVisible(chromedp.CSS("main")))
	if p := webtest.Text(t, ctx, "main"); !strings.Contains(p, "Rewinding would change nothing") || webtest.Eval[int](t, ctx, `document.querySelectorAll("#confirm").length`) != 0 {
		t.Fatalf("rewind to the newest event:\n%s", p)
	}
}
