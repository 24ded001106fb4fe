package replay_test

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay"
)

// contentWorld drives a file through an agent's tool calls, a person's CLI
// edits and outside changes (git, recorded by Observe), as blame by content
// must read them.
type contentWorld struct {
	t   *testing.T
	dir string
	e   *replay.Engine
}

var (
	agentA = &journal.Actor{Kind: "mcp", Name: "claude-code", Session: "sA"}
	person = &journal.Actor{Kind: "cli", User: "alice", Origin: "cli"}
)

func (w *contentWorld) tool(actor *journal.Actor, path, data string) uint64 {
	w.t.Helper()
	res, err := w.e.Apply(ctx, &replay.Batch{Tool: "edit", Actor: actor, Changes: []replay.Change{{Path: path, Data: []byte(data)}}})
	if err != nil {
		w.t.Fatal(err)
	}
	return res.Seq
}

// outside writes (or with data "" deletes) path behind the tools and
// records it as git's change.
func (w *contentWorld) outside(path, data string) uint64 {
	w.t.Helper()
	p := filepath.Join(w.dir, path)
	if data == "" {
		if err := os.Remove(p); err != nil {
			w.t.Fatal(err)
		}
	} else {
		write(w.t, w.dir, path, data)
	}
	ob, err := w.e.Observe(ctx, replay.Observation{Paths: []string{path}, Tool: journal.ToolWatch})
	if err != nil || len(ob.Events) != 1 {
		w.t.Fatalf("observe %s: %+v %v", path, ob, err)
	}
	return ob.Events[0]
}

func (w *contentWorld) blame(path string) []uint64 {
	w.t.Helper()
	got, _, err := blameOf(w.t, w.e, path, 0)
	if err != nil {
		w.t.Fatal(err)
	}
	return got
}

func (w *contentWorld) content(path string, data string, also ...string) []uint64 {
	w.t.Helper()
	var b *replay.Blame
	err := w.e.Journal().View(func(tx *journal.Tx) (err error) {
		b, err = replay.BlameContent(tx, path, []byte(data), also...)
		return
	})
	if err != nil {
		w.t.Fatal(err)
	}
	var out []uint64
	for _, l := range b.Lines {
		out = append(out, l.Seq)
		if l.Seq != 0 && b.Events[l.Seq] == nil {
			w.t.Fatalf("line owned by event %d, which Events lacks", l.Seq)
		}
	}
	return out
}

// TestBlame_ByContent: an outside change that puts back lines the file held
// keeps who wrote them — a checkout round trip, a stash and its pop, a file
// deleted and made again, part of a block; only lines new to the file are
// the change's. Exact content only, and fail closed: a text two authors
// wrote proves neither, and a brace alone proves nothing.
func TestBlame_ByContent(t *testing.T) {
	w := &contentWorld{t: t, dir: t.TempDir()}
	w.e = open(t, w.dir)
	v1 := "package app\n\nfunc main() {\n\tprintln(\"hello\")\n}\n"
	c1 := w.tool(person, "app.go", v1)
	v2 := "package app\n\nfunc main() {\n\tprintln(\"hello\")\n\tagentLine1()\n\tagentLine2()\n}\n"
	a1 := w.tool(agentA, "app.go", v2)
	want := []uint64{c1, c1, c1, c1, a1, a1, c1}
	if got := w.blame("app.go"); !slices.Equal(got, want) {
		t.Fatalf("before git: %v, want %v", got, want)
	}

	// git checkout HEAD~1 && git checkout main: the file goes back, then forth
	co1 := w.outside("app.go", v1)
	if got := w.blame("app.go"); !slices.Equal(got, []uint64{c1, c1, c1, c1, c1}) {
		t.Fatalf("after checkout HEAD~1: %v", got)
	}
	w.outside("app.go", v2)
	if got := w.blame("app.go"); !slices.Equal(got, want) {
		t.Fatalf("after the round trip: %v, want %v (the checkout %d must not own the agent's lines)", got, want, co1)
	}

	// git stash (file back to v1), a person edits, git stash pop merges the
	// agent's lines back beside the person's
	w.outside("app.go", v1)
	p2 := w.tool(person, "app.go", "// Package app.\npackage app\n\nfunc main() {\n\tprintln(\"hello\")\n}\n")
	pop := w.outside("app.go", "// Package app.\npackage app\n\nfunc main() {\n\tprintln(\"hello\")\n\tagentLine1()\n\tagentLine2()\n\tbrandNewLine()\n}\n")
	if got, want := w.blame("app.go"), []uint64{p2, c1, c1, c1, c1, a1, a1, pop, c1}; !slices.Equal(got, want) {
		t.Fatalf("after stash pop: %v, want %v", got, want)
	}

	// deleted (a checkout of a branch without it) and made again
	w.outside("app.go", "")
	w.outside("app.go", "// Package app.\npackage app\n\nfunc main() {\n\tprintln(\"hello\")\n\tagentLine1()\n\tagentLine2()\n\tbrandNewLine()\n}\n")
	if got, want := w.blame("app.go"), []uint64{p2, c1, c1, c1, c1, a1, a1, pop, c1}; !slices.Equal(got, want) {
		t.Fatalf("after delete and checkout: %v, want %v", got, want)
	}

	// a block: braces and blank lines restored beside the agent's lines
	// they stood with; a brace alone proves nothing
	b1 := w.tool(person, "b.go", "x\n")
	b2 := w.tool(agentA, "b.go", "x\nif agentCond {\n\tagentBody()\n}\n")
	w.outside("b.go", "x\n")
	back := w.outside("b.go", "x\nif agentCond {\n\tagentBody()\n}\n}\n")
	if got, want := w.blame("b.go"), []uint64{b1, b2, b2, b2, back}; !slices.Equal(got, want) {
		t.Fatalf("block: %v, want %v", got, want)
	}

	// the same text written by the agent and by the person: neither is proved
	d1 := w.tool(agentA, "d.go", "sharedText()\n")
	w.tool(person, "d.go", "")
	w.tool(person, "d.go", "sharedText()\n")
	w.outside("d.go", "other()\n")
	re := w.outside("d.go", "other()\nsharedText()\n")
	if got := w.blame("d.go"); got[1] != re {
		t.Fatalf("a text two authors wrote: %v, want line 2 owned by the restoring change %d (not %d)", got, re, d1)
	}

	// a tool's edit writes what it changes: the agent re-adding the
	// person's line owns it
	w.tool(person, "e.go", "personLine()\n")
	w.tool(person, "e.go", "")
	ae := w.tool(agentA, "e.go", "personLine()\n")
	if got := w.blame("e.go"); !slices.Equal(got, []uint64{ae}) {
		t.Fatalf("a tool's own edit: %v, want [%d]", got, ae)
	}
}

// TestBlameContent: a commit's blob that the journal holds exactly takes
// that version's blame; one it does not (a partial commit, a rebase's
// merge) keeps what the history proves, line by line, and the rest is
// unproved (event 0); a rename git reports brings the old path's history.
func TestBlameContent(t *testing.T) {
	w := &contentWorld{t: t, dir: t.TempDir()}
	w.e = open(t, w.dir)
	c1 := w.tool(person, "m.py", "def f():\n    return personValue\n")
	a1 := w.tool(agentA, "m.py", "def f():\n    return personValue\n\ndef g():\n    return agentValue\n")
	a2 := w.tool(agentA, "m.py", "def f():\n    return personValue\n\ndef g():\n    return agentValue\n\ndef h():\n    return laterAgent\n")
	// the blob of a commit made between a1 and a2: the version a1 left
	if got, want := w.content("m.py", "def f():\n    return personValue\n\ndef g():\n    return agentValue\n"), []uint64{c1, c1, a1, a1, a1}; !slices.Equal(got, want) {
		t.Fatalf("exact version: %v, want %v", got, want)
	}
	// a partial commit (git add -p): a2's function without a1's, and a
	// line no one in the journal wrote
	if got, want := w.content("m.py", "def f():\n    return personValue\n\ndef h():\n    return laterAgent\n# typed before the commit\n"), []uint64{c1, c1, a1, a2, a2, 0}; !slices.Equal(got, want) {
		t.Fatalf("partial commit: %v, want %v", got, want)
	}
	// git mv m.py n.py with an edit: n.py unknown to the journal, the old
	// path's history proves its lines
	if got, want := w.content("n.py", "def f():\n    return personValue\n\ndef g():\n    return agentValue\n    # moved\n", "m.py"), []uint64{c1, c1, a1, a1, a1, 0}; !slices.Equal(got, want) {
		t.Fatalf("moved: %v, want %v", got, want)
	}
	// git mv seen by the journal as a create and a delete (two outside
	// changes): the new path's own history starts with the outside create,
	// which the old path's history proves
	o1 := w.tool(agentA, "old.py", "def moved():\n    return agentMoved\n")
	w.outside("new.py", "def moved():\n    return agentMoved\n")
	w.outside("old.py", "")
	if got, want := w.content("new.py", "def moved():\n    return agentMoved\n# after the move\n", "old.py"), []uint64{o1, o1, 0}; !slices.Equal(got, want) {
		t.Fatalf("moved as a create and a delete: %v, want %v", got, want)
	}
	// and without git naming the old path: the journal's create and the
	// delete beside it of that very content are a move
	if got, want := w.content("new.py", "def moved():\n    return agentMoved\n# after the move\n"), []uint64{o1, o1, 0}; !slices.Equal(got, want) {
		t.Fatalf("moved, found by content: %v, want %v", got, want)
	}
	if got, want := w.blame("new.py"), []uint64{o1, o1}; !slices.Equal(got, want) {
		t.Fatalf("journal blame of the moved file: %v, want %v", got, want)
	}
	// moved with an edit on the way (a rebase applying a commit's edits
	// through git's rename detection): the create beside the delete holds
	// other content, and its lines the old path's history proves keep
	// their owner, the new one is the change's
	m1 := w.tool(agentA, "p1.py", "def before_move():\n    return agentBeforeMove\n")
	cr := w.outside("p2.py", "def before_move():\n    return agentBeforeMove\nedited_on_the_way()\n")
	w.outside("p1.py", "")
	if got, want := w.blame("p2.py"), []uint64{m1, m1, cr}; !slices.Equal(got, want) {
		t.Fatalf("moved with an edit: %v, want %v", got, want)
	}
	var err error
	w.e.Journal().View(func(tx *journal.Tx) error {
		_, err = replay.BlameContent(tx, "never.py", []byte("x\n"))
		return nil
	})
	if !errors.Is(err, journal.ErrNotFound) {
		t.Fatalf("a file the journal never held: %v", err)
	}
}

// TestBlame_Redacted: a version a redaction took out hides who wrote the
// lines after it that no other version proves — they are owned by none
// (0), never by the next event's author — and keeps the others' owners;
// a file whose newest version is redacted is ErrRedacted.
func TestBlame_Redacted(t *testing.T) {
	w := &contentWorld{t: t, dir: t.TempDir()}
	w.e = open(t, w.dir)
	c1 := w.tool(person, "s.py", "def f():\n    return personValue\n")
	a2 := w.tool(agentA, "s.py", "def f():\n    return personValue\nTOKEN = 'sk-live-0123456789abcdef'\nagent_after_token()\n") // gitleaks:allow (a test's made-up key)
	w.tool(person, "s.py", "def f():\n    return personValue\nagent_after_token()\nperson_later()\n")
	if _, err := w.e.Redact(replay.RedactSelect{Pattern: regexp.MustCompile(`sk-live-[0-9a-f]+`), Why: "a leaked key"}); err != nil {
		t.Fatal(err)
	}
	// the edit right after the redacted version: the agent's line it kept
	// is proved by the redacted version's record (its digest); which of the
	// others it wrote is not known (the secret line has no digest: any of
	// them could be it), so none is said to be the person's
	if got, want := w.blame("s.py"), []uint64{c1, c1, a2, 0}; !slices.Equal(got, want) {
		t.Fatalf("after the redaction: %v, want %v (the agent's line kept, the person's unproved)", got, want)
	}
	p4 := w.tool(person, "s.py", "def f():\n    return personValue\nagent_after_token()\nperson_later()\nperson_last()\n")
	if got, want := w.blame("s.py"), []uint64{c1, c1, a2, 0, p4}; !slices.Equal(got, want) {
		t.Fatalf("an edit after that: %v, want %v", got, want)
	}
	w.tool(agentA, "k.py", "KEY = 'sk-live-fedcba9876543210'\n") // gitleaks:allow (a test's made-up key)
	if _, err := w.e.Redact(replay.RedactSelect{Pattern: regexp.MustCompile(`sk-live-[0-9a-f]+`), Why: "another"}); err != nil {
		t.Fatal(err)
	}
	var err error
	w.e.Journal().View(func(tx *journal.Tx) error { _, err = replay.BlameTx(tx, "k.py", 0); return nil })
	if !errors.Is(err, journal.ErrRedacted) {
		t.Fatalf("blame of a redacted newest version: %v", err)
	}
}
