package match_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/journalfs/journal/ops"
	"github.com/journalfs/journal/ops/match"
)

// TestApply_BatchIndentsAlike: a batch whose one change matched at the
// whitespace level (the caller's 4 spaces for the file's tabs) writes the
// new lines of its exactly matched changes in the file's tabs too, not as
// sent (issue 59 §5, indent-restyle); alone, the exact change is written as
// sent (its search shows nothing of the caller's style).
func TestApply_BatchIndentsAlike(t *testing.T) {
	const content = "type B struct {\n\tLen uint64\n}\n\nconst (\n\tSizeofB = 0x38\n)\n"
	first := match.Change{Search: "type B struct {\n", Replace: "type A struct {\n    Hdr B\n    Len uint32\n}\n\ntype B struct {\n", Options: match.Options{Fuzzy: true}}
	second := match.Change{Search: "    SizeofB = 0x38\n", Replace: "    SizeofB = 0x38\n    SizeofA = 0x40\n", Options: match.Options{Fuzzy: true}}
	got, _, err := match.Apply(content, []match.Change{first, second})
	want := "type A struct {\n\tHdr B\n\tLen uint32\n}\n\ntype B struct {\n\tLen uint64\n}\n\nconst (\n\tSizeofB = 0x38\n\tSizeofA = 0x40\n)\n"
	if err != nil || got != want {
		t.Fatalf("batch: got %q, %v\nwant %q", got, err, want)
	}
	got, _, err = match.Apply(content, []match.Change{first})
	if want := "type A struct {\n    Hdr B\n    Len uint32\n}\n\n" + content; err != nil || got != want {
		t.Fatalf("alone: got %q, %v", got, err)
	}
	// found with its copied line numbers removed: never placed again with
	// the numbers
	numbered := match.Change{Search: "1: type B struct {\n", Replace: "1: type A struct {\n2:     Hdr B\n3: }\n4: type B struct {\n", Options: match.Options{Fuzzy: true}}
	got, _, err = match.Apply(content, []match.Change{numbered, second})
	if err != nil || strings.Contains(got, "1: ") || !strings.HasPrefix(got, "type A struct {\n") {
		t.Fatalf("line numbers: got %q, %v", got, err)
	}
}

// TestApply_BatchReadsInOneStyle: two changes of a batch matched with the
// block's indentation left out, whose replacements read one as the search
// is indented and one as the file is, are refused: one of them would be
// written a level off (issue 59 §5, indent-dedent).
func TestApply_BatchReadsInOneStyle(t *testing.T) {
	const content = "\tif a >= 0 {\n\t\thas = true\n\t}\n\tif b >= 0 {\n\t\thas = true\n\t\tcall(b)\n\t}\n"
	changes := []match.Change{
		{Search: "if a >= 0 {\n\thas = true\n}\n", Replace: "for _, x := range xs {\n\tuse(x)\n}\n", Options: match.Options{Fuzzy: true}},
		{Search: "if b >= 0 {\n\thas = true\n\tcall(b)\n}\n", Replace: "\tdone()\n", Options: match.Options{Fuzzy: true}},
	}
	got, _, err := match.Apply(content, changes)
	var oe *ops.Error
	if got != content || !errors.As(err, &oe) || !errors.Is(err, ops.ErrAmbiguousMatch) || oe.Index != 1 || oe.Hint == "" {
		t.Fatalf("got %q, %v", got, err)
	}
	// each alone reads one way and is written
	for _, c := range changes {
		if _, _, err := match.Apply(content, []match.Change{c}); err != nil {
			t.Fatalf("%q alone: %v", c.Search, err)
		}
	}
}

// TestApply_OverlappingWindowsAreAmbiguous: a search of closing lines whose
// indentation is wrong stands in two overlapping windows of three closing
// lines: refused as ambiguous, not applied at the first (issue 59 §5,
// indent-restyle: the new lines went one block too deep).
func TestApply_OverlappingWindowsAreAmbiguous(t *testing.T) {
	const content = "\t\t\t\t}\n\t\t\t}\n\t\t}\n"
	got, _, err := match.Apply(content, []match.Change{{Search: "            }\n        }\n", Replace: "            }\n            done()\n        }\n", Options: match.Options{Fuzzy: true}}})
	if got != content || !errors.Is(err, ops.ErrAmbiguousMatch) {
		t.Fatalf("got %q, %v", got, err)
	}
}

// TestApply_OneWidthSeenKeepsTheCallersLevels: a one-line search sent with
// two tabs for the file's 8 spaces shows one width only; its two tabs are
// two of the file's levels, so each further tab of the replacement goes 4
// columns deeper, not 8 (issue 59 §5, indent-restyle: a nested block
// written twice as deep as the file's style, reported as written in it).
func TestApply_OneWidthSeenKeepsTheCallersLevels(t *testing.T) {
	const content = "def f(version_str):\n    if version is None:\n        version = parse(version_str)\n    return version\n"
	c := match.Change{Search: "\t\tversion = parse(version_str)\n",
		Replace: "\t\tversion = parse(version_str)\n\t\tif version == (10, 16):\n\t\t\tversion = run(\n\t\t\t\tcheck=True,\n\t\t\t)\n",
		Options: match.Options{Fuzzy: true}}
	want := "def f(version_str):\n    if version is None:\n        version = parse(version_str)\n        if version == (10, 16):\n            version = run(\n                check=True,\n            )\n    return version\n"
	got, _, err := match.Apply(content, []match.Change{c})
	if err != nil || got != want {
		t.Fatalf("two tabs: got %q, %v\nwant %q", got, err, want)
	}
}
