package replay_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay"
)

// A baseline is recorded as it is stored, an event of MaxFiles files at a
// time, in path order, and the result still lists every file in the order
// of its events with, beside each, the identity it was read with; a known
// file changed meanwhile comes in an event of its own after the baseline's.
// The files lie in more directories than Observe keeps handles of at once.
// Given Each, Observe hands it the files as their events are appended
// (the result then counts them and holds none), the same files and stamps.
func TestObserve_BaselineRecordedAsStored(t *testing.T) {
	for _, each := range []bool{false, true} {
		t.Run(fmt.Sprintf("each=%v", each), func(t *testing.T) { testBaselineRecordedAsStored(t, each) })
	}
}

func testBaselineRecordedAsStored(t *testing.T, each bool) {
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
	o := replay.Observation{Paths: append([]string{"known.txt"}, names...),
		Tool: journal.ToolCatchUp, Baseline: true, MaxFiles: 70}
	var given [][]journal.FileChange // per call of Each
	var files []journal.FileChange
	var stamps []replay.Stamp
	if each {
		o.Each = func(fs []journal.FileChange, sts []replay.Stamp) {
			given = append(given, slices.Clone(fs))
			files, stamps = append(files, fs...), append(stamps, sts...)
		}
	}
	ob, err := e.Observe(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if each {
		if len(ob.Files)+len(ob.Stamps) != 0 || ob.Count != 301 {
			t.Fatalf("given Each, the result holds %d files and %d stamps, counts %d; want none, 301", len(ob.Files), len(ob.Stamps), ob.Count)
		}
		ob.Files, ob.Stamps = files, stamps
	}
	if ob.Count != len(ob.Files) {
		t.Errorf("count %d, %d files", ob.Count, len(ob.Files))
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
	if each && len(given) != 5 { // 4 events of 70, then the last 20 and known.txt's
		t.Errorf("Each called %d times; want 5, as the events were appended", len(given))
	}
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
