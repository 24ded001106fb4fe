package match_test

import (
	"errors"
	"testing"

	"github.com/journalfs/journal/ops"
	"github.com/journalfs/journal/ops/match"
)

// TestApply_KeptLineIndentedAnewIsNoReading: a search sent without its
// block's indentation (the fuzzer's indent-dedent class, seed 59: a line of
// cmd/journal/show.go wrapped in a new if) whose one kept line the
// replacement nests one level deeper — landing, by chance, at the file's
// indentation — while its new lines start where the search does. The kept
// line alone read as "written in the file's style" and the new lines were
// written a level off ("\tif !renamed {" inside a block at "\t\t"). The
// kept line says the file's reading, the least indentation the search's:
// refused with both readings, the caller's first, nothing written.
func TestApply_KeptLineIndentedAnewIsNoReading(t *testing.T) {
	const content = "func f() {\n\tif before == after {\n\t\tfmt.Fprintln(w, \"(no difference)\")\n\t}\n}\n"
	nested := "\tif !renamed {\n\t\tfmt.Fprintln(w, \"(no difference)\")\n\t}\n"
	want := "\t\tif !renamed {\n\t\t\tfmt.Fprintln(w, \"(no difference)\")\n\t\t}\n"
	search := "\tfmt.Fprintln(w, \"(no difference)\")\n" // exact, inside the line's indentation
	got, _, err := match.Apply(content, []match.Change{{Search: search, Replace: nested, Options: match.Options{Fuzzy: true}}})
	var oe *ops.Error
	if !errors.Is(err, ops.ErrAmbiguousMatch) || !errors.As(err, &oe) || oe.Hint == "" || len(oe.Candidates) != 2 {
		t.Fatalf("got %q, %v", got, err)
	}
	if oe.Candidates[0].ReplaceText != want {
		t.Errorf("the caller's reading %q, want %q", oe.Candidates[0].ReplaceText, want)
	}
	// the same with a line the change adds further out than the search
	// (a new case; seed 7, replay/watch/call.go): its least indentation is
	// neither the search's nor the file's
	const sw = "\tswitch {\n\tcase a:\n\t\t// what changed is theirs: a reader's\n\t\tob, err = w.Flush(ctx)\n\t}\n"
	wrapped := "\t// what changed is theirs (as far as it goes)\n\tif err = w.reap(ctx); err == nil {\n\t\tob, err = w.Flush(ctx)\n\t}\ncase b:\n\tw.calls()\n"
	got, _, err = match.Apply(sw, []match.Change{{Search: "\t// what changed is theirs: a reader's\n\tob, err = w.Flush(ctx)\n", Replace: wrapped, Options: match.Options{Fuzzy: true}}})
	want = "\t\t// what changed is theirs (as far as it goes)\n\t\tif err = w.reap(ctx); err == nil {\n\t\t\tob, err = w.Flush(ctx)\n\t\t}\n\tcase b:\n\t\tw.calls()\n"
	if !errors.Is(err, ops.ErrAmbiguousMatch) || !errors.As(err, &oe) || len(oe.Candidates) != 2 || oe.Candidates[0].ReplaceText != want {
		t.Fatalf("a line added further out: got %q, %+v", got, err)
	}
	// the file's reading where the base says so too: written as sent
	asFile := "\t\tfmt.Fprintln(w, \"(no difference)\")\n\t\treturn\n"
	got, _, err = match.Apply(content, []match.Change{{Search: "fmt.Fprintln(w, \"(no difference)\")\n", Replace: asFile, Options: match.Options{Fuzzy: true}}})
	if want := "func f() {\n\tif before == after {\n" + asFile + "\t}\n}\n"; err != nil || got != want {
		t.Fatalf("file's reading: got %q, %v", got, err)
	}
}

// TestApply_BracketsAloneSentDedented: a search of closing brackets alone
// sent without its block's indentation (the fuzzer's indent-dedent class,
// seed 59, mcp/rebase.go: "\t\t}\n\t}\n" sent as "\t}\n}\n") stands
// exactly one level out, at the function's end, and the lines were added
// there. Only indentation tells such places apart: refused with both
// (AMBIGUOUS_MATCH), nothing written. A search that names something, or
// brackets with no deeper copy overlapping them, is applied as before.
func TestApply_BracketsAloneSentDedented(t *testing.T) {
	const content = "func f() {\n\tfor {\n\t\tif ok {\n\t\t\tuse()\n\t\t}\n\t}\n}\n"
	add := match.Change{Search: "\t}\n}\n", Replace: "\t}\n\tdone()\n}\n", Options: match.Options{Fuzzy: true}}
	got, _, err := match.Apply(content, []match.Change{add})
	var oe *ops.Error
	if !errors.Is(err, ops.ErrAmbiguousMatch) || !errors.As(err, &oe) || oe.Hint == "" || len(oe.Candidates) != 2 ||
		oe.Candidates[0].Line != 6 || oe.Candidates[1].Line != 5 || got != content {
		t.Fatalf("got %q, %+v", got, err)
	}
	whole := match.Change{Search: "\t\t}\n\t}\n}\n", Replace: "\t\t}\n\t}\n\tdone()\n}\n", Options: match.Options{Fuzzy: true}}
	if got, _, err := match.Apply(content, []match.Change{whole}); err != nil || got != "func f() {\n\tfor {\n\t\tif ok {\n\t\t\tuse()\n\t\t}\n\t}\n\tdone()\n}\n" {
		t.Fatalf("no deeper copy: got %q, %v", got, err)
	}
	// the deeper copy apart from the match (another function's closing
	// lines): the exact match is taken
	apart := "func g() {\n\tfor {\n\t\tif ok {\n\t\t\tuse()\n\t\t}\n\t}\n\tdone()\n}\n\nfunc h() {\n\tif x {\n\t\ty()\n\t}\n}\n"
	if got, _, err := match.Apply(apart, []match.Change{add}); err != nil || got != apart[:len(apart)-2]+"\tdone()\n}\n" {
		t.Fatalf("a deeper copy apart: got %q, %v", got, err)
	}
	word := match.Change{Search: "\t\t\tuse()\n", Replace: "\t\t\tuse(1)\n", Options: match.Options{Fuzzy: true}}
	if _, _, err := match.Apply(content, []match.Change{word}); err != nil {
		t.Fatalf("a line that names something: %v", err)
	}
}
