package web_test

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/journalfs/journal/cmd/journal/web"
	"github.com/journalfs/journal/cmd/journal/web/webtest"
	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay"
)

// bigSource is the text of file i of a big repository: a Python module of
// about 60 lines (2 KB), different in each file.
func bigSource(i int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "\"\"\"Module %d of the big repository.\"\"\"\n\nimport os\nimport sys\n\n", i)
	for f := 0; f < 8; f++ {
		fmt.Fprintf(&b, "\ndef handler_%d_%d(request, limit=%d):\n", i, f, f*10)
		fmt.Fprintf(&b, "    \"\"\"Answer request %d with at most limit items.\"\"\"\n", f)
		fmt.Fprintf(&b, "    items = [x for x in request.items if x.size < limit]\n")
		fmt.Fprintf(&b, "    if not items:\n        return None\n")
		fmt.Fprintf(&b, "    return {\"count\": len(items), \"module\": %d}\n", i)
	}
	return []byte(b.String())
}

// bigFile is the path of file i: 100 files a directory.
func bigFile(i int) string { return fmt.Sprintf("pkg%03d/mod_%05d.py", i/100, i) }

// bigBaseline makes a workspace of n files and records them as the
// watcher's first scan does (replay.Engine.Observe with Baseline, in
// events of at most ObserveMaxFiles files): event 1 is the baseline of
// min(n, 10,000) files. It returns the app's handler over the journal,
// opened as `journal web` opens it.
func bigBaseline(tb testing.TB, n int) (*web.Server, string) {
	tb.Helper()
	dir := tb.TempDir()
	paths := make([]string, n)
	for i := range n {
		p := filepath.Join(dir, bigFile(i))
		if i%100 == 0 {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				tb.Fatal(err)
			}
		}
		if err := os.WriteFile(p, bigSource(i), 0o644); err != nil {
			tb.Fatal(err)
		}
		paths[i] = p
	}
	e, err := replay.Open(replay.Options{Roots: []string{dir}, Actor: journal.Actor{Kind: "external"}})
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := e.Observe(context.Background(), replay.Observation{Paths: paths, Tool: journal.ToolWatch, Baseline: true}); err != nil {
		tb.Fatal(err)
	}
	if err := e.Close(); err != nil {
		tb.Fatal(err)
	}
	return app(tb, dir), dir
}

// get serves one GET of path through h, as from a loopback browser.
func get(h http.Handler, path string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.Host = "127.0.0.1:8080"
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// peakHeap runs fn and returns the largest heap in use (runtime.MemStats
// HeapInuse, sampled every millisecond and at the end) while it ran, after
// a collection before it: what the server holds to serve it.
func peakHeap(fn func()) uint64 {
	runtime.GC()
	var peak uint64
	var mu sync.Mutex
	sample := func() {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		mu.Lock()
		peak = max(peak, m.HeapInuse)
		mu.Unlock()
	}
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				sample()
			}
		}
	}()
	fn()
	sample()
	close(done)
	<-stopped
	return peak
}

// BenchmarkEventPage_Baseline serves the page of a watcher's first
// baseline event of 1,000 and 10,000 files (page: its time, its bytes of
// HTML and the server's peak heap while serving it, sampled in one more
// request apart from the timed ones), and the diff of its last file that
// page fetches (diff).
func BenchmarkEventPage_Baseline(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			s, _ := bigBaseline(b, n)
			for _, c := range []struct{ name, path string }{
				{"page", "/event/1"},
				{"diff", "/event/1/diff?path=" + url.QueryEscape(bigFile(99))},
			} {
				b.Run(c.name, func(b *testing.B) {
					var size int
					serve := func() {
						rec := get(s, c.path)
						if rec.Code != http.StatusOK {
							b.Fatalf("%s: %d %s", c.path, rec.Code, rec.Body.String())
						}
						size = rec.Body.Len()
					}
					runtime.GC() // the workspace's making is not the page's
					b.ResetTimer()
					for b.Loop() {
						serve()
					}
					b.StopTimer()
					peak := peakHeap(serve) // apart: its sampling stops the world
					b.ReportMetric(float64(size), "html-bytes")
					b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
				})
			}
		})
	}
}

// TestWeb_BigEvent: the page of a watcher's first baseline of 10,000 files
// is served through the app's handler in at most 1 MB of HTML, the server
// holding at most 128 MiB; it lists its first files with their counts and
// links to the next ones, diffs the first in place, and every other file's
// diff is at the address its entry fetches it from (and links to, without
// JavaScript).
func TestWeb_BigEvent(t *testing.T) {
	const n = 10000
	s, _ := bigBaseline(t, n)
	var rec *httptest.ResponseRecorder
	peak := peakHeap(func() { rec = get(s, "/event/1") })
	page := rec.Body.String()
	if rec.Code != http.StatusOK {
		t.Fatalf("event page: %d\n%s", rec.Code, page)
	}
	if rec.Body.Len() > 1<<20 {
		t.Fatalf("the event page of %d files is %d bytes of HTML, want at most 1 MB", n, rec.Body.Len())
	}
	if peak > 128<<20 {
		t.Fatalf("the server's heap peaked at %d MiB serving it, want at most 128", peak>>20)
	}
	t.Logf("event page of %d files: %d bytes, heap peak %d MiB", n, rec.Body.Len(), peak>>20)
	for _, want := range []string{"watch.baseline", "<dd>10000 <span class=\"plus\">+", "Files 1–100 of 10000", `rel="next" href="/event/1?from=100"`,
		bigFile(0), "handler_0_0", bigFile(99)} {
		if !strings.Contains(page, want) {
			t.Fatalf("the event page lacks %q", want)
		}
	}
	if strings.Contains(page, bigFile(100)) {
		t.Fatalf("the first page lists %s, of the second", bigFile(100))
	}
	// the first files' diffs are in place, the others' fetched
	inline := strings.Count(page, `<table class="diff hl"`)
	lazy := regexp.MustCompile(`<p class="lazy" data-src="([^"]+)"><a href="([^"]+)">`).FindAllStringSubmatch(page, -1)
	if inline == 0 || len(lazy) == 0 || inline+len(lazy) != 100 {
		t.Fatalf("%d diffs in place and %d fetched, want both, 100 in all", inline, len(lazy))
	}
	last := lazy[len(lazy)-1]
	if last[1] != last[2] || last[1] != "/event/1/diff?path="+url.QueryEscape(html.EscapeString(bigFile(99))) {
		t.Fatalf("the last entry fetches %q and links to %q", last[1], last[2])
	}
	d := get(s, html.UnescapeString(last[1]))
	if d.Code != http.StatusOK || !strings.Contains(d.Body.String(), "handler_99_7") || !strings.Contains(d.Body.String(), `<tr class="add">`) {
		t.Fatalf("the diff of %s: %d\n%.2000s", bigFile(99), d.Code, d.Body.String())
	}
	// the last page, and a page that does not exist
	end := get(s, "/event/1?from=9900").Body.String()
	if !strings.Contains(end, "Files 9901–10000 of 10000") || !strings.Contains(end, bigFile(9999)) || strings.Contains(end, `rel="next"`) ||
		!strings.Contains(end, `rel="prev" href="/event/1?from=9800"`) {
		t.Fatalf("the last page of files:\n%.3000s", end)
	}
	if bad := get(s, "/event/1?from=10000"); bad.Code != http.StatusBadRequest || !strings.Contains(bad.Body.String(), "lists 10000 files") {
		t.Fatalf("?from past the end: %d\n%s", bad.Code, bad.Body.String())
	}
}

// TestWeb_BrowserBigEvent opens the page of a 10,000-file baseline in
// headless Chromium: a file's entry far down fetches its diff when it comes
// into view (not when the page is parsed), a folded one when it is opened,
// j moves to the next file's entry and enter folds it, and the next page lists the next files.
func TestWeb_BrowserBigEvent(t *testing.T) {
	s, _ := bigBaseline(t, 10000)
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	ctx := webtest.Browser(t)
	entry := func(i int) string { return `details.file[data-path="` + bigFile(i) + `"]` }
	webtest.Do(t, ctx, chromedp.EmulateViewport(1280, 800), chromedp.Navigate(srv.URL+"/event/1"), chromedp.WaitVisible(chromedp.CSS("nav.pager")))
	if n := webtest.Eval[int](t, ctx, `document.querySelectorAll("details.file").length`); n != 100 {
		t.Fatalf("the page lists %d files, want 100", n)
	}
	if webtest.Eval[int](t, ctx, `document.querySelectorAll('`+entry(99)+` p.lazy').length`) != 1 {
		t.Fatalf("the last entry's diff is there before it came into view:\n%s", webtest.Eval[string](t, ctx, `document.querySelector('`+entry(99)+`').outerHTML + document.querySelectorAll("p.lazy").length`))
	}
	// a folded entry is fetched when opened, not when seen
	webtest.Eval[bool](t, ctx, `document.querySelector('`+entry(50)+`').open = false`)
	webtest.Eval[bool](t, ctx, `document.querySelector('`+entry(99)+`').scrollIntoView(), true`)
	webtest.Do(t, ctx, chromedp.WaitVisible(chromedp.CSS(entry(99)+" table.diff tr.add")))
	if rows := webtest.Text(t, ctx, entry(99)+" table.diff"); !strings.Contains(rows, "handler_99_7") {
		t.Fatalf("the last entry's diff:\n%s", rows)
	}
	webtest.Do(t, ctx, chromedp.Click(chromedp.CSS(entry(50)+" summary")), chromedp.WaitVisible(chromedp.CSS(entry(50)+" table.diff tr.add")))
	if rows := webtest.Text(t, ctx, entry(50)+" table.diff"); !strings.Contains(rows, "handler_50_0") {
		t.Fatalf("the opened entry's diff:\n%s", rows)
	}
	// the keyboard: j moves to the next file's entry, enter folds it (from
	// entry 50's summary, focused first: a click's focus is the browser's
	// to give, and under load it may not have landed yet)
	webtest.Do(t, ctx, chromedp.Focus(chromedp.CSS(entry(50)+" summary")), chromedp.WaitReady(chromedp.CSS(entry(50)+" summary:focus")), chromedp.KeyEvent("j"), chromedp.WaitReady(chromedp.CSS(entry(51)+" summary:focus")), chromedp.KeyEvent("\r"),
		chromedp.WaitReady(chromedp.CSS(entry(51)+":not([open])")))
	webtest.Do(t, ctx, chromedp.Click(chromedp.CSS(`nav.pager a[rel="next"]`)), chromedp.WaitVisible(chromedp.CSS(entry(100))))
	if p := webtest.Text(t, ctx, "nav.pager"); !strings.Contains(p, "Files 101–200 of 10000") {
		t.Fatalf("the second page's pager: %q", p)
	}
	webtest.Shot(t, ctx, "event-big")
}

// TestWeb_BigPreviews: the other pages that show a diff per file — a
// session's, a revert's, a session undo's, a rewind's — show a page of
// files at a time for an agent's batch over 2,000 files, within 1 MB of
// HTML each, and every file's diff is at the address its entry fetches.
func TestWeb_BigPreviews(t *testing.T) {
	const n = 2000
	s, dir := bigBaseline(t, n) // event 1
	e, err := replay.Open(replay.Options{Roots: []string{dir}, Actor: agent})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	b := &replay.Batch{Tool: "edit_content"}
	for i := range n {
		data := strings.Replace(string(bigSource(i)), "import sys\n", "import sys  # edited by the agent\n", 1)
		b.Changes = append(b.Changes, replay.Change{Path: bigFile(i), Data: []byte(data)})
	}
	if _, err := e.Apply(context.Background(), b); err != nil { // event 2
		t.Fatal(err)
	}
	lazy := regexp.MustCompile(`<p class="lazy" data-src="([^"]+)">`)
	for _, c := range []struct{ page, first, fetched string }{
		{"/event/2", "Files 1–100 of 2000", "/event/2/diff?path="},
		{"/session/s1", "Files 1–100 of 2000", "/session/s1?file="},
		{"/event/2/revert", "Files 1–100 of 2000", "/event/2/revert?file="},
		{"/session/s1/undo", "Files 1–100 of 2000", "/session/s1/undo?file="},
		{"/event/1/rewind", "Files 1–100 of 2000", "/event/1/rewind?file="},
	} {
		rec := get(s, c.page)
		body := rec.Body.String()
		if rec.Code != http.StatusOK || rec.Body.Len() > 1<<20 || !strings.Contains(body, c.first) || !strings.Contains(body, `rel="next"`) {
			t.Fatalf("%s: %d, %d bytes (want at most 1 MB, and its first files):\n%.3000s", c.page, rec.Code, rec.Body.Len(), body)
		}
		m := lazy.FindAllStringSubmatch(body, -1)
		if len(m) == 0 {
			t.Fatalf("%s fetches no diff: all in place", c.page)
		}
		src := html.UnescapeString(m[len(m)-1][1])
		want := c.fetched + url.QueryEscape(bigFile(99))
		if src != want {
			t.Fatalf("%s: its last entry fetches %q, want %q", c.page, src, want)
		}
		d := get(s, src)
		if d.Code != http.StatusOK || !strings.Contains(d.Body.String(), "# edited by the agent") {
			t.Fatalf("%s: %d\n%.2000s", src, d.Code, d.Body.String())
		}
		t.Logf("%s: %d bytes", c.page, rec.Body.Len())
	}
	if d := get(s, "/event/2/revert?file=nope.py"); d.Code != http.StatusNotFound || !strings.Contains(d.Body.String(), `does not touch &#34;nope.py&#34;`) {
		t.Fatalf("a file the revert does not touch: %d\n%s", d.Code, d.Body.String())
	}
	if d := get(s, "/session/s1?file=nope.py"); d.Code != http.StatusNotFound || !strings.Contains(d.Body.String(), `did not change &#34;nope.py&#34;`) {
		t.Fatalf("a file the session did not change: %d\n%s", d.Code, d.Body.String())
	}
	if d := get(s, "/session/s1?from=x"); d.Code != http.StatusBadRequest || !strings.Contains(d.Body.String(), "next files") {
		t.Fatalf("a bad ?from: %d\n%s", d.Code, d.Body.String())
	}
}
