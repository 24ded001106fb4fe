package mcp

import (
	"fmt"
	"sort"

	"github.com/aymanbagabas/go-udiff/lcs"

	"github.com/journalfs/journal/replay/lsp"
)

// New problems: which diagnostics after an edit the edit caused. One
// function (newProblems) decides for file_edit, the form tools and
// rename_symbol, in every round of a consultation.
//
// A diagnostic after the edit is old when one before it, in the same file,
// has the same severity, source and code (sameCode) and, mapped through the
// edit (offsetMap), the same range. Messages are never compared: a server
// may word one problem differently from one check to the next (tsserver
// adds "Did you mean 'url'?" to the first ten unresolved names its checker
// meets, whichever files it checks first). A file whose diagnostics before
// or after the edit are not known — the server had not published for its
// latest content when the wait ran out, or it was opened after the "before"
// set was taken — is not compared: the report says so, and none of its
// diagnostics is called new.

// newProblems returns the errors and warnings of now that the edit caused,
// and a note for every file it could not compare. was must have been taken
// with every file of rep.asked open with its content before the edit, now
// with the planned contents.
func newProblems(rep *lspReport, was, now lsp.Diagnosed) (fresh []lsp.Diagnostic, notCompared map[string]string) {
	notCompared = map[string]string{}
	for _, p := range sortedKeys(now.Files) {
		f := rep.files[p]
		switch why, before := now.Unsettled[p], was.Unsettled[p]; {
		case why != "":
			notCompared[p] = "after the edit, " + why
			continue
		case before != "":
			notCompared[p] = "before the edit, " + before
			continue
		case f != nil && !rep.asked[p]:
			notCompared[p] = "it was opened after the diagnostics before the edit were taken"
			continue
		case f == nil && was.Incomplete != "" && len(now.Files[p]) > 0:
			notCompared[p] = "before the edit, " + was.Incomplete
			continue
		}
		old := map[problemKey]int{}
		for _, d := range was.Files[p] {
			if k, ok := keyOf(d, f); ok {
				old[k]++
			}
		}
		for _, d := range now.Files[p] {
			if d.Severity != "error" && d.Severity != "warning" {
				continue
			}
			if k, _ := keyOf(d, nil); old[k] > 0 {
				old[k]--
				continue
			}
			fresh = append(fresh, d)
		}
	}
	return fresh, notCompared
}

// problemKey is what makes two diagnostics one problem.
type problemKey struct {
	start, end             int
	severity, source, code string
}

// keyOf is d's key with its range mapped through f's planned changes (nil:
// unchanged); ok is false when the range starts or ends inside text they
// replaced.
func keyOf(d lsp.Diagnostic, f *lspFile) (problemKey, bool) {
	k := problemKey{start: d.Start, end: d.End, severity: d.Severity, source: d.Source, code: sameCode(d.Source, d.Code)}
	if f == nil {
		return k, true
	}
	var ok bool
	if k.start, ok = f.at(d.Start, true); !ok {
		return k, false
	}
	if d.End == d.Start {
		k.end = k.start
		return k, true
	}
	k.end, ok = f.at(d.End, false)
	return k, ok
}

// plan makes text the file's planned content; m maps the previous plan to
// it.
func (f *lspFile) plan(text string, m *offsetMap) {
	if text != f.text {
		f.text = text
		f.steps = append(f.steps, m)
	}
}

// at maps an offset of the content read to the planned one, through every
// change planned (offsetMap.at).
func (f *lspFile) at(off int, start bool) (int, bool) {
	for _, m := range f.steps {
		var ok bool
		if off, ok = m.at(off, start); !ok {
			return 0, false
		}
	}
	return off, true
}

// tsUnresolved are TypeScript's codes for a name that does not resolve. Its
// checker (5.9, onFailedToResolveSymbol) reports one as 2552 "Cannot find
// name 'URL'. Did you mean 'url'?" while it has spelling suggestions left
// (ten per checker, so the first unresolved names it meets — whichever
// files it checks first) and as 2304 "Cannot find name 'URL'." (or the
// name's own message: 2580 for process, 2584 for console...) after; its
// own canonicalHead makes them one diagnostic.
var tsUnresolved = map[string]bool{
	"2304": true, "2311": true, "2503": true, "2552": true, "2570": true, "2580": true, "2581": true,
	"2582": true, "2583": true, "2584": true, "2591": true, "2592": true, "2593": true, "2833": true,
	"2867": true, "2868": true, "18004": true,
}

// sameCode is the code diagnostics are compared by: a server's code, with
// the variants one problem takes merged.
func sameCode(source, code string) string {
	if source == "typescript" && tsUnresolved[code] {
		return "unresolved name"
	}
	return code
}

// offsetMap maps byte offsets of a text to its edited version: the spans an
// edit replaced, exactly as the server's edits (a rename, a quick fix) give
// them (editsMap), or, for the agent's change, from a diff of the tokens
// (words, runs of blanks, single other characters) of the text between
// their common ends (newOffsetMap) — text which only moved keeps its place,
// a renamed word maps to its new name.
type offsetMap struct {
	spans []changed // in order, not overlapping
}

// changed is one span of the text, before[start:end], replaced by
// after[newStart:newEnd].
type changed struct{ start, end, newStart, newEnd int }

// editsMap is the map of edits sorted by offset, as lsp.ApplyEdits applies
// them.
func editsMap(es []lsp.TextEdit) *offsetMap {
	m := &offsetMap{}
	delta := 0
	for _, e := range es {
		m.spans = append(m.spans, changed{e.Start, e.End, e.Start + delta, e.Start + delta + len(e.NewText)})
		delta += len(e.NewText) - (e.End - e.Start)
	}
	return m
}

func newOffsetMap(before, after string) *offsetMap {
	pre, suf := commonEnds(before, after)
	// Back off to a token boundary in both texts.
	for pre > 0 && (joins(before, pre) || joins(after, pre)) {
		pre--
	}
	for suf > 0 && (joins(before, len(before)-suf) || joins(after, len(after)-suf)) {
		suf--
	}
	a, b := tokens(before[pre:len(before)-suf]), tokens(after[pre:len(after)-suf])
	offsets := func(toks []string) []int {
		out := make([]int, len(toks)+1)
		out[0] = pre
		for i, t := range toks {
			out[i+1] = out[i] + len(t)
		}
		return out
	}
	oa, ob := offsets(a), offsets(b)
	m := &offsetMap{}
	for _, d := range lcs.DiffLines(a, b) {
		m.spans = append(m.spans, changed{oa[d.Start], oa[d.End], ob[d.ReplStart], ob[d.ReplEnd]})
	}
	return m
}

// at maps off. A range's start (start true) after text inserted exactly
// there begins after the insertion, its end before it; an offset at a
// replaced span's edge maps to the same edge of its replacement; one
// strictly inside a replaced span does not map (ok false).
func (m *offsetMap) at(off int, start bool) (int, bool) {
	i := sort.Search(len(m.spans), func(i int) bool { return m.spans[i].end >= off })
	delta := 0
	if i > 0 {
		delta = m.spans[i-1].newEnd - m.spans[i-1].end
	}
	if i == len(m.spans) || off < m.spans[i].start {
		return off + delta, true
	}
	sp := m.spans[i]
	switch {
	case sp.start == sp.end && start: // an insertion at off
		return sp.newEnd, true
	case off == sp.start:
		return sp.newStart, true
	case off == sp.end:
		return sp.newEnd, true
	}
	return 0, false
}

// joins reports whether s[i-1] and s[i] belong to one token.
func joins(s string, i int) bool {
	if i <= 0 || i >= len(s) {
		return false
	}
	a, b := s[i-1], s[i]
	return isIdentByte(a) && isIdentByte(b) || isBlank(a) && isBlank(b)
}

func isBlank(b byte) bool { return b == ' ' || b == '\t' }

// tokens splits s into words (isIdentByte runs, so a multi-byte character
// stays whole), runs of blanks, and single other bytes.
func tokens(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		j := i + 1
		for j < len(s) && joins(s, j) {
			j++
		}
		out = append(out, s[i:j])
		i = j
	}
	return out
}

// notComparedNotes words the files newProblems could not compare, in path
// order.
func (s *Server) notComparedNotes(notCompared map[string]string) []string {
	var out []string
	for _, p := range sortedKeys(notCompared) {
		out = append(out, fmt.Sprintf("new problems not known for %s: %s; none of its problems is listed as new (diagnostics lists them)", s.fileKey(p), notCompared[p]))
	}
	return out
}
