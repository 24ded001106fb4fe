package replay_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/journalfs/journal/replay"
)

// TestLineStats_DeleteOfALargeFileCountsItsLines: an rm of a text too
// large to diff (over lineStatsMax), recorded by Observe, and a tool's
// delete of one count every line they took out — the last one without its
// newline too; a binary one counts none.
func TestLineStats_DeleteOfALargeFileCountsItsLines(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := range 777_777 {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	b.WriteString("no newline at the end")
	write(t, dir, "big.log", b.String())
	write(t, dir, "big2.log", b.String()+"\n")
	bin := []byte(strings.Repeat("x\n", 3<<20))
	bin[10] = 0
	write(t, dir, "big.bin", string(bin))
	e := openStreaming(t, dir)
	if _, err := e.Observe(ctx, replay.Observation{Paths: []string{"big.log", "big2.log", "big.bin"}}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"big.log", "big.bin"} {
		if err := os.Remove(filepath.Join(dir, p)); err != nil {
			t.Fatal(err)
		}
	}
	ob, err := e.Observe(ctx, replay.Observation{Paths: []string{"big.log", "big.bin"}, Tool: "rm"})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, f := range ob.Files {
		got[f.Path] = f.Removed
	}
	if got["big.log"] != 777_778 || got["big.bin"] != 0 || len(got) != 2 {
		t.Fatalf("the rm's counts: %v, want big.log -777778, big.bin none", got)
	}
	res, err := e.Apply(ctx, &replay.Batch{Tool: "file_delete", Changes: []replay.Change{{Path: "big2.log", Delete: true}}})
	if err != nil {
		t.Fatal(err)
	}
	if ev := lastEvent(t, e); ev.Seq != res.Seq || len(ev.Files) != 1 || ev.Files[0].Removed != 777_778 {
		t.Fatalf("the tool's delete: %+v", ev.Files)
	}
}
