package match

import (
	"fmt"
	"sort"
	"strings"

	"github.com/journalfs/journal/ops"
)

// DefaultThreshold is the fuzzy similarity used when Options.Threshold is 0.
const DefaultThreshold = 0.8

// Options controls one search.
type Options struct {
	// Fuzzy enables the last level of the cascade.
	Fuzzy bool `json:"fuzzy,omitempty"`
	// Threshold is the minimum fuzzy similarity in (0,1]; 0 means DefaultThreshold.
	Threshold float64 `json:"threshold,omitempty"`
	// Occurrence picks the n-th match (1-based, in file order) when there are several.
	Occurrence int `json:"occurrence,omitempty"`
	// ReplaceAll selects every match of the winning level.
	ReplaceAll bool `json:"replace_all,omitempty"`
}

// Level names the cascade level that produced a match.
type Level string

// The levels of the cascade, in the order they are tried.
const (
	LevelExact       Level = "exact"        // byte-for-byte
	LevelLineEndings Level = "line_endings" // equal once CRLF is read as LF
	LevelWhitespace  Level = "whitespace"   // trailing whitespace and a uniform indentation offset ignored
	LevelFuzzy       Level = "fuzzy"        // similar window of lines
)

// Match is one place the search text was found.
type Match struct {
	Start      int     `json:"start"`      // byte offset of the first matched byte
	End        int     `json:"end"`        // byte offset just past the match
	Line       int     `json:"line"`       // 1-based line of Start
	EndLine    int     `json:"end_line"`   // 1-based line of the last matched byte
	Level      Level   `json:"level"`      // cascade level that matched
	Similarity float64 `json:"similarity"` // 1 except at the fuzzy level
	Matched    string  `json:"matched"`    // the content bytes [Start,End)

	eol         string // line terminator of the matched line
	indentAdd   string // whitespace level: file indentation = indentAdd + search indentation
	indentDel   string // whitespace level: search indentation = indentDel + file indentation
	dropFinalNL bool   // search ended in "\n" but the match ends at a final line without one
}

// Rewrite adapts replacement text to the place m matched: line endings become
// the matched line's, and indentation is shifted as the match's was (whitespace
// and fuzzy levels). A trailing newline is dropped when the match ends at a
// final line that has none.
func (m Match) Rewrite(replace string) string {
	r := toLF(replace)
	if m.indentAdd != "" || m.indentDel != "" {
		ls := strings.Split(r, "\n")
		for i, l := range ls {
			switch {
			case isBlank(l):
			case m.indentAdd != "":
				ls[i] = m.indentAdd + l
			default:
				ls[i] = l[len(commonPrefix(l, m.indentDel)):]
			}
		}
		r = strings.Join(ls, "\n")
	}
	if m.dropFinalNL {
		r = strings.TrimSuffix(r, "\n")
	}
	if m.eol == "\r\n" {
		r = strings.ReplaceAll(r, "\n", "\r\n")
	}
	return r
}

// Find runs the cascade for search in content and returns the selected
// matches in file order: one, the Occurrence-th, or all of the winning level
// with ReplaceAll. Errors are *ops.Error wrapping ops.ErrInvalidInput,
// ops.ErrAmbiguousMatch (Candidates: every position) or ops.ErrNoMatch
// (Candidates: the nearest windows).
func Find(content, search string, o Options) ([]Match, error) {
	th, err := o.check(search)
	if err != nil {
		return nil, err
	}
	li := indexLines(content)
	ms := findExact(content, search)
	if len(ms) == 0 {
		ms = findLineEndings(content, search)
	}
	if len(ms) == 0 {
		ms = findWhitespace(li, search)
	}
	if len(ms) == 0 && o.Fuzzy {
		ms = findFuzzy(li, search, th)
	}
	if len(ms) == 0 {
		return nil, missError(li, search, o.Fuzzy, th)
	}
	for i := range ms {
		m := &ms[i]
		m.Line, m.EndLine = li.span(m.Start, m.End)
		m.Matched = content[m.Start:m.End]
		if m.eol == "" {
			m.eol = eolAt(content, m.Start)
		}
	}
	return selectMatches(ms, o)
}

func (o Options) check(search string) (float64, error) {
	bad := func(msg, hint string) error {
		return &ops.Error{Op: "match", Index: -1, Err: ops.ErrInvalidInput, Msg: msg, Hint: hint}
	}
	th := o.Threshold
	if th == 0 {
		th = DefaultThreshold
	}
	switch {
	case search == "":
		return 0, bad("search text is empty", "give the exact text to replace, with a few lines of context")
	case o.Occurrence < 0:
		return 0, bad(fmt.Sprintf("occurrence %d is negative", o.Occurrence), "occurrence is 1-based")
	case o.Occurrence > 0 && o.ReplaceAll:
		return 0, bad("occurrence and replace_all are exclusive", "give one of them")
	case th < 0 || th > 1:
		return 0, bad(fmt.Sprintf("threshold %g is outside (0,1]", th), "use e.g. 0.8")
	}
	return th, nil
}

func selectMatches(ms []Match, o Options) ([]Match, error) {
	sort.Slice(ms, func(i, j int) bool { return ms[i].Start < ms[j].Start })
	switch {
	case o.ReplaceAll:
		return ms, nil
	case o.Occurrence > len(ms):
		return nil, &ops.Error{Op: "match", Index: -1, Err: ops.ErrInvalidInput,
			Msg:        fmt.Sprintf("occurrence %d requested but the search text matches %d time(s) (%s level)", o.Occurrence, len(ms), ms[0].Level),
			Hint:       "pick an occurrence between 1 and the number of matches",
			Candidates: positions(ms)}
	case o.Occurrence > 0:
		return ms[o.Occurrence-1 : o.Occurrence], nil
	case len(ms) > 1:
		return nil, &ops.Error{Op: "match", Index: -1, Err: ops.ErrAmbiguousMatch,
			Msg:        fmt.Sprintf("search text matches %d times (%s level), at lines %s", len(ms), ms[0].Level, lineList(ms)),
			Hint:       "add surrounding lines to make the search text unique, or give occurrence (1-based) or replace_all",
			Candidates: positions(ms)}
	}
	return ms, nil
}

func findExact(content, search string) []Match {
	var ms []Match
	for off := 0; ; {
		i := strings.Index(content[off:], search)
		if i < 0 {
			return ms
		}
		off += i
		ms = append(ms, Match{Start: off, End: off + len(search), Level: LevelExact, Similarity: 1})
		off += len(search)
	}
}

// findLineEndings matches with both sides read as LF, mapping offsets back
// through the positions of the removed carriage returns.
func findLineEndings(content, search string) []Match {
	if !strings.Contains(content, "\r\n") && !strings.Contains(search, "\r\n") {
		return nil
	}
	var b strings.Builder
	var crs []int // normalized offsets of the '\n' each removed '\r' preceded
	for off := 0; off < len(content); {
		i := strings.Index(content[off:], "\r\n")
		if i < 0 {
			b.WriteString(content[off:])
			break
		}
		b.WriteString(content[off : off+i])
		crs = append(crs, b.Len())
		off += i + 1
	}
	orig := func(x int) int { return x + sort.SearchInts(crs, x) }
	ms := findExact(b.String(), toLF(search))
	for i := range ms {
		ms[i].Start, ms[i].End = orig(ms[i].Start), orig(ms[i].End)
		ms[i].Level = LevelLineEndings
	}
	return ms
}
