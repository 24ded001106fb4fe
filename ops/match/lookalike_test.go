package match

import (
	"errors"
	"testing"

	"github.com/journalfs/journal/ops"
)

// TestApply_LookalikeMatchWritesTheChange: a search that matched only at
// the normalized level (look-alikes, blank lines) writes exactly the lines
// the caller changed, in the file's characters, or is refused — never a
// success that leaves a blank-line change out or writes the caller's
// look-alikes into ASCII code (issue 59 §5, the fuzzer's lookalike class).
func TestApply_LookalikeMatchWritesTheChange(t *testing.T) {
	fuzzy := Options{Fuzzy: true}
	for _, tc := range []struct {
		name, content, search, replace, want string
		already                              bool
	}{
		{name: "blank line removed at the search's start",
			content: "\n// hits calls fn with the end offset\n", search: "\n//\u00a0hits calls fn with the end offset\n",
			replace: "// hits calls fn with the end offset\n", want: "// hits calls fn with the end offset\n"},
		{name: "blank line removed at the search's end",
			content: "x := 1\n\ny := 2\n", search: "x\u00a0:= 1\n\n", replace: "x := 1\n", want: "x := 1\ny := 2\n"},
		{name: "line and blank line added before the search's leading blank line",
			content: "\nstruct lua_Debug {\n  int event;\n", search: "\nstruct\u00a0lua_Debug {\n",
			replace: "LUA_API\u00a0int f(void);\n\nstruct lua_Debug {\n", want: "LUA_API int f(void);\n\nstruct lua_Debug {\n  int event;\n"},
		{name: "the replacement's look-alikes written as the file's ASCII",
			content: "\t\treturn \"\", err\n", search: "\t\treturn “”, err\n", replace: "\t\treturn “”, fmt.Errorf(“x: %w”, err)\n\t\t// it’s done\n",
			want: "\t\treturn \"\", fmt.Errorf(\"x: %w\", err)\n\t\t// it's done\n"},
		{name: "an ellipsis the caller writes is its own",
			content: "// cleanMessage drops the prefixes (\"journal: \").\n", search: "//\u00a0cleanMessage drops the prefixes (“journal: ”).\n",
			replace: "// cleanMessage drops the prefixes (“journal: ”),\n// not the words of a sentence (“no events: …”).\n",
			want:    "// cleanMessage drops the prefixes (\"journal: \"),\n// not the words of a sentence (\"no events: …\").\n"},
		{name: "an em dash the caller writes is its own",
			content: "\tcase journal.KindRestore:\n", search: "\tcase\u00a0journal.KindRestore:\n",
			replace: "\tcase journal.KindRedact:\n\t\ts += \" — \" + r.Why\n\tcase journal.KindRestore:\n",
			want:    "\tcase journal.KindRedact:\n\t\ts += \" — \" + r.Why\n\tcase journal.KindRestore:\n"},
		{name: "an exact match writes no invisible look-alike the file lacks",
			content: "\t})\n", search: "\t})\n", replace: "\t},\u00a0never)\u200b\n", want: "\t}, never)\n"},
		{name: "a look-alike the search does not show substituted is the caller's own",
			content: "## Bugs found\n", search: "##\u00a0Bugs found\n",
			replace: "## The watcher (2026-11-28)\n\n- killed 200–950 ms into a burst\n## Bugs found\n",
			want:    "## The watcher (2026-11-28)\n\n- killed 200–950 ms into a burst\n## Bugs found\n"},
		{name: "look-alikes the file has are its style",
			content: "He said “hi” – twice.\n", search: "He said “hi” - twice.\n", replace: "He said “hello” - twice.\n",
			want: "He said “hello” – twice.\n"},
		{name: "whitespace-only change the file has: made already",
			content: "step(r) { settle(q, r); }\n", search: "step(r) { settle(q, r);  }\n", replace: "step(r) { settle(q, r); }\n",
			want: "step(r) { settle(q, r); }\n", already: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, applied, err := Apply(tc.content, []Change{{Search: tc.search, Replace: tc.replace, Options: fuzzy}})
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want || applied[0].AlreadyApplied != tc.already {
				t.Fatalf("got %q (already applied %v), want %q (%v)", got, applied[0].AlreadyApplied, tc.want, tc.already)
			}
		})
	}
	t.Run("a change the carry cannot place is refused", func(t *testing.T) {
		// the search has two blank lines where the file has none; the
		// change keeps one: nothing of it can be made on the file's lines
		_, _, err := Apply("a := 1\nb := 2\n", []Change{{Search: "a\u00a0:= 1\n\n\nb := 2\n", Replace: "a := 1\n\nb := 2\n", Options: fuzzy}})
		if !errors.Is(err, ops.ErrNoMatch) {
			t.Fatalf("err %v, want a refusal", err)
		}
	})
}

// TestApply_LookalikeInnerBlankLine: a blank line inside the search that
// the file has one for one is removed with the line before it.
func TestApply_LookalikeInnerBlankLine(t *testing.T) {
	content := "\tdefer t.flush()\n\n\t// Make the headers\n"
	got, _, err := Apply(content, []Change{{Search: "\tdefer\u00a0t.flush()\n\n\t// Make the headers\n", Replace: "\t// Make the headers\n", Options: Options{Fuzzy: true}}})
	if want := "\t// Make the headers\n"; err != nil || got != want {
		t.Fatalf("got %q, %v; want %q", got, err, want)
	}
}

// TestApply_LookalikesTypedInOneChangeOfTheCall: the texts of one call
// come through one channel: a look-alike one change's search shows typed
// for ASCII is written as ASCII in every change's replacement, and a
// channel that typed any look-alike curls quotes.
func TestApply_LookalikesTypedInOneChangeOfTheCall(t *testing.T) {
	content := "createToken('COERCE', `${'(^|[^\\\\d])'}`)\n\nfn hex(input: &str) -> u8 {\n}\n"
	got, _, err := Apply(content, []Change{
		{Search: "createToken(’COERCE’, `${’(^|[^\\\\d])’}`)\n", Replace: "createToken(’COERCEPLAIN’, `${’(^|[^\\\\d])’}`)\n", Options: Options{Fuzzy: true}},
		{Search: "fn\u00a0hex(input: &str) –> u8 {\n", Replace: "fn\u00a0hex(input: &str) –> u8 {\n  tag(“#”)(input)\n", Options: Options{Fuzzy: true}},
	})
	want := "createToken('COERCEPLAIN', `${'(^|[^\\\\d])'}`)\n\nfn hex(input: &str) -> u8 {\n  tag(\"#\")(input)\n}\n"
	if err != nil || got != want {
		t.Fatalf("got %q %v\nwant %q", got, err, want)
	}
}
