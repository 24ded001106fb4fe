package match

import (
	"fmt"
	"strings"

	"github.com/journalfs/journal/ops"
)

// blankOnly reports a change that only adds or removes blank lines: its
// replacement has the search's non-blank lines, byte for byte, and differs
// from it.
func blankOnly(search, replace string) bool {
	s, r := toLF(search), toLF(replace)
	if s == r {
		return false
	}
	sl, rl := nonBlank(s), nonBlank(r)
	if len(sl) == 0 || len(sl) != len(rl) {
		return false
	}
	for i := range sl {
		if sl[i] != rl[i] {
			return false
		}
	}
	return true
}

// blindToBlanks reports a match that does not show the search's blank
// lines where the file has them: an exact one whose search starts with a
// line break that ends a line of text in the file (the search's first line,
// blank, is not there: "}\n\n// doc" holds "\n\n// doc"), or a normalized
// one with another number of blank lines than the search (that level lets
// it differ).
func blindToBlanks(m Match, search string) bool {
	switch m.Level {
	case LevelExact, LevelLineEndings:
		return strings.HasPrefix(toLF(search), "\n") && strings.TrimSpace(m.pre) != ""
	case LevelNormalized:
		a, _ := searchLines(m.Matched)
		b, _ := searchLines(search)
		return len(a) != len(b)
	}
	return false
}

// blanksAlready judges a change that only adds or removes blank lines
// (blankOnly) whose search was found only where its blank lines are not the
// file's (blindToBlanks): made there already (a retried deletion of a blank
// line: the file keeps the search, its first line break ending the line
// before), or meant there, which the file cannot tell — applied again, it
// deletes (adds) one more. The change is made already where the caller's
// evidence (at, the journal's event) names its replacement at the match;
// otherwise it is refused (ErrMaybeRepeat), neither claimed nor made.
func blanksAlready(content string, li *lineIndex, ms []Match, search, replace string, at int) ([]Edit, bool, error) {
	if !blankOnly(search, replace) {
		return nil, false, nil
	}
	blind := false
	for _, m := range ms {
		blind = blind || blindToBlanks(m, search)
	}
	if !blind {
		return nil, false, nil
	}
	if r, ok := madeAt(findAll(content, li, replace, Options{Fuzzy: true}), at); ok && len(ms) == 1 &&
		r.Line <= ms[0].EndLine && r.EndLine >= ms[0].Line {
		return []Edit{noop(r)}, true, nil
	}
	m := ms[0]
	return nil, true, &ops.Error{Op: "match", Index: -1, Err: ErrMaybeRepeat,
		Msg: fmt.Sprintf("this change only adds or removes blank lines, and its search text was found at line %d only where its blank lines are not the file's (its first line break ends a line of text, or other blank lines stand there): made already, or meant there? The file does not tell, and no earlier edit in the journal made this change, so nothing was written",
			m.Line),
		Hint:       "read the file at the candidate's lines and send the search with the line of text before the blank lines, exactly as the file has it; to change the blank lines there anyway, send the call again with allow_repeat: true",
		Candidates: []ops.Candidate{{Line: m.Line, EndLine: m.EndLine, Similarity: 1, Text: shorten(m.Matched, 200)}}}
}

// searchStandsAround reports the search text itself standing where its
// replacement was found (m), reaching out of it: one of cut (the search's
// occurrences inside longer tokens: a search cut inside its last word)
// overlaps m and starts before it or ends after it. The lines the change
// takes away there — a blank line it deletes before the text it keeps —
// still stand, so the replacement's text was there before: no evidence of
// the change made (unless the caller's, at naming m's line).
func searchStandsAround(cut []Match, m Match, at int) bool {
	if at > 0 && m.Line == at {
		return false
	}
	for _, c := range cut {
		if c.Start < m.End && c.End > m.Start && (c.Start < m.Start || c.End > m.End) {
			return true
		}
	}
	return false
}
