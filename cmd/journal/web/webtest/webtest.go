// Package webtest drives the web app in headless Chromium for tests (the
// web package's and cmd/journal's): it starts the browser, runs steps,
// reads the page and saves screenshots into the test's artefacts.
package webtest

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Browser starts headless Chromium (Debian's chromium: scripts/setup-browser.sh
// installs it) and returns a context driving one tab, for at most a minute.
// Without it the test fails: it never skips.
func Browser(t *testing.T) context.Context {
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

// Do runs browser steps, failing the test on an error.
func Do(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatal(err)
	}
}

// Text is the visible text of the first element sel matches, once one is
// there. It is read in one evaluation, not by a node's id, because the
// timeline swaps its list in when events arrive: an id found before a swap
// names a node gone after it.
func Text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	Do(t, ctx, chromedp.WaitReady(chromedp.CSS(sel)))
	q, _ := json.Marshal(sel)
	return Eval[string](t, ctx, `document.querySelector(`+string(q)+`).innerText`)
}

// Shot saves a screenshot of the whole page as name.png in the test's
// artefact folder (go test -artifacts keeps it; scripts/test.sh does).
func Shot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(t.ArtifactDir(), name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Eval evaluates a JavaScript expression in the page.
func Eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatal(err)
	}
	return v
}
