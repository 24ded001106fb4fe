package match_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/journalfs/journal/ops"
	"github.com/journalfs/journal/ops/match"
)

func TestLocate_SpliceEqualsApply(t *testing.T) {
	cases := []struct {
		name, content string
		changes       []match.Change
	}{
		{"exact", "a\nb\nc\n", []match.Change{{Search: "b\n", Replace: "B1\nB2\n"}}},
		{"two", "one\ntwo\nthree\nfour\n", []match.Change{{Search: "four", Replace: "4"}, {Search: "one\n", Replace: ""}}},
		{"crlf", "x\r\ny\r\nz\r\n", []match.Change{{Search: "x\ny\n", Replace: "X\nY\nY2\n"}}},
		{"indent", "func f() {\n\tif a {\n\t\tb()\n\t}\n}\n", []match.Change{{Search: "if a {\n\tb()\n}", Replace: "if a {\n\tc()\n}"}}},
		{"all", "k=1\nk=1\n", []match.Change{{Search: "k=1", Replace: "k=2", Options: match.Options{ReplaceAll: true}}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want, applied, err := match.Apply(c.content, c.changes)
			if err != nil {
				t.Fatal(err)
			}
			edits, err := match.Locate(c.content, c.changes)
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			if err := match.Splice(&b, strings.NewReader(c.content), int64(len(c.content)), edits); err != nil {
				t.Fatal(err)
			}
			if b.String() != want {
				t.Fatalf("splice %q, apply %q", b.String(), want)
			}
			if len(edits) != len(applied) {
				t.Fatalf("%d edits, %d applied", len(edits), len(applied))
			}
			for i, e := range edits {
				var a match.Applied
				for _, x := range applied {
					if x.Match.Start == e.Match.Start {
						a = x
					}
				}
				if e.NewStart != a.NewStart || e.NewEnd != a.NewEnd || e.NewLine != a.NewLine || e.NewEndLine != a.NewEndLine {
					t.Fatalf("edit %d: %+v, apply %+v", i, e.Applied, a)
				}
				if want[e.NewStart:e.NewEnd] != e.Replacement {
					t.Fatalf("edit %d: replacement not at its new offsets", i)
				}
			}
		})
	}
}

func TestLocate_Errors(t *testing.T) {
	if _, err := match.Locate("a\n", nil); !errors.Is(err, ops.ErrInvalidInput) {
		t.Fatalf("no changes: %v", err)
	}
	_, err := match.Locate("x\nx\n", []match.Change{{Search: "x", Replace: "y"}})
	if !errors.Is(err, ops.ErrAmbiguousMatch) {
		t.Fatalf("ambiguous: %v", err)
	}
	_, err = match.Locate("x\nnew\n", []match.Change{{Search: "x", Replace: "y"}, {Search: "old", Replace: "new"}})
	var oe *ops.Error
	if !errors.As(err, &oe) || oe.Index != 1 || !strings.Contains(oe.Msg, "already applied") {
		t.Fatalf("miss: %v", err)
	}
	_, err = match.Locate("ab-cd-ef\n", []match.Change{{Search: "ab-cd", Replace: "1"}, {Search: "cd-ef", Replace: "2"}})
	if !errors.Is(err, ops.ErrOverlap) {
		t.Fatalf("overlap: %v", err)
	}
}
