package main_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/damagetest"
	"github.com/journalfs/journal/snapshot"
	bolt "go.etcd.io/bbolt"
)

// damageWorkspace is a workspace whose journal holds n events over a few
// files (so that the events bucket spans leaf and branch pages).
func damageWorkspace(t *testing.T, n int) string {
	dir := t.TempDir()
	e := engine(t, dir)
	for i := 0; i < n; i++ {
		apply(t, e, "edit_file", fmt.Sprintf("src/f%d.txt", i%5), strings.Repeat(fmt.Sprintf("line %d of version %d\n", i%7, i), 1+i%9))
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestDamage_NeverPanics damages copies of a real journal in every class
// and runs every read command and undo on each: no panic, every failure is
// JOURNAL_DAMAGED with a hint, and undo never changes a workspace file
// when it fails.
func TestDamage_NeverPanics(t *testing.T) {
	damageMatrix(t, damageWorkspace(t, 60), 0, allCommands, true)
}

// TestDamage_NeverPanicsWithLoggedBatches is the matrix on the journal of a
// process killed with batches in its write-ahead log only (which every
// command that opens the engine rolls forward first).
func TestDamage_NeverPanicsWithLoggedBatches(t *testing.T) {
	dir := t.TempDir()
	child := exec.Command(os.Args[0], "-test.run=^TestRepairChild$")
	child.Env = append(os.Environ(), "JOURNAL_REPAIR_CHILD="+dir)
	out, err := child.CombinedOutput()
	if err == nil {
		t.Fatalf("the child was not killed:\n%s", out)
	}
	if _, serr := os.Stat(filepath.Join(dir, journal.DirName, journal.FileName)); serr != nil {
		t.Fatalf("the child (%v) left no journal:\n%s", err, out)
	}
	damageMatrix(t, dir, 0, allCommands, true)
}

// TestDamage_NeverPanicsLarge is the matrix, sampled, on a large journal:
// 20,000 events and 10 pages by default, 100,000 events and 40 pages in the
// long mode (JOURNAL_LONG=1); commands that stay fast there.
func TestDamage_NeverPanicsLarge(t *testing.T) {
	n, pages := 20000, 10
	if v := os.Getenv("JOURNAL_LONG"); v != "" && v != "0" {
		n, pages = 100000, 40
	}
	dir := t.TempDir()
	bigJournal(t, dir, n)
	damageMatrix(t, dir, pages, [][]string{{"status"}, {"log", "-n", "20"}, {"show", fmt.Sprint(n / 2)}}, false)
}

// allCommands are the commands the matrix runs on a damaged journal.
var allCommands = [][]string{{"status"}, {"log"}, {"verify"}, {"show", "1"}, {"export", "-o", "x.jsonl"}, {"undo"}}

// damageMatrix damages copies of the journal of workspace src in every
// class (on pages spread evenly over the file when pages > 0) and runs cmds
// on each; with repair, then `repair --apply` and `verify`.
func damageMatrix(t *testing.T, src string, pages int, cmds [][]string, repair bool) {
	jp := filepath.Join(src, journal.DirName, journal.FileName)
	orig, err := os.ReadFile(jp)
	if err != nil {
		t.Fatal(err)
	}
	ps := os.Getpagesize()
	ds := damagetest.Classes(orig, ps)
	// the events as the journal holds them undamaged (log rolls a
	// write-ahead log forward: on a copy)
	pristine := t.TempDir()
	copyTree(t, src, pristine)
	before, _ := eventHashes(t, pristine)
	if pages > 0 {
		ds = damagetest.Sample(ds, len(orig), ps, pages)
	}
	for _, d := range ds {
		t.Run(d.Name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			copyTree(t, src, dir)
			p := filepath.Join(dir, journal.DirName, journal.FileName)
			if err := os.WriteFile(p, d.Apply(append([]byte(nil), orig...)), 0o600); err != nil {
				t.Fatal(err)
			}
			for _, c := range cmds {
				before := workspaceFiles(t, dir)
				r := run(t, dir, c...)
				if strings.Contains(r.stderr, "panic") || strings.Contains(r.stderr, "goroutine ") || r.code == 2 && c[0] != "undo" {
					t.Fatalf("journal %s: exit %d\n%s", strings.Join(c, " "), r.code, r.stderr)
				}
				if r.code != 0 && !strings.Contains(r.stderr, "JOURNAL_DAMAGED") {
					t.Errorf("journal %s: exit %d without JOURNAL_DAMAGED:\n%s", strings.Join(c, " "), r.code, r.stderr)
				}
				if r.code != 0 && !strings.Contains(r.stderr, "hint: ") {
					t.Errorf("journal %s: no hint:\n%s", strings.Join(c, " "), r.stderr)
				}
				if r.code != 0 && !sameMaps(before, workspaceFiles(t, dir)) {
					t.Errorf("journal %s failed and changed workspace files", strings.Join(c, " "))
				}
			}
			if !repair {
				return
			}
			// then repair: verify passes, and every event it did not report
			// lost is there
			r := run(t, dir, "repair", "--apply")
			if r.code != 0 {
				// only a file cut before its first data page holds nothing
				if d.Name != "truncated to 100 bytes" || !strings.Contains(r.stderr, "JOURNAL_DAMAGED") {
					t.Fatalf("repair --apply: exit %d\n%s%s", r.code, r.stdout, r.stderr)
				}
				return
			}
			if v := run(t, dir, "verify"); v.code != 0 {
				t.Fatalf("verify after repair: exit %d\n%s\nrepair said:\n%s", v.code, v.stderr, r.stdout)
			}
			var kept, total int
			if _, err := fmt.Sscanf(grepLines(r.stdout, "events "), "events %d readable of %d", &kept, &total); err != nil {
				t.Fatalf("repair's report: %v\n%s", err, r.stdout)
			}
			log := ok(t, dir, "log", "--oneline")
			if n := strings.Count(log, "\n") - strings.Count(log, "damaged: lost"); n < kept {
				t.Fatalf("%d events after repair, it kept %d:\n%s", n, kept, r.stdout)
			}
			// every event is there as it was, or named lost by a damaged event
			after, lost := eventHashes(t, dir)
			for seq, h := range before {
				if after[seq] == h {
					continue
				}
				named := false
				for _, l := range lost {
					named = named || l[0] <= seq && seq <= l[1]
				}
				if !named {
					t.Fatalf("event %d: %q before, %q after the repair, and no damaged event names it\n%s", seq, h, after[seq], r.stdout)
				}
			}
		})
	}
}

// eventHashes lists the events of the journal of workspace dir (journal
// log --json): each event's fingerprint (time, kind, tool, and each file's
// path and contents before and after; not the hash, which a batch rolled
// forward after a lost run is sealed with anew) by number, and the runs its
// damaged events name lost.
func eventHashes(t *testing.T, dir string) (map[uint64]string, [][2]uint64) {
	t.Helper()
	r := run(t, dir, "log", "--json")
	hashes := map[uint64]string{}
	var lost [][2]uint64
	for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var e struct {
			Seq   uint64
			Time  string
			Kind  string
			Tool  string
			Files []struct{ Path, Before, After string }
			Lost  *struct{ First, Last uint64 }
		}
		if l == "" || json.Unmarshal([]byte(l), &e) != nil {
			continue
		}
		if e.Kind == "damaged" && e.Lost != nil {
			lost = append(lost, [2]uint64{e.Lost.First, e.Lost.Last})
			continue
		}
		hashes[e.Seq] = fmt.Sprintf("%s %s %s %v", e.Time, e.Kind, e.Tool, e.Files)
	}
	return hashes, lost
}

// copyTree copies the regular files under src to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !d.Type().IsRegular() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		copyFile(t, p, filepath.Join(dst, rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// workspaceFiles reads the workspace's files outside .journal.
func workspaceFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == journal.DirName {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() && !strings.HasSuffix(p, ".jsonl") {
			b, _ := os.ReadFile(p)
			m[p] = string(b)
		}
		return nil
	})
	return m
}

func sameMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestDamage_LogSeesAround: a damaged event record, and a damaged page of
// the events bucket, hide nothing else from `journal log`: every readable
// event is listed, the damaged ones are marked, and the exit is non-zero.
func TestDamage_LogSeesAround(t *testing.T) {
	src := damageWorkspace(t, 300)
	jp := filepath.Join(src, journal.DirName, journal.FileName)
	total := strings.Count(ok(t, src, "log", "--oneline"), "\n")
	if total != 300 {
		t.Fatalf("%d events listed, want 300", total)
	}
	t.Run("record", func(t *testing.T) {
		p := tamper(t, jp, func(tx *bolt.Tx) error {
			b := tx.Bucket([]byte("events"))
			v := append([]byte(nil), b.Get(key(6))...)
			v[len(v)/2] ^= 0xFF
			return b.Put(key(6), v)
		})
		r := run(t, src, "--journal", p, "log", "--oneline")
		if r.code != 1 || !strings.Contains(r.stdout, "event 6  <damaged: ") || !strings.Contains(r.stderr, "JOURNAL_DAMAGED") {
			t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		if n := strings.Count(r.stdout, "\n") - strings.Count(r.stdout, "\n\n"); n != 300 {
			t.Fatalf("%d lines, want 299 events and the damaged one:\n%s", n, r.stdout)
		}
	})
	t.Run("page", func(t *testing.T) {
		// the leaf page that holds event 100: its header flipped
		pg := leafPageOf(t, jp, 100)
		dir := t.TempDir()
		copyTree(t, src, dir)
		p := filepath.Join(dir, journal.DirName, journal.FileName)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		ps := os.Getpagesize()
		damagetest.Flip(pg*ps, 8)(b)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		r := run(t, dir, "log", "--oneline")
		if r.code != 1 || !strings.Contains(r.stdout, "<damaged: ") || !strings.Contains(r.stderr, "JOURNAL_DAMAGED") {
			t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		t.Logf("damaged page %d:\n%s", pg, grepLines(r.stdout, "damaged"))
		listed := 0
		for _, l := range strings.Split(r.stdout, "\n") {
			if l != "" && !strings.Contains(l, "<damaged") {
				listed++
			}
		}
		if listed < 250 || strings.Contains(r.stdout, " 100 ") && !strings.Contains(r.stdout, "<damaged") {
			t.Fatalf("%d events listed around the damage:\n%s", listed, r.stdout)
		}
		// the marker makes writers refuse
		r = run(t, dir, "undo")
		if r.code == 0 || !strings.Contains(r.stderr, "JOURNAL_DAMAGED") {
			t.Fatalf("undo on a damaged journal: exit %d\n%s", r.code, r.stderr)
		}
	})
}

// recordAt returns the offset, at or after from, of event seq's key followed
// by a record (version 1, JSON, or 2 and 3, compact), or -1: a key of 8
// bytes that an element of its leaf page points at (the same bytes inside
// other records, or in a page's element table, are not it).
func recordAt(b []byte, seq uint64, from int) int {
	k := key(seq)
	for off := from; ; {
		i := bytes.Index(b[off:], k)
		if i < 0 {
			return -1
		}
		at := off + i
		if at+8 < len(b) && (b[at+8] >= 1 && b[at+8] <= 3 || b[at+8] == 5 || b[at+8] == 6) && leafKey(b, at, len(k)) {
			return at
		}
		off = at + 1
	}
}

// leafKey reports whether the bytes at offset at of the file b are a key of
// n bytes of the leaf page they lie in (bbolt: a page header of 16 bytes,
// flags at 8 and the element count at 10; leaf elements of 16 bytes: flags,
// the key's offset from the element, the key's and the value's sizes).
func leafKey(b []byte, at, n int) bool {
	ps := os.Getpagesize()
	pg := at / ps * ps
	if binary.LittleEndian.Uint16(b[pg+8:]) != 0x02 {
		return false
	}
	count := int(binary.LittleEndian.Uint16(b[pg+10:]))
	for i := range count {
		el := pg + 16 + 16*i
		if el+16 > len(b) {
			return false
		}
		if el+int(binary.LittleEndian.Uint32(b[el+4:])) == at && int(binary.LittleEndian.Uint32(b[el+8:])) == n {
			return true
		}
	}
	return false
}

// leafPageOf returns the page of the journal file that holds event seq's
// record: the leaf page where its key is followed by a record.
func leafPageOf(t *testing.T, path string, seq uint64) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ps := os.Getpagesize()
	for off := 0; ; {
		at := recordAt(b, seq, off)
		if at < 0 {
			t.Fatalf("event %d's record not found in the file", seq)
		}
		pg := at / ps
		if flags := binary.LittleEndian.Uint16(b[pg*ps+8:]); flags == 0x02 {
			return pg
		}
		off = at + 1
	}
}

// grepLines returns the lines of s that contain sub.
func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestDamage_MoveAsideStartsAgain: the hint's way out works — with the
// damaged journal moved aside, the next write starts a new journal and the
// damage recorded for the old file no longer refuses it.
func TestDamage_MoveAsideStartsAgain(t *testing.T) {
	dir := damageWorkspace(t, 10)
	jp := filepath.Join(dir, journal.DirName, journal.FileName)
	damageFile(t, jp, bothMetas)
	if r := run(t, dir, "undo"); r.code == 0 || !strings.Contains(r.stderr, "JOURNAL_DAMAGED") {
		t.Fatalf("undo: exit %d %s", r.code, r.stderr)
	}
	if _, err := os.Stat(jp + ".damaged"); err != nil {
		t.Fatalf("the damage was not recorded: %v", err)
	}
	if err := os.Rename(jp, jp+".bad"); err != nil {
		t.Fatal(err)
	}
	e := engine(t, dir)
	apply(t, e, "edit_file", "src/f0.txt", "fresh\n")
	e.Close()
	if out := ok(t, dir, "log", "--oneline"); strings.Count(out, "\n") < 1 {
		t.Fatalf("new journal: %q", out)
	}
}

// TestRepair_SalvagesAroundDamage: a journal with a damaged record and a
// damaged leaf page is repaired: the dry run changes nothing and says what
// would be lost; --apply keeps the damaged file, and afterwards verify and
// the export's verification pass, log lists every readable event plus the
// damaged ones, and the workspace can be edited (and undone) again.
func TestRepair_SalvagesAroundDamage(t *testing.T) {
	src := damageWorkspace(t, 300)
	dir := t.TempDir()
	copyTree(t, src, dir)
	jp := filepath.Join(dir, journal.DirName, journal.FileName)
	// a damaged record (event 6: every copy of it in the file) and a
	// damaged leaf page header (the page holding event 150: its records
	// are whole, and repair finds them in the file's bytes)
	rotRecord(t, jp, 6)
	p := jp
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	pg := leafPageOf(t, p, 150)
	damagetest.Flip(pg*os.Getpagesize(), 8)(b)
	if err := os.WriteFile(jp, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if r := run(t, dir, "verify"); r.code == 0 {
		t.Fatal("verify passed a damaged journal")
	}
	before, _ := os.ReadFile(jp)
	dry := ok(t, dir, "repair")
	if after, _ := os.ReadFile(jp); !bytes.Equal(before, after) || !strings.Contains(dry, "299 readable of 300; lost: 6\n") || !strings.Contains(dry, "repair --apply") {
		t.Fatalf("dry run:\n%s", dry)
	}
	t.Logf("journal repair:\n%s", dry)
	out := ok(t, dir, "repair", "--apply")
	t.Logf("journal repair --apply:\n%s", out)
	if !strings.Contains(out, "repaired: ") || !strings.Contains(out, ".damaged-") {
		t.Fatalf("repair --apply:\n%s", out)
	}
	kept, _ := filepath.Glob(jp + ".damaged-*[0-9]Z")
	if len(kept) != 1 {
		t.Fatalf("the damaged journal was not kept: %v", kept)
	}
	if left, _ := filepath.Glob(jp + ".repair-*"); len(left) > 0 {
		t.Fatalf("repair --apply left its working files behind: %v", left)
	}
	if k, _ := os.ReadFile(kept[0]); !bytes.Equal(k, before) {
		t.Fatal("the kept journal is not the damaged one")
	}
	ok(t, dir, "verify")
	ok(t, dir, "export", "-o", filepath.Join(dir, "audit.jsonl"))
	ok(t, dir, "verify", "--export", filepath.Join(dir, "audit.jsonl"))
	log := ok(t, dir, "log", "--oneline")
	t.Logf("damaged events in the log:\n%s", grepLines(log, "damaged"))
	if n := strings.Count(log, "\n"); n != 300 || !strings.Contains(log, "damaged: lost event 6 ") {
		t.Fatalf("%d events after repair:\n%s", n, log)
	}
	// the workspace goes on: an edit and its undo
	e := engine(t, dir)
	apply(t, e, "edit_file", "src/f1.txt", "after the repair\n")
	e.Close()
	ok(t, dir, "undo")
	ok(t, dir, "verify")
}

// repairedSample is a journal written by `journal repair` (format 3, with a
// damaged event for a lost record), kept so that later binaries are held to
// reading it (go test ./cmd/journal -run TestRepair_Sample -update rewrites it).
var repairedSample = filepath.Join(repoRoot, "testdata", "journals", "repaired-format3.db")

// TestRepair_Sample: the kept repaired journal verifies, lists its damaged
// event, and exports an audit trail that verifies.
func TestRepair_Sample(t *testing.T) {
	if *update {
		src := damageWorkspace(t, 12)
		jp := filepath.Join(src, journal.DirName, journal.FileName)
		rotRecord(t, jp, 3)
		ok(t, src, "repair", "--apply")
		copyFile(t, jp, repairedSample)
	}
	dir := t.TempDir()
	copyFile(t, repairedSample, filepath.Join(dir, journal.DirName, journal.FileName))
	ok(t, dir, "verify")
	if log := ok(t, dir, "log", "--oneline"); !strings.Contains(log, "damaged: lost event 3 (journal repair)") || strings.Count(log, "\n") != 12 {
		t.Fatalf("log of the sample:\n%s", log)
	}
	ok(t, dir, "export", "-o", filepath.Join(dir, "a.jsonl"))
	ok(t, dir, "verify", "--export", filepath.Join(dir, "a.jsonl"))
}

// TestRepair_SampleTakesEdits: the kept format-3 journal, written before
// compact records and delta chunks (JSON records, whole chunks), takes
// edits from this binary after its old events: they are stored compact and
// as deltas, the journal is marked format 5, and it verifies, lists and
// exports every old and new event.
func TestRepair_SampleTakesEdits(t *testing.T) {
	dir := t.TempDir()
	jp := filepath.Join(dir, journal.DirName, journal.FileName)
	copyFile(t, repairedSample, jp)
	e := engine(t, dir)
	var text strings.Builder
	for i := range 300 {
		fmt.Fprintf(&text, "line %d of a file an agent edits, %d\n", i, i*i)
	}
	content := text.String()
	for i := range 5 {
		content = strings.Replace(content, fmt.Sprintf("line %d of", 50*i+3), fmt.Sprintf("line %d (edit %d) of", 50*i+3, i), 1)
		apply(t, e, "edit_file", "src/big.txt", content)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	j, err := journal.Open(jp, journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var format byte
	var records [8]int
	var deltas [4]int
	err = j.View(func(tx *journal.Tx) error {
		format = tx.Bolt().Bucket([]byte("meta")).Get([]byte("format"))[0]
		tx.Bolt().Bucket([]byte("events")).ForEach(func(_, v []byte) error { records[v[0]]++; return nil })
		return tx.Bolt().Bucket(snapshot.BucketChunks).ForEach(func(_, v []byte) error { deltas[v[1]]++; return nil })
	})
	j.Close()
	if err != nil {
		t.Fatal(err)
	}
	if format != journal.FormatSalted || records[1] != 12 || records[3]+records[6] != 5 || deltas[2]+deltas[3] < 4 { // v3 records; deltas and splices
		t.Fatalf("format %d; records by version %v; chunks by codec %v", format, records, deltas)
	}
	ok(t, dir, "verify")
	if log := ok(t, dir, "log", "--oneline"); !strings.Contains(log, "damaged: lost event 3 (journal repair)") || strings.Count(log, "\n") != 17 {
		t.Fatalf("log:\n%s", log)
	}
	ok(t, dir, "export", "-o", filepath.Join(dir, "a.jsonl"))
	ok(t, dir, "verify", "--export", filepath.Join(dir, "a.jsonl"))
}

// TestRepair_CarriesTheLog: batches acknowledged through the write-ahead log
// and not yet in the bbolt file (a crash right after them) survive a repair
// of damage elsewhere: the log stays with the new journal, the next process
// rolls them forward, and verify passes.
func TestRepair_CarriesTheLog(t *testing.T) {
	dir := t.TempDir()
	child := exec.Command(os.Args[0], "-test.run=^TestRepairChild$")
	child.Env = append(os.Environ(), "JOURNAL_REPAIR_CHILD="+dir)
	out, err := child.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ProcessState.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("the child was not killed: %v\n%s", err, out)
	}
	rotRecord(t, filepath.Join(dir, journal.DirName, journal.FileName), 6)
	dry := ok(t, dir, "repair")
	t.Logf("journal repair:\n%s", dry)
	if !strings.Contains(dry, "lost: 6") || !strings.Contains(dry, "ahead, continuing the salvaged chain") {
		t.Fatalf("dry run (the child's last batches should be in the log only):\n%s", dry)
	}
	ok(t, dir, "repair", "--apply")
	ok(t, dir, "verify")
	log := ok(t, dir, "log", "--oneline")
	if !strings.Contains(log, "damaged: lost event 6") || strings.Count(log, "src/late.txt") != 3 {
		t.Fatalf("log after repair:\n%s", log)
	}
	if got := readFile(t, dir, "src/late.txt"); got != "late 42\n" {
		t.Fatalf("late.txt: %q", got)
	}
}

// TestRepairChild is TestRepair_CarriesTheLog's child: 40 batches, a
// checkpoint, 3 more (acknowledged through the write-ahead log), then
// SIGKILL before anything moves them into the bbolt file.
func TestRepairChild(t *testing.T) {
	dir := os.Getenv("JOURNAL_REPAIR_CHILD")
	if dir == "" {
		t.Skip("the child of TestRepair_CarriesTheLog")
	}
	e := engine(t, dir)
	for i := 0; i < 40; i++ {
		apply(t, e, "edit_file", fmt.Sprintf("src/f%d.txt", i%4), fmt.Sprintf("version %d\n", i))
	}
	if err := e.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	for i := 40; i < 43; i++ {
		apply(t, e, "edit_file", "src/late.txt", fmt.Sprintf("late %d\n", i))
	}
	syscall.Kill(os.Getpid(), syscall.SIGKILL)
}

// rotRecord damages every copy of event seq's record in the journal file in
// place (a byte of its body flipped, so its checksum fails), as bit rot
// would: bbolt's copy-on-write leaves older copies in freed pages, which
// repair would otherwise find.
func rotRecord(t *testing.T, path string, seq uint64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for off := 0; ; {
		at := recordAt(b, seq, off)
		if at < 0 {
			break
		}
		if at+8+5+20 < len(b) { // inside the record's body
			b[at+8+5+20] ^= 0x01
			n++
		}
		off = at + 1
	}
	if n == 0 {
		t.Fatalf("no record of event %d in %s", seq, path)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestRepair_LostContent: a content the store lost is named by a damaged
// event and in the journal's meta; verify passes after the repair and does
// not re-hash it.
func TestRepair_LostContent(t *testing.T) {
	src := damageWorkspace(t, 30)
	jp := filepath.Join(src, journal.DirName, journal.FileName)
	var gone string
	var key []byte
	p := tamper(t, jp, func(tx *bolt.Tx) error {
		// a chunk no delta is decoded against (else every content of its
		// chain is lost with it): bases are named by their IDs' first 8
		// bytes (byte 3: 0x80 | count) or, before format 11, whole
		bases := map[string]bool{}
		b := tx.Bucket(snapshot.BucketChunks)
		b.ForEach(func(_, v []byte) error {
			if len(v) > 4 && (v[1] == 2 || v[1] == 3) { // a delta or a splice
				n, w := int(v[3]&0x7f), 32
				if v[3]&0x80 != 0 {
					w = 8
				}
				for i := 0; i < n && 4+w*(i+1) <= len(v); i++ {
					bases[string(v[4+w*i:4+w*i+8])] = true
				}
			}
			return nil
		})
		b.ForEach(func(k, _ []byte) error {
			if key == nil && !bases[string(k[:8])] {
				gone, key = fmt.Sprintf("%x", k[:6]), append([]byte(nil), k...)
			}
			return nil
		})
		return b.Delete(key)
	})
	// and no copy of it left in the file's bytes (a freed page keeps one):
	// every record stored under its ID (version byte 1 after the key, or 3
	// for a chunk that is a whole content), not the events that name the
	// ID (a compact record holds it raw)
	damageFile(t, p, func(b []byte) []byte {
		for off := 0; ; {
			i := bytes.Index(b[off:], key)
			if i < 0 {
				return b
			}
			if at := off + i; at+32 < len(b) && (b[at+32] == 1 || b[at+32] == 3) {
				b[at] ^= 0xFF
			}
			off += i + 1
		}
	})
	copyFile(t, p, jp)
	if r := run(t, src, "verify"); r.code == 0 || !strings.Contains(r.stderr, "JOURNAL_DAMAGED") {
		t.Fatalf("verify: exit %d %s", r.code, r.stderr)
	}
	dry := ok(t, src, "repair")
	if !strings.Contains(dry, "lost: ") || !strings.Contains(dry, "contents ") {
		t.Fatalf("dry run:\n%s", dry)
	}
	ok(t, src, "repair", "--apply")
	ok(t, src, "verify")
	if log := ok(t, src, "log", "--oneline"); !strings.Contains(log, "damaged: lost 1 content(s) (journal repair)") {
		t.Fatalf("log (chunk %s deleted):\n%s", gone, log)
	}
}

// TestRepair_SalvagesContent: the page header of the leaf that holds a
// content's chunk is damaged; repair rebuilds the content from the file's
// bytes, and the journal verifies with nothing lost.
func TestRepair_SalvagesContent(t *testing.T) {
	src := damageWorkspace(t, 200)
	jp := filepath.Join(src, journal.DirName, journal.FileName)
	var key []byte
	j, err := journal.Open(jp, journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := j.View(func(tx *journal.Tx) error {
		k, _ := tx.Bolt().Bucket(snapshot.BucketChunks).Cursor().Last()
		key = append([]byte(nil), k...)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(jp)
	if err != nil {
		t.Fatal(err)
	}
	// every leaf page that holds a record of it (the live one, and copies
	// in freed pages): its header flipped
	ps := os.Getpagesize()
	var pages []int
	for off := 0; ; off++ {
		i := bytes.Index(b[off:], key)
		if i < 0 {
			break
		}
		off += i
		at := off / ps
		if binary.LittleEndian.Uint16(b[at*ps+8:]) == 0x02 && (b[off+32] == 1 || b[off+32] == 3) && !slices.Contains(pages, at) {
			pages = append(pages, at)
		}
	}
	if len(pages) == 0 {
		t.Fatal("the chunk's record is not in the file")
	}
	damageFile(t, jp, func(b []byte) []byte {
		for _, pg := range pages {
			damagetest.Flip(pg*ps, 8)(b)
		}
		return b
	})
	if r := run(t, src, "verify"); r.code == 0 || !strings.Contains(r.stderr, "JOURNAL_DAMAGED") {
		t.Fatalf("verify: exit %d %s", r.code, r.stderr)
	}
	rep := ok(t, src, "repair", "--apply")
	t.Logf("journal repair --apply:\n%s", rep)
	if !strings.Contains(rep, "rebuilt from the file's bytes") || strings.Contains(rep, "contents lost") || grepLines(rep, "contents ") == "" || strings.Contains(grepLines(rep, "contents "), "lost:") {
		t.Fatalf("repair did not rebuild the contents on pages %v:\n%s", pages, rep)
	}
	ok(t, src, "verify")
	if log := ok(t, src, "log", "--oneline"); strings.Contains(log, "lost") {
		t.Fatalf("log after the repair:\n%s", log)
	}
}

// TestRepair_ActorsRotted: every copy in the file of the actor record
// under its number (the live one and those in freed pages) is damaged; the
// events that name the actor no longer read, and repair rebuilds them from
// the record's mirror, each with its actor and hash.
func TestRepair_ActorsRotted(t *testing.T) {
	src := damageWorkspace(t, 40)
	before, _ := eventHashes(t, src)
	jp := filepath.Join(src, journal.DirName, journal.FileName)
	n := 0
	damageFile(t, jp, func(b []byte) []byte {
		for off := 8; ; {
			i := bytes.Index(b[off:], []byte("JACT"))
			if i < 0 {
				return b
			}
			at := off + i
			off = at + 1
			// a leaf holds a key (8 bytes: the number, top bit set for the
			// mirror) followed by its value
			if binary.BigEndian.Uint64(b[at-8:])>>63 == 0 && at+20 < len(b) {
				b[at+18] ^= 0x40 // in the body: its checksum fails
				n++
			}
		}
	})
	if n == 0 {
		t.Fatal("no actor record in the file")
	}
	if r := run(t, src, "verify"); r.code == 0 || !strings.Contains(r.stderr, "JOURNAL_DAMAGED") {
		t.Fatalf("verify: exit %d %s", r.code, r.stderr)
	} else {
		t.Logf("verify: %s", r.stderr)
	}
	t.Logf("journal repair --apply:\n%s", ok(t, src, "repair", "--apply"))
	ok(t, src, "verify")
	after, lost := eventHashes(t, src)
	if len(lost) != 0 || len(after) != len(before) {
		t.Fatalf("after the repair: %d events, lost %v; before: %d", len(after), lost, len(before))
	}
	for seq, h := range before {
		if after[seq] != h {
			t.Errorf("event %d: %q, before the damage %q", seq, after[seq], h)
		}
	}
}

// TestRepair_BothMetaPages: with both meta pages damaged nothing opens the
// journal; repair rebuilds them in a copy and salvages every event.
func TestRepair_BothMetaPages(t *testing.T) {
	src := damageWorkspace(t, 120)
	jp := filepath.Join(src, journal.DirName, journal.FileName)
	damageFile(t, jp, bothMetas)
	if r := run(t, src, "log"); r.code == 0 || !strings.Contains(r.stderr, "JOURNAL_DAMAGED") {
		t.Fatalf("log: exit %d %s", r.code, r.stderr)
	}
	dry := ok(t, src, "repair")
	t.Logf("journal repair:\n%s", dry)
	if !strings.Contains(dry, "meta pages made again") || !strings.Contains(dry, "120 readable of 120\n") {
		t.Fatalf("dry run:\n%s", dry)
	}
	ok(t, src, "repair", "--apply")
	ok(t, src, "verify")
	if n := strings.Count(ok(t, src, "log", "--oneline"), "\n"); n != 120 {
		t.Fatalf("%d events after repair", n)
	}
}

// damageFile rewrites the file at path through fn.
func damageFile(t *testing.T, path string, fn func([]byte) []byte) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, fn(b), 0o600); err != nil {
		t.Fatal(err)
	}
}

// bothMetas damages the magic of both meta pages.
func bothMetas(b []byte) []byte {
	ps := os.Getpagesize()
	return damagetest.Flip(ps+16, 32)(damagetest.Flip(16, 32)(b))
}

// TestDamage_LogRecord: a damaged record in the middle of the write-ahead
// log's run (followed by records numbered after it: no torn write) never
// blocks opening the journal; the batches before it are rolled forward and
// those from it on are named by a damaged event, and the chain verifies.
func TestDamage_LogRecord(t *testing.T) {
	dir := t.TempDir()
	child := exec.Command(os.Args[0], "-test.run=^TestRepairChild$")
	child.Env = append(os.Environ(), "JOURNAL_REPAIR_CHILD="+dir)
	if out, err := child.CombinedOutput(); err == nil {
		t.Fatalf("the child was not killed:\n%s", out)
	}
	wal := filepath.Join(dir, journal.DirName, journal.FileName) + ".wal"
	b, err := os.ReadFile(wal)
	if err != nil {
		t.Fatal(err)
	}
	first := binary.BigEndian.Uint64(b[12:]) // the run's first record
	b[24+10] ^= 0xFF                         // a byte of its payload
	if err := os.WriteFile(wal, b, 0o600); err != nil {
		t.Fatal(err)
	}
	log := ok(t, dir, "log", "--oneline")
	want := fmt.Sprintf("damaged: lost events %d-43", first)
	if first == 43 {
		want = "damaged: lost event 43"
	}
	if !strings.Contains(log, want) {
		t.Fatalf("log (the run starts at %d), want %q:\n%s", first, want, log)
	}
	ok(t, dir, "verify")
	// the journal goes on after the gap
	e := engine(t, dir)
	apply(t, e, "edit_file", "src/after.txt", "after\n")
	e.Close()
	ok(t, dir, "verify")
}

// TestRepair_CarriesRedactedLines: a journal with a redaction (the owners
// of the redacted version's lines, kept without their text) and a damaged
// record elsewhere: after repair --apply, blame names the same owners as
// before — the records are carried, not dropped (blame failed closed).
func TestRepair_CarriesRedactedLines(t *testing.T) {
	dir := t.TempDir()
	e := engine(t, dir)
	const token = "TOKEN = 'sk-live-0123456789abcdef'\n" // gitleaks:allow (a test's made-up key)
	apply(t, e, "write_file", "s.py", "def f():\n    return 1\n")
	apply(t, e, "edit_file", "s.py", "def f():\n    return 1\n"+token+"kept_line_one()\nkept_line_two()\n")
	for i := range 40 {
		apply(t, e, "edit_file", fmt.Sprintf("filler%d.txt", i%4), fmt.Sprintf("filler %d\n", i))
	}
	apply(t, e, "edit_file", "s.py", "def f():\n    return 1\nkept_line_one()\nkept_line_two()\nlast_line()\n")
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	ok(t, dir, "redact", "--pattern", "sk-live-[0-9a-f]+", "--why", "a leaked key")
	before := ok(t, dir, "blame", "s.py", "--porcelain")
	if !strings.Contains(before, "kept_line_one") {
		t.Fatalf("blame before:\n%s", before)
	}
	jp := filepath.Join(dir, journal.DirName, journal.FileName)
	rotRecord(t, jp, 20)
	out := ok(t, dir, "repair", "--apply")
	if strings.Contains(out, "not carried") {
		t.Fatalf("repair:\n%s", out)
	}
	if after := ok(t, dir, "blame", "s.py", "--porcelain"); after != before {
		t.Fatalf("blame after the repair differs:\n%s\nbefore:\n%s", after, before)
	}
}
