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
	lineTools := []string{"file_replace", "ai_code_editing.edit_file", "file_edit"}
	for _, tool := range lineTools {
		// the line tools write their content as sent: an elision marker,
		// text escaped twice, copied line numbers, look-alike characters
		add("issue 59 §5 (fuzzer): line tools write agent artefacts in their content as sent",
			"elide-replace | "+tool+" | "+whySuccessOther,
			"escape-twice | "+tool+" | "+whySuccessOther,
			"lineno-prefix | "+tool+" | "+whySuccessOther,
			"lookalike | "+tool+" | "+whySuccessOther)
	}
	add("issue 59 (elision markers in replacements, in progress): edit_content writes the marker",
		"elide-replace | edit_content | "+whySuccessOther)
	add("issue 59 §5 (fuzzer): a retried line-range edit whose content is longer than its range applies again",
		"retry | ai_code_editing.edit_file | "+whyRetryApplied,
		"retry | file_edit | "+whyRetryApplied,
		"retry | file_replace | "+whyRetryApplied)
	add("issue 59 §5 (fuzzer): visible look-alikes (curly quotes, en dashes) in a replacement whose search shows none of that kind substituted (an exact match, a search without quotes) are written as sent: nothing tells the caller's channel's from the caller's own (an en dash in '200–950 ms')",
		"lookalike-both | edit_content | "+whySuccessOther)
	add("issue 59 §5 (fuzzer, long mode): a replacement holding look-alikes of its own of the kind its search shows typed for ASCII (this repository's tests of look-alikes, curly quotes in their strings) has them written as ASCII",
		"lookalike | edit_content | "+whySuccessOther)
	add("issue 59 §5 (fuzzer, found after the evidence rule landed): a retried line-range edit whose content equals the lines answers 'no change', not already_applied",
		"retry | file_replace | "+whyRetryNotAlready,
		"retry | ai_code_editing.edit_file | "+whyRetryNotAlready,
		"retry | file_edit | "+whyRetryNotAlready)
}
