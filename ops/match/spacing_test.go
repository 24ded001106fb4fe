package match_test

import (
	"errors"
	"testing"

	"github.com/journalfs/journal/ops/match"
)

// TestApply_RealignedColumnsAreNoRetry: lines a change adds that equal the
// file's next lines but for the whitespace inside them (columns realigned)
// are no evidence the change was made: it is applied, not answered
// already_applied (issue 59 §5, trunc-search-lines). The same lines, spaced
// as the file has them, still are a retried insertion.
func TestApply_RealignedColumnsAreNoRetry(t *testing.T) {
	const content = "func f() {\n\tm := map[string]int{\n\t\t\"a\":   1,\n\t\t\"bcd\": 2,\n\t}\n}\n"
	const search = "func f() {\n"
	realigned := search + "\tm := map[string]int{\n\t\t\"a\":     1,\n\t\t\"bcd\":   2,\n"
	got, as, err := match.Apply(content, []match.Change{{Search: search, Replace: realigned, Options: match.Options{Fuzzy: true}}})
	if want := realigned + content[len(search):]; err != nil || len(as) != 1 || as[0].AlreadyApplied || got != want {
		t.Fatalf("realigned: got %q, %+v, %v", got, as, err)
	}
	retried := search + "\tm := map[string]int{\n\t\t\"a\":   1,\n\t\t\"bcd\": 2,\n"
	got, as, err = match.Apply(content, []match.Change{{Search: search, Replace: retried, Options: match.Options{Fuzzy: true}}})
	if err != nil || len(as) != 1 || !as[0].AlreadyApplied || got != content {
		t.Fatalf("retried: got %q, %+v, %v", got, as, err)
	}
}

// TestApply_CutReplacementIsNoRetry: a replacement that is its search plus
// the start of the file's next line (a replacement cut short) is no change
// made already (issue 59 §5, trunc-replace). Grown by whitespace alone it
// is applied as sent (as whole lines); grown by text it stands around the
// search, so without the journal's evidence it is refused as a possible
// repeat (ErrMaybeRepeat), nothing written — never answered already_applied.
func TestApply_CutReplacementIsNoRetry(t *testing.T) {
	const content = "import (\n\t\"bytes\"\n\t\"math\"\n)\n"
	got, as, err := match.Apply(content, []match.Change{{Search: "\t\"bytes\"\n", Replace: "\t\"bytes\"\n\t", Options: match.Options{Fuzzy: true}}})
	if want := "import (\n\t\"bytes\"\n\t\n\t\"math\"\n)\n"; err != nil || len(as) != 1 || as[0].AlreadyApplied || got != want {
		t.Fatalf("got %q, %+v, %v", got, as, err)
	}
	got, as, err = match.Apply(content, []match.Change{{Search: "\t\"bytes\"\n", Replace: "\t\"bytes\"\n\t\"", Options: match.Options{Fuzzy: true}}})
	if !errors.Is(err, match.ErrMaybeRepeat) || got != content || len(as) != 0 {
		t.Fatalf("cut inside the next line: got %q, %+v, %v", got, as, err)
	}
}

// TestApply_DeletedLinesStillThereIsNoRetry: a change deleting the first and
// last lines of its search, the search cut inside its last line (found
// nowhere), is not answered already_applied because its replacement — the
// middle lines — stands in the file: the deleted lines still stand around it
// (issue 59 §5, trunc-search-mid).
func TestApply_DeletedLinesStillThereIsNoRetry(t *testing.T) {
	const content = "import (\n\t\"encoding/json\"\n\t\"errors\"\n\t\"fmt\"\n\t\"golang.org/x/mod/sumdb/tlog\"\n)\n"
	got, as, err := match.Apply(content, []match.Change{{Search: "\t\"encoding/json\"\n\t\"errors\"\n\t\"fmt\"\n\t\"go", Replace: "\t\"errors\"\n\t\"fmt\"\n", Options: match.Options{Fuzzy: true}}})
	if err == nil || got != content || len(as) != 0 {
		t.Fatalf("got %q, %+v, %v", got, as, err)
	}
	// made already: the deleted lines are gone
	made := "import (\n\t\"errors\"\n\t\"fmt\"\n)\n"
	got, as, err = match.Apply(made, []match.Change{{Search: "\t\"encoding/json\"\n\t\"errors\"\n\t\"fmt\"\n\t\"golang.org/x/mod/sumdb/tlog\"\n", Replace: "\t\"errors\"\n\t\"fmt\"\n", Options: match.Options{Fuzzy: true}}})
	if err != nil || got != made || len(as) != 1 || !as[0].AlreadyApplied {
		t.Fatalf("made: got %q, %+v, %v", got, as, err)
	}
}

// TestApply_RealignedSearchLineIsNoRetry: a replacement that realigns its
// search line (its comment moved to a column) and goes on with the file's
// next line unchanged is no retried insertion: applied, not already_applied
// (issue 59 §5, trunc-search-lines).
func TestApply_RealignedSearchLineIsNoRetry(t *testing.T) {
	const content = "\tpush(t) // carry the notes\n\turl = base + name // one prefix\n"
	const replace = "\tpush(t)              // carry the notes\n\turl = base + name // one prefix\n"
	got, as, err := match.Apply(content, []match.Change{{Search: "\tpush(t) // carry the notes\n", Replace: replace, Options: match.Options{Fuzzy: true}}})
	if want := replace + "\turl = base + name // one prefix\n"; err != nil || len(as) != 1 || as[0].AlreadyApplied || got != want {
		t.Fatalf("got %q, %+v, %v", got, as, err)
	}
}

// TestApply_RealignmentFoundFoldedIsNoRetry: a search cut inside a word
// (found nowhere) whose replacement realigns the line's comment is not
// answered already_applied because the line, its spacing folded, "holds" the
// replacement (issue 59 §5, trunc-search-mid).
func TestApply_RealignmentFoundFoldedIsNoRetry(t *testing.T) {
	const content = "\tModel string `json:\"model\"` // every event\n"
	got, as, err := match.Apply(content, []match.Change{{Search: "\tModel string `json:\"model\"` // every even", Replace: "\tModel string `json:\"model\"`  // every event\n", Options: match.Options{Fuzzy: true}}})
	if err == nil || got != content || len(as) != 0 {
		t.Fatalf("got %q, %+v, %v", got, as, err)
	}
}
