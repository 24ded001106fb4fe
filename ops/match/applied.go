package match

import (
	"fmt"
	"slices"
	"strings"

	"github.com/journalfs/journal/ops"
	"github.com/journalfs/journal/ops/merge"
)

// Already applied, on evidence only. A change reported applied already is
// a change the caller is told it need not make: on a guess, an edit is
// dropped. So the claim needs evidence that the replacement stands where
// the search text was:
//
//   - the file's own: a line the change keeps from the search that the
//     file holds once, inside the replacement's occurrence; or the search
//     text resembling the lines of that occurrence (at least half) more
//     than any other place of the file — a line changed in place;
//   - or the caller's (Options.MadeAt): an earlier edit that replaced
//     exactly this search text by this replacement there (the journal).
//
// The replacement present elsewhere, or twice, is no evidence: the change
// is refused (ops.ErrNoMatch) saying where the replacement stands, never
// hinting to skip it. An insertion found made already beside its search
// text needs added lines long enough to tell a retry from a second copy
// (minKeyRunes); "}" or "pass" found there without the caller's evidence
// is refused (ops.ErrAmbiguousMatch) with allow_repeat to add them again.

// minKeyRunes is the length under which a line (folded) is too short to
// tell one place, or one copy, from another.
const minKeyRunes = 8

// minPlacedSimilarity is the least similarity between the search text and
// the lines of the replacement's occurrence that counts as the change
// having been made there, when no kept line anchors it.
const minPlacedSimilarity = 0.5

// Present returns the places replacement stands in content, as the cascade
// finds a search text (fuzzy levels included): where a caller looks for
// the evidence (Options.MadeAt) that a refused change was made already.
func Present(content, replace string) []Match {
	if strings.TrimSpace(replace) == "" {
		return nil
	}
	return findAll(content, indexLines(content), replace, Options{Fuzzy: true})
}

// madeAt returns the occurrence of ms starting at 1-based line at.
func madeAt(ms []Match, at int) (Match, bool) {
	for _, m := range ms {
		if at > 0 && m.Line == at {
			return m, true
		}
	}
	return Match{}, false
}

// placed reports the file's own evidence that the replacement's occurrence
// m stands where the search lines sl were: a line the change keeps (kept)
// that the file holds once, or the nearest windows (n lines each, best
// first) led by one overlapping m, at least minPlacedSimilarity, that no
// window apart from m equals.
func placed(li *lineIndex, sl []string, kept []int, m Match, n int, near []scored) bool {
	for _, k := range kept {
		if j, ok := onlyLine(li, fold(sl[k])); ok && j+1 >= m.Line && j+1 <= m.EndLine {
			return !stillStands(li, sl, kept, m, j-k)
		}
	}
	overlaps := func(h scored) bool { return h.i+n >= m.Line && h.i+1 <= m.EndLine }
	if len(near) == 0 || !overlaps(near[0]) || near[0].sim < minPlacedSimilarity {
		return false
	}
	for _, h := range near[1:] {
		if !overlaps(h) && h.sim >= near[0].sim {
			return false
		}
	}
	return !stillStands(li, sl, kept, m, near[0].i)
}

// stillStands reports the search's evidence against a change made at m:
// with the search's first line at 0-based file line start, a line the
// change removes or rewrites (not kept, substantial) still stands beside
// the replacement's occurrence, where the search has it — equal or nearly
// (DefaultThreshold) once folded. Made, the change would have taken it
// away; it stands, so the replacement's lines were there before, or the
// lines were changed by someone else (a deletion whose kept lines "}"
// stand while the deleted function, one line edited, is still there).
func stillStands(li *lineIndex, sl []string, kept []int, m Match, start int) bool {
	for k, l := range sl {
		key := fold(l)
		if slices.Contains(kept, k) || len([]rune(key)) < minKeyRunes {
			continue
		}
		j := start + k
		if j < 0 || j >= li.n() || (j+1 >= m.Line && j+1 <= m.EndLine) {
			continue
		}
		if f := fold(li.text(j)); f == key || similarity(f, key) >= DefaultThreshold {
			return true
		}
	}
	return false
}

// onlyLine returns the 0-based line whose folded text is key when exactly
// one line of the file has it; keys shorter than minKeyRunes never anchor.
func onlyLine(li *lineIndex, key string) (int, bool) {
	if len([]rune(key)) < minKeyRunes {
		return 0, false
	}
	at := -1
	for j := 0; j < li.n(); j++ {
		if fold(li.text(j)) == key {
			if at >= 0 {
				return 0, false
			}
			at = j
		}
	}
	return at, at >= 0
}

// substantial reports added lines that tell a retry from a second copy:
// one of them at least minKeyRunes long.
func substantial(keys []string) bool {
	for _, k := range keys {
		if len([]rune(k)) >= minKeyRunes {
			return true
		}
	}
	return false
}

// ErrMaybeRepeat is the refusal of an insertion whose short added lines
// already stand beside its search text: made already, or meant a second
// time, which nothing tells apart. It wraps ops.ErrAmbiguousMatch; its
// candidate is the place, and its message names no line, so a caller that
// matched a window of a file can move the candidate's lines.
var ErrMaybeRepeat = fmt.Errorf("%w: made already or meant again", ops.ErrAmbiguousMatch)

// repeatError refuses an insertion whose short added lines already stand
// beside its search text at match m (ErrMaybeRepeat).
func repeatError(m Match, added []string, where string) error {
	return &ops.Error{Op: "match", Index: -1, Err: ErrMaybeRepeat,
		Msg: fmt.Sprintf("the lines this change adds (%q) already stand %s the search text (candidate): made already, or meant a second time? Lines this short do not tell, and no earlier edit in the journal made this change, so nothing was written",
			strings.Join(added, `\n`), where),
		Hint:       "read the file at the candidate's lines; to add the lines a second time, send the call again with allow_repeat: true",
		Candidates: []ops.Candidate{{Line: m.Line, EndLine: m.EndLine, Similarity: 1, Text: shorten(m.Matched, 200)}}}
}

// presentText says where a replacement the change was not found made
// stands (ms, its occurrences), for a refusal.
func presentText(ms []Match) string {
	s := fmt.Sprintf("; the replacement text is present at line %d", ms[0].Line)
	if len(ms) > 1 {
		s += fmt.Sprintf(" (%d places: lines %s)", len(ms), lineList(ms))
	}
	return s + ", but nothing shows it was put there in place of the search text, so the change is not reported as already applied"
}

// carriedNothing judges a change that, carried onto the lines m matched at
// a tolerant level, leaves them as they are although its replacement
// differs from its search text. When those lines already are the
// replacement, line for line (blank lines included) and equal once folded
// (a whitespace-only change the file has, a retry), the change is made
// already: the file is its evidence. Otherwise the carry lost the change
// (a blank line or an elided line it could not place), and a success would
// claim a change not made: it is refused (ops.ErrNoMatch).
func carriedNothing(m Match, replace string) (Edit, error) {
	if holds(m.Matched, replace) {
		return noop(m), nil
	}
	return Edit{}, &ops.Error{Op: "match", Index: -1, Err: ops.ErrNoMatch,
		Msg:        fmt.Sprintf("matched at line %d (%s level), but carried onto the file's lines the change leaves them as they are, and they are not the replacement: the change would not be made, so nothing was written", m.Line, m.Level),
		Hint:       "send the search text exactly as the file has it (candidate) with your change in the replacement",
		Candidates: []ops.Candidate{{Line: m.Line, EndLine: m.EndLine, Similarity: 1, Text: shorten(m.Matched, 300), SearchText: m.Matched}}}
}

// holds reports lines that are text line for line, blank lines included,
// equal once folded.
func holds(lines, text string) bool {
	a, _ := searchLines(lines)
	b, _ := searchLines(text)
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if fold(a[i]) != fold(b[i]) {
			return false
		}
	}
	return true
}

// insideReplacement judges a change whose search text is found only inside
// occurrences of its own replacement, larger than the match (a replacement
// that adds lines on both sides of its search, a retry whose search now
// matches the replacement's middle line at a tolerant level): applying it
// would make the change a second time around the first. It is applied
// already only on the caller's evidence (at names the occurrence: the
// journal's event that made it); otherwise it is refused (ErrMaybeRepeat),
// neither claimed nor doubled. ok is false when some match stands outside
// every such occurrence (the change is made there as usual).
func insideReplacement(content string, li *lineIndex, ms []Match, search, replace string, at int) ([]Edit, bool, error) {
	if strings.TrimSpace(toLF(search)) == strings.TrimSpace(toLF(replace)) || len(keyLines(replace)) == 0 {
		return nil, false, nil
	}
	var es []Edit
	var around Match
	for _, m := range ms {
		rs := presentAround(content, li, m, replace)
		k := slices.IndexFunc(rs, func(r Match) bool {
			return r.Start <= m.Start && m.End <= r.End && r.End-r.Start > m.End-m.Start && shownWhole(r, search, replace)
		})
		if k < 0 {
			return nil, false, nil
		}
		around = rs[k]
		es = append(es, noop(m))
	}
	if len(ms) == 1 && at > 0 && around.Line == at {
		return es, true, nil
	}
	return nil, true, &ops.Error{Op: "match", Index: -1, Err: ErrMaybeRepeat,
		Msg:        "the search text stands only inside this change's replacement (candidate): made already, or meant a second time around it? No earlier edit in the journal made this change there, so nothing was written",
		Hint:       "read the file at the candidate's lines; to make the change there again, send the call again with allow_repeat: true",
		Candidates: []ops.Candidate{{Line: around.Line, EndLine: around.EndLine, Similarity: 1, Text: shorten(around.Matched, 200)}}}
}

// shownWhole reports that the replacement's occurrence r around a search's
// match is the replacement as written: the change shown (changeShown) and
// the whitespace inside its lines as the replacement has it (a realigned
// replacement found with its spacing folded is not there).
func shownWhole(r Match, search, replace string) bool {
	return changeShown(r, search, replace) && sameSpacing(nonBlank(r.Matched), nonBlank(replace))
}

// changeShown reports that the replacement's occurrence m (a tolerant
// level's) shows the change itself: every line the change writes (not a
// line of the search as it is) stands in the file as written, but for
// indentation, trailing whitespace and look-alikes. A level blind to the
// change (the normalized level erases the spaces a realignment adds) finds
// the replacement where the file lacks the change.
func changeShown(m Match, search, replace string) bool {
	if m.Level == LevelExact || m.Level == LevelLineEndings {
		return true
	}
	sl, _ := searchLines(search)
	rl, _ := searchLines(replace)
	var wl []string
	for _, l := range splitKeep(m.Matched) {
		wl = append(wl, l.text)
	}
	for _, h := range merge.DiffStrings(sl, rl) {
		for b := h.B0; b < h.B1; b++ {
			if isBlank(rl[b]) {
				continue
			}
			a := b
			if m.align != nil {
				a = m.align[b]
			}
			if a < 0 || a >= len(wl) || strictKey(wl[a]) != strictKey(rl[b]) {
				return false
			}
		}
	}
	return true
}

// strictKey is a line without indentation and trailing whitespace, its
// look-alikes as ASCII: the spaces inside it count.
func strictKey(s string) string {
	var b strings.Builder
	for _, r := range trimKey(s) {
		if m, ok := lookalike(r); ok {
			b.WriteString(m)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// presentAround returns the occurrences of replace (as Present finds them)
// among the lines around match m, twice as many on each side as replace
// has (the normalized level lets blank lines differ in number): the
// only place one holding m can stand, searched without a pass over the
// whole file. Their offsets and lines are the content's.
func presentAround(content string, li *lineIndex, m Match, replace string) []Match {
	n := 2*strings.Count(toLF(replace), "\n") + 2 // blank lines may differ in number
	lo, hi := max(0, m.Line-1-n), min(li.n()-1, m.EndLine-1+n)
	start, _, _ := li.bounds(lo)
	_, _, end := li.bounds(hi)
	sub := content[start:end]
	rs := findAll(sub, indexLines(sub), replace, Options{Fuzzy: true})
	for i := range rs {
		r := &rs[i]
		r.Start, r.End = r.Start+start, r.End+start
		r.Line, r.EndLine = r.Line+lo, r.EndLine+lo
	}
	return rs
}
