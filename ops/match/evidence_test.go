package match

import (
	"errors"
	"testing"

	"github.com/journalfs/journal/ops"
)

// TestLocate_RemovedLinesStillStand: the replacement present where the
// search would be is no evidence of the change when a line the change
// removes still stands beside it, where the search has it (issue 59 §5:
// a deletion whose kept lines "}" stand while the deleted function, one
// line edited by someone else, is still there; imports whose first line
// the change drops, the search cut inside its last line).
func TestLocate_RemovedLinesStillStand(t *testing.T) {
	for _, tc := range []struct{ name, content, search, replace string }{
		{name: "deletion, one deleted line edited since",
			content: "\t\tw.drop(f)\n\t}\n}\n\n// keysOf is the keys of m.\nfunc keysOf(m map[string]bool) []string {\n\tkeys := make([]string, 0, len(m))\n\treturn keyszz\n}\n",
			search:  "\t}\n}\n\n// keysOf is the keys of m.\nfunc keysOf(m map[string]bool) []string {\n\tkeys := make([]string, 0, len(m))\n\treturn keys\n}\n",
			replace: "\t}\n}\n"},
		{name: "first line dropped, search cut inside its last line",
			content: "\t\"encoding/json\"\n\t\"errors\"\n\t\"fmt\"\n\n\t\"github.com/journalfs/journal/journal/sshnote\"\n\t\"golang.org/x/mod/sumdb/note\"\n\t\"golang.org/x/mod/sumdb/tlog\"\n",
			search:  "\t\"encoding/json\"\n\t\"errors\"\n\t\"fmt\"\n\n\t\"github.com/journalfs/journal/journal/sshnote\"\n\t\"golang.org/x/mod/sumdb/note\"\n\t\"go",
			replace: "\t\"errors\"\n\t\"fmt\"\n\n\t\"github.com/journalfs/journal/journal/sshnote\"\n\t\"golang.org/x/mod/sumdb/note\"\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			es, err := Locate(tc.content, []Change{{Search: tc.search, Replace: tc.replace, Options: Options{Fuzzy: true}}})
			if err == nil {
				t.Fatalf("answered %+v, want a refusal", es)
			}
		})
	}
}

// TestLocate_GrownLineIsNoEvidence: a replacement that is its search text
// (ending with its line's end) and the start of a new line is no change
// made where the file's next line starts so ("thre"→"three" grows a word
// on the search's own line; a line cut short is no line made): it is never
// reported applied already. Its text stands around the search, so without
// the journal's evidence it is refused as a possible repeat.
func TestLocate_GrownLineIsNoEvidence(t *testing.T) {
	content := "\t\"github.com/journalfs/journal/journal\"\n\t\"github.com/journalfs/journal/snapshot\"\n"
	search := "\t\"github.com/journalfs/journal/journal\"\n"
	es, err := Locate(content, []Change{{Search: search, Replace: search + "\t\"github.com/", Options: Options{Fuzzy: true}}})
	if !errors.Is(err, ErrMaybeRepeat) {
		t.Fatalf("got %+v %v, want ErrMaybeRepeat", es, err)
	}
}

// TestLocate_PresentWithOtherBlankLines: the replacement found only with
// another number of blank lines than it has (the normalized level lets
// them differ) is not the change made: a search with an elision marker
// where the file has two blank lines and the replacement one is never
// reported applied already (issue 59 §5, the fuzzer's elide-search class).
func TestLocate_PresentWithOtherBlankLines(t *testing.T) {
	content := "}\n\n\n// hits calls fn with the end offset\n// keyword's index.\n"
	search := "}\n// ... existing code ...\n\n// hits calls fn with the end offset\n// keyword's index.\n"
	replace := "}\n\n// hits calls fn with the end offset\n// keyword's index.\n"
	es, err := Locate(content, []Change{{Search: search, Replace: replace, Options: Options{Fuzzy: true}}})
	if err == nil && es[0].AlreadyApplied {
		t.Fatalf("answered %+v, want the change made or refused", es)
	}
	// the same replacement with the file's blank lines is made already
	es, err = Locate(replace, []Change{{Search: "}\n\n// hits calls fn with the start offset\n// keyword's index.\n", Replace: replace, Options: Options{Fuzzy: true}}})
	if err != nil || !es[0].AlreadyApplied {
		t.Fatalf("replacement as it stands: %+v %v", es, err)
	}
}

// TestApply_MarkerThatKeepsEverythingRefused: a replacement whose elision
// marker, expanded, gives the search text back (the marker absorbed the
// line the change deletes) changes nothing; it is refused, never a success
// that leaves the file as it was (issue 59 §5, the fuzzer's elide-replace
// class).
func TestApply_MarkerThatKeepsEverythingRefused(t *testing.T) {
	content := "//go:build !android\n// +build !android\n\npackage main\n"
	_, _, err := Apply(content, []Change{{Search: content, Replace: "//go:build !android\n...\n", Options: Options{Fuzzy: true, Path: "main.go"}}})
	if !errors.Is(err, ops.ErrInvalidInput) {
		t.Fatalf("err %v, want a refusal", err)
	}
}

// TestLocate_PresentAtALevelBlindToTheChange: a replacement that realigns
// a comment (spaces inside a line) is found at the normalized level where
// the file has the line unaligned; that is no evidence the change was
// made (the fuzzer's elide-search class: the search's elision marker kept
// it from matching, and the call answered already_applied).
func TestLocate_PresentAtALevelBlindToTheChange(t *testing.T) {
	content := "\tadd(t, \"f.txt\")\n\tcommit(t, \"feature\")\n\tpush(t, \"origin\") // a push carries the notes\n\turl = bucket + \"/\" + name // one prefix per scenario\n"
	search := "\tadd(t, \"f.txt\")\n\t// ... existing code ...\n\tpush(t, \"origin\") // a push carries the notes\n\turl = bucket + \"/\" + name // one prefix per scenario\n"
	replace := "\tadd(t, \"f.txt\")\n\tcommit(t, \"feature\")\n\tpush(t, \"origin\")              // a push carries the notes\n\turl = bucket + \"/\" + name // one prefix per scenario\n"
	es, err := Locate(content, []Change{{Search: search, Replace: replace, Options: Options{Fuzzy: true, Path: "x_test.go"}}})
	if err == nil && es[0].AlreadyApplied {
		t.Fatalf("answered %+v, want the change made or refused", es)
	}
}

// TestLocate_SearchInsideItsReplacement: a retried change whose
// replacement adds lines on both sides of its search text finds the search
// inside the replacement it made; it is applied already only where the
// caller's evidence (MadeAt) names the replacement, else refused — never
// made a second time around the first (issue 59 §5, the fuzzer's retry
// class).
func TestLocate_SearchInsideItsReplacement(t *testing.T) {
	for _, tc := range []struct{ name, search, replace, file string }{
		{name: "exact",
			search:  "func f() {}\n",
			replace: "// f does nothing.\nfunc f() {}\n\n// g does nothing either.\n",
			file:    "package p\n\n// f does nothing.\nfunc f() {}\n\n// g does nothing either.\n"},
		{name: "search matched at the normalized level",
			search:  "func (s *signer) Name() string    { return s.principal }\n",
			replace: "// Name implements note.Signer: the principal.\nfunc (s *signer) Name() string { return s.principal }\n\n// KeyHash implements note.Signer.\n",
			file:    "package p\n\n// Name implements note.Signer: the principal.\nfunc (s *signer) Name() string { return s.principal }\n\n// KeyHash implements note.Signer.\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Change{Search: tc.search, Replace: tc.replace, Options: Options{Fuzzy: true}}
			if _, err := Locate(tc.file, []Change{c}); !errors.Is(err, ErrMaybeRepeat) {
				t.Fatalf("without evidence: %v, want ErrMaybeRepeat", err)
			}
			c.MadeAt = 3
			got, applied, err := Apply(tc.file, []Change{c})
			if err != nil || got != tc.file || !applied[0].AlreadyApplied {
				t.Fatalf("with evidence: %q %+v %v", got, applied, err)
			}
			c.MadeAt, c.AllowRepeat = 0, true
			if got, _, err := Apply(tc.file, []Change{c}); err != nil || got == tc.file {
				t.Fatalf("allow_repeat: %q %v", got, err)
			}
		})
	}
}
