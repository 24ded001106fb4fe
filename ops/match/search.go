package match

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/journalfs/journal/ops"
)

// Defaults of SearchOptions.
const (
	DefaultMaxResults = 20
	DefaultMaxLineLen = 1000
)

// SearchOptions controls a line search.
type SearchOptions struct {
	// Regex treats the pattern as a Go regular expression (RE2 syntax; ^ and $
	// match at line boundaries). A match must lie within one line.
	Regex bool `json:"regex,omitempty"`
	// Fuzzy also reports lines holding a substring whose similarity to the
	// pattern reaches Threshold; results are then ranked by similarity.
	Fuzzy bool `json:"fuzzy,omitempty"`
	// Threshold is the fuzzy similarity floor; 0 means DefaultThreshold.
	Threshold float64 `json:"threshold,omitempty"`
	// MaxResults caps the hits returned; 0 means DefaultMaxResults.
	MaxResults int `json:"max_results,omitempty"`
	// ContextLines is how many lines before and after each hit to return.
	ContextLines int `json:"context_lines,omitempty"`
	// MaxLineLen: longer lines are cut to this many bytes around the first
	// submatch; 0 means DefaultMaxLineLen.
	MaxLineLen int `json:"max_line_len,omitempty"`
	// Progress, if set, is called after each block of a few MiB with the
	// bytes searched so far; an error it returns ends the search and is
	// returned (a cancelled call). Results are the same with it or without.
	Progress func(searched int64) error `json:"-"`
}

// Span is a byte range [Start,End) within a line.
type Span struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Hit is one matching line.
type Hit struct {
	Line       int      `json:"line"`                // 1-based
	Offset     int64    `json:"offset"`              // byte offset of the line in the input
	Text       string   `json:"text"`                // the line without terminator, or a cut of it
	Col        int      `json:"col,omitempty"`       // byte offset of Text within the line when Truncated
	Truncated  bool     `json:"truncated,omitempty"` // Text is a MaxLineLen window of a longer line
	Similarity float64  `json:"similarity"`          // 1 for exact and regex hits
	Submatches []Span   `json:"submatches"`          // match ranges within the full line
	Before     []string `json:"before,omitempty"`    // context lines before, oldest first
	After      []string `json:"after,omitempty"`     // context lines after
}

// Results is the outcome of a line search.
type Results struct {
	// Hits are in input order for exact and regex searches, best first
	// (ties in input order) for fuzzy ones.
	Hits []Hit `json:"hits"`
	// More reports that hits beyond MaxResults exist.
	More bool `json:"more,omitempty"`
}

// searcher holds one search's compiled pattern and collected hits.
type searcher struct {
	o    SearchOptions
	pat  []byte
	re   *regexp.Regexp
	fz   *fuzzyLine
	hits []Hit
	more bool
	stop bool // enough hits: the scan may end

	// line counting within the current buffer
	cntPos  int
	cntLine int
	baseOff int64
}

func newSearcher(pattern string, o SearchOptions) (*searcher, error) {
	bad := func(msg string) error {
		return &ops.Error{Op: "search", Index: -1, Err: ops.ErrInvalidInput, Msg: msg,
			Hint: "give a non-empty pattern that fits on one line"}
	}
	if o.MaxResults <= 0 {
		o.MaxResults = DefaultMaxResults
	}
	if o.MaxLineLen <= 0 {
		o.MaxLineLen = DefaultMaxLineLen
	}
	if o.Threshold == 0 {
		o.Threshold = DefaultThreshold
	}
	switch {
	case pattern == "":
		return nil, bad("pattern is empty")
	case o.Regex && o.Fuzzy:
		return nil, bad("regex and fuzzy are exclusive")
	case o.Threshold < 0 || o.Threshold > 1:
		return nil, bad(fmt.Sprintf("threshold %g is outside (0,1]", o.Threshold))
	case o.ContextLines < 0:
		return nil, bad("context_lines is negative")
	case !o.Regex && strings.ContainsAny(pattern, "\r\n"):
		return nil, bad("pattern spans lines; search_content matches within one line")
	}
	s := &searcher{o: o, pat: []byte(pattern)}
	if o.Regex {
		re, err := regexp.Compile("(?m)" + pattern)
		if err != nil {
			return nil, &ops.Error{Op: "search", Index: -1, Err: ops.ErrInvalidInput,
				Msg: "bad regular expression: " + err.Error(), Hint: "use RE2 syntax"}
		}
		s.re = re
	}
	if o.Fuzzy {
		s.fz = newFuzzyLine(s.pat, o.Threshold)
	}
	return s, nil
}

// lineNo returns the 1-based line number of line start ls in buf.
func (s *searcher) lineNo(buf []byte, ls int) int {
	s.cntLine += countNL(buf[s.cntPos:ls])
	s.cntPos = ls
	return s.cntLine
}

// emit records the line [ls,le) of buf. Exact and regex hits arrive in input
// order and end the scan once MaxResults+1 are seen; fuzzy hits are kept
// best first, MaxResults of them.
func (s *searcher) emit(buf []byte, ls, le int, subs []Span, sim float64) {
	max := s.o.MaxResults
	if s.fz == nil && len(s.hits) == max {
		s.more, s.stop = true, true
		return
	}
	at := len(s.hits)
	if s.fz != nil {
		at = sort.Search(len(s.hits), func(i int) bool { return s.hits[i].Similarity < sim })
		if at == max {
			s.more = true
			return
		}
	}
	h := Hit{Line: s.lineNo(buf, ls), Offset: s.baseOff + int64(ls), Similarity: sim, Submatches: subs}
	h.Text, h.Col, h.Truncated = s.cut(buf[ls:le], subs)
	h.Before, h.After = s.context(buf, ls, le)
	s.hits = append(s.hits, Hit{})
	copy(s.hits[at+1:], s.hits[at:])
	s.hits[at] = h
	if len(s.hits) > max {
		s.hits, s.more = s.hits[:max], true
	}
}

// cut returns the line, or a MaxLineLen window of it centred on the first
// submatch, on UTF-8 boundaries.
func (s *searcher) cut(line []byte, subs []Span) (string, int, bool) {
	n := s.o.MaxLineLen
	if len(line) <= n {
		return string(line), 0, false
	}
	from := 0
	if len(subs) > 0 {
		sub := subs[0]
		from = sub.Start - (n-(sub.End-sub.Start))/2
		from = min(max(from, 0), len(line)-n)
	}
	to := from + n
	for from < len(line) && !utf8.RuneStart(line[from]) {
		from++
	}
	for to > from && to < len(line) && !utf8.RuneStart(line[to]) {
		to--
	}
	return string(line[from:to]), from, true
}

// context returns up to ContextLines lines before ls and after le within buf.
func (s *searcher) context(buf []byte, ls, le int) (before, after []string) {
	c := s.o.ContextLines
	for p := ls; len(before) < c && p > 0; {
		q := lastNL(buf[:p-1]) + 1
		t, _, _ := s.cut(trimCR(buf[q:p-1]), nil)
		before = append([]string{t}, before...)
		p = q
	}
	for p := nextLine(buf, le); len(after) < c && p < len(buf); {
		e := nextLine(buf, p)
		t, _, _ := s.cut(trimCR(buf[p:lineEnd(buf, p)]), nil)
		after = append(after, t)
		p = e
	}
	return before, after
}

func (s *searcher) results() Results {
	if s.hits == nil {
		s.hits = []Hit{}
	}
	return Results{Hits: s.hits, More: s.more}
}
