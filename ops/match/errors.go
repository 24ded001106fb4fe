package match

import (
	"fmt"
	"math"
	"strings"
	"unicode"

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

// missError builds the ErrNoMatch error with the nearest windows. When the
// nearest window is clearly the best, resembles the search at the fuzzy
// threshold, and differs from it only in how names are written on lines the
// change keeps (userId for UserId) or in closing brackets the search left
// off its last line, the change is carried onto that window and offered as
// a corrected pair (Retry): never applied without the caller sending it.
func missError(li *lineIndex, search, replace string, fuzzy bool, th float64) error {
	sl, finalNL := searchLines(search)
	w, near := nearest(li, sl, nearestCount)
	tried := "exact, line endings, whitespace"
	if fuzzy {
		tried += ", look-alike characters and blank lines, agent artefacts"
	}
	e := &ops.Error{Op: "match", Index: -1, Err: ops.ErrNoMatch,
		Msg:  "search text not found (tried " + tried + ")",
		Hint: "re-read the file and copy the search text exactly",
	}
	// a window that shares nothing with the search (similarity 0.00 as
	// shown) is no candidate
	for len(near) > 0 && near[len(near)-1].sim < 0.005 {
		near = near[:len(near)-1]
	}
	if len(near) > 0 {
		e.Msg += fmt.Sprintf("; nearest is line %d (similarity %.2f)", near[0].i+1, near[0].sim)
		e.Hint += "; the nearest candidates are listed with what differs"
	} else {
		e.Msg += "; no similar text in the file"
	}
	for _, h := range near {
		text := w.text(h.i)
		e.Candidates = append(e.Candidates, ops.Candidate{
			Line: h.i + 1, EndLine: h.i + w.n, Similarity: round3(h.sim),
			Text: shorten(text, 300), Diff: visible(shortDiff(w.target, text)),
		})
	}
	if len(near) > 0 && max(near[0].sim, nameSimilarity(w.target, w.text(near[0].i))) >= th && w.n == len(sl) && (len(near) == 1 || near[1].sim < near[0].sim-0.02) {
		if exact, carried, ok := carryNear(li, near[0].i, sl, finalNL, search, replace); ok {
			c := &e.Candidates[0]
			c.SearchText, c.ReplaceText = exact, carried
			e.Retry = map[string]any{"search_text": exact, "replace_text": carried}
			e.Msg += "; it differs from the search text only in how names are written (or closing brackets the search left off)"
			e.Hint = "check the candidate: retry sends the file's exact text there with your change carried onto it (lines you did not change keep the file's text)"
		}
	}
	if strings.TrimSpace(replace) != "" && strings.TrimSpace(toLF(replace)) != strings.TrimSpace(toLF(search)) {
		if ms := findAll(li.s, li, replace, Options{Fuzzy: true}); len(ms) > 0 {
			e.Msg += presentText(ms)
			if e.Retry == nil {
				e.Hint = "read the lines your search text came from and copy them exactly: the replacement standing elsewhere does not mean your change was made"
			}
		}
	}
	return e
}

// nameSimilarity is the similarity of two texts with names compared as
// sameName does (case and underscores ignored).
func nameSimilarity(a, b string) float64 {
	n := func(s string) string { return strings.ToLower(strings.ReplaceAll(s, "_", "")) }
	return similarity(n(a), n(b))
}

// carryNear carries search→replace onto the window of len(sl) lines at line
// i when every line of it is a variant of the search's (variantOf), and
// spells the names of the new lines as the file does. It returns the
// window's exact text and the carried replacement.
func carryNear(li *lineIndex, i int, sl []string, finalNL bool, search, replace string) (string, string, bool) {
	renames := map[string]string{}
	for k, s := range sl {
		if !variantOf(s, li.text(i+k), k == len(sl)-1, renames) {
			return "", "", false
		}
	}
	m := windowMatch(li, i, len(sl), finalNL)
	exact := li.s[m.Start:m.End]
	align := make([]int, len(sl))
	for k := range align {
		align[k] = k
	}
	c := &carrier{window: splitKeep(exact), align: align, style: indentSample(li, i), eol: eolAt(li.s, m.Start), loose: true}
	if len(c.window) < len(align) {
		return "", "", false
	}
	out, err := c.carry(search, replace)
	if err != nil {
		return "", "", false
	}
	out = rename(out, renames) // the caller's new lines use the names as the file spells them
	return exact, out, true
}

// visible renders characters a diff would hide: tabs, carriage returns,
// no-break and other odd spaces, zero-width and combining marks.
func visible(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\t':
			b.WriteString("→")
		case r == '\r':
			b.WriteString("␍")
		case r == '\u00A0':
			b.WriteString("⍽")
		case r == '\u200B' || r == '\u200C' || r == '\u200D' || r == '\u2060' || r == '\uFEFF':
			fmt.Fprintf(&b, "<U+%04X>", r)
		case unicode.Is(unicode.Mn, r):
			fmt.Fprintf(&b, "<U+%04X>", r)
		case r > 0x7F && unicode.IsSpace(r):
			fmt.Fprintf(&b, "<U+%04X>", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// shortDiff is a unified diff search→candidate without headers, cut to a few lines.
func shortDiff(search, candidate string) string {
	const maxLines = 12
	d := ops.Unified("search", "file", search+"\n", candidate+"\n")
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
