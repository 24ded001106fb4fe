package replay_test

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay"
)

// Observe reads a directory's files through one handle of it: a directory
// moved out of the root while its files are read (the handle follows it)
// has its files left unsettled — even if it is back in place when they are
// checked before the event (here: when the next directory, a, is opened
// for that check, and no second read is made: Watched) — never recorded
// as read from outside.
func TestObserve_DirMovedOutside(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	writeAll(t, dir, "a/x.txt", "d/f.txt")
	e := open(t, dir)
	opened := map[string]int{}
	defer replay.SetDirOpened(func(d string) {
		opened[d]++
		switch {
		case d == "d" && opened[d] == 1:
			os.Rename(filepath.Join(dir, "d"), filepath.Join(outside, "d"))
			write(t, outside, "d/f.txt", "outside\n")
		case d == "a" && opened[d] == 2:
			os.Rename(filepath.Join(outside, "d"), filepath.Join(dir, "d"))
		}
	})()
	ob, err := e.Observe(ctx, replay.Observation{Paths: []string{"a/x.txt", "d/f.txt"}, Tool: journal.ToolWatch, Baseline: true, Watched: true})
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, f := range ob.Files {
		files = append(files, f.Path)
	}
	if !reflect.DeepEqual(files, []string{"a/x.txt"}) || !reflect.DeepEqual(ob.Unsettled, []string{"d/f.txt"}) {
		t.Fatalf("recorded %q, unsettled %q; want a/x.txt recorded, d/f.txt unsettled", files, ob.Unsettled)
	}
}
