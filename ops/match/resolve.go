package match

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/journalfs/journal/ops"
	"github.com/journalfs/journal/ops/merge"
)

// resolve finds where one change applies and what replaces it. The order:
//
//  1. the cascade (exact, line endings, whitespace; normalized with Fuzzy);
//  2. with Fuzzy and no match, agent artefacts (line numbers, double
//     escapes, a cut marker), accepted on a unique match only;
//  3. unless AllowRepeat, the already-applied checks: the replacement
//     present where the search would match (the search found nowhere), or
//     the search found and already followed (preceded) by the lines the
//     replacement adds after (before) it;
//  4. a miss is refused with the nearest windows and, for a near miss that
//     differs from the file only in how names are written on lines the
//     change keeps, a corrected search/replace pair (never applied here).
func resolve(content string, li *lineIndex, c Change, idx int) ([]Edit, error) {
	th, err := c.check(c.Search)
	if err != nil {
		return nil, err
	}
	search, replace, note := c.Search, c.Replace, ""
	ms := findAll(content, li, search, c.Options)
	var several *variant // artefacts removed, the text stands in several places
	if len(ms) == 0 && c.Fuzzy {
		var severalAt []Match
		for _, v := range artefactVariants(c.Search, c.Replace) {
			found := findAll(content, li, v.search, Options{Substring: c.Substring})
			if n := len(found); n > 1 && c.Occurrence == 0 && !c.ReplaceAll {
				// the prefixes' numbers say which occurrence was read
				if m, ok := atLines(found, v.first, v.last); ok {
					found = []Match{m}
					v.note += fmt.Sprintf("; the text stands in %d places and the numbers (lines %d-%d) named this one", n, v.first, v.last)
				}
			}
			if len(found) == 1 {
				ms, search, replace, note = found, v.search, v.replace, v.note
				break
			}
			if len(found) > 1 && several == nil {
				vv := v
				several, severalAt = &vv, found
			}
		}
		if len(ms) == 0 && several != nil {
			// refused as ambiguous below (or picked by occurrence or
			// replace_all), naming what was removed
			ms, search, replace, note = severalAt, several.search, several.replace, several.note
		}
		if len(ms) == 0 {
			if es, ok, err := resolveCut(content, li, c, idx); ok {
				return es, err
			}
		}
	}
	var cut []Match // occurrences inside longer tokens, when nothing else matched
	if len(ms) == 0 && !c.Substring {
		cut = cutMatches(content, li, search)
	}
	if !c.AllowRepeat {
		if len(ms) == 0 {
			if e, ok := presentInstead(content, li, search, replace, th, c.MadeAt); ok && !searchStandsAround(cut, e.Match, c.MadeAt) {
				e.Change = idx
				return []Edit{e}, nil
			}
			// "thre"→"three" where the file says three: the search cuts
			// the word the change has made already
			if es, ok := grownAlready(content, cut, search, replace); ok {
				for i := range es {
					es[i].Change = idx
				}
				return es, nil
			}
		} else if es, ok := grownAlready(content, ms, search, replace); ok {
			for i := range es {
				es[i].Change = idx
			}
			return es, nil
		} else {
			// an insertion found made beside its search, or the search
			// found only inside its replacement
			for _, judge := range []func(string, *lineIndex, []Match, string, string, int) ([]Edit, bool, error){extendedAlready, blankAlready, insideReplacement, madeElsewhere, blanksAlready} {
				if es, ok, err := judge(content, li, ms, search, replace, c.MadeAt); ok {
					if err != nil {
						return nil, err
					}
					for i := range es {
						es[i].Change = idx
					}
					return es, nil
				}
			}
		}
	}
	if len(ms) == 0 {
		if err := cutError(content, li, cut); err != nil {
			return nil, err
		}
		return nil, missError(li, search, replace, c.Fuzzy, th)
	}
	sel, err := selectMatches(ms, c.Options)
	if err != nil {
		return nil, severalErr(err, several)
	}
	if err := weakElsewhere(li, sel, search, c.Options); err != nil {
		return nil, err
	}
	out := make([]Edit, 0, len(sel))
	for _, m := range sel {
		m.Note = note
		m, r, err := m.Place(replace, c.Path)
		if err != nil {
			return nil, err
		}
		if r == m.Matched && m.Level != LevelExact && m.Level != LevelLineEndings && toLF(search) != toLF(replace) {
			e, err := carriedNothing(m, replace)
			if err != nil {
				return nil, err
			}
			e.Change = idx
			out = append(out, e)
			continue
		}
		out = append(out, Edit{Applied: Applied{Change: idx, Match: m}, Replacement: r})
	}
	return out, nil
}

// severalErr completes the refusal of a search text that, its artefacts
// removed (v), stands in several places: what was removed, and that the
// line numbers sent (if any) point at none of them.
func severalErr(err error, v *variant) error {
	var e *ops.Error
	if v == nil || !errors.As(err, &e) || !errors.Is(e.Err, ops.ErrAmbiguousMatch) {
		return err
	}
	d := *e
	d.Msg = v.note + ", and then the " + d.Msg
	if v.first > 0 {
		d.Msg += fmt.Sprintf("; the numbers sent (lines %d-%d) are not the lines of any of them", v.first, v.last)
		d.Hint = "read the file again and copy the lines with their current numbers, or give occurrence (1-based) or replace_all"
	}
	return &d
}

// noop is an edit that leaves match m as it is, reported as already applied.
func noop(m Match) Edit {
	return Edit{Applied: Applied{Match: m, AlreadyApplied: true}, Replacement: m.Matched}
}

// keyLines folds a text into the keys of its non-blank lines.
func keyLines(s string) []string {
	var ks []string
	for _, l := range strings.Split(toLF(s), "\n") {
		if k := fold(l); k != "" {
			ks = append(ks, k)
		}
	}
	return ks
}

// presentInstead reports a retried change: the search text is nowhere and
// the replacement is in the file at the line the caller's evidence names
// (madeAt), or exactly once, where the file shows the change was made
// (placed, applied.go), and no other window of the file resembles the
// search (which could be the place the caller meant).
func presentInstead(content string, li *lineIndex, search, replace string, th float64, at int) (Edit, bool) {
	rk := keyLines(replace)
	if len(rk) == 0 || strings.TrimSpace(toLF(search)) == strings.TrimSpace(toLF(replace)) {
		return Edit{}, false
	}
	ms := findAll(content, li, replace, Options{Fuzzy: true})
	if m, ok := madeAt(ms, at); ok {
		return noop(m), true
	}
	if len(rk) == 1 && len([]rune(rk[0])) < minKeyRunes {
		return Edit{}, false // too short to tell one place from another
	}
	if len(ms) != 1 || !holds(ms[0].Matched, replace) || !changeShown(ms[0], search, replace) {
		// present twice, or only with blank lines the replacement does
		// not have (the normalized level lets their number differ: the
		// change may be one of them), or at a level blind to the change
		return Edit{}, false
	}
	m := ms[0]
	sl, _ := searchLines(search)
	kept := keptLines(sl, replace)
	w, near := nearest(li, sl, nearestCount)
	for _, h := range near {
		first, last := h.i+1, h.i+len(sl)
		if h.sim < th || (last >= m.Line && first <= m.EndLine) {
			continue
		}
		// another window resembles the search: it is another place only if
		// a line the change keeps names something else there
		other := len(kept) > 0
		for _, k := range kept {
			if h.i+k < li.n() && fold(li.text(h.i+k)) != fold(sl[k]) {
				other = false
				break
			}
		}
		if other || len(kept) == 0 {
			return Edit{}, false
		}
	}
	// found only with its inner whitespace folded: a realignment not made
	if !placed(li, sl, kept, m, w.n, near) || deletedStillThere(li, search, replace, m) || !sameSpacing(nonBlank(m.Matched), nonBlank(replace)) {
		return Edit{}, false
	}
	return noop(m), true
}

// keptLines returns the indexes of the search lines the change leaves as
// they are (non-blank).
func keptLines(sl []string, replace string) []int {
	rl, _ := searchLines(replace)
	changed := make([]bool, len(sl))
	for _, h := range merge.DiffStrings(sl, rl) {
		for i := h.A0; i < h.A1; i++ {
			changed[i] = true
		}
	}
	var kept []int
	for i, l := range sl {
		if !changed[i] && !isBlank(l) {
			kept = append(kept, i)
		}
	}
	return kept
}

// extendedAlready reports an insertion retried: the replacement is the
// search plus new lines after (or before) it, and every match of the search
// is already followed (preceded) by those lines. Added lines too short to
// tell a retry from a second copy need the caller's evidence (at, the line
// where the replacement was made); without it the change is refused
// (repeatError).
func extendedAlready(content string, li *lineIndex, ms []Match, search, replace string, at int) ([]Edit, bool, error) {
	sk, rk := keyLines(search), keyLines(replace)
	if len(sk) == 0 || len(rk) <= len(sk) {
		return nil, false, nil
	}
	var after, before []string
	rl := nonBlank(replace)
	switch sl := nonBlank(search); {
	case slices.Equal(rk[:len(sk)], sk) && sameSpacing(rl[:len(sk)], sl):
		after = rk[len(sk):]
	case slices.Equal(rk[len(rk)-len(sk):], sk) && sameSpacing(rl[len(rl)-len(sk):], sl):
		before = rk[:len(rk)-len(sk)]
	default:
		return nil, false, nil
	}
	var es []Edit
	for _, m := range ms {
		if after != nil && (!slices.Equal(linesAfter(li, m.EndLine, len(after)), after) || !spacedAlike(li, m.EndLine, rl[len(sk):], true)) {
			return nil, false, nil
		}
		if before != nil && (!slices.Equal(linesBefore(li, m.Line, len(before)), before) || !spacedAlike(li, m.Line-2, rl[:len(before)], false)) {
			return nil, false, nil
		}
		es = append(es, noop(m))
	}
	added, where := after, "after"
	if before != nil {
		added, where = before, "before"
	}
	if substantial(added) {
		return es, true, nil
	}
	if madeAround(content, li, ms, replace, at) {
		return es, true, nil
	}
	return nil, true, repeatError(ms[0], added, where)
}

// grownAlready reports a change whose replacement is its search text with
// text added after (or before) it, at a place where the file already has
// that text after (before) every match: "thre"→"three" on a file holding
// "three" would otherwise write "threee".
func grownAlready(content string, ms []Match, search, replace string) ([]Edit, bool) {
	s, r := toLF(search), toLF(replace)
	if len(r) <= len(s) {
		return nil, false
	}
	var es []Edit
	for _, m := range ms {
		if m.Level != LevelExact && m.Level != LevelLineEndings {
			return nil, false
		}
		rest, lead := r[len(s):], r[:len(r)-len(s)]
		if strings.TrimSpace(rest+lead) == "" || strings.HasSuffix(s, "\n") {
			// whitespace grows no token, and text after a line break
			// starts a line (a replacement cut short, not a change made)
			return nil, false
		}
		// the grown text must end (start) on a token boundary: "ab" is no
		// change made in "abc"; it must lie on the search's own line (a
		// search ending with its line's end grows a new line: a line cut
		// short is no line made); whole lines added are extendedAlready's
		switch {
		case strings.HasPrefix(r, s) && !strings.HasSuffix(s, "\n") && !strings.Contains(rest, "\n") && strings.HasPrefix(content[m.End:], rest):
			if _, cut := cuts(content, m.Start, m.End+len(rest)); cut {
				return nil, false
			}
		case strings.HasSuffix(r, s) && !strings.HasPrefix(s, "\n") && !strings.Contains(lead, "\n") && strings.HasSuffix(content[:m.Start], lead):
			if _, cut := cuts(content, m.Start-len(lead), m.End); cut {
				return nil, false
			}
		default:
			return nil, false
		}
		es = append(es, noop(m))
	}
	return es, len(es) > 0
}

// linesAfter returns the keys of the n non-blank lines after 1-based line l.
func linesAfter(li *lineIndex, l, n int) []string {
	var ks []string
	for j := l; j < li.n() && len(ks) < n; j++ {
		if k := fold(li.text(j)); k != "" {
			ks = append(ks, k)
		}
	}
	return ks
}

// linesBefore returns the keys of the n non-blank lines before 1-based line
// l, in file order.
func linesBefore(li *lineIndex, l, n int) []string {
	var ks []string
	for j := l - 2; j >= 0 && len(ks) < n; j-- {
		if k := fold(li.text(j)); k != "" {
			ks = append([]string{k}, ks...)
		}
	}
	return ks
}

// resolveCut handles a search text with one cut-marker line ("...", "…",
// "[truncated]"): the lines before and after it must each match exactly
// once, in that order, and the replacement must have the marker too; the
// lines between are kept as the file has them. ok is false when the search
// has no cut marker.
func resolveCut(content string, li *lineIndex, c Change, idx int) ([]Edit, bool, error) {
	head, tail, ok := splitCut(c.Search)
	if !ok {
		return nil, false, nil
	}
	hs := findAll(content, li, head, Options{Fuzzy: true, Substring: c.Substring})
	if len(hs) != 1 {
		return nil, false, nil
	}
	var ts []Match
	for _, m := range findAll(content, li, tail, Options{Fuzzy: true, Substring: c.Substring}) {
		if m.Start >= hs[0].End {
			ts = append(ts, m)
		}
	}
	if len(ts) != 1 {
		return nil, false, nil
	}
	h, t := hs[0], ts[0]
	rhead, rtail, ok := splitCut(c.Replace)
	if !ok {
		whole := content[h.Start:t.End]
		return nil, true, &ops.Error{Op: "match", Index: -1, Err: ops.ErrInvalidInput,
			Msg:        fmt.Sprintf("the search text stands for lines %d-%d with a cut marker in the middle, but the replacement has no cut marker, so what replaces the lines it left out is unknown", h.Line, t.EndLine),
			Hint:       "keep the cut marker line in the replacement where the unchanged lines go, or send the whole text (candidate) as the search text",
			Candidates: []ops.Candidate{{Line: h.Line, EndLine: t.EndLine, Similarity: 1, Text: shorten(whole, 300), SearchText: whole}}}
	}
	const note = "a cut marker in the search text stood for lines it left out: those lines were kept as the file has them"
	var es []Edit
	for _, p := range []struct {
		m Match
		r string
	}{{h, rhead}, {t, rtail}} {
		p.m.Note = note
		r, err := p.m.Rewrite(p.r)
		if err != nil {
			return nil, true, err
		}
		es = append(es, Edit{Applied: Applied{Change: idx, Match: p.m}, Replacement: r})
	}
	return es, true, nil
}

// dependent extends a miss of change i whose search text another change's
// replacement holds: the batch resolves every change against the original
// file, so that change must be sent on its own first.
func dependent(err error, content string, changes []Change, i int) error {
	j := dependsOn(err, content, changes, i)
	if j < 0 {
		return err
	}
	var e *ops.Error
	errors.As(err, &e)
	d := *e
	d.Msg += fmt.Sprintf("; its search text is in change %d's replacement, so it exists only after change %d is made (every change of a batch is matched against the file as it was, unless the changes can be made in order, each search unique at its turn)", j, j)
	d.Hint = fmt.Sprintf("split the batch: send change %d alone first, then change %d in a second call (or merge the two into one change)", j, i)
	return &d
}

// dependsOn returns the change whose replacement writes the search text of
// change i, which missed in content with err (ops.ErrNoMatch): the whole
// search text, or one of its lines the content does not have; -1 if none.
func dependsOn(err error, content string, changes []Change, i int) int {
	var e *ops.Error
	if !errors.As(err, &e) || !errors.Is(e.Err, ops.ErrNoMatch) {
		return -1
	}
	search := foldText(changes[i].Search)
	if search == "" {
		return -1
	}
	var missing []string // lines of the search the content lacks
	have := foldText(content)
	for _, k := range keyLines(changes[i].Search) {
		if !strings.Contains(have, k) {
			missing = append(missing, k)
		}
	}
	for j, c := range changes {
		if j == i {
			continue
		}
		r := foldText(c.Replace)
		if strings.Contains(r, search) {
			return j
		}
		for _, k := range missing {
			if strings.Contains(r, k) {
				return j
			}
		}
	}
	return -1
}

// foldText folds every line of a text, keeping blank lines out.
func foldText(s string) string { return strings.Join(keyLines(s), "\n") }

// nameTokens splits a folded line into tokens: words (letters, digits,
// underscores) and single other characters; spaces separate and vanish.
func nameTokens(s string) []string {
	var ts []string
	rs := []rune(s)
	for i := 0; i < len(rs); {
		r := rs[i]
		switch {
		case unicode.IsSpace(r):
			i++
		case isWord(r):
			j := i
			for j < len(rs) && isWord(rs[j]) {
				j++
			}
			ts = append(ts, string(rs[i:j]))
			i = j
		default:
			ts = append(ts, string(r))
			i++
		}
	}
	return ts
}

func isWord(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// sameName reports two words that name the same thing written differently:
// equal but for case and underscores (userId, UserId, user_id). Numbers
// never do.
func sameName(a, b string) bool {
	if a == b {
		return true
	}
	if strings.IndexFunc(a, unicode.IsLetter) < 0 || strings.IndexFunc(b, unicode.IsLetter) < 0 {
		return false
	}
	n := func(s string) string { return strings.ToLower(strings.ReplaceAll(s, "_", "")) }
	return n(a) == n(b)
}

// variantOf reports a file line f that is the search line s written
// differently only in the case or underscores of names; on the last line
// the file may have closing brackets the search left off.
func variantOf(s, f string, last bool, renames map[string]string) bool {
	st, ft := nameTokens(fold(s)), nameTokens(fold(f))
	if last && len(ft) > len(st) {
		for _, t := range ft[len(st):] {
			if t != ")" && t != "]" && t != "}" {
				return false
			}
		}
		ft = ft[:len(st)]
	}
	if len(st) != len(ft) {
		return false
	}
	for i := range st {
		if !sameName(st[i], ft[i]) {
			return false
		}
		if st[i] != ft[i] && renames != nil {
			renames[st[i]] = ft[i]
		}
	}
	return true
}

// rename replaces whole words of s by the file's spelling of them.
func rename(s string, renames map[string]string) string {
	if len(renames) == 0 {
		return s
	}
	var b strings.Builder
	rs := []rune(s)
	for i := 0; i < len(rs); {
		if !isWord(rs[i]) {
			b.WriteRune(rs[i])
			i++
			continue
		}
		j := i
		for j < len(rs) && isWord(rs[j]) {
			j++
		}
		w := string(rs[i:j])
		if v, ok := renames[w]; ok {
			w = v
		}
		b.WriteString(w)
		i = j
	}
	return b.String()
}
