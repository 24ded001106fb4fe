package journal_test

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/journaltest"
	"github.com/journalfs/journal/snapshot"
	bolt "go.etcd.io/bbolt"
)

func create(t testing.TB) *journal.Journal { return journaltest.Create(t) }

func appendN(t testing.TB, j *journal.Journal, n int, session string) {
	journaltest.AppendN(t, j, n, session)
}

func TestOpen_CreatesWithGitignore(t *testing.T) {
	j := create(t)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(j.Path()), ".gitignore"))
	if err != nil || string(b) != "*\n" {
		t.Fatalf("gitignore %q %v", b, err)
	}
	entries, _ := os.ReadDir(filepath.Dir(j.Path()))
	if len(entries) != 2 {
		t.Fatalf("stray files: %v", entries)
	}
}

func TestOpen_Missing(t *testing.T) {
	_, err := journal.Open(filepath.Join(t.TempDir(), "nope", "journal.db"), journal.Options{})
	if !errors.Is(err, journal.ErrNotFound) {
		t.Fatalf("got %v", err)
	}
}

func TestOpen_ReadOnlyFileSystem(t *testing.T) {
	dir := t.TempDir()
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a read-only tmpfs")
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount tmpfs here: %v %s", err, out)
	}
	defer exec.Command("umount", dir).Run()
	_, err := journal.Open(filepath.Join(dir, journal.DirName, journal.FileName), journal.Options{Create: true})
	if !errors.Is(err, syscall.EROFS) {
		t.Fatalf("got %v, want EROFS", err)
	}
}

func TestOpen_NoSpace(t *testing.T) {
	dir := t.TempDir()
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a small tmpfs")
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount tmpfs here: %v %s", err, out)
	}
	defer exec.Command("umount", dir).Run()
	j, err := journal.Open(filepath.Join(dir, journal.DirName, journal.FileName), journal.Options{Create: true})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	big := make([]byte, 1<<20)
	rand.Read(big)
	err = j.Do(func(db *journal.DB) error {
		return db.Update(func(tx *journal.Tx) error {
			_, err := snapshot.PutTx(tx.Bolt(), big)
			return err
		})
	})
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("got %v, want ENOSPC", err)
	}
	// The journal is still usable for small writes.
	appendN(t, j, 1, "s")
}

func TestAppend_ChainAndIteration(t *testing.T) {
	j := create(t)
	appendN(t, j, 50, "a")
	appendN(t, j, 10, "b")
	err := j.View(func(tx *journal.Tx) error {
		if tx.Last() != 60 {
			t.Fatalf("last %d", tx.Last())
		}
		r, err := tx.Verify(true, nil)
		if err != nil || r.Events != 60 {
			t.Fatalf("verify %+v %v", r, err)
		}
		var fw, bw []uint64
		tx.Each(25, false, func(e *journal.Event) error {
			fw = append(fw, e.Seq)
			if len(fw) == 3 {
				return journal.ErrStop
			}
			return nil
		})
		tx.Each(25, true, func(e *journal.Event) error {
			bw = append(bw, e.Seq)
			if len(bw) == 3 {
				return journal.ErrStop
			}
			return nil
		})
		if fmt.Sprint(fw) != "[25 26 27]" || fmt.Sprint(bw) != "[25 24 23]" {
			t.Fatalf("forward %v backward %v", fw, bw)
		}
		var last []uint64
		tx.Each(0, true, func(e *journal.Event) error { last = append(last, e.Seq); return journal.ErrStop })
		if last[0] != 60 {
			t.Fatalf("backward from newest %v", last)
		}
		var byPath, bySession []uint64
		tx.EachIndexed("path", "f1.txt", func(e *journal.Event) error { byPath = append(byPath, e.Seq); return nil })
		tx.EachIndexed("session", "b", func(e *journal.Event) error { bySession = append(bySession, e.Seq); return nil })
		if len(byPath) != 20 || byPath[0] != 58 || len(bySession) != 10 || bySession[0] != 60 || bySession[9] != 51 {
			t.Fatalf("by path %v by session %v", byPath, bySession)
		}
		if h, ok := tx.Head("f2.txt"); !ok || h.Seq != 59 {
			t.Fatalf("head %+v", h)
		}
		n := 0
		tx.Sessions(func(s journal.Session) error { n += s.Count; return nil })
		if n != 60 {
			t.Fatalf("sessions count %d", n)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestAppend_AfterPendingRefused(t *testing.T) {
	j := create(t)
	err := j.Do(func(db *journal.DB) error {
		return db.Update(func(tx *journal.Tx) error {
			if err := tx.Append(&journal.Event{Kind: journal.KindApply}); err != nil {
				return err
			}
			return tx.Append(&journal.Event{Kind: journal.KindApply})
		})
	})
	if !errors.Is(err, journal.ErrState) {
		t.Fatalf("got %v", err)
	}
}

// tamper rewrites the raw record of event seq.
func tamper(t *testing.T, j *journal.Journal, seq uint64, fn func(rec []byte) []byte) {
	t.Helper()
	db, err := bolt.Open(j.Path(), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte("events"))
		k := make([]byte, 8)
		k[7] = byte(seq)
		rec := fn(append([]byte{}, b.Get(k)...))
		if rec == nil {
			return b.Delete(k)
		}
		return b.Put(k, rec)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestVerify_DetectsTampering(t *testing.T) {
	cases := map[string]func(rec []byte) []byte{
		"flip body byte": func(r []byte) []byte { r[len(r)/2] ^= 1; return r },
		"torn record":    func(r []byte) []byte { return r[:3] },
		"truncated body": func(r []byte) []byte { return r[:len(r)-4] },
		"deleted":        func(r []byte) []byte { return nil },
		"rehashed edit": func(r []byte) []byte { // a forger who fixes the CRC but cannot fix the chain
			e, _ := journal.Decode(r)
			e.Tool = "forged"
			out, _ := journal.Encode(e)
			return out
		},
	}
	for name, fn := range cases {
		t.Run(name, func(t *testing.T) {
			j := create(t)
			appendN(t, j, 20, "s")
			tamper(t, j, 7, fn)
			err := j.View(func(tx *journal.Tx) error { _, err := tx.Verify(false, nil); return err })
			if !errors.Is(err, journal.ErrCorrupt) {
				t.Fatalf("got %v", err)
			}
			if want := "event 7"; !contains(err.Error(), want) {
				t.Fatalf("error %q does not name %s", err, want)
			}
			err = j.View(func(tx *journal.Tx) error { _, err := tx.Event(7); return err })
			if name != "rehashed edit" && err == nil {
				t.Fatal("reading the bad record succeeded")
			}
		})
	}
}

func contains(s, sub string) bool {
	return len(s) >= len(sub) && (s == sub || len(sub) == 0 || indexOf(s, sub) >= 0)
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

// The note outlives the Do that wrote it (and the handle: another Journal on
// the same file reads it), is replaced by the next SetNote, and reads as
// absent when there is none or its length prefix is garbage.
func TestNote_SurvivesAndReplaces(t *testing.T) {
	path := filepath.Join(t.TempDir(), journal.DirName, journal.FileName)
	j, err := journal.Open(path, journal.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	note := func(j *journal.Journal) (got []byte) {
		t.Helper()
		if err := j.Do(func(db *journal.DB) (err error) { got, err = db.Note(); return }); err != nil {
			t.Fatal(err)
		}
		return got
	}
	set := func(b string) {
		t.Helper()
		if err := j.Do(func(db *journal.DB) error { return db.SetNote([]byte(b)) }); err != nil {
			t.Fatal(err)
		}
	}
	if got := note(j); got != nil {
		t.Fatalf("fresh journal: note %q", got)
	}
	set("a longer first note")
	set("second")
	other, err := journal.Open(path, journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(note(other)); got != "second" {
		t.Fatalf("note = %q, want the last one", got)
	}
	if err := os.WriteFile(path+".lock", []byte{0xff, 0xff, 0xff, 0xff, 'x'}, 0o600); err != nil {
		t.Fatal(err)
	}
	if got := note(j); got != nil {
		t.Fatalf("garbage length: note %q", got)
	}
	if err := os.WriteFile(path+".lock", []byte{0, 0, 0, 9, 'x'}, 0o600); err != nil {
		t.Fatal(err)
	}
	if got := note(j); got != nil {
		t.Fatalf("torn note: %q", got)
	}
}

// TestEventsFill: the events bucket, written in key order, fills its pages
// (appendFill): 77 % here with one committed event per transaction (98 %
// through the engine, which seals each event in the next transaction),
// where bbolt's default leaves them 43 % full.
func TestEventsFill(t *testing.T) {
	j, err := journal.Open(filepath.Join(t.TempDir(), "journal.db"), journal.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	appendEach(t, j, 2000) // one event per transaction, as a server appends them
	if err := j.View(func(tx *journal.Tx) error {
		st := tx.Bolt().Bucket([]byte("events")).Stats()
		if fill := float64(st.LeafInuse) / float64(st.LeafAlloc); fill < 0.7 {
			t.Fatalf("events pages %.0f %% full (%d of %d bytes; %d keys, %d leaf pages, %d overflow)", 100*fill, st.LeafInuse, st.LeafAlloc, st.KeyN, st.LeafPageN, st.LeafOverflowN)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// TestCheck_Freelist: a freelist that lists a live page (a commit would
// write over it) is damage: the check names it and no write goes ahead.
func TestCheck_Freelist(t *testing.T) {
	p := filepath.Join(t.TempDir(), "journal.db")
	j, err := journal.Open(p, journal.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	appendEach(t, j, 50) // transactions free pages
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	ps := int(le.Uint32(b[24:]))
	meta := 0
	if le.Uint64(b[ps+64:]) > le.Uint64(b[64:]) {
		meta = ps
	}
	root, fl := le.Uint64(b[meta+32:]), int(le.Uint64(b[meta+48:]))
	if n := le.Uint16(b[fl*ps+10:]); n == 0 || n == 0xFFFF {
		t.Fatalf("freelist page %d lists %d pages", fl, n)
	}
	le.PutUint64(b[fl*ps+16:], root) // the first free page: the root bucket's
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := j.Check(); !errors.Is(err, journal.ErrDamaged) || !strings.Contains(err.Error(), "listed free but in use") {
		t.Fatalf("check: %v", err)
	}
	wrote := j.Do(func(db *journal.DB) error {
		return db.Update(func(tx *journal.Tx) error {
			return tx.Append(&journal.Event{Kind: journal.KindApply, Status: journal.StatusCommitted, Tool: "t"})
		})
	})
	after, _ := os.ReadFile(p)
	if !errors.Is(wrote, journal.ErrDamaged) || !bytes.Equal(after, b) {
		t.Fatalf("a write on the damaged freelist: %v (file changed: %v)", wrote, !bytes.Equal(after, b))
	}
}

// appendEach appends n committed events to j, one per transaction.
func appendEach(t *testing.T, j *journal.Journal, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		if err := j.Do(func(db *journal.DB) error {
			return db.Update(func(tx *journal.Tx) error {
				return tx.Append(&journal.Event{Kind: journal.KindApply, Status: journal.StatusCommitted, Tool: "t",
					Actor: journal.Actor{Kind: "mcp", Session: "s"}, Files: []journal.FileChange{{Path: fmt.Sprintf("f%d", i%7)}}})
			})
		}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestVerify_FirstBadRecordWins: verify checks contents on workers of its
// own, beside the chain; what it reports is still the first bad record in
// the order of the events — a content of event 10 that was deleted beats a
// broken link at event 300, and the other way round.
func TestVerify_FirstBadRecordWins(t *testing.T) {
	for _, c := range []struct {
		name          string
		content, link uint64 // the event whose content goes, whose record is broken
		want          string
	}{
		{"content first", 10, 300, "event 10: f0.txt"},
		{"link first", 300, 10, "event 10"},
	} {
		t.Run(c.name, func(t *testing.T) {
			j := create(t)
			appendN(t, j, 400, "s1")
			err := j.Do(func(db *journal.DB) error {
				return db.Update(func(tx *journal.Tx) error {
					ev, err := tx.Event(c.content)
					if err != nil {
						return err
					}
					// its manifest, or its chunk (a content of one chunk has no manifest)
					for _, b := range [][]byte{snapshot.BucketContents, snapshot.BucketChunks} {
						if err := tx.Bolt().Bucket(b).Delete(ev.Files[0].After[:]); err != nil {
							return err
						}
					}
					k := binary.BigEndian.AppendUint64(nil, c.link)
					return tx.Bolt().Bucket([]byte("events")).Delete(k)
				})
			})
			if err != nil {
				t.Fatal(err)
			}
			err = j.View(func(tx *journal.Tx) error { _, err := tx.Verify(true, nil); return err })
			if !errors.Is(err, journal.ErrCorrupt) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("verify: %v, want %q", err, c.want)
			}
		})
	}
}
