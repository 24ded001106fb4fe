package match

import (
	"fmt"
	"math"
	"strings"

	"github.com/aymanbagabas/go-udiff"
	"github.com/journalfs/journal/ops"
)

// nearestCount is how many near misses a failed match reports.
const nearestCount = 3

// positions lists matches as candidates for an ambiguity error.
func positions(ms []Match) []ops.Candidate {
	cs := make([]ops.Candidate, len(ms))
	for i, m := range ms {
		cs[i] = ops.Candidate{Line: m.Line, EndLine: m.EndLine, Similarity: round3(m.Similarity), Text: shorten(m.Matched, 200)}
	}
	return cs
}

func lineList(ms []Match) string {
	var b strings.Builder
	for i, m := range ms {
		if i == 10 {
			b.WriteString(", …")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprint(&b, m.Line)
	}
	return b.String()
}

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }

// missError builds the ErrNoMatch error with the nearest windows.
func missError(li *lineIndex, search string, fuzzy bool, th float64) error {
	sl, _ := searchLines(search)
	w, near := nearest(li, sl, nearestCount)
	tried := "exact, line endings, whitespace"
	if fuzzy {
		tried += fmt.Sprintf(", fuzzy ≥ %.2f", th)
	}
	e := &ops.Error{Op: "match", Index: -1, Err: ops.ErrNoMatch,
		Msg:  "search text not found (tried " + tried + ")",
		Hint: "re-read the file and copy the search text exactly",
	}
	if len(near) > 0 {
		e.Msg += fmt.Sprintf("; nearest is line %d (similarity %.2f)", near[0].i+1, near[0].sim)
		e.Hint += "; the nearest candidates are listed"
		if !fuzzy {
			e.Hint += "; or retry with fuzzy matching"
		}
	}
	for _, h := range near {
		text := w.text(h.i)
		e.Candidates = append(e.Candidates, ops.Candidate{
			Line: h.i + 1, EndLine: h.i + w.n, Similarity: round3(h.sim),
			Text: shorten(text, 300), Diff: shortDiff(w.target, text),
		})
	}
	return e
}

// shortDiff is a unified diff search→candidate without headers, cut to a few lines.
func shortDiff(search, candidate string) string {
	const maxLines = 12
	d := udiff.Unified("search", "file", search+"\n", candidate+"\n")
	ls := strings.Split(strings.TrimSuffix(d, "\n"), "\n")
	var out []string
	for _, l := range ls {
		if strings.HasPrefix(l, "--- ") || strings.HasPrefix(l, "+++ ") {
			continue
		}
		out = append(out, l)
	}
	if len(out) > maxLines {
		out = append(out[:maxLines], "…")
	}
	return strings.Join(out, "\n")
}

// alreadyApplied extends a no-match error when the replacement text is
// already in the content.
func alreadyApplied(err error, content, replace string) error {
	e, ok := err.(*ops.Error)
	if !ok || e.Err != ops.ErrNoMatch || strings.TrimSpace(replace) == "" {
		return err
	}
	ms := findExact(content, replace)
	if len(ms) == 0 {
		ms = findLineEndings(content, replace)
	}
	if len(ms) == 0 {
		ms = findWhitespace(indexLines(content), replace)
	}
	if len(ms) == 0 {
		return err
	}
	line := indexLines(content).lineOf(ms[0].Start)
	c := *e
	c.Msg += fmt.Sprintf("; the replacement text is already present at line %d — already applied?", line)
	c.Hint = "re-read the file: this change looks applied already; skip it if so"
	return &c
}
