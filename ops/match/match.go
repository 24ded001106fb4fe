package match

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/journalfs/journal/ops"
)

// DefaultThreshold is the similarity from which a near miss is offered as a
// candidate with a corrected search/replace pair, when Options.Threshold is 0.
const DefaultThreshold = 0.8

// Options controls one search.
type Options struct {
	// Fuzzy enables the tolerant levels: the normalized level (look-alike
	// characters, Unicode normalisation, whitespace inside lines, blank
	// lines) and agent artefacts (line-number prefixes, double escapes, cut
	// markers). A near miss is never applied: it is refused with candidates.
	Fuzzy bool `json:"fuzzy,omitempty"`
	// Threshold is the minimum similarity in (0,1] of a near miss offered
	// with a corrected search/replace pair; 0 means DefaultThreshold.
	Threshold float64 `json:"threshold,omitempty"`
	// Occurrence picks the n-th match (1-based, in file order) when there are several.
	Occurrence int `json:"occurrence,omitempty"`
	// ReplaceAll selects every match of the winning level.
	ReplaceAll bool `json:"replace_all,omitempty"`
	// AllowRepeat applies a change even when it looks applied already (the
	// replacement present where the search would match): to insert the same
	// lines again on purpose.
	AllowRepeat bool `json:"allow_repeat,omitempty"`
	// Substring takes exact occurrences that start or end inside a longer
	// number or word (bounds.go), which are otherwise dropped.
	Substring bool `json:"substring,omitempty"`
	// Path is the file's path: its extension says the comment syntax of
	// the replacement's elision markers (ops.ExpandMarkers).
	Path string `json:"-"`
	// MadeAt is the caller's evidence that this change was made already:
	// the 1-based line where its replacement stands in content because an
	// earlier edit put it there (the journal's event that replaced exactly
	// this search text by this replacement). The occurrence of the
	// replacement starting at that line is reported applied already, even
	// where the file alone could not tell it from other places (applied.go).
	MadeAt int `json:"-"`

	typed string // look-alikes the call's searches have for ASCII (lookalike.go)
	uses  string // look-alikes the file has anywhere (withTyped)
}

// Level names the cascade level that produced a match.
type Level string

// The levels of the cascade, in the order they are tried.
const (
	LevelExact       Level = "exact"        // byte-for-byte
	LevelLineEndings Level = "line_endings" // equal once CRLF is read as LF
	LevelWhitespace  Level = "whitespace"   // whole lines equal but for indentation and trailing whitespace
	LevelNormalized  Level = "normalized"   // whole lines equal once folded (look-alikes, NFC, inner whitespace), blank lines free
	// LevelFuzzy is the level of a near miss (similar window). It is never
	// applied; it names the candidates of a refusal.
	LevelFuzzy Level = "fuzzy"
)

// Match is one place the search text was found.
type Match struct {
	Start      int     `json:"start"`          // byte offset of the first matched byte
	End        int     `json:"end"`            // byte offset just past the match
	Line       int     `json:"line"`           // 1-based line of Start
	EndLine    int     `json:"end_line"`       // 1-based line of the last matched byte
	Level      Level   `json:"level"`          // cascade level that matched
	Similarity float64 `json:"similarity"`     // 1 for every level that applies
	Matched    string  `json:"matched"`        // the content bytes [Start,End)
	Note       string  `json:"note,omitempty"` // what was recognised and removed from the request (agent artefacts)

	eol         string   // line terminator of the matched line
	search      string   // the search text as matched (artefacts removed)
	align       []int    // tolerant levels: search line → window line (-1: unaligned blank)
	style       []string // indentation of file lines around the match
	dropFinalNL bool     // search ended in "\n" but the match ends at a final line without one
	lead        string   // exact levels: the indentation before Start when the match starts after it
	pre, post   string   // the text of the match's first line before it, of its last line after it (wholelines.go)
	typed       string   // look-alikes the call's searches have for ASCII (lookalike.go)

	batch [][2]string // (caller, file) indentation pairs another change of the batch aligned (restyle.go)

	looks fileLooks // what the file tells of the replacement's look-alikes (lookalike_class.go)
}

// Rewrite adapts replacement text to the place m matched. At the exact level
// the replacement is written as sent, with the matched line's line ending.
// At the other levels the change search→replace is carried onto the file's
// lines: lines the caller did not change keep the file's bytes, changed and
// added lines take the file's indentation style and line endings. It fails
// (ops.ErrNoMatch, with the file's text as a candidate) when a new line's
// indentation cannot be translated with confidence.
func (m Match) Rewrite(replace string) (string, error) {
	if err := m.unclearLookalikes(replace); err != nil {
		return "", err
	}
	if m.lead != "" && multiLine(replace) {
		return m.rewriteLead(replace)
	}
	if m.Level == LevelExact && len(m.batch) == 0 {
		_, r := asFileChars(m.Matched, m.search, replace, m.typed, m.looks)
		r = toLF(r)
		if m.eol == "\r\n" {
			r = strings.ReplaceAll(r, "\n", "\r\n")
		}
		return r, nil
	}
	return m.carryOnto(replace)
}

// multiLine reports a text of more than one line (a final line ending does
// not count).
func multiLine(s string) bool { return strings.Contains(strings.TrimSuffix(toLF(s), "\n"), "\n") }

// rewriteLead writes a replacement of several lines for an exact match that
// starts after its line's indentation (the search copied from the first
// non-blank character): the replacement's lines belong at that indentation,
// so the change is carried onto the whole first line, the search's first
// line counting as indented by m.lead, and the new lines are translated like
// those of any tolerant match (or refused). The text before the match stays
// in the file, so the result is returned without it.
func (m Match) rewriteLead(replace string) (string, error) {
	w := m
	w.Matched, w.lead, w.align = m.lead+m.Matched, "", nil
	out, err := w.carryOnto(replace)
	if err != nil {
		return "", err
	}
	if !strings.HasPrefix(out, m.lead) {
		return "", &ops.Error{Op: "match", Index: -1, Err: ops.ErrNoMatch,
			Msg:        fmt.Sprintf("matched at line %d after the line's indentation, but the replacement's first line would not start at that indentation", m.Line),
			Hint:       "send the search text from the start of its line (candidate), with the replacement indented as the file is",
			Candidates: []ops.Candidate{{Line: m.Line, EndLine: m.EndLine, Similarity: 1, Text: shorten(w.Matched, 300), SearchText: w.Matched}}}
	}
	return out[len(m.lead):], nil
}

// carryOnto carries the change m.search→replace onto the matched lines.
func (m Match) carryOnto(replace string) (string, error) {
	align := m.align
	if align == nil { // exact levels: lines correspond one for one
		n := strings.Count(toLF(m.search), "\n")
		if !strings.HasSuffix(m.search, "\n") {
			n++
		}
		align = make([]int, n)
		for i := range align {
			align[i] = i
		}
	}
	c := &carrier{window: splitKeep(m.Matched), align: align, style: m.style, eol: m.eol, batch: m.batch}
	if len(c.window) < len(align) && m.dropFinalNL {
		c.window = append(c.window, line{})
	}
	search, replace := asFileChars(m.Matched, m.search, replace, m.typed, m.looks)
	out, err := c.carryRead(search, replace, m)
	var oe *ops.Error
	if errors.As(err, &oe) {
		return "", err
	}
	if err != nil {
		return "", &ops.Error{Op: "match", Index: -1, Err: ops.ErrNoMatch,
			Msg:  fmt.Sprintf("matched at line %d (%s level), but %v", m.Line, m.Level, err),
			Hint: "send the search text exactly as the file has it (candidate) and indent the new lines as the file does",
			Candidates: []ops.Candidate{{Line: m.Line, EndLine: m.EndLine, Similarity: 1, Text: shorten(m.Matched, 300),
				SearchText: m.Matched}}}
	}
	return out, nil
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
	ms := findAll(content, li, search, o)
	if len(ms) == 0 {
		if err := cutError(content, li, cutMatches(content, li, search)); err != nil && !o.Substring {
			return nil, err
		}
		return nil, missError(li, search, "", o.Fuzzy, th)
	}
	return selectMatches(ms, o)
}

// findAll runs the levels of the cascade and returns every match of the
// first level that matches, completed (lines, matched text, line ending).
// Unless o.Substring, exact occurrences that cut a number or a word are
// dropped (bounds.go). The normalized level runs with o.Fuzzy.
func findAll(content string, li *lineIndex, search string, o Options) []Match {
	tolerant := o.Fuzzy
	ms := findExact(content, search)
	if len(ms) == 0 {
		ms = findLineEndings(content, search)
	}
	if !o.Substring {
		ms = keepWhole(content, ms)
	}
	if len(ms) == 0 {
		ms = findTolerant(li, search, trimKey, false, LevelWhitespace)
	}
	if len(ms) == 0 && tolerant {
		ms = findTolerant(li, search, fold, true, LevelNormalized)
	}
	for i := range ms {
		m := &ms[i]
		m.Line, m.EndLine = li.span(m.Start, m.End)
		m.Matched = content[m.Start:m.End]
		m.search, m.typed = search, o.typed
		m.looks = fileLooks{path: o.Path, before: content[:m.Start], uses: o.uses, on: o.Fuzzy}
		m.lineEnds(content)
		if m.eol == "" {
			m.eol = eolAt(content, m.Start)
		}
		if m.Level == LevelWhitespace || m.Level == LevelNormalized {
			m.style = indentSample(li, m.Line-1)
		} else if m.lead = leadOf(content, m.Start); m.lead != "" {
			m.style = indentSample(li, m.Line-1)
		}
	}
	return ms
}

// indentSample returns the indentation of up to 200 non-blank lines around
// line i (0-based): the file's style when the match itself shows one level.
func indentSample(li *lineIndex, i int) []string {
	var out []string
	for j := max(0, i-100); j < min(li.n(), i+100); j++ {
		if t := li.text(j); !isBlank(t) {
			if w := leadingWS(t); w != "" {
				out = append(out, w)
			}
		}
	}
	return out
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
