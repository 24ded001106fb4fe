package mcp

import (
	"fmt"
	"sort"
	"strings"

	"github.com/journalfs/journal/ops"
	"github.com/journalfs/journal/ops/match"
)

// levelRank orders matches: exact, line endings, whitespace, then fuzzy by similarity.
func levelRank(m match.Match) float64 {
	rank := map[match.Level]float64{match.LevelExact: 0, match.LevelLineEndings: 1, match.LevelWhitespace: 2}
	if r, ok := rank[m.Level]; ok {
		return r
	}
	return 3 + (1 - m.Similarity)
}

// shift moves a match found in a window to file coordinates.
func shift(m match.Match, base int64, firstLine int) match.Match {
	m.Start += int(base)
	m.End += int(base)
	m.Line += firstLine - 1
	m.EndLine += firstLine - 1
	return m
}

// pick applies occurrence / replace_all / the ambiguity rule.
func pick(ms []match.Match, o match.Options) ([]match.Match, error) {
	sort.Slice(ms, func(a, b int) bool { return ms[a].Start < ms[b].Start })
	cands := func() []ops.Candidate {
		var cs []ops.Candidate
		for _, m := range ms[:min(len(ms), 20)] {
			cs = append(cs, ops.Candidate{Line: m.Line, EndLine: m.EndLine, Similarity: m.Similarity, Text: m.Matched[:min(len(m.Matched), 200)]})
		}
		return cs
	}
	switch {
	case o.ReplaceAll:
		return ms, nil
	case o.Occurrence > len(ms):
		return nil, &ops.Error{Op: "match", Err: ops.ErrInvalidInput, Candidates: cands(),
			Msg:  fmt.Sprintf("occurrence %d requested but the search text matches %d time(s)", o.Occurrence, len(ms)),
			Hint: "pick an occurrence between 1 and the number of matches"}
	case o.Occurrence > 0:
		return ms[o.Occurrence-1 : o.Occurrence], nil
	case len(ms) > 1:
		count := fmt.Sprint(len(ms))
		if len(ms) >= scanLimit {
			count = "at least " + count
		}
		return nil, &ops.Error{Op: "match", Err: ops.ErrAmbiguousMatch, Candidates: cands(),
			Msg:  fmt.Sprintf("search text matches %s times (%s level)", count, ms[0].Level),
			Hint: "add surrounding lines to make the search text unique, or give occurrence (1-based) or replace_all"}
	}
	return ms, nil
}

// streamMiss builds the NO_MATCH error, with the "already applied?" check.
func (t *ltext) streamMiss(c match.Change, near []match.Hit, cause error) error {
	if cause != nil {
		return cause
	}
	e := &ops.Error{Op: "match", Err: ops.ErrNoMatch,
		Msg:  fmt.Sprintf("search text not found (file of %s or more: tried exact and line endings over the whole file, whitespace and fuzzy near its longest line)", mib(streamThreshold)),
		Hint: "re-read the file (search_content) and copy the search text exactly"}
	for _, h := range near {
		e.Candidates = append(e.Candidates, ops.Candidate{Line: h.Line, Similarity: h.Similarity, Text: h.Text})
	}
	if len(e.Candidates) > 0 {
		e.Hint += "; the lines nearest to its longest line are listed"
	} else if t.data == nil || t.size > fuzzyScanMax {
		e.Msg += "; no fuzzy search without an exact anchor line in files over 64 MiB"
	}
	if strings.TrimSpace(c.Replace) != "" {
		if hits, err := t.scan(c.Replace, 1); err == nil && len(hits) > 0 {
			e.Msg += fmt.Sprintf("; the replacement text is present at line %d, but nothing shows it was put there in place of the search text, so the change is not reported as already applied", hits[0].line)
			e.Hint = "read the lines your search text came from (search_content) and copy them exactly: the replacement standing elsewhere does not mean your change was made"
		}
	}
	return e
}
