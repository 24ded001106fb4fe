package match

import (
	"fmt"
	"strings"

	"github.com/journalfs/journal/ops"
)

// Restyle makes a batch's changes agree on the caller's indentation style:
// when a change matched at a tolerant level shows the caller indenting
// otherwise than the file (4 spaces for a tab), the changes of the same
// batch matched exactly — whose searches showed nothing of the caller's
// style, so their replacements were written as sent — are placed again with
// those indentation pairs, so their new lines take the file's style too (or
// are refused where no rule explains them). Without it one change of a batch
// kept the request's spaces while the next was written in the file's tabs
// (issue 59 §5, indent-restyle). edits are in any order; changes are the
// batch they resolve.
//
// Tolerant changes of one batch whose replacements read in different styles
// (reading.go: one as the caller's search is indented, another as the file
// is) are refused: one request is written in one style, so one of them
// would be written a level off (indent-dedent).
func Restyle(edits []Edit, changes []Change) error {
	if err := oneReading(edits, changes); err != nil {
		return err
	}
	var pairs [][2]string
	differs := false
	for _, e := range edits {
		m := e.Match
		if e.AlreadyApplied || (m.Level != LevelWhitespace && m.Level != LevelNormalized) || m.align == nil {
			continue
		}
		sl, window := splitKeep(toLF(m.search)), splitKeep(m.Matched)
		for i, a := range m.align {
			if i < len(sl) && a >= 0 && a < len(window) && !isBlank(sl[i].text) && !isBlank(window[a].text) {
				p := [2]string{leadingWS(sl[i].text), leadingWS(window[a].text)}
				pairs = append(pairs, p)
				differs = differs || p[0] != p[1]
			}
		}
	}
	if !differs || offsetOnly(pairs) {
		return nil
	}
	for k := range edits {
		e := &edits[k]
		c := changes[e.Change]
		// deletions add no lines; a search found with agent artefacts
		// removed or by its cut marker's halves (m.search is not the
		// change's) was placed with a replacement c.Replace is not
		if e.AlreadyApplied || e.Match.Level != LevelExact || strings.TrimSpace(c.Replace) == "" ||
			!strings.Contains(e.Match.search, c.Search) {
			continue
		}
		m := e.Match
		m.batch = pairs
		note := m.Note
		m, r, err := m.Place(c.Replace, c.Path)
		if err != nil {
			return withIndex(err, e.Change)
		}
		m.Note = note
		if r != e.Replacement {
			m.Note = joinNote(note, "its new lines were indented in the file's style, as another change of the batch showed yours differs")
		}
		e.Match, e.Replacement = m, r
	}
	return nil
}

// offsetOnly reports indentation pairs (caller's, file's) that differ by
// one common indentation before the caller's, the same on every line: a
// search sent without the block's common indentation (dedented) shows
// nothing of the caller's style, so the batch's exact changes, which the
// file's own lines matched, keep theirs (a top-level import beside a
// dedented method body is no line to indent).
func offsetOnly(pairs [][2]string) bool {
	lead := ""
	for i, p := range pairs {
		if !strings.HasSuffix(p[1], p[0]) {
			return false
		}
		add := p[1][:len(p[1])-len(p[0])]
		if i > 0 && add != lead {
			return false
		}
		lead = add
	}
	return true
}

// oneReading refuses a batch whose tolerant changes' replacements read in
// different indentation styles.
func oneReading(edits []Edit, changes []Change) error {
	at := map[int]int{} // reading → first change that reads so
	for _, e := range edits {
		if e.AlreadyApplied || (e.Match.Level != LevelWhitespace && e.Match.Level != LevelNormalized) {
			continue
		}
		rd := e.Match.readingOf(changes[e.Change].Replace)
		if rd != readCaller && rd != readFile {
			continue
		}
		if _, ok := at[rd]; !ok {
			at[rd] = e.Change
		}
	}
	c, okC := at[readCaller]
	f, okF := at[readFile]
	if !okC || !okF {
		return nil
	}
	return &ops.Error{Op: "match", Index: max(c, f), Err: ops.ErrAmbiguousMatch,
		Msg: fmt.Sprintf("the changes matched with another indentation than the file's, and their replacements read in two styles: change %d's as indented like its search text, change %d's as indented like the file, so one of them would be written a level off",
			c, f),
		Hint: "indent every replacement as its search text is (or every search and replacement exactly as the file has them), or send the changes in separate calls"}
}

// readingOf says how replace's indentation reads at tolerant match m
// (carryRead's judgement): readCaller, readFile, both, or readNone (also
// where the search is in the file's style already).
func (m Match) readingOf(replace string) int {
	if m.align == nil {
		return readNone
	}
	c := &carrier{window: splitKeep(m.Matched), align: m.align, style: m.style, eol: m.eol}
	if len(c.window) < len(m.align) && m.dropFinalNL {
		c.window = append(c.window, line{})
	}
	sl, rl := splitKeep(toLF(m.search)), splitKeep(toLF(replace))
	if _, differs := c.inFileStyle(sl); !differs {
		return readNone
	}
	rd := c.reading(sl, rl)
	if rd == readFile && !c.fileStyled(rl) {
		rd = readCaller
	}
	return rd
}
