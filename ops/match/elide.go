package match

import (
	"errors"
	"fmt"
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
	if len(es) > 0 && toLF(r) == toLF(old) {
		// every line the replacement lacks went into its markers: what
		// it changes is unknown, and a success would claim a change
		// that makes nothing
		return "", &ops.Error{Op: "match", Index: -1, Err: ops.ErrInvalidInput,
			Msg:        fmt.Sprintf("the replacement's elision marker %q (line %d of the new text) stands for every line the replacement does not repeat, so expanded it is the search text again and the edit would change nothing: which lines the change removes or rewrites is unknown, and nothing was written", es[0].Marker, es[0].Line),
			Hint:       "send the lines around the change in full, or keep the marker only where lines stay as they are, with the unchanged lines right before and after it",
			Candidates: []ops.Candidate{{Line: m.Line, EndLine: m.EndLine, Similarity: 1, Text: shorten(m.Matched, 300), SearchText: m.Matched}}}
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
