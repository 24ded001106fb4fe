package mcp_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/journalfs/journal/journal"
	jmcp "github.com/journalfs/journal/mcp"
	"github.com/journalfs/journal/replay"
)

// aheadEnv is an env whose engine runs meddle (if set) when a plan that
// ran ahead of the journal's lock is done (the "planned" step), and which
// can make the journal busy: another handle holds it until the plan ran
// ahead, as another server's batch would.
type aheadEnv struct {
	*env
	planned atomic.Int64
	meddle  func()
	release chan struct{}
	once    sync.Once
}

func newAheadEnv(t *testing.T, files ...string) *aheadEnv {
	t.Helper()
	a := &aheadEnv{}
	dir := t.TempDir()
	for i := 0; i+1 < len(files); i += 2 {
		write(t, dir, files[i], files[i+1])
	}
	eng, err := replay.Open(replay.Options{Roots: []string{dir}, Fault: func(step, path string) error {
		if step == "planned" {
			a.planned.Add(1)
			if a.meddle != nil {
				a.meddle()
			}
			a.free()
		}
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	srv := jmcp.New(eng, jmcp.Options{})
	a.env = &env{t: t, dir: dir, eng: eng, srv: srv}
	a.env.c = connect(t, srv, nil)
	return a
}

// busy makes the journal busy until a plan ran ahead (or 5 s passed).
func (a *aheadEnv) busy() {
	a.t.Helper()
	other, err := journal.Open(a.eng.Journal().Path(), journal.Options{})
	if err != nil {
		a.t.Fatal(err)
	}
	a.release, a.once = make(chan struct{}), sync.Once{}
	held := make(chan struct{})
	go other.Do(func(db *journal.DB) error {
		close(held)
		select {
		case <-a.release:
		case <-time.After(5 * time.Second):
		}
		return nil
	})
	<-held
}

func (a *aheadEnv) free() { a.once.Do(func() { close(a.release) }) }

// TestEditAhead_AppliesWhatWasPlanned: with the journal busy, edit_content
// and a batch tool plan while they wait, and apply that plan once the
// journal is theirs (the file unchanged meanwhile).
func TestEditAhead_AppliesWhatWasPlanned(t *testing.T) {
	a := newAheadEnv(t, "a.go", "package a\n\nfunc A() int { return 1 }\n", "b.txt", "one\ntwo\n")
	a.busy()
	var out jmcp.EditOut
	a.ok("edit_content", map[string]any{"absolute_file_path": filepath.Join(a.dir, "a.go"), "search_text": "return 1", "replace_text": "return 2", "preview": false}, &out)
	if got := a.read("a.go"); got != "package a\n\nfunc A() int { return 2 }\n" {
		t.Fatalf("a.go = %q", got)
	}
	a.busy()
	a.ok("file_insert_text", map[string]any{"ops": []map[string]any{{"path": "b.txt", "at": "eof", "content": "three\n"}}}, nil)
	if got := a.read("b.txt"); got != "one\ntwo\nthree\n" {
		t.Fatalf("b.txt = %q", got)
	}
	if n := a.planned.Load(); n != 2 {
		t.Fatalf("%d plans ran ahead, want 2", n)
	}
	// free at once: nothing runs ahead
	a.ok("edit_content", map[string]any{"absolute_file_path": filepath.Join(a.dir, "a.go"), "search_text": "return 2", "replace_text": "return 3", "preview": false}, &out)
	if n := a.planned.Load(); n != 2 {
		t.Fatalf("a plan ran ahead of a free journal")
	}
	verifyJournal(t, a.env)
}

// TestEditAhead_FileChangedMeanwhile: a file a plan read while it waited
// changes before the journal is its (another writer): the plan runs again
// on the file as it is then — never applied as planned, which would drop
// the other writer's change — or refuses when its edit no longer fits.
func TestEditAhead_FileChangedMeanwhile(t *testing.T) {
	a := newAheadEnv(t, "a.go", "package a\n\nfunc A() int { return 1 }\n", "src.txt", "one\ntwo\nthree\n", "dst.txt", "a\nb\n")
	p := filepath.Join(a.dir, "a.go")

	// edited meanwhile, the search still matches: applied to the new content
	a.meddle = func() { os.WriteFile(p, []byte("package a\n\nfunc A() int { return 1 }\n\nfunc B() {}\n"), 0o644) }
	a.busy()
	a.ok("edit_content", map[string]any{"absolute_file_path": p, "search_text": "return 1", "replace_text": "return 2", "preview": false}, nil)
	if got := a.read("a.go"); got != "package a\n\nfunc A() int { return 2 }\n\nfunc B() {}\n" {
		t.Fatalf("a.go = %q: the other writer's change was lost or the edit missed", got)
	}

	// edited meanwhile, the search no longer matches: refused, the other writer's content kept
	a.meddle = func() { os.WriteFile(p, []byte("package a\n\nfunc A() int { return 7 }\n"), 0o644) }
	a.busy()
	res := a.call(nil, "edit_content", map[string]any{"absolute_file_path": p, "search_text": "return 2", "replace_text": "return 3", "preview": false})
	if !res.IsError || !strings.Contains(text(res), "return 2") {
		t.Fatalf("want a refusal naming the search text, got %s", text(res))
	}
	if got := a.read("a.go"); got != "package a\n\nfunc A() int { return 7 }\n" {
		t.Fatalf("a.go = %q", got)
	}

	// a batch's source file (read, not changed) changed meanwhile: what is
	// pasted is the source as it is when the batch applies
	a.meddle = func() { os.WriteFile(filepath.Join(a.dir, "src.txt"), []byte("one\nTWO\nthree\n"), 0o644) }
	a.busy()
	a.ok("file_copy_paste_text", map[string]any{"ops": []map[string]any{{"source_path": "src.txt", "source_start_line": 2, "source_end_line": 2, "target_path": "dst.txt", "target_line": 1}}}, nil)
	if got := a.read("dst.txt"); strings.Contains(got, "two") || !strings.Contains(got, "TWO") {
		t.Fatalf("dst.txt = %q: pasted the source as planned ahead, not as it is", got)
	}
	if n := a.planned.Load(); n != 3 {
		t.Fatalf("%d plans ran ahead, want 3", n)
	}
	verifyJournal(t, a.env, "a.go") // the refused edit's file, changed by the other writer
}

// verifyJournal checks the journal's chain and contents, and that every
// file but those changed outside since (outside) holds its journaled head
// (another writer's change was observed before the edit that followed it).
func verifyJournal(t *testing.T, e *env, outside ...string) {
	t.Helper()
	if err := e.eng.FlushSeal(); err != nil {
		t.Fatal(err)
	}
	if err := e.eng.Journal().View(func(tx *journal.Tx) error { _, err := tx.Verify(true, nil); return err }); err != nil {
		t.Fatalf("verify: %v", err)
	}
	st, err := e.eng.Status()
	if err != nil {
		t.Fatal(err)
	}
	var changed []string
	for _, d := range st.Changed {
		changed = append(changed, d.Path)
	}
	if strings.Join(changed, " ") != strings.Join(outside, " ") || len(st.Pending) > 0 {
		t.Fatalf("status: changed %v (want %v), pending %v", changed, outside, st.Pending)
	}
}
