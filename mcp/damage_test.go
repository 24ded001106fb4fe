package mcp_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/damagetest"
	jmcp "github.com/journalfs/journal/mcp"
	bolt "go.etcd.io/bbolt"
)

// damagedEnv is a workspace with a few journaled edits of a.txt, whose
// journal file damage then changes behind the server's back.
func damagedEnv(t *testing.T, damage func(b []byte, jp string)) *env {
	e := newEnv(t, jmcp.Options{}, "a.txt", "one\ntwo\nthree\n")
	for i, w := range []string{"2", "3", "4", "5"} {
		e.ok("edit_content", map[string]any{"absolute_file_path": filepath.Join(e.dir, "a.txt"),
			"search_text": []string{"one", "2", "3", "4"}[i], "replace_text": w, "preview": false}, nil)
	}
	jp := e.eng.Journal().Path()
	if err := e.eng.FlushSeal(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(jp)
	if err != nil {
		t.Fatal(err)
	}
	damage(b, jp)
	if err := os.WriteFile(jp, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return e
}

// TestDamage_ServerKeepsAnswering: with the journal file damaged, the
// server never panics: reads of workspace files work, journal_status
// reports the damage, and edits are refused with JOURNAL_DAMAGED and change
// nothing.
func TestDamage_ServerKeepsAnswering(t *testing.T) {
	ps := os.Getpagesize()
	for name, damage := range map[string]func(b []byte, jp string){
		"both meta pages": func(b []byte, _ string) {
			for _, off := range []int{16, ps + 16} {
				for i := off; i < off+32; i++ {
					b[i] ^= 0xFF
				}
			}
		},
		"the events' leaf page": func(b []byte, _ string) {
			i := -1
			for _, v := range []byte{6, 5, 3} { // salted compact records, naming their actor by number or in full; unsalted ones
				if i < 0 {
					i = bytes.Index(b, append(binary.BigEndian.AppendUint64(nil, 2), v))
				}
			}
			if i < 0 {
				i = bytes.Index(b, append(binary.BigEndian.AppendUint64(nil, 2), 2)) // a compact one naming it in full
			}
			if i < 0 {
				i = bytes.Index(b, append(binary.BigEndian.AppendUint64(nil, 2), 1)) // a JSON one
			}
			if i < 0 {
				t.Fatal("event 2 not found in the file")
			}
			pg := i / ps
			for k := pg * ps; k < pg*ps+8; k++ {
				b[k] ^= 0xFF
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			e := damagedEnv(t, damage)
			a := filepath.Join(e.dir, "a.txt")
			before := e.read("a.txt")
			var st jmcp.StatusOut
			e.ok("journal_status", map[string]any{}, &st)
			if !strings.Contains(st.Damage, "damaged") {
				t.Fatalf("journal_status says no damage: %+v", st)
			}
			if txt := e.ok("read_content", map[string]any{"absolute_file_path": a}, nil); !strings.Contains(txt, "5") {
				t.Fatalf("read: %s", txt)
			}
			te := e.fail("edit_content", map[string]any{"absolute_file_path": a, "search_text": "5", "replace_text": "6", "preview": false}, jmcp.CodeJournalDamaged)
			if te.Hint == "" || e.read("a.txt") != before {
				t.Fatalf("edit on a damaged journal: %+v, file %q", te, e.read("a.txt"))
			}
			e.fail("file_replace", map[string]any{"ops": []map[string]any{{"path": "a.txt", "content": "x"}}}, jmcp.CodeJournalDamaged)
			e.fail("revert_edit", map[string]any{"absolute_file_path": a}, jmcp.CodeJournalDamaged)
			if e.read("a.txt") != before {
				t.Fatal("a refused call changed the file")
			}
			if d := e.eng.Journal().Damaged(); d == nil {
				t.Fatal("no damage recorded beside the journal")
			}
			var lg jmcp.LogOut
			e.ok("journal_log", map[string]any{}, &lg)
			if len(lg.Damaged) == 0 && lg.FileDamage == "" { // (the CLI's test has events around the damage)
				t.Fatalf("journal_log around the damage: %+v", lg)
			}
			if name == "both meta pages" && (len(lg.Events) < 4 || lg.FileDamage == "") {
				t.Fatalf("journal_log through the rebuilt meta pages: %+v", lg)
			}
		})
	}
}

// TestDamage_ServerMatrix starts a server on a copy of a real journal
// damaged in each class of the CLI's matrix (meta pages, truncation, the
// cycle classes, and pages sampled over the file × header, flags, zeroed,
// elements, data) and calls its tools: the server starts, never panics,
// reads of workspace files and journal_status always answer, journal_log
// and the mutating tools either work or fail with JOURNAL_DAMAGED and a
// hint, and a failed call changes no file.
func TestDamage_ServerMatrix(t *testing.T) {
	tmpl := newEnv(t, jmcp.Options{}, "a.txt", "one\n", "b.txt", "zero\n")
	for i := 0; i < 120; i++ {
		name := []string{"a.txt", "b.txt"}[i%2]
		tmpl.ok("file_replace", map[string]any{"ops": []map[string]any{{"path": name, "content": strings.Repeat(fmt.Sprintf("version %d\n", i), 1+i%7)}}}, nil)
	}
	var last uint64
	if err := tmpl.eng.Journal().View(func(tx *journal.Tx) error { last = tx.Last(); return nil }); err != nil {
		t.Fatal(err)
	}
	if err := tmpl.eng.Close(); err != nil {
		t.Fatal(err)
	}
	orig, err := os.ReadFile(filepath.Join(tmpl.dir, ".journal", "journal.db"))
	if err != nil {
		t.Fatal(err)
	}
	a, b := tmpl.read("a.txt"), tmpl.read("b.txt")
	ps := os.Getpagesize()
	all := damagetest.Classes(orig, ps)
	ds := damagetest.Sample(all, len(orig), ps, 6)
	for _, d := range all {
		if strings.Contains(d.Name, "points back") || strings.Contains(d.Name, "without elements") || strings.Contains(d.Name, "rooted") {
			ds = append(ds, d)
		}
	}
	refused := 0
	for _, d := range ds {
		t.Run(d.Name, func(t *testing.T) {
			e := newEnv(t, jmcp.Options{}, "a.txt", a, "b.txt", b, ".journal/journal.db", string(d.Apply(append([]byte(nil), orig...))))
			try := func(name string, args map[string]any) bool {
				res := e.call(nil, name, args)
				txt := text(res)
				if strings.Contains(txt, "panic") {
					t.Fatalf("%s: %s", name, txt)
				}
				if !res.IsError {
					return true
				}
				te, _ := jmcp.ParseToolError(txt)
				if te.Code != jmcp.CodeJournalDamaged || te.Hint == "" {
					t.Fatalf("%s failed without JOURNAL_DAMAGED and a hint: %s", name, txt)
				}
				refused++
				return false
			}
			pa := filepath.Join(e.dir, "a.txt")
			if !try("journal_status", map[string]any{}) {
				t.Fatal("journal_status failed")
			}
			if txt := e.ok("read_content", map[string]any{"absolute_file_path": pa}, nil); !strings.Contains(txt, "version") {
				t.Fatalf("read_content: %s", txt)
			}
			try("journal_log", map[string]any{})
			if !try("file_replace", map[string]any{"ops": []map[string]any{{"path": "a.txt", "content": "new\n"}}}) && e.read("a.txt") != a {
				t.Fatal("a refused edit changed the file")
			}
			now := e.read("b.txt")
			if !try("revert_edit", map[string]any{"absolute_file_path": filepath.Join(e.dir, "b.txt"), "backup_id": fmt.Sprint(last)}) && e.read("b.txt") != now {
				t.Fatal("a refused revert changed the file")
			}
		})
	}
	if refused < len(ds)/2 {
		t.Fatalf("only %d refusals over %d damaged journals: is the damage reaching the server?", refused, len(ds))
	}
	t.Logf("%d damage classes, %d calls refused with JOURNAL_DAMAGED", len(ds), refused)
}

// TestJournalTooNew: a newer binary (the CLI, upgraded) marks the journal
// with a format this server does not read; the next edit is refused with
// JOURNAL_TOO_NEW and a hint that says to run the newer binary, and the file
// is left as it was.
func TestJournalTooNew(t *testing.T) {
	e := newEnv(t, jmcp.Options{}, "a.txt", "one\ntwo\n")
	a := filepath.Join(e.dir, "a.txt")
	e.ok("edit_content", map[string]any{"absolute_file_path": a, "search_text": "one", "replace_text": "1", "preview": false}, nil)
	if err := e.eng.FlushSeal(); err != nil {
		t.Fatal(err)
	}
	db, err := bolt.Open(e.eng.Journal().Path(), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket([]byte("meta")).Put([]byte("format"), []byte{journal.Format + 1})
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	te := e.fail("edit_content", map[string]any{"absolute_file_path": a, "search_text": "two", "replace_text": "2", "preview": false}, jmcp.CodeJournalTooNew)
	if !strings.Contains(te.Hint, "newer journal binary") || e.read("a.txt") != "1\ntwo\n" {
		t.Fatalf("edit on a journal of a newer format: %+v, file %q", te, e.read("a.txt"))
	}
}
