package replay_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	benchfloor "github.com/journalfs/journal/bench/floor"
	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/audit"
	"github.com/journalfs/journal/replay"
	"github.com/journalfs/journal/snapshot"
	bolt "go.etcd.io/bbolt"
	"golang.org/x/mod/sumdb/note"
)

func lines300() []byte {
	var b bytes.Buffer
	for i := 0; i < 300; i++ {
		fmt.Fprintf(&b, "\tfmt.Println(\"line %d of a typical source file\") // %d\n", i, i*i)
	}
	return b.Bytes()
}

// floor is the durability floor the apply benchmarks are compared with:
// temp file + fsync + rename + directory fsync, plus one bbolt update.
type floor struct {
	dir, target string
	db          *bolt.DB
}

func newFloor(b *testing.B) *floor {
	dir := filepath.Join(b.TempDir(), "floor")
	os.Mkdir(dir, 0o755)
	db, err := bolt.Open(filepath.Join(dir, "j.db"), 0o600, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	db.Update(func(tx *bolt.Tx) error { _, err := tx.CreateBucketIfNotExists([]byte("ev")); return err })
	return &floor{dir: dir, target: filepath.Join(dir, "f.go"), db: db}
}

func (fl *floor) write(data []byte) {
	tmp := fl.target + ".tmp"
	f, _ := os.OpenFile(tmp, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	f.Write(data)
	f.Sync()
	f.Close()
	os.Rename(tmp, fl.target)
	d, _ := os.Open(fl.dir)
	d.Sync()
	d.Close()
	fl.db.Update(func(tx *bolt.Tx) error {
		bk := tx.Bucket([]byte("ev"))
		seq, _ := bk.NextSequence()
		return bk.Put([]byte(fmt.Sprint(seq)), data[:200])
	})
}

// BenchmarkFloor is the durability floor alone.
func BenchmarkFloor(b *testing.B) {
	fl, data := newFloor(b), lines300()
	for i := 0; b.Loop(); i++ {
		data[10] = byte('a' + i%26)
		fl.write(data)
	}
}

// BenchmarkApply_OneLineEdit300 is a one-line edit of a 300-line file, end to
// end: lock, read and hash, intent commit, temp+fsync+rename+dir fsync, commit.
func BenchmarkApply_OneLineEdit300(b *testing.B) {
	dir := b.TempDir()
	data := lines300()
	os.WriteFile(filepath.Join(dir, "f.go"), data, 0o644)
	e := open(b, dir)
	for i := 0; b.Loop(); i++ {
		data = bytes.Clone(data)
		copy(data[100:], fmt.Sprintf("%06d", i))
		if _, err := e.Apply(ctx, &replay.Batch{Changes: []replay.Change{{Path: "f.go", Data: data}}}); err != nil {
			b.Fatal(err)
		}
	}
}

func bigSource(n int) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "row %d: the quick brown fox jumps over the lazy dog %x\n", i, i*2654435761)
	}
	return b.Bytes()[:n]
}

// BenchmarkApply_OneLineEdit50MB edits one line of a 50 MB file after its
// first snapshot, streaming, and reports journal growth per edit.
func BenchmarkApply_OneLineEdit50MB(b *testing.B) {
	dir := b.TempDir()
	data := bigSource(50 << 20)
	os.WriteFile(filepath.Join(dir, "big.txt"), data, 0o644)
	e := open(b, dir)
	edit := func(i int) {
		mustStreamEdit(b, e, "big.txt", 25<<20+(i%100)*1000, fmt.Sprintf("%08d", i))
	}
	stored := func() int64 {
		var st snapshot.Stats
		e.Journal().View(func(tx *journal.Tx) (err error) { st, err = snapshot.ReadStats(tx.Bolt()); return })
		return st.StoredBytes
	}
	edit(-1) // first snapshot
	s0 := stored()
	b.ResetTimer()
	n := 0
	for i := 0; b.Loop(); i++ {
		edit(i)
		n++
	}
	b.StopTimer()
	b.ReportMetric(float64(stored()-s0)/float64(n), "journal-B/edit")
}

// BenchmarkApply_OneLineEdit50MB_Cold is the same edit when the engine cannot
// trust its own last write of the file (after a restart, or once anything
// touched the file): the file's times are changed before each edit (same
// content), so the edit hashes the whole file and cuts all of it again.
func BenchmarkApply_OneLineEdit50MB_Cold(b *testing.B) {
	dir := b.TempDir()
	p := filepath.Join(dir, "big.txt")
	os.WriteFile(p, bigSource(50<<20), 0o644)
	e := open(b, dir)
	mustStreamEdit(b, e, "big.txt", 25<<20, "first---") // first snapshot
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		t := time.Now().Add(time.Duration(i+1) * time.Second)
		if err := os.Chtimes(p, t, t); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		mustStreamEdit(b, e, "big.txt", 25<<20+(i%100)*1000, fmt.Sprintf("%08d", i))
	}
}

// benchJournal makes a workspace whose journal holds n events on 100 files.
func benchJournal(b *testing.B, n int) (string, *replay.Engine) {
	dir := b.TempDir()
	e := open(b, dir)
	const per = 1000
	for done := 0; done < n; done += per {
		k := min(per, n-done)
		err := e.Journal().Do(func(db *journal.DB) error {
			return db.Update(func(tx *journal.Tx) error {
				for i := 0; i < k; i++ {
					ev := &journal.Event{Kind: journal.KindObserve, Status: journal.StatusCommitted,
						Files: []journal.FileChange{{Path: fmt.Sprintf("other/%d.txt", (done+i)%100)}}}
					if err := tx.Append(ev); err != nil {
						return err
					}
				}
				return nil
			})
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	return dir, e
}

// BenchmarkRevert_JournalSize reverts an edit on journals of 100 and 100,000 events.
func BenchmarkRevert_JournalSize(b *testing.B) {
	for _, n := range []int{100, 100000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			dir, e := benchJournal(b, n)
			os.WriteFile(filepath.Join(dir, "f.txt"), []byte("a\nb\nc\n"), 0o644)
			res, err := e.Apply(ctx, &replay.Batch{Changes: []replay.Change{{Path: "f.txt", Data: []byte("a\nB\nc\n")}}})
			if err != nil {
				b.Fatal(err)
			}
			seq := res.Seq
			for b.Loop() {
				r, err := e.Revert(ctx, seq, replay.RevertOptions{})
				if err != nil {
					b.Fatal(err)
				}
				seq = r.Seq // revert the revert next time
			}
		})
	}
}

// BenchmarkLog_JournalSize reads the newest 20 events, as `journal log -n 20` does.
func BenchmarkLog_JournalSize(b *testing.B) {
	for _, n := range []int{100, 100000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			_, e := benchJournal(b, n)
			for b.Loop() {
				k := 0
				err := e.Journal().View(func(tx *journal.Tx) error {
					return tx.Each(0, true, func(*journal.Event) error {
						if k++; k == 20 {
							return journal.ErrStop
						}
						return nil
					})
				})
				if err != nil || k != 20 {
					b.Fatal(err, k)
				}
			}
		})
	}
}

// BenchmarkApplyVsFloor alternates one durability-floor operation (temp +
// fsync + rename + dir fsync, then one bbolt update) with one journaled apply
// of a one-line edit to a 300-line file, so machine noise hits both alike, and
// reports the medians and their ratio.
func BenchmarkApplyVsFloor(b *testing.B) {
	dir := b.TempDir()
	data := lines300()
	fl := newFloor(b)
	ws := filepath.Join(dir, "ws")
	os.Mkdir(ws, 0o755)
	os.WriteFile(filepath.Join(ws, "f.go"), data, 0o644)
	e := open(b, ws)
	var floor, apply []time.Duration
	var cpu benchfloor.CPU
	for i := 0; b.Loop(); i++ {
		t0 := time.Now()
		data[10] = byte('a' + i%26)
		fl.write(data)
		t1 := time.Now()
		c0 := benchfloor.CPUNow()
		next := bytes.Clone(data)
		copy(next[100:], fmt.Sprintf("%06d", i))
		if _, err := e.Apply(ctx, &replay.Batch{Changes: []replay.Change{{Path: "f.go", Data: next}}}); err != nil {
			b.Fatal(err)
		}
		cpu = cpu.Add(benchfloor.CPUNow(), c0)
		floor, apply = append(floor, t1.Sub(t0)), append(apply, time.Since(t1))
	}
	fm, am := median(floor), median(apply)
	b.ReportMetric(float64(fm.Microseconds()), "floor-µs")
	b.ReportMetric(float64(am.Microseconds()), "apply-µs")
	b.ReportMetric(float64(am)/float64(fm), "ratio")
	cpu.Report(b, "apply", len(apply))
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

// BenchmarkJournalOpenClose is the cost of the locking design per batch:
// take the lock file, open bbolt, close it, release.
func BenchmarkJournalOpenClose(b *testing.B) {
	e := open(b, b.TempDir())
	for b.Loop() {
		if err := e.Journal().Do(func(*journal.DB) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkApply_JournalSize is the one-line edit of a 300-line file on
// journals of 100 and 100,000 events: a batch's cost should not grow with
// the journal.
func BenchmarkApply_JournalSize(b *testing.B) {
	for _, n := range []int{100, 100000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			dir, e := benchJournal(b, n)
			data := lines300()
			os.WriteFile(filepath.Join(dir, "f.go"), data, 0o644)
			for i := 0; b.Loop(); i++ {
				data = bytes.Clone(data)
				copy(data[100:], fmt.Sprintf("%06d", i))
				if _, err := e.Apply(ctx, &replay.Batch{Changes: []replay.Change{{Path: "f.go", Data: data}}}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkStorage_OneLineEdits: the bytes on disk per edit (everything
// under .journal/) after 20,000 one-line edits of 50 files of 300 lines
// through the engine, one edit per batch as a server applies them (issue
// #23's workload, at a fifth of its size). Run with -benchtime 1x.
func BenchmarkStorage_OneLineEdits(b *testing.B) {
	const files, edits = 50, 20000
	for b.Loop() {
		dir := b.TempDir()
		e := open(b, dir)
		contents := make([][]byte, files)
		for f := range contents {
			contents[f] = lines300()
		}
		for i := 0; i < edits; i++ {
			f := i % files
			lines := bytes.SplitAfter(contents[f], []byte("\n"))
			line := (i / files * 7) % 300
			lines[line] = fmt.Appendf(nil, "\tfmt.Println(\"line %d of a typical source file\") // edit %d\n", line, i)
			data := bytes.Join(lines, nil)
			contents[f] = data
			if _, err := e.Apply(ctx, &replay.Batch{Tool: "edit_content", Changes: []replay.Change{{Path: fmt.Sprintf("src/f%02d.go", f), Data: data}}}); err != nil {
				b.Fatal(err)
			}
		}
		if err := e.Close(); err != nil {
			b.Fatal(err)
		}
		var size int64
		filepath.WalkDir(filepath.Join(dir, ".journal"), func(_ string, d os.DirEntry, _ error) error {
			if fi, err := d.Info(); err == nil && fi.Mode().IsRegular() {
				size += fi.Size()
			}
			return nil
		})
		b.ReportMetric(float64(size)/edits, "B/edit")
		b.ReportMetric(float64(size)/1e6, "MB-journal")
	}
}

// BenchmarkApply_SpareTemps is the one-line edit of a 300-line file with
// temps created by name and with temps from spares made after each batch
// (Options.SpareTemps, spare.go); run with -count to alternate them.
func BenchmarkApply_SpareTemps(b *testing.B) {
	for _, spares := range []bool{false, true} {
		b.Run(map[bool]string{false: "named", true: "spares"}[spares], func(b *testing.B) {
			ws := b.TempDir()
			data := lines300()
			os.WriteFile(filepath.Join(ws, "f.go"), data, 0o644)
			e, err := replay.Open(replay.Options{Roots: []string{ws}, SpareTemps: spares})
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close()
			var apply []time.Duration
			for i := 0; b.Loop(); i++ {
				next := bytes.Clone(data)
				copy(next[100:], fmt.Sprintf("%06d", i))
				t := time.Now()
				if _, err := e.Apply(ctx, &replay.Batch{Changes: []replay.Change{{Path: "f.go", Data: next}}}); err != nil {
					b.Fatal(err)
				}
				apply = append(apply, time.Since(t))
			}
			b.ReportMetric(float64(median(apply).Microseconds()), "median-µs")
		})
	}
}

// BenchmarkCommitPaths times the two commit paths side by side, one
// operation of each per iteration so that machine noise hits them alike
// (issue 40: why two paths). It reports medians:
//
//   - logged: a one-line edit of a 300-line file through the write-ahead log
//     (the usual edit);
//   - intent-edit: the same edit forced through the bbolt intent
//     (Options.LogLimit < 0): files and directory fsynced before it returns;
//   - create, delete: a new 300-line file and its removal, which are not
//     loggable and take the intent path;
//   - create-after-logged: a create right after a logged edit, which
//     checkpoints the log first (the intent needs the chain complete);
//   - observe: Engine.Observe recording one file written outside (the
//     watcher's commit: one bbolt transaction, nothing written). The files
//     are written before the loop, older than the margin within which
//     Observe reads a file again (racyMargin), so that wait is not timed;
//     run at most 1000 iterations.
func BenchmarkCommitPaths(b *testing.B) {
	data := lines300()
	mk := func(logLimit int) (string, *replay.Engine) {
		ws := b.TempDir()
		os.WriteFile(filepath.Join(ws, "f.go"), data, 0o644)
		e, err := replay.Open(replay.Options{Roots: []string{ws}, LogLimit: logLimit, Actor: journal.Actor{Kind: "mcp", Name: "bench", Session: "s1"}})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { e.Close() })
		return ws, e
	}
	_, logged := mk(0)
	_, intent := mk(-1)
	_, creates := mk(0)
	_, mixed := mk(0)
	obsWS, observer := mk(0)
	const observes = 1000
	for i := range observes {
		os.WriteFile(filepath.Join(obsWS, fmt.Sprintf("o%04d.go", i)), data, 0o644)
	}
	time.Sleep(200 * time.Millisecond)
	apply := func(e *replay.Engine, c replay.Change) time.Duration {
		t := time.Now()
		if _, err := e.Apply(ctx, &replay.Batch{Changes: []replay.Change{c}}); err != nil {
			b.Fatal(err)
		}
		return time.Since(t)
	}
	names := []string{"logged", "intent-edit", "create", "delete", "create-after-logged", "observe"}
	times := make([][]time.Duration, len(names))
	for i := 0; b.Loop(); i++ {
		next := bytes.Clone(data)
		copy(next[100:], fmt.Sprintf("%06d", i))
		fresh := bytes.Clone(next)
		copy(fresh[200:], "new")
		name := fmt.Sprintf("n%06d.go", i)
		times[0] = append(times[0], apply(logged, replay.Change{Path: "f.go", Data: next}))
		times[1] = append(times[1], apply(intent, replay.Change{Path: "f.go", Data: next}))
		times[2] = append(times[2], apply(creates, replay.Change{Path: name, Data: fresh}))
		times[3] = append(times[3], apply(creates, replay.Change{Path: name, Delete: true}))
		apply(mixed, replay.Change{Path: "f.go", Data: next})
		times[4] = append(times[4], apply(mixed, replay.Change{Path: name, Data: fresh}))
		apply(mixed, replay.Change{Path: name, Delete: true})
		if i >= observes {
			b.Fatalf("at most %d iterations", observes)
		}
		t := time.Now()
		if got, err := observer.Observe(ctx, replay.Observation{Paths: []string{fmt.Sprintf("o%04d.go", i)}, Tool: journal.ToolWatch}); err != nil || len(got.Events) != 1 {
			b.Fatalf("observe: %v %+v", err, got)
		}
		times[5] = append(times[5], time.Since(t))
	}
	for k, n := range names {
		b.ReportMetric(float64(median(times[k]).Microseconds()), n+"-µs")
	}
}

// BenchmarkApply_Checkpointed alternates one-line edits of a 300-line file in
// two workspaces: one without checkpoints, one whose journal signs a
// checkpoint after every 100th edit, its time counted in that edit — the
// worst case: serve signs in the background (--checkpoint-every), where an
// edit waits at most for the checkpoint's lock. It reports the mean edit
// of each and the overhead (issue 38: ≤ 5 %), measured and amortized from
// the checkpoints' own time.
func BenchmarkApply_Checkpointed(b *testing.B) {
	for _, every := range []int{100, 1000} {
		b.Run(fmt.Sprintf("every%d", every), func(b *testing.B) { applyCheckpointed(b, every) })
	}
}

func applyCheckpointed(b *testing.B, every int) {
	skey, _, err := note.GenerateKey(nil, "bench")
	if err != nil {
		b.Fatal(err)
	}
	s, err := note.NewSigner(skey)
	if err != nil {
		b.Fatal(err)
	}
	var ws [2]string
	var es [2]*replay.Engine
	data := lines300()
	for k := range ws {
		ws[k] = filepath.Join(b.TempDir(), fmt.Sprint(k))
		os.Mkdir(ws[k], 0o755)
		os.WriteFile(filepath.Join(ws[k], "f.go"), data, 0o644)
		es[k] = open(b, ws[k])
	}
	var took [2]time.Duration
	var signing time.Duration
	n, signed := 0, 0
	for i := 0; b.Loop(); i++ {
		for j := range es {
			k := (i + j) % 2 // each goes first every other time
			e := es[k]
			next := bytes.Clone(data)
			copy(next[100:], fmt.Sprintf("%06d", i))
			t0 := time.Now()
			if _, err := e.Apply(ctx, &replay.Batch{Changes: []replay.Change{{Path: "f.go", Data: next}}}); err != nil {
				b.Fatal(err)
			}
			if k == 1 && (i+1)%every == 0 {
				t1 := time.Now()
				if _, _, err := audit.Sign(e.Journal(), s, time.Now()); err != nil {
					b.Fatal(err)
				}
				signing += time.Since(t1)
				signed++
			}
			took[k] += time.Since(t0)
		}
		n++
	}
	plain, with := took[0]/time.Duration(n), took[1]/time.Duration(n)
	b.ReportMetric(float64(plain.Microseconds()), "plain-µs")
	b.ReportMetric(float64(with.Microseconds()), "checkpointed-µs")
	b.ReportMetric(100*(float64(with)/float64(plain)-1), "overhead-%")
	if signed > 0 { // the same from the checkpoints' own time, which machine noise on the edits does not blur
		cp := signing / time.Duration(signed)
		b.ReportMetric(float64(cp.Microseconds()), "checkpoint-µs")
		b.ReportMetric(100*float64(cp)/float64(every)/float64(plain), "amortized-%")
	}
}
