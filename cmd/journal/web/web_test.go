package web_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/journalfs/journal/cmd/journal/web"
	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay"
)

var agent = journal.Actor{Kind: "mcp", Name: "claude-code", Version: "2.0", Session: "s1", Origin: "stdio"}

// browser starts headless Chromium (Debian's chromium: scripts/setup-browser.sh
// installs it) and returns a context driving one tab, for at most a minute.
// Without it the test fails: it never skips.
func browser(t *testing.T) context.Context {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("no chromium on PATH (%v): run scripts/setup-browser.sh (apt-get install chromium)", err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-quic", true), chromedp.UserDataDir(t.TempDir()))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel2 := chromedp.NewContext(actx)
	t.Cleanup(cancel2)
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil { // starts the browser
		t.Fatalf("headless chromium: %v", err)
	}
	ctx, cancel3 := context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(cancel3)
	return ctx
}

// do runs browser steps, failing the test on an error.
func do(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatal(err)
	}
}

// text is the visible text of the first element sel matches.
func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// eval evaluates a JavaScript expression in the page.
func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// workspace makes a workspace with three events by an MCP agent and serves
// its web app; it returns the app's URL, the workspace and the agent's engine.
func workspace(t *testing.T) (string, string, *replay.Engine) {
	t.Helper()
	dir := t.TempDir()
	e, err := replay.Open(replay.Options{Roots: []string{dir}, Actor: agent})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	for _, c := range []replay.Change{
		{Path: "a.txt", Data: []byte("one\ntwo\nthree\n")},
		{Path: "a.txt", Data: []byte("one\nTWO\nthree\n")},
		{Path: "b.txt", Data: []byte("bee\n")},
	} {
		if _, err := e.Apply(context.Background(), &replay.Batch{Tool: "edit_content", Args: []byte(`{"path":"` + c.Path + `"}`), Changes: []replay.Change{c}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	// the app's own engine, as `journal web` opens it: another process's view
	w, err := replay.Open(replay.Options{Roots: []string{dir}, Actor: replay.CLIActor()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	actor := replay.CLIActor()
	actor.Origin = "web"
	s, err := web.New(w, actor)
	if err != nil {
		t.Fatal(err)
	}
	s.Poll = 100 * time.Millisecond
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return srv.URL, dir, e
}

// TestWeb_Browser drives the app in headless Chromium as a person would:
// the timeline of an agent's events, a filter, an event's diff, its revert
// (previewed, then confirmed: the file on disk and the new event), a new
// event appearing while the page is open, and a file's blame.
func TestWeb_Browser(t *testing.T) {
	base, dir, agentEngine := workspace(t)
	ctx := browser(t)

	do(t, ctx, chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS("ol.events li.ev")))
	list := text(t, ctx, "ol.events")
	for _, want := range []string{"#3", "#2", "#1", "edit_content", "claude-code 2.0 /s1", "a.txt", "b.txt"} {
		if !strings.Contains(list, want) {
			t.Fatalf("timeline lacks %q:\n%s", want, list)
		}
	}
	do(t, ctx, chromedp.Navigate(base+"/?path=a.txt"), chromedp.WaitVisible(chromedp.CSS("ol.events li.ev")))
	if n := eval[int](t, ctx, `document.querySelectorAll("ol.events li.ev").length`); n != 2 {
		t.Fatalf("the file filter shows %d events, want 2", n)
	}

	// event 2's diff, then its revert
	do(t, ctx, chromedp.Click(chromedp.CSS(`a[href="/event/2"]`)), chromedp.WaitVisible(chromedp.CSS("pre.diff span.add")))
	if added := text(t, ctx, "pre.diff span.add"); added != "+TWO" {
		t.Fatalf("added line %q", added)
	}
	do(t, ctx, chromedp.Click(chromedp.CSS("#revert")), chromedp.WaitVisible(chromedp.CSS("#confirm")))
	if preview := text(t, ctx, "pre.diff"); !strings.Contains(preview, "-TWO") || !strings.Contains(preview, "+two") {
		t.Fatalf("revert preview:\n%s", preview)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(got) != "one\nTWO\nthree\n" {
		t.Fatalf("the preview changed the file: %q", got)
	}
	do(t, ctx, chromedp.Click(chromedp.CSS("#confirm")), chromedp.WaitVisible(chromedp.CSS("dl.meta")))
	if h1 := text(t, ctx, "h1"); !strings.Contains(h1, "#4") || !strings.Contains(h1, "revert") {
		t.Fatalf("after the revert: %q", h1)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(got) != "one\ntwo\nthree\n" {
		t.Fatalf("a.txt after the revert: %q", got)
	}

	// a new event by the agent shows on the open timeline without a reload
	do(t, ctx, chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS("ol.events li.ev")))
	eval[int](t, ctx, `window.marker = 1`)
	if _, err := agentEngine.Apply(context.Background(), &replay.Batch{Tool: "file_replace", Changes: []replay.Change{{Path: "b.txt", Data: []byte("bee, again\n")}}}); err != nil {
		t.Fatal(err)
	}
	do(t, ctx, chromedp.WaitVisible(chromedp.CSS(`a[href="/event/5"]`)), chromedp.WaitVisible(chromedp.CSS("#live")))
	if eval[int](t, ctx, `window.marker || 0`) != 1 {
		t.Fatal("the page reloaded to show the new event")
	}

	// blame: line 2 is the revert's, lines 1 and 3 the first event's
	do(t, ctx, chromedp.Navigate(base+"/blame?path=a.txt"), chromedp.WaitVisible(chromedp.CSS("table.blame")))
	seqs := eval[[]string](t, ctx, `Array.from(document.querySelectorAll("table.blame tbody tr")).map(r => r.dataset.seq)`)
	if strings.Join(seqs, ",") != "1,4,1" {
		t.Fatalf("blame rows %v", seqs)
	}

	// the file at an event: restore a.txt to its state after event 2
	do(t, ctx, chromedp.Navigate(base+"/event/2"), chromedp.Click(chromedp.CSS("a.restore")), chromedp.WaitVisible(chromedp.CSS("#confirm")))
	if preview := text(t, ctx, "pre.diff"); !strings.Contains(preview, "+TWO") {
		t.Fatalf("restore preview:\n%s", preview)
	}
	do(t, ctx, chromedp.Click(chromedp.CSS("#confirm")), chromedp.WaitVisible(chromedp.CSS("dl.meta")))
	if h1 := text(t, ctx, "h1"); !strings.Contains(h1, "#6") || !strings.Contains(h1, "restore") {
		t.Fatalf("after the restore: %q", h1)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(got) != "one\nTWO\nthree\n" {
		t.Fatalf("a.txt after the restore: %q", got)
	}

	// the agent's session: its events and everything it changed, as one diff per file
	do(t, ctx, chromedp.Navigate(base+"/event/5"), chromedp.Click(chromedp.CSS(`a[href="/session/s1"]`)), chromedp.WaitVisible(chromedp.CSS("pre.diff")))
	page := text(t, ctx, "main")
	for _, want := range []string{"claude-code 2.0 /s1", "4 —", "+TWO", "+bee, again"} {
		if !strings.Contains(page, want) {
			t.Fatalf("session page lacks %q:\n%s", want, page)
		}
	}
}

// TestWeb_RefusesForeignRequests: a POST without the form's token, a
// request from another origin and one through a non-loopback Host are
// refused, and change nothing.
func TestWeb_RefusesForeignRequests(t *testing.T) {
	base, dir, _ := workspace(t)
	for _, c := range []struct {
		name   string
		req    func() *http.Request
		status int
	}{
		{"no token", func() *http.Request {
			r, _ := http.NewRequest("POST", base+"/event/2/revert", strings.NewReader(url.Values{"token": {"00"}}.Encode()))
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			return r
		}, http.StatusForbidden},
		{"restore without the token", func() *http.Request {
			r, _ := http.NewRequest("POST", base+"/restore", strings.NewReader(url.Values{"path": {"a.txt"}, "at": {"1"}}.Encode()))
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			return r
		}, http.StatusForbidden},
		{"other origin", func() *http.Request {
			r, _ := http.NewRequest("POST", base+"/event/2/revert", nil)
			r.Header.Set("Origin", "http://evil.example")
			return r
		}, http.StatusForbidden},
		{"rebound host", func() *http.Request {
			r, _ := http.NewRequest("GET", base+"/", nil)
			r.Host = "evil.example"
			return r
		}, http.StatusForbidden},
	} {
		resp, err := http.DefaultClient.Do(c.req())
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.status {
			t.Errorf("%s: status %d, want %d", c.name, resp.StatusCode, c.status)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(got) != "one\nTWO\nthree\n" {
		t.Fatalf("a refused request changed a.txt: %q", got)
	}
	// a page for what does not exist answers 404 with the reason in words
	for _, p := range []string{"/session/nobody", "/event/999"} {
		resp, err := http.Get(base + p)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(body), "999") && !strings.Contains(string(body), "nobody") {
			t.Errorf("GET %s: %d\n%s", p, resp.StatusCode, body)
		}
	}
}
