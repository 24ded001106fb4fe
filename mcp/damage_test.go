package mcp_test

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	jmcp "github.com/journalfs/journal/mcp"
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
			i := bytes.Index(b, append(binary.BigEndian.AppendUint64(nil, 2), 1))
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
			if name == "both meta pages" {
				e.fail("journal_log", map[string]any{}, jmcp.CodeJournalDamaged)
				return
			}
			var lg jmcp.LogOut
			e.ok("journal_log", map[string]any{}, &lg)
			if len(lg.Damaged) == 0 { // (the CLI's test has events around the damage)
				t.Fatalf("journal_log around the damage: %+v", lg)
			}
		})
	}
}
