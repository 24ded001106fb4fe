package match

import (
	"errors"
	"strings"

	"github.com/journalfs/journal/ops"
)

// RewriteExpanded is Rewrite after the replacement's elision markers
// ("// ... existing code ...") are expanded against the search text m
// matched (ops.ExpandMarkers): the lines a marker stands for are kept as the
// file has them, and m.Note says which; a marker that cannot be anchored
// without ambiguity is refused (ops.ErrInvalidInput), so no marker is ever
// written where the file did not have it. path is the file's, for its
// comment syntax.
func (m *Match) RewriteExpanded(replace, path string) (string, error) {
	old := m.search
	if old == "" {
		old = m.Matched
	}
	r, es, err := ops.ExpandMarkers(old, replace, path)
	if err != nil {
		var oe *ops.Error
		if errors.As(err, &oe) {
			d := *oe
			d.Op, d.Index = "match", -1
			d.Hint = "send the lines the marker stands for in its place, or a search text that holds them, with unchanged lines right before and after the marker that occur once in it"
			return "", &d
		}
		return "", err
	}
	if len(es) > 0 {
		base := m.Line
		if m.Level == LevelNormalized { // blank lines may differ in number
			base = 0
		}
		m.Note = strings.TrimPrefix(m.Note+"; "+ops.ElisionNote(es, base, "the search text"), "; ")
	}
	return m.Rewrite(r)
}
