package main_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// TestServe_EditDuringTheFirstWalkComesAfterTheBaseline: in a tree of 20,000 files, an edit made through
// `journal serve` right after it starts — while its watcher's first walk still runs — is numbered after
// the baseline (it was event 1 and the baseline event 2): the baseline is the tree as the watcher found it
// at its start. A `sed -i` of another file then is undone by `journal restore --at <the edit> --dry-run`
// (which said "nothing to do": the file was first seen after the edit).
func TestServe_EditDuringTheFirstWalkComesAfterTheBaseline(t *testing.T) {
	if testing.Short() {
		t.Skip("a tree of 20,000 files")
	}
	dir := t.TempDir()
	for d := 0; d < 200; d++ {
		sub := filepath.Join(dir, "pkg", fmt.Sprintf("d%03d", d))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		for f := 0; f < 100; f++ {
			if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%03d.go", f)), []byte(fmt.Sprintf("package d%03d\n\nconst F%d = %d\n", d, f, f)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	files(t, dir, map[string]string{"main.go": "package main\n\nfunc main() {}\n", "other.txt": "retries = 3\n"})
	c, stderr := serveStdio(t, dir, "cadence-test")
	start := time.Now()
	req := mcp.CallToolRequest{}
	req.Params.Name = "edit_content"
	req.Params.Arguments = map[string]any{"absolute_file_path": filepath.Join(dir, "main.go"), "search_text": "func main() {}",
		"replace_text": "func main() { println(1) }", "preview": false}
	res, err := c.CallTool(context.Background(), req)
	if err != nil || res.IsError {
		t.Fatalf("edit_content: %v %+v", err, res)
	}
	t.Logf("the edit answered after %v", time.Since(start))
	var edit uint64
	var baseline []uint64
	for wait := time.Now().Add(60 * time.Second); len(baseline) == 0; time.Sleep(100 * time.Millisecond) {
		edit, baseline = 0, nil
		for _, e := range logJSON(t, dir) {
			seq := uint64(e["seq"].(float64))
			switch {
			case e["tool"] == "watch.baseline":
				baseline = append(baseline, seq)
			case e["tool"] == "edit_content":
				edit = seq
			}
		}
		if time.Now().After(wait) {
			t.Fatalf("no baseline: %s", stderr.String())
		}
	}
	if edit == 0 {
		t.Fatalf("baseline events %v, no edit\n%s", baseline, stderr.String())
	}
	if last := baseline[len(baseline)-1]; edit < last {
		t.Fatalf("the edit is event %d, before the baseline's event %d", edit, last)
	}
	// main.go was in the baseline as the watcher found it, and the edit changed it from that
	if out := ok(t, dir, "log", "main.go"); !strings.Contains(out, "first seen (baseline)") {
		t.Fatalf("log main.go:\n%s", out)
	}
	bash(t, dir, `sed -i 's/retries = 3/retries = 5/' other.txt`)
	deadline := time.Now().Add(15 * time.Second)
	for !strings.Contains(ok(t, dir, "log", "-n", "1", "--oneline"), "other.txt") {
		if time.Now().After(deadline) {
			t.Fatalf("the watcher never recorded the sed:\n%s", stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	out := ok(t, dir, "restore", "--at", fmt.Sprint(edit), "--dry-run")
	if !strings.Contains(out, "other.txt") {
		t.Fatalf("restore --at %d --dry-run does not put other.txt back:\n%s", edit, out)
	}
}
