package match_test

import (
	"testing"

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
}
