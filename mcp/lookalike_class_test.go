package mcp_test

import (
	"strings"
	"testing"

	jmcp "github.com/journalfs/journal/mcp"
)

// TestEditContent_LookalikesByClass: visible look-alikes in a replacement
// whose search shows nothing of the caller's channel (an exact match) are
// written as ASCII where no one could mean them — a dash opening a
// command-line option (`–-key`, `–run`), a curly quote or dash where Go's
// syntax needs the ASCII character — and then, the typographic filter so
// shown, its other curly quotes and en dashes the file never uses, with a
// note; a range's glued en dash stays. New look-alikes in a code file's
// comments or strings with nothing to show them an artefact or meant are
// refused, writing nothing (fuzzy: false writes them as sent); prose and
// strings with ASCII quotes beside them keep theirs (issue 59 §5, the
// fuzzer's lookalike-both class).
func TestEditContent_LookalikesByClass(t *testing.T) {
	for _, tc := range []struct {
		name, file, before, search, replace string
		want                                string // "" when refused
	}{
		{name: "Go strings curled and a comment's apostrophe", file: "a_test.go",
			before: "package p\n\nfunc TestA(t *testing.T) {\n}\n", search: "}\n",
			replace: "}\n\n// it’s the blame after a gc\nfunc TestB(t *testing.T) {\n\tw.tool(person, “s.py”, “def f():\\n”)\n\tif x := cap(b) – len(b); x > 0 {\n\t\tt.Fatalf(“journal undo –-prompt p-1: %d”, x)\n\t}\n}\n",
			want:    "package p\n\nfunc TestA(t *testing.T) {\n}\n\n// it's the blame after a gc\nfunc TestB(t *testing.T) {\n\tw.tool(person, \"s.py\", \"def f():\\n\")\n\tif x := cap(b) - len(b); x > 0 {\n\t\tt.Fatalf(\"journal undo --prompt p-1: %d\", x)\n\t}\n}\n"},
		{name: "options in Markdown, a range kept", file: "BENCH.md",
			before: "# Bench\n\nThe table above.\n", search: "The table above.\n",
			replace: "The table above.\n\n`go test ./cmd –run ’^$’ –bench X –count 2`, load 1.8–2.9: the event’s scan 13–16 ms.\n",
			want:    "# Bench\n\nThe table above.\n\n`go test ./cmd -run '^$' -bench X -count 2`, load 1.8–2.9: the event's scan 13–16 ms.\n"},
		{name: "an option after a no-break space, prose beside a no-break space", file: "ARCH.md",
			before: "  [docs](docs).\n", search: "  [docs](docs).\n",
			replace: "  [docs](docs).\n-\u00a0**Redaction.** gc’s sweep deletes the rest; `journal\u00a0–-workspace ID` names one.\n",
			want:    "  [docs](docs).\n- **Redaction.** gc's sweep deletes the rest; `journal --workspace ID` names one.\n"},
		{name: "an escaped quote in a string", file: "e_test.go",
			before: "package p\n\nvar a = 1\n", search: "var a = 1\n",
			replace: "var a = 1\n\nvar b = “{\\”x\\”: 1}”\n",
			want:    "package p\n\nvar a = 1\n\nvar b = \"{\\\"x\\\": 1}\"\n"},
		// the fuzzer's trunc-replace on this repository's notes about
		// look-alikes: a backslash escapes nothing in a comment
		{name: "an escaped quote in a comment is no artefact", file: "esc.go",
			before: "package p\n\nfunc f() {}\n", search: "func f() {}\n",
			replace: "func f() {}\n\n// escaped reports an escaped quote (`\\”` is no escape in any language).\nfunc escaped() {}\n"},
		{name: "a comment's look-alike with nothing to show refused", file: "scan.go",
			before: "package p\n\n// MaskEvent masks the event's secrets.\nfunc MaskEvent() {}\n", search: "func MaskEvent() {}\n",
			replace: "func MaskEvent() {}\n\n// Copy returns the copy’s hash.\nfunc Copy() {}\n"},
		{name: "a string with ASCII quotes keeps its curly ones", file: "b.go",
			before: "package p\n\nvar a = 1\n", search: "var a = 1\n",
			replace: "var a = 1\n\nvar msg = \"He said “hi” – it’s done\"\n",
			want:    "package p\n\nvar a = 1\n\nvar msg = \"He said “hi” – it’s done\"\n"},
		{name: "a test table's strings keep theirs (a fragment the parser misreads)", file: "cases_test.go",
			before:  "\t\t{name: \"x\", before: \"a\\n\",\n\t\t\twant: \"b\"},\n\t}\n",
			search:  "\t}\n",
			replace: "\t\t{name: \"kept\", file: \"doc.md\", before: \"It’s “fine”.\\nNext.\\n\",\n\t\t\tcontent: \"Next, “better”.\\n\", says: \"look-alike\"},\n\t}\n",
			want:    "\t\t{name: \"x\", before: \"a\\n\",\n\t\t\twant: \"b\"},\n\t\t{name: \"kept\", file: \"doc.md\", before: \"It’s “fine”.\\nNext.\\n\",\n\t\t\tcontent: \"Next, “better”.\\n\", says: \"look-alike\"},\n\t}\n"},
		{name: "new prose keeps its curly quotes", file: "doc.md",
			before: "# Doc\n\nText.\n", search: "Text.\n",
			replace: "Text.\n\nHe said “hi” – twice, and it’s fine.\n",
			want:    "# Doc\n\nText.\n\nHe said “hi” – twice, and it’s fine.\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, path := readEnv(t, tc.file, tc.before)
			args := map[string]any{"absolute_file_path": path, "search_text": tc.search, "replace_text": tc.replace, "preview": false}
			if tc.want == "" {
				te := e.fail("edit_content", args, jmcp.CodeInvalidInput)
				if !strings.Contains(te.Message, "look-alike") || !strings.Contains(te.Hint, "fuzzy: false") {
					t.Fatalf("refusal: %+v", te)
				}
				if got := e.read(tc.file); got != tc.before {
					t.Fatalf("refused but wrote:\n%q", got)
				}
				args["fuzzy"] = false
				e.ok("edit_content", args, nil)
				if got, want := e.read(tc.file), strings.Replace(tc.before, tc.search, tc.replace, 1); got != want {
					t.Fatalf("fuzzy false: file\n%q\nwant\n%q", got, want)
				}
				return
			}
			txt := e.ok("edit_content", args, nil)
			if got := e.read(tc.file); got != tc.want {
				t.Fatalf("file\n%q\nwant\n%q\n%s", got, tc.want, txt)
			}
			if named := strings.Contains(txt, "look-alike character(s)"); named != (tc.want != strings.Replace(tc.before, tc.search, tc.replace, 1)) {
				t.Fatalf("the result's note on look-alikes (named %v) does not match what was written:\n%s", named, txt)
			}
		})
	}
}

// TestEditContent_LookalikesTypedNarrowed: a search showing a look-alike
// typed for the file's ASCII makes the replacement's look-alikes of that
// kind ASCII only where the channel could have made them: a replacement
// that has the ASCII character itself (an apostrophe, a hyphen after a
// space) went through no filter, and a dash glued inside a range is never
// a filter's — both kept as sent (issue 59 §5, the fuzzer's lookalike
// class: this repository's tests of look-alikes, a benchmark's ranges).
func TestEditContent_LookalikesTypedNarrowed(t *testing.T) {
	for _, tc := range []struct {
		name, file, before, search, replace, want string
	}{
		{name: "meant curly quote in a string, search curled", file: "c_test.go",
			before:  "package p\n\n// the file's test\nvar a = 1\n",
			search:  "// the file’s test\nvar a = 1\n",
			replace: "// the file's test\nvar a = 1\nvar b = \"var x = 1 // don’t\\n\"\n",
			want:    "package p\n\n// the file's test\nvar a = 1\nvar b = \"var x = 1 // don’t\\n\"\n"},
		{name: "ranges kept, search's option dash typed", file: "B.md",
			before:  "`go run ./bench -journal BIN` (2026-11-28)\n",
			search:  "`go run ./bench –journal BIN` (2026-11-28)\n",
			replace: "`go run ./bench -journal BIN -samples 100` (2026-11-28, load 3.5–4.3)\n",
			want:    "`go run ./bench -journal BIN -samples 100` (2026-11-28, load 3.5–4.3)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, path := readEnv(t, tc.file, tc.before)
			txt := e.ok("edit_content", map[string]any{"absolute_file_path": path, "search_text": tc.search, "replace_text": tc.replace, "preview": false}, nil)
			if got := e.read(tc.file); got != tc.want {
				t.Fatalf("file\n%q\nwant\n%q\n%s", got, tc.want, txt)
			}
		})
	}
}

// TestLineTools_LookalikesByClass: a line tool's new lines with nothing
// replaced to compare (an insertion) have their look-alikes written as
// ASCII where no one could mean them — a dash opening an option in
// Markdown, a curly quote as a Go rune's delimiter even in a file that
// uses curly quotes in its comments, a no-break space the file never has
// — and, the filter so shown, its other curly quotes and en dashes the
// file never uses, but not a range's glued dash; new prose with nothing
// of the kind keeps its curly quotes (issue 59 §5, the fuzzer's lookalike
// class of the line tools).
func TestLineTools_LookalikesByClass(t *testing.T) {
	for _, tc := range []struct {
		name, file, before string
		start, end         int
		content, want      string
	}{
		{name: "option dashes in Markdown", file: "README.md", before: "# CLI\n\nUsage.\n", start: 3, end: 3,
			content: "Usage.\n\n- `journal log –-prompts [--json]` lists the agent’s prompts (load 7.8–11.5).\n",
			want:    "# CLI\n\nUsage.\n\n- `journal log --prompts [--json]` lists the agent's prompts (load 7.8–11.5).\n"},
		{name: "rune delimiters in Go", file: "marker.go", before: "package p\n\n// it’s a marker\nfunc f(t string) bool {\n\treturn false\n}\n", start: 5, end: 5,
			content: "\treturn len(t) >= 2 && t[0] == ’(’ && t[len(t)-1] == ’)’\n",
			want:    "package p\n\n// it’s a marker\nfunc f(t string) bool {\n\treturn len(t) >= 2 && t[0] == '(' && t[len(t)-1] == ')'\n}\n"},
		{name: "a heading's no-break space", file: "R.md", before: "# R\n\nText.\n", start: 3, end: 3,
			content: "Text.\n\n###\u00a0Redaction: take a secret out of the call’s arguments\n",
			want:    "# R\n\nText.\n\n### Redaction: take a secret out of the call's arguments\n"},
		{name: "new prose keeps its curly quotes", file: "P.md", before: "# P\n\nText.\n", start: 3, end: 3,
			content: "Text.\n\nHe said “hi” – twice.\n",
			want:    "# P\n\nText.\n\nHe said “hi” – twice.\n"},
	} {
		for _, tool := range lineTools {
			t.Run(tool+"/"+tc.name, func(t *testing.T) {
				e, path := readEnv(t, tc.file, tc.before)
				txt := e.ok(tool, lineToolCall(tool, path, tc.start, tc.end, tc.content, nil), nil)
				if got := e.read(tc.file); got != tc.want {
					t.Fatalf("file\n%q\nwant\n%q\n%s", got, tc.want, txt)
				}
			})
		}
	}
}
