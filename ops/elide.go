package ops

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/aymanbagabas/go-udiff/lcs"
)

// Elision is one marker ExpandMarkers expanded: the line of the new text
// that held it and the lines of the old text kept in its place.
type Elision struct {
	Line     int    // 1-based line of the marker in the new text
	Marker   string // the marker line, trimmed
	From, To int    // 1-based lines of the old text it stood for, inclusive
}

// ExpandMarkers replaces the elision markers of text, the new text for old
// (the text it replaces: a search text, a line range, a symbol, a whole
// file), with the lines of old they stand for, so that an agent's lazy
// "// ... existing code ..." keeps those lines instead of writing the
// marker over them. path names the file, for its comment syntax and how it
// reads a bare "..." (marker.go says which lines are markers).
//
// The protocol is exact. The new text's non-blank lines are aligned with
// old's by a line diff (indentation and line endings ignored; blank lines
// are layout and never anchor). A marker stands for the old lines of its
// changed region that no line of the new text around it takes: a changed
// line before (after) it takes the old line it edits — the one of the
// region with the same first word and most of its characters, found once
// — or none (an added line). The lines right before and after the marker —
// the anchors — must each say one place: unchanged lines whose run (edited
// lines counting as their old lines) occurs once in old, or an edited line
// whose old line is the only one it edits; one anchor found once in old,
// the other need be found once after (before) it. A marker at the start or
// the end needs the one anchor it has; markers in one changed region need
// an edited line between them. The line right next to a marker must fix
// where its lines begin (end), as other readings keep other lines
// (elide_sure.go): an unchanged line, the text's edge, an edited line that
// cannot stand beside the old line it edits (the same name declared or
// assigned, the same key, both returning, a near copy) or that alone
// divides two markers — never an added line, which may as well replace
// the lines next to it; and in code the result's brackets must balance as
// old's do. Otherwise too — an anchor missing or repeated, no
// old line (or only blank ones) left for the marker, two markers with only
// added lines between — it refuses with ErrInvalidInput naming the marker
// and its line, and the caller writes nothing. A marker line that old
// holds itself is old's text, literal. The diff pairs an edited line with
// the one old line it edits and, of two copies of an unchanged line, the
// one next to the unchanged lines before it.
//
// The kept lines are old's bytes with the line ending of the marker's
// line; the blank lines around a marker are the caller's unless the kept
// lines bring their own. Without markers text is returned as it is, with
// no Elision. A line that may be a marker or text (a bare ellipsis in
// prose, a marker inside a Markdown code fence, Python's "..." as an if's
// body) is a marker where it stands in place of old lines, else text.
func ExpandMarkers(old, text, path string) (string, []Elision, error) {
	if !mayHoldMarker(text) {
		return text, nil, nil
	}
	lines := splitKeep(text)
	hard, soft := markerLines(text, lines, kindOf(path))
	if len(hard)+len(soft) == 0 {
		return text, nil, nil
	}
	return expand(old, lines, path, slices.Sorted(slices.Values(append(hard, soft...))), soft)
}

// expand is ExpandMarkers with the marker lines cand. Of them, soft ones
// (markerLines) are markers where they stand in place of
// old lines — in a changed region that has some — else text: expand
// starts again without them.
func expand(old string, lines []string, path string, cand, soft []int) (string, []Elision, error) {
	olds := splitKeep(old)
	okeys := lineKeys(olds)
	inOld := oldIndex(okeys)
	nkeys := lineKeys(lines)
	// a marker takes the blank lines around it: which of the old text's
	// blank lines they are is for its kept lines to say, not for the diff
	marker := make([]bool, len(lines)) // marker lines, and the blank lines around them
	var marks []int
	for _, i := range cand {
		if inOld[nkeys[i]].n == 0 && !cutShort(lines, nkeys, okeys, i) { // else the old text's own line (or one cut short): literal
			marks = append(marks, i)
		}
	}
	if len(marks) == 0 {
		return strings.Join(lines, ""), nil, nil
	}
	for _, i := range marks {
		marker[i] = true
		for k := i - 1; k >= 0 && nkeys[k] == ""; k-- {
			marker[k] = true
		}
		for k := i + 1; k < len(lines) && nkeys[k] == ""; k++ {
			marker[k] = true
		}
	}
	for i, m := range marker {
		if m {
			nkeys[i] = "\x00marker " + strconv.Itoa(i)
		}
	}
	e := &expander{lines: lines, nkeys: nkeys, okeys: okeys, olds: olds, marker: marker, inOld: inOld, prose: kindOf(path) == kindProse}
	e.align()
	if len(soft) > 0 {
		text := slices.DeleteFunc(slices.Clone(cand), func(i int) bool {
			if !slices.Contains(soft, i) || !slices.Contains(marks, i) {
				return false
			}
			d := e.hunks[e.hunk[i]]
			return !slices.ContainsFunc(okeys[d.Start:d.End], func(k string) bool { return k != "" })
		})
		if len(text) < len(cand) {
			return expand(old, lines, path, text, nil)
		}
	}
	var es []Elision
	var groups []group
	for k := 0; k < len(marks); {
		g := group{first: marks[k], mark: marks[k], markEnd: marks[k]}
		for g.first > 0 && marker[g.first-1] {
			g.first--
		}
		for k++; k < len(marks) && !slices.Contains(marker[g.markEnd:marks[k]], false); k++ { // only blank lines between
			g.markEnd = marks[k]
		}
		for g.last = g.markEnd; g.last+1 < len(lines) && marker[g.last+1]; g.last++ {
		}
		groups = append(groups, g)
	}
	kept := map[int]group{} // by first line
	for a := 0; a < len(groups); {
		b := a + 1
		for b < len(groups) && e.hunk[groups[b].mark] == e.hunk[groups[a].mark] {
			b++
		}
		if err := e.expandHunk(groups[a:b]); err != nil {
			return "", nil, err
		}
		for _, g := range groups[a:b] {
			kept[g.first] = g
			es = append(es, Elision{Line: g.mark + 1, Marker: strings.TrimSpace(lines[g.mark]), From: g.from + 1, To: g.to})
		}
		a = b
	}
	out := e.build(kept)
	if err := e.balanced(out, path, groups); err != nil {
		return "", nil, err
	}
	return out, es, nil
}

// ElisionNote says what the markers stood for, in the result's notes: base
// is the file line of old's first line (0: lines are of what, e.g. "the
// search text").
func ElisionNote(es []Elision, base int, what string) string {
	var parts []string
	for _, e := range es {
		from, to, of := e.From, e.To, what
		if base > 0 {
			from, to, of = base+from-1, base+to-1, "the file"
		}
		span := fmt.Sprintf("lines %d-%d", from, to)
		if from == to {
			span = fmt.Sprintf("line %d", from)
		}
		parts = append(parts, fmt.Sprintf("the elision marker %q (line %d of the new text) stood for %s of %s: kept as the file has them", e.Marker, e.Line, span, of))
	}
	return strings.Join(parts, "; ")
}

// mayHoldMarker is a quick test that some line of text may be a marker
// (isMarkerLine's own first test, over the whole text: neither ellipses nor
// stems span lines); texts without one skip the line scan. It copies
// nothing: lowering a whole file of 1 MB, and searching it for each word,
// was most of a whole-file write's CPU (BENCHMARKS.md, issue 60).
func mayHoldMarker(text string) bool {
	return hasEllipsis(text) || mayMentionElision(text)
}

// splitKeep splits s into lines that keep their endings.
func splitKeep(s string) []string {
	ls := strings.SplitAfter(s, "\n")
	if ls[len(ls)-1] == "" {
		ls = ls[:len(ls)-1]
	}
	return ls
}

// lineKeys are the lines without indentation, trailing blanks and endings.
func lineKeys(ls []string) []string {
	ks := make([]string, len(ls))
	for i, l := range ls {
		ks[i] = strings.TrimSpace(l)
	}
	return ks
}

func blankBetween(keys []string, a, b int) bool {
	for _, k := range keys[a+1 : b] {
		if k != "" {
			return false
		}
	}
	return true
}

// expander holds one expansion: new and old lines, their alignment.
type expander struct {
	lines, nkeys []string // the new text
	olds, okeys  []string // the old text
	marker       []bool   // new lines that are markers, and the blank lines around them
	newOld       []int    // new line → the old line it equals, -1 if none
	hunk         []int    // new line → its changed region, -1 if none
	hunks        []lcs.Diff
	// the non-blank lines: their positions and keys
	fn, fo   []int
	fnk, fok []string
	inOld    map[string]seen // the old text's keys
	prose    bool            // the file is prose (Markdown, text)
}

// seen is where a key stands in the old text's non-blank lines: its last
// position, and how many times.
type seen struct{ at, n int }

// oldIndex indexes the non-blank keys of the old text.
func oldIndex(okeys []string) map[string]seen {
	m := make(map[string]seen, len(okeys))
	i := 0
	for _, k := range okeys {
		if k != "" {
			m[k] = seen{i, m[k].n + 1}
			i++
		}
	}
	return m
}

// align diffs old and new by the keys of their non-blank lines (blank lines
// are layout: they never anchor). A changed region spans the blank lines
// around it, up to the unchanged lines on either side.
func (e *expander) align() {
	nonBlank := func(keys []string) (pos []int, ks []string) {
		for i, k := range keys {
			if k != "" {
				pos, ks = append(pos, i), append(ks, k)
			}
		}
		return pos, ks
	}
	e.fn, e.fnk = nonBlank(e.nkeys)
	e.fo, e.fok = nonBlank(e.okeys)
	e.newOld = make([]int, len(e.nkeys))
	e.hunk = make([]int, len(e.nkeys))
	for i := range e.newOld {
		e.newOld[i], e.hunk[i] = -1, -1
	}
	at := func(pos []int, i, n int) int { // position of filtered line i, n past the end
		if i >= len(pos) {
			return n
		}
		return pos[i]
	}
	after := func(pos []int, i int) int { // first position after filtered line i-1
		if i == 0 {
			return 0
		}
		return pos[i-1] + 1
	}
	oi, ni := 0, 0
	for _, d := range slideDeletions(lcs.DiffLines(e.fok, e.diffKeys()), e.fok) {
		for ; ni < d.ReplStart; ni, oi = ni+1, oi+1 {
			e.newOld[e.fn[ni]] = e.fo[oi]
		}
		h := lcs.Diff{Start: after(e.fo, d.Start), End: at(e.fo, d.End, len(e.okeys)),
			ReplStart: after(e.fn, d.ReplStart), ReplEnd: at(e.fn, d.ReplEnd, len(e.nkeys))}
		for n := h.ReplStart; n < h.ReplEnd; n++ {
			e.hunk[n] = len(e.hunks)
		}
		e.hunks = append(e.hunks, h)
		ni, oi = d.ReplEnd, d.End
	}
	for ; ni < len(e.fn); ni, oi = ni+1, oi+1 {
		e.newOld[e.fn[ni]] = e.fo[oi]
	}
}

// slideDeletions moves each pure deletion down while the old line after it
// equals its first line (the diff may pair either copy): the copy paired
// joins the unchanged lines before it, as the caller wrote them together.
// Hunks that come to touch are merged.
func slideDeletions(ds []lcs.Diff, old []string) []lcs.Diff {
	var out []lcs.Diff
	for k, d := range ds {
		if d.ReplStart == d.ReplEnd {
			limit := len(old) // the next hunk's start: only unchanged lines slide
			if k+1 < len(ds) {
				limit = ds[k+1].Start
			}
			for d.End < limit && old[d.Start] == old[d.End] {
				d.Start, d.End, d.ReplStart, d.ReplEnd = d.Start+1, d.End+1, d.ReplStart+1, d.ReplEnd+1
			}
		}
		if n := len(out); n > 0 && out[n-1].End == d.Start && out[n-1].ReplEnd == d.ReplStart {
			out[n-1].End, out[n-1].ReplEnd = d.End, d.ReplEnd
			continue
		}
		out = append(out, d)
	}
	return out
}

// diffKeys are the keys of the new text's non-blank lines for the diff: a
// changed line that edits exactly one old line (counterpart) between the
// nearest lines around it that both texts hold once takes that line's key,
// so the diff pairs the two — an edited line holds its place, and the
// unchanged lines next to it are not paired with another occurrence of
// theirs ("}" after an edited body with the "}" of the next function).
func (e *expander) diffKeys() []string {
	newN := make(map[string]int, len(e.fnk))
	for _, k := range e.fnk {
		newN[k]++
	}
	// fixed[i]: the old position of new line i when both hold it once, in
	// order; -1 otherwise
	fixed := make([]int, len(e.fnk))
	prev := -1
	for i, k := range e.fnk {
		fixed[i] = -1
		if o := e.inOld[k]; o.n == 1 && newN[k] == 1 && o.at > prev {
			fixed[i], prev = o.at, o.at
		}
	}
	out := slices.Clone(e.fnk)
	lo := -1
	for i, k := range out {
		if fixed[i] >= 0 {
			lo = fixed[i]
			continue
		}
		if e.inOld[k].n > 0 || e.marker[e.fn[i]] {
			continue
		}
		hi := len(e.fok)
		for j := i + 1; j < len(out); j++ {
			if fixed[j] >= 0 {
				hi = fixed[j]
				break
			}
		}
		found, n := "", 0
		for _, o := range e.fok[lo+1 : hi] {
			if counterpart(o, k) {
				if found, n = o, n+1; n > 1 {
					break
				}
			}
		}
		if n == 1 {
			out[i] = found
		}
	}
	return out
}

// group is a run of marker lines with the blank lines around and between
// them (new lines first..last; the markers from mark to markEnd), standing
// for the old lines [from, to).
type group struct{ first, last, mark, markEnd, from, to int }

// expandHunk finds the old lines each marker group of one changed region
// stands for. The region's new lines are segments between the groups; a
// segment's changed lines take the old lines they edit (edits), the first
// segment's from the start, the last one's from the end, each middle one's
// in order (it must edit one at least: it is what divides the old lines
// between the markers around it).
func (e *expander) expandHunk(gs []group) error {
	d := e.hunks[e.hunk[gs[0].mark]]
	x := d.Start
	// before[t], after[t]: the new line anchoring group t on that side
	// by the old line it edits (-1: none in the region)
	before, after := make([]int, len(gs)), make([]int, len(gs))
	// addedBefore[t], addedAfter[t]: the added lines (editing none) right
	// before and after group t
	addedBefore, addedAfter := make([][]int, len(gs)), make([][]int, len(gs))
	for t := range gs {
		before[t], after[t] = -1, -1
	}
	for n := d.ReplStart; n < gs[0].first; n++ {
		y, err := e.edits(n, x, d.End, gs[0].mark)
		if err != nil {
			return err
		}
		if y >= 0 {
			x, before[0], addedBefore[0] = y+1, n, nil
		} else if e.nkeys[n] != "" {
			addedBefore[0] = append(addedBefore[0], n)
		}
	}
	for t := range gs {
		gs[t].from = x
		if t == len(gs)-1 {
			break
		}
		firstY := -1
		for n := gs[t].last + 1; n < gs[t+1].first; n++ {
			y, err := e.edits(n, x, d.End, gs[t].mark)
			if err != nil {
				return err
			}
			switch {
			case y < 0 && e.nkeys[n] == "":
			case y < 0 && firstY < 0:
				addedAfter[t] = append(addedAfter[t], n)
			case y < 0:
				addedBefore[t+1] = append(addedBefore[t+1], n)
			default:
				if firstY < 0 {
					firstY, after[t] = y, n
				}
				x, before[t+1], addedBefore[t+1] = y+1, n, nil
			}
		}
		if firstY < 0 {
			return e.refuse(gs[t].mark, fmt.Sprintf("the markers at lines %d and %d of the new text have only new lines between them, so which old lines each stands for is not known", gs[t].mark+1, gs[t+1].mark+1))
		}
		gs[t].to = firstY
	}
	last := len(gs) - 1
	z := d.End
	for n := d.ReplEnd - 1; n > gs[last].last; n-- {
		y, err := e.edits(n, x, z, gs[last].mark)
		if err != nil {
			return err
		}
		if y >= 0 {
			z, after[last], addedAfter[last] = y, n, nil
		} else if e.nkeys[n] != "" {
			addedAfter[last] = append(addedAfter[last], n)
		}
	}
	gs[last].to = z
	for t, g := range gs {
		if err := e.anchored(g, d, before[t], after[t]); err != nil {
			return err
		}
		if g.to <= g.from || blankBetween(e.okeys, g.from-1, g.to) {
			return e.refuse(g.mark, "the old text has no lines for it there: "+e.between(g.from, g.to))
		}
		if err := e.addedNextTo(g, addedBefore[t], addedAfter[t]); err != nil {
			return err
		}
		if err := e.moved(g); err != nil {
			return err
		}
		if err := e.sure(g, [2]sideOf{e.side(e.prevLine(g.first), addedBefore[t], before[t], g.from-1),
			e.side(e.nextLine(g.last+1), addedAfter[t], after[t], g.to)}); err != nil {
			return err
		}
	}
	return nil
}

// side classifies new line n next to a group: the text's edge (n < 0), one
// of the added lines, the edited line edit (of old line editOld), or a
// line outside the region paired with an old line by the diff.
func (e *expander) side(n int, added []int, edit, editOld int) sideOf {
	switch {
	case n < 0:
		return sideOf{n: -1, old: -1}
	case slices.Contains(added, n):
		return sideOf{n: n, old: -1, added: true}
	case n == edit:
		return sideOf{n: n, old: editOld}
	}
	return sideOf{n: n, old: e.newOld[n]}
}

// addedNextTo refuses an added line next to group g that begins as the
// first (last) line g keeps (the same first word, or the same shape of
// statement: `cf, err := r.cat()` beside `out, err := r.git(…)`): it may replace that line rather than come
// before (after) it, and the two readings keep different lines.
func (e *expander) addedNextTo(g group, before, after []int) error {
	first, last := g.from, g.to-1
	for e.okeys[first] == "" {
		first++
	}
	for e.okeys[last] == "" {
		last--
	}
	for _, side := range []struct {
		added []int
		kept  int
		where string
	}{{before, first, "first"}, {after, last, "last"}} {
		for _, n := range side.added {
			if firstWord(e.nkeys[n]) == firstWord(e.okeys[side.kept]) || sameShape(e.nkeys[n], e.okeys[side.kept]) {
				return e.refuse(g.mark, fmt.Sprintf("line %d of the new text (%q) may replace line %d of the old text (%q), the %s the marker would keep, or be added next to it", n+1, e.nkeys[n], side.kept+1, e.okeys[side.kept], side.where))
			}
		}
	}
	return nil
}

// anchored checks the lines around group g say one place in the old text:
// an edited line (new line before/after, -1 if none) edits one line of the
// old text; else the unchanged lines next to the region occur once. One
// side found once in the whole old text, the other need be found once in
// order: after it (before it).
func (e *expander) anchored(g group, d lcs.Diff, before, after int) error {
	type side struct {
		has bool
		pos int // the anchor's old line
		err error
	}
	check := func(edited, j, dir, lo, hi int) side {
		switch {
		case edited >= 0:
			pos, err := e.uniqueEdit(edited, g.mark, lo, hi)
			return side{true, pos, err}
		case j >= 0 && e.newOld[j] >= 0:
			err := e.uniqueRun(j, dir, g.mark, lo, hi)
			if err == nil {
				err = e.uniqueInNew(j, dir, g.mark)
			}
			return side{true, e.newOld[j], err}
		}
		return side{}
	}
	pj, nj, n := e.prevLine(d.ReplStart), e.nextLine(d.ReplEnd), len(e.okeys)
	b, a := check(before, pj, -1, -1, n), check(after, nj, 1, -1, n)
	switch {
	case b.has && b.err == nil && a.err != nil:
		a = check(after, nj, 1, b.pos, n)
	case a.has && a.err == nil && b.err != nil:
		b = check(before, pj, -1, -1, a.pos)
	}
	switch {
	case b.err != nil:
		return b.err
	case a.err != nil:
		return a.err
	case !a.has && !b.has:
		return e.refuse(g.mark, "no line around it is a line of the old text, so where its lines begin and end is not known")
	}
	// anchors taken for edits of old lines by resemblance alone may as well
	// be lines added beside the ones they resemble (an import after an
	// import), and the marker would keep or drop such a line: an unchanged
	// line of the old text must stand somewhere on one side of the marker,
	// or the marker at the text's start or end, to tie the reading down
	same := func(a, b int) bool { // an unchanged line among new lines [a, b)
		for j := a; j < b; j++ {
			if e.newOld[j] >= 0 && e.nkeys[j] == e.okeys[e.newOld[j]] {
				return true
			}
		}
		return false
	}
	firmB := g.first == 0 || same(0, g.first)
	firmA := g.last == len(e.lines)-1 || same(g.last+1, len(e.lines))
	if !firmB && !firmA {
		return e.refuse(g.mark, "no unchanged line of the old text stands on either side of it (the lines around it are changed or added), so which old lines it keeps would rest on which lines they resemble")
	}
	return nil
}

// edits returns the old line in [lo, hi) that new line n equals or edits,
// -1 if none; more than one is refused.
func (e *expander) edits(n, lo, hi, gi int) (int, error) {
	found := -1
	if e.nkeys[n] == "" {
		return -1, nil
	}
	for y := lo; y < hi; y++ {
		if sameLine(e.okeys[y], e.nkeys[n]) {
			if found >= 0 {
				return 0, e.refuse(gi, fmt.Sprintf("line %d of the new text (%q) may edit line %d or line %d of the old text", n+1, e.nkeys[n], found+1, y+1))
			}
			found = y
		}
	}
	return found, nil
}

// uniqueEdit refuses an edited anchor line that edits more than one line
// of the old text between lo and hi (exclusive); it returns the line.
func (e *expander) uniqueEdit(n, gi, lo, hi int) (int, error) {
	c, pos := 0, -1
	for k := lo + 1; k < hi; k++ {
		if sameLine(e.okeys[k], e.nkeys[n]) {
			c, pos = c+1, k
		}
	}
	if c > 1 {
		return pos, e.refuse(gi, fmt.Sprintf("the line next to it (%q, line %d of the new text) is like %d lines of the old text", e.nkeys[n], n+1, c))
	}
	return pos, nil
}

// uniqueRun refuses an unchanged anchor at new line j unless the
// non-blank lines from j away from the marker (dir -1: backwards), each
// the old line at the same distance or an edit of it, say one place: the
// shortest such run that holds there holds nowhere else in the old text
// between lo and hi (exclusive).
func (e *expander) uniqueRun(j, dir, gi, lo, hi int) error {
	jf, _ := slices.BinarySearch(e.fn, j)
	at, _ := slices.BinarySearch(e.fo, e.newOld[j])
	var cands []int
	for p, k := range e.fok {
		if k == e.fok[at] && e.fo[p] > lo && e.fo[p] < hi {
			cands = append(cands, p)
		}
	}
	times := len(cands)
	holds := func(p, m int) bool {
		n, o := jf+(m-1)*dir, p+(m-1)*dir
		// an unchanged line is itself; a changed one may be an edit
		return n >= 0 && n < len(e.fnk) && !e.marker[e.fn[n]] && o >= 0 && o < len(e.fok) &&
			(e.fok[o] == e.fnk[n] || e.inOld[e.fnk[n]].n == 0 && counterpart(e.fok[o], e.fnk[n]))
	}
	for m := 1; holds(at, m); m++ {
		keep := cands[:0]
		for _, p := range cands {
			if holds(p, m) {
				keep = append(keep, p)
			}
		}
		if cands = keep; len(cands) == 1 {
			return nil
		}
	}
	return e.refuse(gi, fmt.Sprintf("the line next to it (%q, line %d of the new text) occurs %d times in the old text, and so do the lines around it", e.nkeys[j], j+1, times))
}

// prevLine is the nearest non-blank new line before n (-1 if none).
func (e *expander) prevLine(n int) int {
	for j := n - 1; j >= 0; j-- {
		if e.nkeys[j] != "" {
			return j
		}
	}
	return -1
}

// nextLine is the nearest non-blank new line at or after n (-1 if none).
func (e *expander) nextLine(n int) int {
	for j := n; j < len(e.nkeys); j++ {
		if e.nkeys[j] != "" {
			return j
		}
	}
	return -1
}

// between describes the place of an empty old range [a, b).
func (e *expander) between(a, b int) string {
	switch {
	case len(e.okeys) == 0:
		return "the old text is empty"
	case a <= 0:
		return fmt.Sprintf("it would stand before line %d of the old text", max(b, 0)+1)
	case b >= len(e.okeys):
		return fmt.Sprintf("it would stand after line %d of the old text, its last", a)
	}
	return fmt.Sprintf("the lines before and after it are lines %d and %d of the old text, with no line (or only blank lines) between", a, b+1)
}

// refuse is the error for the marker on new line gi.
func (e *expander) refuse(gi int, why string) error {
	return &Error{Err: ErrInvalidInput,
		Msg: fmt.Sprintf("line %d of the new text, %q, is an elision marker (it stands for lines left out), but %s; nothing was written",
			gi+1, strings.TrimSpace(e.lines[gi]), why),
		Hint: "send the lines the marker stands for in its place (the full text), or replace a text (search text, line range) " +
			"that holds them, with unchanged lines right before and after the marker that occur once in it"}
}

// build writes the new text with each marker group replaced by its kept
// old lines, ending as the group's last marker line does; the blank lines
// the caller put around a marker stay unless the kept lines begin (end)
// with blank lines of their own.
func (e *expander) build(kept map[int]group) string {
	def := "\n"
	for _, l := range e.lines {
		if end := eolOf(l); end != "" {
			def = end
			break
		}
	}
	var b strings.Builder
	for n := 0; n < len(e.lines); n++ {
		g, ok := kept[n]
		if !ok {
			b.WriteString(e.lines[n])
			continue
		}
		if e.okeys[g.from] != "" {
			b.WriteString(strings.Join(e.lines[g.first:g.mark], ""))
		}
		end := eolOf(e.lines[g.markEnd])
		for k := g.from; k < g.to; k++ {
			b.WriteString(strings.TrimRight(e.olds[k], "\r\n"))
			if k < g.to-1 && end == "" {
				b.WriteString(def)
			} else {
				b.WriteString(end)
			}
		}
		if e.okeys[g.to-1] != "" {
			b.WriteString(strings.Join(e.lines[g.markEnd+1:g.last+1], ""))
		}
		n = g.last
	}
	return b.String()
}

// eolOf returns a line's ending.
func eolOf(l string) string {
	switch {
	case strings.HasSuffix(l, "\r\n"):
		return "\r\n"
	case strings.HasSuffix(l, "\n"):
		return "\n"
	}
	return ""
}

// sameLine: new line n is old line o, or an edit of it (counterpart).
func sameLine(o, n string) bool { return o != "" && (o == n || counterpart(o, n)) }

// counterpart reports two different lines that are one line edited: the
// same first word, and most of their characters a shared start and end.
func counterpart(a, b string) bool {
	if a == "" || b == "" || a == b || firstWord(a) != firstWord(b) {
		return false
	}
	return similarity(a, b) >= 0.6
}

// firstWord is a line's leading identifier, or its first character.
func firstWord(s string) string {
	for i, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' {
			if i == 0 {
				return string(r)
			}
			return s[:i]
		}
	}
	return s
}

// shapeTokens is how many leading tokens sameShape compares.
const shapeTokens = 6

// sameShape reports two lines whose first shapeTokens tokens agree once
// every name or number is taken for one token kind (`a, a := a.a`): the
// same kind of statement, which one line may be an edit of the other.
func sameShape(a, b string) bool {
	sa, sb := shape(a), shape(b)
	return len(sa) >= shapeTokens && len(sb) >= shapeTokens && sa[:shapeTokens] == sb[:shapeTokens]
}

// shape is s's tokens, a name or number as 'a', other characters as they
// are, spaces left out.
func shape(s string) string {
	var b strings.Builder
	word := false
	for _, r := range s {
		w := unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_'
		switch {
		case w && !word:
			b.WriteByte('a')
		case !w && !unicode.IsSpace(r):
			b.WriteRune(r)
		}
		word = w
	}
	return b.String()
}
