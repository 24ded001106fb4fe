package mcp_test

import (
	"testing"

	jmcp "github.com/journalfs/journal/mcp"
)

// TestEditContent_RetryBlankLineDeletion: a change deleting only a blank
// line before a comment (the fuzzer's retry class at seed 23, 20,000
// trials: journal/secrets/trie.go) sent again. Its search, one blank line
// gone, still stood — exactly, its first line break now the end of the
// line of text before ("}\n\n// doc"), or at the normalized level, which
// lets blank lines differ in number (at the file's start) — and the retry
// deleted the next blank line. Now already_applied on the journal's
// event, AMBIGUOUS_MATCH where no event made it: never a second deletion.
func TestEditContent_RetryBlankLineDeletion(t *testing.T) {
	search, replace := "\n\n// hits calls fn with the end offset of each keyword.\n", "\n// hits calls fn with the end offset of each keyword.\n"
	args := func() map[string]any {
		return map[string]any{"absolute_file_path": "t.go", "preview": false, "search_text": search, "replace_text": replace}
	}
	t.Run("after a line of text", func(t *testing.T) {
		retriedOnEvidence(t, "t.go", "}\n\n\n// hits calls fn with the end offset of each keyword.\nfunc hits() {}\n",
			"}\n\n// hits calls fn with the end offset of each keyword.\nfunc hits() {}\n", args)
	})
	t.Run("at the file's start", func(t *testing.T) {
		retriedOnEvidence(t, "t.go", "\n\n// hits calls fn with the end offset of each keyword.\nfunc hits() {}\n",
			"\n// hits calls fn with the end offset of each keyword.\nfunc hits() {}\n", args)
	})
}

// TestEditContent_CutSearchOfABlankLineDeletion: a change deleting the
// blank line before a comment, its search cut inside its last word (the
// fuzzer's trunc-search-mid class, seed 59): the search is found only
// inside the longer word, its replacement — the comment — stands below the
// blank line the change deletes, and the call answered already_applied.
// The blank line still stands, so nothing shows the change made: refused,
// the file as it was.
func TestEditContent_CutSearchOfABlankLineDeletion(t *testing.T) {
	for _, src := range []string{
		"\n// hits calls fn with the end offset of each keyword occurrence in b and the\nfunc hits() {}\n",
		"}\n\n// hits calls fn with the end offset of each keyword occurrence in b and the\nfunc hits() {}\n",
	} {
		e := newEnv(t, jmcp.Options{}, "t.go", src)
		te := e.fail("edit_content", map[string]any{"absolute_file_path": "t.go", "preview": false,
			"search_text":  "\n// hits calls fn with the end offset of each keyword occurrence in b and th",
			"replace_text": "// hits calls fn with the end offset of each keyword occurrence in b and the\n"}, jmcp.CodeNoMatch)
		if te.Hint == "" || e.read("t.go") != src {
			t.Fatalf("refusal %+v, file %q", te, e.read("t.go"))
		}
	}
}

// TestEditContent_ReplacementCutInsideAComment: a replacement cut short
// inside a comment of prose whose last words read as an elision marker
// ("// unchanged line on either side, or ", "// as before, so a line's v":
// the fuzzer's trunc-replace class on this repository's own history, seeds
// 23 and 59) had that line expanded as a marker, keeping the old line in
// place of the text sent. The line begins as the old line does: it is that
// line cut short, written as sent (with a line ending, as whole lines); a
// marker ending the text is still expanded.
func TestEditContent_ReplacementCutInsideAComment(t *testing.T) {
	src := "\t\t// then keeps the old line the agent replaced; markers with no\n\t\t// unchanged line on either side are refused since 2026-12-07\n\t\treturn nil\n"
	e := newEnv(t, jmcp.Options{}, "k.go", src)
	e.apply(map[string]any{"absolute_file_path": "k.go", "preview": false,
		"search_text":  "\t\t// then keeps the old line the agent replaced; markers with no\n\t\t// unchanged line on either side are refused since 2026-12-07\n",
		"replace_text": "\t\t// then keeps the old line the agent replaced (markers with no\n\t\t// unchanged line on either side, or "})
	if got, want := e.read("k.go"), "\t\t// then keeps the old line the agent replaced (markers with no\n\t\t// unchanged line on either side, or \n\t\treturn nil\n"; got != want {
		t.Fatalf("cut comment: got %q, want %q", got, want)
	}
	e.apply(map[string]any{"absolute_file_path": "k.go", "preview": false,
		"search_text":  "\t\t// then keeps the old line the agent replaced (markers with no\n\t\t// unchanged line on either side, or \n",
		"replace_text": "\t\t// then keeps the old line the agent replaced, markers with no\n\t\t// ... rest unchanged ..."})
	if got, want := e.read("k.go"), "\t\t// then keeps the old line the agent replaced, markers with no\n\t\t// unchanged line on either side, or \n\t\treturn nil\n"; got != want {
		t.Fatalf("a final marker: got %q, want %q", got, want)
	}
}
