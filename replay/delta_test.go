package replay_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay"
	"github.com/journalfs/journal/snapshot"
)

// TestDeltas_EditsGCAndUndo drives one-line edits of a 300-line file through
// the engine, through the write-ahead log and through the bbolt
// transaction (logging off), and streamed from a source: the journal is marked
// format 4, its chunks for the edits are deltas, every version reads back
// (verify), a gc that drops most events keeps what the kept ones need (the
// chains' bases), and an undo after the gc restores the file exactly.
func TestDeltas_EditsGCAndUndo(t *testing.T) {
	for _, mode := range []string{"logged", "unlogged", "streamed"} {
		t.Run(mode, func(t *testing.T) {
			dir := t.TempDir()
			o := replay.Options{Roots: []string{dir}, Actor: journal.Actor{Kind: "mcp", Name: "test", Session: "s1"}}
			switch mode {
			case "unlogged":
				o.LogLimit = -1
			case "streamed":
				o.LogLimit, o.StreamThreshold = -1, 1<<10
			}
			e, err := replay.Open(o)
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			data := lines300()
			versions := [][]byte{}
			var cutoff time.Time
			// 300 edits: past a chain of splices' longest (128), so that
			// the gc has old chains to drop
			for i := range 300 {
				if i > 0 {
					lines := bytes.SplitAfter(data, []byte("\n"))
					k := (i * 37) % 300
					lines[k] = fmt.Appendf(nil, "\tfmt.Println(\"line %d edited\") // edit %d\n", k, i)
					data = bytes.Join(lines, nil)
				}
				if i == 280 {
					time.Sleep(20 * time.Millisecond)
					cutoff = time.Now()
					time.Sleep(20 * time.Millisecond)
				}
				c := replay.Change{Path: "f.go", Data: data}
				if mode == "streamed" {
					d := data
					c = replay.Change{Path: "f.go", Source: func(w io.Writer) error { _, err := w.Write(d); return err }}
				}
				if _, err := e.Apply(ctx, &replay.Batch{Tool: "edit_content", Changes: []replay.Change{c}}); err != nil {
					t.Fatal(err)
				}
				versions = append(versions, data)
			}
			var format []byte
			var deltas, whole int
			err = e.Journal().View(func(tx *journal.Tx) error {
				format = bytes.Clone(tx.Bolt().Bucket([]byte("meta")).Get([]byte("format")))
				return tx.Bolt().Bucket(snapshot.BucketChunks).ForEach(func(_, v []byte) error {
					if v[1] == 2 || v[1] == 3 { // a delta or a splice
						deltas++
					} else {
						whole++
					}
					return nil
				})
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(format) != 1 || format[0] < journal.FormatDeltas {
				t.Errorf("format %v, want %d", format, journal.FormatDeltas)
			}
			// a streamed edit has a base when the engine still holds the
			// file's layout from its own last write (about 40 % of these:
			// the file system's clock must show the temp's change after
			// its last write)
			if deltas < 250 && (mode != "streamed" || deltas < 80) {
				t.Errorf("%d delta chunks, %d whole, after 299 one-line edits", deltas, whole)
			}
			if r := verifyChain(t, e); r.Contents < 300 {
				t.Errorf("verify re-hashed %d contents", r.Contents)
			}
			rep, err := e.GC(journal.GCOptions{Keep: time.Since(cutoff)})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Dropped < 250 || rep.Chunks == 0 {
				t.Fatalf("gc dropped %d events, %d chunks", rep.Dropped, rep.Chunks)
			}
			verifyChain(t, e)
			if _, err := e.Undo(ctx, replay.RevertOptions{}); err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(filepath.Join(dir, "f.go")); !bytes.Equal(got, versions[len(versions)-2]) {
				t.Fatal("undo after gc did not restore the version before the last")
			}
			verifyChain(t, e)
		})
	}
}

// TestGC_WhileAnEngineIsOpen: a gc by another handle (the CLI beside a
// running server) copies the journal into a fresh file and swaps it in
// while an engine has it open: the engine goes on editing without a
// restart, its undo reaches across the gc, and the chain verifies with
// every event it wrote after the gc.
func TestGC_WhileAnEngineIsOpen(t *testing.T) {
	dir := t.TempDir()
	e := open(t, dir)
	data := lines300()
	edit := func(i int) {
		t.Helper()
		lines := bytes.SplitAfter(data, []byte("\n"))
		lines[(i*13)%300] = fmt.Appendf(nil, "// edit %d\n", i)
		data = bytes.Join(lines, nil)
		if _, err := e.Apply(ctx, &replay.Batch{Tool: "edit_content", Changes: []replay.Change{{Path: "f.go", Data: data}}}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 50 {
		edit(i)
	}
	if err := e.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	cutoff := time.Now()
	time.Sleep(20 * time.Millisecond)
	for i := 50; i < 55; i++ {
		edit(i)
	}
	if err := e.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	other, err := journal.Open(filepath.Join(dir, journal.DirName, journal.FileName), journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := other.GC(journal.GCOptions{Keep: time.Since(cutoff), Actor: journal.Actor{Kind: "cli"}})
	other.Close()
	if err != nil {
		t.Fatal(err)
	}
	if rep.Dropped != 50 || rep.FileAfter >= rep.FileBefore {
		t.Fatalf("gc: %+v", rep)
	}
	var prev []byte
	for i := 55; i < 60; i++ {
		prev = bytes.Clone(data)
		edit(i)
	}
	if _, err := e.Undo(ctx, replay.RevertOptions{}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "f.go")); !bytes.Equal(got, prev) {
		t.Fatal("undo after the gc did not take the last edit back")
	}
	r := verifyChain(t, e)
	if r.Events != 5+1+5+1 { // kept, the gc event, after, the undo
		t.Fatalf("verify: %d events", r.Events)
	}
}
