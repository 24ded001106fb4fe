package editfuzz

// KnownFailures are the classes of wrong outcomes found and not fixed yet,
// each with the issue that tracks it and what goes wrong. The fuzz tests
// (mcp TestEditFuzz, mcp/e2e TestSDK_EditFuzz) pass over these and fail on
// any other class; take an entry out when its fix lands (the class's
// regression case in testdata/editfuzz/regressions then passes, and
// TestEditFuzz_Regressions says so).
var KnownFailures = map[string]string{}

func init() {
	add := func(issue string, classes ...string) {
		for _, c := range classes {
			KnownFailures[c] = issue
		}
	}
	for _, tool := range []string{"edit_content", "file_replace", "ai_code_editing.edit_file", "file_edit"} {
		// ops.ExpandMarkers takes a changed line next to a marker for an
		// added one when it resembles no old line enough to be its edit
		// (`cf, err := r.cat()` for `out, err := r.git(…)`), and the marker
		// then keeps the old line the agent replaced (markers with no
		// unchanged line on either side, or beside an added line of the
		// kept line's shape, are refused)
		add("issue 59 (elision markers in replacements): a marker next to a changed line that resembles the old line it replaces too little keeps that old line",
			"elide-replace | "+tool+" | "+whySuccessOther)
	}
	// look-alikes are decided by class (ops/match/lookalike_class.go); what
	// no class tells: strings holding curly quotes on purpose whose own
	// delimiters the filter curled too
	add("issue 59 §5 (fuzzer, long mode): a text adding strings that hold curly quotes on purpose, its string delimiters curled too (this repository's tests of look-alikes): where the file has none of them yet the filter shown at work takes them for its own and writes them as ASCII; where it has, a comment's curled apostrophe stays",
		"lookalike-both | edit_content | "+whySuccessOther,
		"lookalike | file_replace | "+whySuccessOther,
		"lookalike | ai_code_editing.edit_file | "+whySuccessOther,
		"lookalike | file_edit | "+whySuccessOther)
	add("issue 59 (elision markers, fuzzer long mode): at the normalized level a replacement's comment line that talks of markers (`// ops.ExpandMarkers reads a marker as …`, bench/editfuzz/known.go) is read as an elision marker",
		"lookalike | edit_content | "+whySuccessOther)
	add("issue 59 §5 (fuzzer, long mode of 2026-12-07, seed 59, not yet analysed): seen 1-8 times in 100,000 in-process and 20,000 SDK trials; minimized cases in RELIABILITY.md's state paragraph",
		"indent-dedent | edit_content | "+whySuccessOther,
		"indent-restyle | edit_content | "+whySuccessOther,
		"trunc-replace | edit_content | "+whySuccessOther,
		"trunc-search-mid | edit_content | "+whyAlreadyNotThere)
}
