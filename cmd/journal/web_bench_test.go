package main_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/journalfs/journal/cmd/journal/web"
	"github.com/journalfs/journal/replay"
)

// webApp serves the web app of the workspace in dir in-process.
func webApp(b *testing.B, dir string) string {
	b.Helper()
	e, err := replay.Open(replay.Options{Roots: []string{dir}, Actor: replay.CLIActor()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.Close() })
	s, err := web.New(e, replay.CLIActor())
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(s)
	b.Cleanup(srv.Close)
	return srv.URL
}

// page GETs url b.N times, checking each answer, and reports the mean time.
func page(b *testing.B, url string, want string) {
	b.Helper()
	for b.Loop() {
		resp, err := http.Get(url)
		if err != nil {
			b.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !bytes.Contains(body, []byte(want)) {
			b.Fatalf("GET %s: %d\n%.2000s", url, resp.StatusCode, body)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/page")
}

// BenchmarkWeb100k: the web app's pages on a 100,000-event journal (issue
// #18: the timeline's first page within 100 ms of server time): the first
// page, an old page, the first page of one file's history and of a text
// search (one that matches nothing reads every event), an event, and the
// blame of a file with 500 events.
func BenchmarkWeb100k(b *testing.B) {
	dir := b.TempDir()
	bigJournal(b, dir, 100000)
	base := webApp(b, dir)
	b.Run("timeline", func(b *testing.B) { page(b, base+"/", `href="/event/100000"`) })
	b.Run("timeline-old-page", func(b *testing.B) { page(b, base+"/?before=1000", `href="/event/999"`) })
	b.Run("timeline-file", func(b *testing.B) { page(b, base+"/?path=src/f007.go", `href="/event/99808"`) })
	b.Run("timeline-text", func(b *testing.B) { page(b, base+"/?q=f007", `href="/event/99808"`) })
	b.Run("timeline-text-none", func(b *testing.B) { page(b, base+"/?q=no+such+text", "No events match") })
	b.Run("event", func(b *testing.B) { page(b, base+"/event/99808", "version 99807") })
	b.Run("blame", func(b *testing.B) { page(b, base+"/blame?path=src/f007.go", `data-seq="99808"`) })
}

// BenchmarkWeb_EventPage50MB: the event page of a one-line edit of a 50 MB
// file (the large file's diff is loaded when opened), and that diff: both
// versions read from the store, the changed lines diffed.
func BenchmarkWeb_EventPage50MB(b *testing.B) {
	dir := b.TempDir()
	e := engine(b, dir)
	var buf bytes.Buffer
	for i := 0; buf.Len() < 50<<20; i++ {
		fmt.Fprintf(&buf, "\tx%d := compute(%d) // line %d of a generated file\n", i, i, i)
	}
	data := buf.Bytes()
	apply(b, e, "write_file", "big.go", string(data))
	mid := bytes.Index(data[len(data)/2:], []byte("\n")) + len(data)/2 + 1
	edited := append(append(append([]byte(nil), data[:mid]...), "\t// one line an agent added\n"...), data[mid:]...)
	apply(b, e, "edit_file", "big.go", string(edited))
	e.Close()
	if fi, err := os.Stat(filepath.Join(dir, "big.go")); err != nil || fi.Size() < 50<<20 {
		b.Fatal(fi, err)
	}
	base := webApp(b, dir)
	b.Run("event", func(b *testing.B) { page(b, base+"/event/2", "Show the diff") })
	b.Run("diff", func(b *testing.B) { page(b, base+"/event/2/diff?path=big.go", "one line an agent added") })
}
