package replay_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay"
)

// A baseline is recorded as it is stored, an event of MaxFiles files at a
// time, in path order, and the result still lists every file in the order
// of its events with, beside each, the identity it was read with; a known
// file changed meanwhile comes in an event of its own after the baseline's.
// The files lie in more directories than Observe keeps handles of at once.
func TestObserve_BaselineRecordedAsStored(t *testing.T) {
	dir := t.TempDir()
	var names []string
	for i := range 300 {
		names = append(names, fmt.Sprintf("d%03d/f.txt", i))
	}
	write(t, dir, "known.txt", "one\n")
	e := open(t, dir)
	if _, err := e.Observe(ctx, replay.Observation{Paths: []string{"known.txt"}}); err != nil {
		t.Fatal(err)
	}
	writeAll(t, dir, names...)
	write(t, dir, "known.txt", "two\n")
	ob, err := e.Observe(ctx, replay.Observation{Paths: append([]string{"known.txt"}, names...),
		Tool: journal.ToolCatchUp, Baseline: true, MaxFiles: 70})
	if err != nil {
		t.Fatal(err)
	}
	if len(ob.Events) != 6 || len(ob.Files) != 301 || len(ob.Stamps) != 301 || len(ob.Unsettled)+len(ob.Skipped) != 0 {
		t.Fatalf("events %v, %d files, %d stamps, unsettled %v, skipped %v; want 5 events of the baseline and 1 of known.txt, 301 files",
			ob.Events, len(ob.Files), len(ob.Stamps), ob.Unsettled, ob.Skipped)
	}
	var got []string
	err = e.Journal().View(func(tx *journal.Tx) error {
		for i, seq := range ob.Events {
			ev, err := tx.Event(seq)
			if err != nil {
				return err
			}
			want := journal.ToolBaseline
			if i == len(ob.Events)-1 {
				want = journal.ToolCatchUp
			}
			if ev.Tool != want || len(ev.Files) > 70 {
				t.Errorf("event %d: tool %q with %d files; want %q, at most 70", seq, ev.Tool, len(ev.Files), want)
			}
			for _, f := range ev.Files {
				got = append(got, f.Path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := append(append([]string(nil), names...), "known.txt")
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("the events' files in order:\n%q\nwant\n%q", got, want)
	}
	for i, f := range ob.Files {
		if f.Path != want[i] {
			t.Fatalf("result's file %d is %s, the events' %s", i, f.Path, want[i])
		}
		fi, err := os.Lstat(filepath.Join(dir, f.Path))
		if err != nil {
			t.Fatal(err)
		}
		if st, _ := replay.StampOf(fi); ob.Stamps[i] != st {
			t.Errorf("%s: stamp %+v, the file's %+v", f.Path, ob.Stamps[i], st)
		}
	}
}
