package match

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/journalfs/journal/ops"
)

// weakLines reports a search text whose lines name nothing: brackets,
// punctuation and blank lines alone ("\t}\n}\n"), at least one not blank.
// Such lines tell one place from another by their indentation only.
func weakLines(search string) bool {
	ls, _ := searchLines(search)
	seen := false
	for _, l := range ls {
		if strings.IndexFunc(l, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0 {
			return false
		}
		seen = seen || !isBlank(l)
	}
	return seen
}

// weakElsewhere refuses an exact match of whole lines that name nothing
// (weakLines) where the same lines, each by the same indentation deeper,
// overlap it (nested blocks closing together): a search sent without its
// block's indentation (the fuzzer's indent-dedent class: "\t\t}\n\t}\n"
// sent as "\t}\n}\n") matches exactly the closing brackets one level out,
// and the change was made there. Only indentation tells the places apart,
// and it is what agents drop, so neither is taken: AMBIGUOUS_MATCH with
// every place. Deeper copies apart from the match (another function's
// closing lines) do not count: refusing them refused one careful request
// in 300 (seed 23, 5,000 trials: 15 refusals, none wrong before). nil when
// m is not such a match or no such deeper place exists.
func weakElsewhere(li *lineIndex, sel []Match, search string, o Options) error {
	if len(sel) != 1 || o.Occurrence > 0 || o.ReplaceAll || !weakLines(search) {
		return nil
	}
	m := sel[0]
	if (m.Level != LevelExact && m.Level != LevelLineEndings) || m.pre != "" {
		return nil
	}
	sl, _ := searchLines(search)
	all := []Match{m}
	for _, w := range findTolerant(li, search, trimKey, false, LevelWhitespace) {
		w.Line, w.EndLine = li.span(w.Start, w.End)
		if w.Line != m.Line && w.Line <= m.EndLine && w.EndLine >= m.Line && deeperBy(sl, w, li) {
			w.Matched = li.s[w.Start:w.End]
			all = append(all, w)
		}
	}
	if len(all) == 1 {
		return nil
	}
	return &ops.Error{Op: "match", Index: -1, Err: ops.ErrAmbiguousMatch,
		Msg: fmt.Sprintf("the search text is brackets alone: it stands exactly at line %d, and with more indentation, overlapping it, at line(s) %s; a search sent without its block's indentation would match exactly one level out, so which is meant is not known and nothing was written",
			m.Line, lineList(all[1:])),
		Hint:       "add a line that names something (the line before the brackets) to the search text, exactly as the file has it",
		Candidates: positions(all)}
}

// deeperBy reports a whitespace-level window w whose lines are the search
// lines sl with one and the same indentation added before each non-blank
// line.
func deeperBy(sl []string, w Match, li *lineIndex) bool {
	add, seen := "", false
	for i, l := range sl {
		if isBlank(l) {
			continue
		}
		a := w.align[i]
		if a < 0 {
			return false
		}
		f := leadingWS(li.text(w.Line - 1 + a))
		s := leadingWS(l)
		if len(f) <= len(s) || !strings.HasSuffix(f, s) {
			return false
		}
		d := f[:len(f)-len(s)]
		if seen && d != add {
			return false
		}
		add, seen = d, true
	}
	return seen
}
