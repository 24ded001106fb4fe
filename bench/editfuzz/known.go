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
	// look-alikes are decided by class (ops/match/lookalike_class.go); what
	// no class tells: a text that holds look-alikes on purpose (this
	// repository's own tests, doc comments and README about them), put
	// through the typographic filter as a whole — its ASCII quotes and
	// option dashes curled too, the two kinds are the same characters
	add("issue 59 §5 (fuzzer, long mode; undecidable from the request): a text holding curly quotes or option dashes on purpose (this repository's tests, doc comments and README about look-alikes) whose ASCII quotes and dashes the filter curled too: where the file has none of them yet the filter shown at work takes them all for its own and writes them as ASCII (the reply names how many); where it has, a comment's curled apostrophe stays",
		"lookalike-both | edit_content | "+whySuccessOther,
		"lookalike | file_replace | "+whySuccessOther,
		"lookalike | ai_code_editing.edit_file | "+whySuccessOther,
		"lookalike | file_edit | "+whySuccessOther)
	add("issue 59 (elision markers, fuzzer long mode): at the normalized level a replacement's comment line that talks of markers (`// ops.ExpandMarkers reads a marker as …`, bench/editfuzz/known.go) is read as an elision marker",
		"lookalike | edit_content | "+whySuccessOther)
}
