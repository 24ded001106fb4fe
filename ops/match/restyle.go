package match

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
func Restyle(edits []Edit, changes []Change) error {
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
	if !differs {
		return nil
	}
	for k := range edits {
		e := &edits[k]
		if e.AlreadyApplied || e.Match.Level != LevelExact {
			continue
		}
		c := changes[e.Change]
		m := e.Match
		m.batch = pairs
		note := m.Note
		m, r, err := m.Place(c.Replace, c.Path)
		if err != nil {
			return withIndex(err, e.Change)
		}
		m.Note = joinNote(note, "its new lines were indented in the file's style, as another change of the batch showed yours differs")
		e.Match, e.Replacement = m, r
	}
	return nil
}
