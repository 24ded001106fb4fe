package main_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/audit"
	"github.com/journalfs/journal/snapshot"
	bolt "go.etcd.io/bbolt"
)

// bigJournal writes n events over a few files straight through journal.Tx, in
// transactions of 5,000 events, and returns the journal's path.
func bigJournal(t testing.TB, dir string, n int) string { return bigJournalPadded(t, dir, n, 0) }

// bigJournalPadded is bigJournal with pad bytes of distinct text added to every content.
func bigJournalPadded(t testing.TB, dir string, n, pad int) string {
	t.Helper()
	return bigJournalMore(t, dir, 0, n, pad)
}

// bigJournalFrom adds n events to the journal bigJournal made with from.
func bigJournalFrom(t testing.TB, dir string, from, n int) string {
	t.Helper()
	return bigJournalMore(t, dir, from, from+n, 0)
}

// bigJournalMore writes bigJournal's events from..n-1 (of pad bytes each).
func bigJournalMore(t testing.TB, dir string, from, n, pad int) string {
	t.Helper()
	p := filepath.Join(dir, journal.DirName, journal.FileName)
	j, err := journal.Open(p, journal.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	prev := map[string]snapshot.ID{}
	for done := from; done < n; {
		err := j.Do(func(db *journal.DB) error {
			return db.Update(func(tx *journal.Tx) error {
				for k := 0; k < 5000 && done < n && (pad == 0 || k < 200); k, done = k+1, done+1 {
					path := fmt.Sprintf("src/f%03d.go", done%200)
					data := fmt.Appendf(nil, "package f\n\n// version %d\nfunc F() int { return %d }\n", done, done)
					for i := 0; len(data) < pad; i++ {
						data = fmt.Appendf(data, "// line %d of version %d: %x\n", i, done, i*done*2654435761)
					}
					id, err := snapshot.PutTx(tx.Bolt(), data)
					if err != nil {
						return err
					}
					ev := &journal.Event{Time: t0.Add(time.Duration(done) * time.Second), Kind: journal.KindApply, Actor: agent,
						Tool: "edit_file", Status: journal.StatusCommitted, Args: []byte(`{"path":"` + path + `"}`),
						Files: []journal.FileChange{{Path: path, Before: prev[path], After: id, AfterMode: 0o644, Added: 1, Removed: 1}}}
					if err := tx.Append(ev); err != nil {
						return err
					}
					prev[path] = id
				}
				return nil
			})
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return p
}

var (
	once10k sync.Once
	path10k string
)

// shared10k returns a 10,000-event journal built once per test binary (copy it before changing it).
func shared10k(t testing.TB) string {
	once10k.Do(func() {
		dir, err := os.MkdirTemp("", "journal10k-")
		if err != nil {
			t.Fatal(err)
		}
		path10k = bigJournal(t, dir, 10000)
	})
	return path10k
}

func copyFile(t testing.TB, src, dst string) {
	os.MkdirAll(filepath.Dir(dst), 0o755)
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// tamper opens a copy of the journal with bbolt and changes it.
func tamper(t *testing.T, src string, fn func(tx *bolt.Tx) error) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "journal.db")
	copyFile(t, src, dst)
	db, err := bolt.Open(dst, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Update(fn); err != nil {
		t.Fatal(err)
	}
	return dst
}

func key(n uint64) []byte { return binary.BigEndian.AppendUint64(nil, n) }

// TestTamper_Journal10k: every tampering of a 10,000-event journal is caught by verify.
func TestTamper_Journal10k(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, journal.DirName, journal.FileName)
	copyFile(t, shared10k(t), src)
	out := ok(t, dir, "verify")
	head := strings.Fields(strings.SplitN(out, "head ", 2)[1])[0]
	if !strings.Contains(out, "ok: 10000 events") || !strings.Contains(out, "10000 contents re-hashed") {
		t.Fatalf("verify:\n%s", out)
	}
	ev := []byte("events")
	rng := rand.New(rand.NewPCG(1, 2))
	type trial struct {
		name   string
		anchor bool
		// fn tampers and returns what verify's error must say
		fn func(tx *bolt.Tx) (string, error)
	}
	// entry returns the key and value of the entry holding event seq: its
	// record, or the block of events it was packed into (journal/pack.go),
	// keyed by the block's last event — and what verify names for damage to
	// it.
	entry := func(tx *bolt.Tx, seq uint64) (k, v []byte, name string) {
		k, v = tx.Bucket(ev).Cursor().Seek(key(seq))
		k, v = bytes.Clone(k), bytes.Clone(v)
		if v[0] == 4 {
			return k, v, fmt.Sprintf("event block %d", binary.BigEndian.Uint64(k))
		}
		return k, v, fmt.Sprintf("event %d", seq)
	}
	var trials []trial
	for i := 0; i < 6; i++ {
		seq, pos, bit := uint64(rng.IntN(10000)+1), rng.IntN(300), byte(1<<rng.IntN(8))
		if i%2 == 1 {
			seq = 10000 - uint64(rng.IntN(200)) // a loose record
		}
		trials = append(trials, trial{fmt.Sprintf("flip byte %d of event %d", pos, seq), false, func(tx *bolt.Tx) (string, error) {
			k, v, name := entry(tx, seq)
			v[pos%len(v)] ^= bit
			return name, tx.Bucket(ev).Put(k, v)
		}})
	}
	for _, seq := range []uint64{1, 9999} {
		trials = append(trials, trial{fmt.Sprintf("delete event %d", seq), false, func(tx *bolt.Tx) (string, error) {
			k, _, _ := entry(tx, seq)
			return fmt.Sprintf("event %d missing", seq), tx.Bucket(ev).Delete(k)
		}})
	}
	for _, pair := range [][2]uint64{{2000, 7000}, {9999, 10000}} {
		a, b := pair[0], pair[1]
		trials = append(trials, trial{fmt.Sprintf("swap events %d and %d", a, b), false, func(tx *bolt.Tx) (string, error) {
			bk := tx.Bucket(ev)
			ka, va, name := entry(tx, a)
			kb, vb, _ := entry(tx, b)
			if va[0] == 4 {
				name = fmt.Sprintf("event block keyed %d", binary.BigEndian.Uint64(ka))
			}
			bk.Put(ka, vb)
			return name, bk.Put(kb, va)
		}})
	}
	for _, cut := range []uint64{100} {
		trials = append(trials, trial{fmt.Sprintf("truncate the last %d events", cut), true, func(tx *bolt.Tx) (string, error) {
			for s := uint64(10000); s > 10000-cut; s-- {
				tx.Bucket(ev).Delete(key(s))
			}
			return "anchor", nil
		}})
	}
	skip := rng.IntN(500)
	trials = append(trials, trial{"flip a byte of a stored chunk", false, func(tx *bolt.Tx) (string, error) {
		c := tx.Bucket(snapshot.BucketChunks).Cursor()
		k, v := c.First()
		for i := skip; i > 0; i-- {
			k, v = c.Next()
		}
		v = append([]byte(nil), v...)
		v[len(v)-1] ^= 0x20
		return "hash mismatch", tx.Bucket(snapshot.BucketChunks).Put(append([]byte(nil), k...), v)
	}})
	t.Cleanup(func() { ok(t, dir, "verify", "--anchor", head) }) // the original is untouched
	for _, tr := range trials {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			var want string
			p := tamper(t, src, func(tx *bolt.Tx) (err error) {
				want, err = tr.fn(tx)
				return err
			})
			args := []string{"--journal", p, "verify"}
			if tr.anchor {
				// Without the anchor the shortened chain is consistent: that is what anchoring is for.
				ok(t, dir, args...)
				args = append(args, "--anchor", head)
			}
			r := run(t, dir, args...)
			if r.code == 0 || !strings.Contains(r.stderr, want) || !strings.HasPrefix(strings.Replace(r.stderr, "JOURNAL_DAMAGED: ", "", 1), "journal: verify failed") {
				t.Fatalf("not caught: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
		})
	}
}

// TestTamper_Export10k: every single-byte flip, record deletion, reordering
// and truncation of a 10,000-event export is caught, on the export alone.
func TestTamper_Export10k(t *testing.T) {
	dir := t.TempDir()
	copyFile(t, shared10k(t), filepath.Join(dir, journal.DirName, journal.FileName))
	exp := filepath.Join(dir, "audit.jsonl")
	ok(t, dir, "export", "-o", exp)
	out := ok(t, dir, "verify", "--export", exp)
	head := strings.Fields(strings.SplitN(out, "head ", 2)[1])[0]
	data, _ := os.ReadFile(exp)
	lines := bytes.SplitAfter(data, []byte("\n"))
	lines = lines[:len(lines)-1]
	if len(lines) != 10001 {
		t.Fatalf("%d lines", len(lines))
	}
	anchor, _ := snapshot.ParseID(head)
	check := func(name string, b []byte, anchored bool) {
		t.Helper()
		a := snapshot.ID{}
		if anchored {
			a = anchor
		}
		if _, err := audit.VerifyExport(bytes.NewReader(b), a, nil); err == nil {
			t.Errorf("%s: not caught", name)
		}
	}
	// Every byte of the first two records, a sample of the head line's, and 20 random bytes.
	rng := rand.New(rand.NewPCG(3, 4))
	var positions []int
	for i := 0; i < len(lines[0])+len(lines[1]); i++ {
		positions = append(positions, i)
	}
	for i := len(data) - len(lines[10000]); i < len(data); i += 30 {
		positions = append(positions, i)
	}
	for i := 0; i < 20; i++ {
		positions = append(positions, rng.IntN(len(data)))
	}
	buf := append([]byte(nil), data...)
	for _, pos := range positions {
		bit := byte(1 << rng.IntN(8))
		buf[pos] ^= bit
		check(fmt.Sprintf("flip byte %d", pos), buf, false)
		buf[pos] ^= bit
	}
	join := func(ls [][]byte) []byte { return bytes.Join(ls, nil) }
	without := func(i int) [][]byte { return append(append([][]byte{}, lines[:i]...), lines[i+1:]...) }
	for _, i := range []int{0, 1, 4999, 9998, 9999, 10000} {
		check(fmt.Sprintf("delete line %d", i+1), join(without(i)), false)
	}
	for _, p := range [][2]int{{0, 1}, {100, 5000}, {9998, 9999}} {
		ls := append([][]byte{}, lines...)
		ls[p[0]], ls[p[1]] = ls[p[1]], ls[p[0]]
		check(fmt.Sprintf("swap lines %d and %d", p[0]+1, p[1]+1), join(ls), false)
	}
	for _, cut := range []int{1, 17, len(lines[10000]) + 5, len(data) / 2} {
		check(fmt.Sprintf("cut the last %d bytes", cut), data[:len(data)-cut], false)
	}
	// Drop the last 10 records and forge a consistent head line: only the anchor catches it.
	var rep audit.ExportHead
	forged := join(lines[:9990])
	var h bytes.Buffer
	if _, err := audit.VerifyExport(io.MultiReader(bytes.NewReader(forged), bytes.NewReader(forgeHead(t, lines[9989], &rep))), snapshot.ID{}, nil); err != nil {
		t.Fatalf("forged head not consistent, the test is wrong: %v", err)
	}
	h.Write(forged)
	h.Write(forgeHead(t, lines[9989], &rep))
	check("truncate 10 records and forge the head", h.Bytes(), true)
	p := filepath.Join(dir, "forged.jsonl")
	os.WriteFile(p, h.Bytes(), 0o644)
	if r := run(t, dir, "verify", "--export", p, "--anchor", head); r.code == 0 || !strings.Contains(r.stderr, "anchor") {
		t.Fatalf("binary missed the truncation: %+v", r)
	}
	buf[len(data)/2] ^= 1
	os.WriteFile(p, buf, 0o644)
	if r := run(t, dir, "verify", "--export", p); r.code == 0 || !strings.Contains(r.stderr, "export line") {
		t.Fatalf("binary missed a flipped byte: %+v", r)
	}
}

// forgeHead writes the head line an attacker would write after dropping the records after last.
func forgeHead(t *testing.T, last []byte, h *audit.ExportHead) []byte {
	t.Helper()
	var rec audit.ExportRecord
	if err := json.Unmarshal(last, &rec); err != nil {
		t.Fatal(err)
	}
	*h = audit.ExportHead{Type: "head", Version: audit.ExportVersion, Events: int(rec.Seq), First: 1, Last: rec.Seq, Head: rec.Hash}
	b, _ := json.Marshal(h)
	return append(b, '\n')
}
