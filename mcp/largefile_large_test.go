package mcp_test

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	jmcp "github.com/journalfs/journal/mcp"
	"github.com/journalfs/journal/replay"
)

// genLarge writes a file of at least size bytes of numbered lines (eol ending
// each) with a marker line in the middle, and returns the marker's line and
// the number of lines. The file is written through a buffer, never held whole.
func genLarge(t testing.TB, path string, size int64, eol string) (marker, lines int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	marker, lines = genLines(w, size, eol, "")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return marker, lines
}

// genLines writes genLarge's content to w; a non-empty middle replaces the
// marker line's text (so the expected content of an edit can be hashed
// without a copy of the file).
func genLines(w io.Writer, size int64, eol, middle string) (marker, lines int) {
	per := int64(len("000000000 the quick brown fox jumps over the lazy dog") + len(eol))
	total := int(size/per) + 1
	for i := 1; i <= total; i++ {
		if i == total/2 {
			if middle == "" {
				fmt.Fprintf(w, "    func middle() { return %d }%s", i, eol)
			} else {
				fmt.Fprintf(w, "%s%s", middle, eol)
			}
			marker = i
			continue
		}
		fmt.Fprintf(w, "%09d the quick brown fox jumps over the lazy dog%s", i, eol)
	}
	return marker, total
}

// newThresholdEnv serves dir with a lowered stream threshold, so small files
// take the mapped and streamed paths.
func newThresholdEnv(t testing.TB, dir string, threshold int64) *env {
	eng, err := replay.Open(replay.Options{Roots: []string{dir}, StreamThreshold: threshold})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	srv := jmcp.New(eng, jmcp.Options{})
	return &env{t: t, dir: dir, eng: eng, srv: srv, c: connect(t, srv, nil)}
}

// exerciseLarge runs every tool over a file genLarge made of size bytes and
// checks each edit by a streamed hash of the expected content (the file is
// never held in memory), then reverts them. access is the expected strategy.
func exerciseLarge(t *testing.T, e *env, name string, size int64, marker, lines int, eol, access string, full bool) {
	path := filepath.Join(e.dir, name)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	orig := fileSum(t, path)
	mline := fmt.Sprintf("    func middle() { return %d }", marker)
	var ov jmcp.OverviewOut
	e.ok("get_overview", map[string]any{"absolute_file_path": path}, &ov)
	if ov.Access != access || ov.LineCount != lines || ov.FileSize != fi.Size() || len(ov.Summary) == 0 {
		t.Fatalf("overview %+v", ov)
	}
	var rd jmcp.ReadOut
	txt := e.ok("read_content", map[string]any{"absolute_file_path": path, "target": marker - 1, "max_lines": 3}, &rd)
	if !strings.Contains(txt, strconv.Itoa(marker)+": "+mline+"\n") || rd.Version != ov.Version {
		t.Fatalf("read %+v\n%s", rd, txt)
	}
	rd = jmcp.ReadOut{}
	txt = e.ok("read_content", map[string]any{"absolute_file_path": path, "target": 2, "mode": "tail"}, &rd)
	if !strings.Contains(txt, fmt.Sprintf("%09d the quick", lines)) || strings.Count(txt, "the quick") != 2 {
		t.Fatalf("tail %+v\n%s", rd, txt)
	}
	var sr jmcp.SearchOut
	e.ok("search_content", map[string]any{"absolute_file_path": path, "pattern": "func middle()"}, &sr)
	if len(sr.Results) != 1 || sr.Results[0].LineNumber != marker {
		t.Fatalf("search %+v", sr)
	}
	type edit struct {
		search, replace, level string
	}
	edits := []edit{{mline + eol, "    func middle() { return -1 }" + eol, "exact"}}
	if full {
		edits = append(edits, edit{"func middle() { return -1 }  \n", "func middle() { return -2 }\n", "whitespace"})
		if eol == "\r\n" {
			n := len(edits)
			edits = append(edits, edit{fmt.Sprintf("    func middle() { return %d }\n", -n), fmt.Sprintf("    func middle() { return %d }\n", -n-1), "line_endings"})
		}
	}
	var events []uint64
	for _, ed := range edits {
		start := time.Now()
		out, _ := e.apply(map[string]any{"absolute_file_path": path, "search_text": ed.search, "replace_text": ed.replace})
		t.Logf("%s edit (%s): %v", access, ed.level, time.Since(start))
		if out.Access != access || out.Changes[0].Level != ed.level || out.Changes[0].LineNumber != marker {
			t.Fatalf("edit %q: %+v", ed.search, out)
		}
		if got, want := fileSum(t, path), genSum(size, eol, fmt.Sprintf("    func middle() { return %d }", -len(events)-1)); got != want {
			t.Fatalf("edit %q: content differs (sha256 %s, want %s)", ed.search, got, want)
		}
		events = append(events, out.Event)
	}
	if full {
		start := time.Now()
		defer func() { t.Logf("%s ambiguous + miss: %v", access, time.Since(start)) }()
		e.fail("edit_content", map[string]any{"absolute_file_path": path, "search_text": "the quick brown fox", "replace_text": "x", "preview": false}, jmcp.CodeAmbiguousMatch)
		te := e.fail("edit_content", map[string]any{"absolute_file_path": path, "search_text": "zzz nowhere zzz",
			"replace_text": "the lazy dog", "preview": false}, jmcp.CodeNoMatch)
		if !strings.Contains(te.Message, "replacement text is present at line") || strings.Contains(te.Hint, "skip") {
			t.Fatalf("miss %+v", te)
		}
	}
	start := time.Now()
	defer func() { t.Logf("%s %d reverts: %v", access, len(events), time.Since(start)) }()
	for i := len(events) - 1; i >= 0; i-- {
		e.ok("revert_edit", map[string]any{"absolute_file_path": path, "backup_id": strconv.FormatUint(events[i], 10)}, nil)
	}
	if fileSum(t, path) != orig {
		t.Fatal("reverts did not restore the original")
	}
}

func TestLargefileLarge_MappedAndStreamed(t *testing.T) {
	for _, c := range []struct {
		name, eol, access string
		mmapLimit         int64
	}{
		{"mapped_lf", "\n", "mmap", 0},
		{"mapped_crlf", "\r\n", "mmap", 0},
		{"streamed_lf", "\n", "stream", 1 << 20},
		{"streamed_crlf", "\r\n", "stream", 1 << 20},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.mmapLimit > 0 {
				t.Cleanup(jmcp.SetLargefileMmapLimit(c.mmapLimit))
			}
			dir := t.TempDir()
			marker, lines := genLarge(t, filepath.Join(dir, "big.log"), 3<<19, c.eol)
			e := newThresholdEnv(t, dir, 1<<19)
			exerciseLarge(t, e, "big.log", 3<<19, marker, lines, c.eol, c.access, true)
		})
	}
}

// TestLargefileLarge_64MiB runs the tools over a 64 MiB file with the default
// thresholds (mapped), then streamed; JOURNAL_LARGE_MB=1024 makes it 1 GB.
func TestLargefileLarge_64MiB(t *testing.T) {
	mb := int64(64)
	if v, _ := strconv.Atoi(os.Getenv("JOURNAL_LARGE_MB")); v > 0 {
		mb = int64(v)
	}
	if testing.Short() {
		t.Skip("large file")
	}
	dir := t.TempDir()
	marker, lines := genLarge(t, filepath.Join(dir, "big.log"), mb<<20, "\n")
	e := newThresholdEnv(t, dir, 0)
	access := "mmap"
	if mb<<20 > replay.DefaultMmapLimit {
		access = "stream"
	}
	exerciseLarge(t, e, "big.log", mb<<20, marker, lines, "\n", access, mb <= 64)
	if access == "mmap" {
		t.Cleanup(jmcp.SetLargefileMmapLimit(1 << 20))
		exerciseLarge(t, e, "big.log", mb<<20, marker, lines, "\n", "stream", false)
	}
}
