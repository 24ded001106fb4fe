package reliability

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/snapshot"
)

// TestOutside_ChangesBehindTheServer makes random changes behind a running
// server's back (new content, same size with the mtime restored, delete,
// replace by a symlink, chmod) and then edits or reverts through it: each
// content change is journaled as an observe event with its content stored, a
// symlink is never written through, a mode survives the next edit, and a
// revert of the edit gives back the outside content.
func TestOutside_ChangesBehindTheServer(t *testing.T) {
	n := scale("OUTSIDE", 100, 1000)
	root := t.TempDir()
	rng := rand.New(rand.NewSource(42))
	files := []string{"a.txt", "b.txt", "d/c.txt"}
	for _, p := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755)
		os.WriteFile(filepath.Join(root, p), []byte("v0 "+p+"\n"), 0o644)
	}
	os.WriteFile(filepath.Join(root, "target.txt"), []byte("link target\n"), 0o644)
	s := mustStart(t, root, "outside")
	want := map[snapshot.ID]string{} // outside contents that must be journaled as observed
	kinds := map[string]int{}
	reverted := 0
	for i := 0; i < n; i++ {
		p := files[rng.Intn(len(files))]
		abs := filepath.Join(root, p)
		// Make sure the server knows the file (an edit through it).
		if _, err := os.Lstat(abs); err != nil {
			os.Remove(abs)
			r, _ := s.call("file_create_new", map[string]any{"ops": []map[string]any{{"path": p, "content": fmt.Sprintf("re %d\n", i)}}})
			if r == nil || r.IsError {
				t.Fatalf("recreate %s: %+v", p, r)
			}
		}
		switch k := rng.Intn(5); k {
		case 0, 1: // new content, or the same size with the mtime put back
			old, _ := os.ReadFile(abs)
			fi, _ := os.Stat(abs)
			var b []byte
			if k == 0 {
				b = []byte(fmt.Sprintf("outside %d %d\n", i, rng.Int()))
				kinds["content"]++
			} else {
				b = bytes.Clone(old)
				i := rng.Intn(len(b))
				b[i] = byte('A' + (int(b[i])+1+rng.Intn(20))%26)
				if bytes.Equal(b, old) {
					continue
				}
				kinds["same_size_mtime_restored"]++
			}
			os.WriteFile(abs, b, fi.Mode().Perm())
			if k == 1 {
				os.Chtimes(abs, fi.ModTime(), fi.ModTime())
			}
			want[snapshot.Sum(b)] = fmt.Sprintf("%s (change %d, kind %d)", p, i, k)
			r, err := s.call("file_replace", map[string]any{"ops": []map[string]any{{"path": p, "content": fmt.Sprintf("agent %d\n", i)}}})
			if err != nil || r.IsError {
				t.Fatalf("replace %s after outside change: %v %+v", p, err, r)
			}
			if rng.Intn(2) == 0 { // revert the agent's edit: the outside content comes back
				ev := r.Structured["event"]
				rr, err := s.call("revert_edit", map[string]any{"absolute_file_path": p, "backup_id": fmt.Sprint(ev)})
				if err != nil || rr.IsError {
					t.Fatalf("revert: %v %+v", err, rr)
				}
				if got, _ := os.ReadFile(abs); !bytes.Equal(got, b) {
					t.Fatalf("revert of event %v gave %q, want the outside content %q", ev, got, b)
				}
				reverted++
			}
		case 2: // delete, then create through the server
			kinds["delete"]++
			os.Remove(abs)
			r, err := s.call("file_create_new", map[string]any{"ops": []map[string]any{{"path": p, "content": fmt.Sprintf("new %d\n", i)}}})
			if err != nil || r.IsError {
				t.Fatalf("create after delete: %v %+v", err, r)
			}
		case 3: // replace by a symlink: never written through
			kinds["symlink"]++
			old, _ := os.ReadFile(abs)
			want[snapshot.Sum(old)] = "" // not outside; nothing to check
			delete(want, snapshot.Sum(old))
			os.Remove(abs)
			os.Symlink(filepath.Join(root, "target.txt"), abs)
			r, err := s.call("file_replace", map[string]any{"ops": []map[string]any{{"path": p, "content": "through the link\n"}}})
			if err != nil || !r.IsError || r.Err.Code != "INVALID_INPUT" {
				t.Fatalf("edit through a symlink: %v %+v", err, r)
			}
			if b, _ := os.ReadFile(filepath.Join(root, "target.txt")); string(b) != "link target\n" {
				t.Fatalf("the link's target was written: %q", b)
			}
			if l, err := os.Readlink(abs); err != nil || l != filepath.Join(root, "target.txt") {
				t.Fatalf("the link was replaced: %q %v", l, err)
			}
			os.Remove(abs) // the next round recreates the file through the server
		case 4: // chmod: kept by the next edit
			kinds["chmod"]++
			os.Chmod(abs, 0o600)
			r, err := s.call("file_insert_text", map[string]any{"ops": []map[string]any{{"path": p, "content": "more", "at": "eof"}}})
			if err != nil || r.IsError {
				t.Fatalf("insert after chmod: %v %+v", err, r)
			}
			if fi, _ := os.Stat(abs); fi.Mode().Perm() != 0o600 {
				t.Fatalf("mode %v after an edit, want 0600", fi.Mode().Perm())
			}
		}
	}
	s.close()
	j, err := journal.Open(filepath.Join(root, journal.DirName, journal.FileName), journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	observed := map[snapshot.ID]bool{}
	observes := 0
	firstContact := map[snapshot.ID]bool{}
	err = j.View(func(tx *journal.Tx) error {
		if _, err := tx.Verify(true, nil); err != nil {
			return err
		}
		return tx.Each(0, false, func(ev *journal.Event) error {
			for _, f := range ev.Files {
				firstContact[f.Before] = true // a file the journal never saw: its content is the event's before
			}
			if ev.Kind == journal.KindObserve {
				observes++
				for _, f := range ev.Files {
					if !f.After.IsZero() {
						if _, err := snapshot.Bytes(tx.Bolt(), f.After); err != nil {
							return fmt.Errorf("observed content of %s not stored: %w", f.Path, err)
						}
					}
					observed[f.After] = true
				}
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	lost, first := 0, 0
	for id, p := range want {
		if !observed[id] && firstContact[id] {
			first++
			continue
		}
		if !observed[id] {
			lost++
			t.Errorf("outside content %s of %s was not journaled as observed", id.Short(), p)
		}
	}
	figures(t, map[string]any{"changes": n, "by_kind": kinds, "content_changes_to_observe": len(want), "observe_events": observes,
		"lost": lost, "stored_as_before_of_first_edit": first, "reverts_restoring_outside_content": reverted})
}
