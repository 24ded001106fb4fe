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
	// the file's reading where the base says so too: written as sent
	asFile := "\t\tfmt.Fprintln(w, \"(no difference)\")\n\t\treturn\n"
	got, _, err = match.Apply(content, []match.Change{{Search: "fmt.Fprintln(w, \"(no difference)\")\n", Replace: asFile, Options: match.Options{Fuzzy: true}}})
	if want := "func f() {\n\tif before == after {\n" + asFile + "\t}\n}\n"; err != nil || got != want {
		t.Fatalf("file's reading: got %q, %v", got, err)
	}
}
