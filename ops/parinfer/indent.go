package parinfer

import (
	"fmt"
	"strings"
)

// Error names, as parinfer.js reports them.
const (
	ErrUnclosedQuote       = "unclosed-quote"
	ErrQuoteDanger         = "quote-danger"
	ErrEOLBackslash        = "eol-backslash"
	ErrUnmatchedCloseParen = "unmatched-close-paren"
	ErrUnclosedParen       = "unclosed-paren"
)

// messages are parinfer.js's error messages.
var messages = map[string]string{
	ErrUnclosedQuote:       "String is missing a closing quote.",
	ErrQuoteDanger:         "Quotes must balanced inside comment blocks.",
	ErrEOLBackslash:        "Line cannot end in a hanging backslash.",
	ErrUnmatchedCloseParen: "Unmatched close-paren.",
	ErrUnclosedParen:       "Unclosed open-paren.",
}

// Error is why parinfer could not process a text. LineNo and X are 0-based.
type Error struct {
	Name    string `json:"name"`
	Message string `json:"message"`
	LineNo  int    `json:"lineNo"`
	X       int    `json:"x"`
}

// Error returns the message with its 1-based line and column.
func (e *Error) Error() string {
	return fmt.Sprintf("parinfer %s at line %d, column %d: %s", e.Name, e.LineNo+1, e.X+1, e.Message)
}

// Result is the outcome of IndentMode.
type Result struct {
	// Text is the corrected text, or the input unchanged when Err is set.
	Text    string `json:"text"`
	Success bool   `json:"success"`
	Err     *Error `json:"error,omitempty"`
}

var closers = map[rune]rune{'(': ')', '[': ']', '{': '}'}

func isOpen(r rune) bool  { _, ok := closers[r]; return ok }
func isClose(r rune) bool { return r == ')' || r == ']' || r == '}' }

type opener struct {
	lineNo, x int
	ch        rune
}

type trail struct {
	lineNo, startX, endX int
	openers              []opener
}

// state is one run of indent mode. Output lines are built as the input is
// read; x is the output column on the current line.
type state struct {
	lines  [][]rune
	lineNo int
	x      int
	ch     []rune // the current character as it will be written ("" drops it)

	stack []opener
	trail trail

	inStr, inComment, escaping, escaped bool
	quoteDanger, trackingIndent, skip   bool

	unmatchedX int              // output x of this line's first unmatched close-paren, -1 if none
	cache      map[string]Error // first positions of possible errors
	err        *Error
}

// IndentMode runs parinfer's indent mode on text: close-parens are inferred
// from indentation. Line endings (LF or CRLF) are kept.
func IndentMode(text string) Result {
	eol := "\n"
	if strings.Contains(text, "\r\n") {
		eol = "\r\n"
	}
	s := &state{lineNo: -1, trail: trail{lineNo: -1}, cache: map[string]Error{}}
	for _, line := range strings.Split(text, "\n") {
		s.processLine([]rune(strings.TrimSuffix(line, "\r")))
		if s.err != nil {
			return Result{Text: text, Err: s.err}
		}
	}
	s.finalize()
	if s.err != nil {
		return Result{Text: text, Err: s.err}
	}
	out := make([]string, len(s.lines))
	for i, l := range s.lines {
		out[i] = string(l)
	}
	return Result{Text: strings.Join(out, eol), Success: true}
}

func (s *state) fail(name string) {
	if s.err != nil {
		return
	}
	e, ok := s.cache[name]
	if !ok {
		e = Error{LineNo: s.lineNo, X: s.x}
	}
	e.Name, e.Message = name, messages[name]
	s.err = &e
}

func (s *state) cachePos(name string) {
	if _, ok := s.cache[name]; !ok {
		s.cache[name] = Error{LineNo: s.lineNo, X: s.x}
	}
}

func (s *state) processLine(line []rune) {
	s.lineNo++
	s.x = 0
	s.lines = append(s.lines, make([]rune, 0, len(line)))
	s.trackingIndent = !s.inStr
	s.unmatchedX = -1
	delete(s.cache, ErrUnmatchedCloseParen)
	for _, r := range line {
		s.processChar(r)
		if s.err != nil {
			return
		}
	}
	s.processChar('\n')
	if s.err != nil {
		return
	}
	if s.unmatchedX >= 0 && (s.trail.lineNo != s.lineNo || s.unmatchedX < s.trail.startX) {
		s.fail(ErrUnmatchedCloseParen)
		return
	}
	switch {
	case s.trail.lineNo == s.lineNo && s.inStr:
		s.trail = trail{lineNo: -1}
	case s.trail.lineNo == s.lineNo: // undo the trail: the next indentation decides it
		for i := len(s.trail.openers) - 1; i >= 0; i-- {
			s.stack = append(s.stack, s.trail.openers[i])
		}
		s.trail.openers = nil
	}
}

func (s *state) processChar(r rune) {
	s.ch = []rune{r}
	s.skip = false
	if s.trackingIndent {
		s.checkIndent(r)
	}
	if s.skip {
		s.ch = nil
	} else {
		s.onChar(r)
	}
	if s.err != nil || (len(s.ch) == 1 && s.ch[0] == '\n') {
		return
	}
	s.lines[s.lineNo] = append(s.lines[s.lineNo], s.ch...)
	s.x += len(s.ch)
}

func (s *state) checkIndent(r rune) {
	switch {
	case isClose(r):
		s.skip = true // a leading close-paren is dropped
	case r == ';':
		s.trackingIndent = false // comment lines are not indentation points
	case r != '\n' && r != ' ' && r != '\t':
		s.trackingIndent = false
		if s.quoteDanger {
			s.fail(ErrQuoteDanger)
			return
		}
		s.correctParenTrail(s.x)
	}
}

func (s *state) inCode() bool { return !s.inStr && !s.inComment }
func (s *state) onChar(r rune) {
	code := s.inCode()
	s.escaped = false
	switch {
	case s.escaping:
		s.escaping, s.escaped = false, true
		if r == '\n' {
			if code {
				s.x--
				s.fail(ErrEOLBackslash)
				return
			}
			s.inComment = false
		}
	case isOpen(r):
		if code {
			s.stack = append(s.stack, opener{lineNo: s.lineNo, x: s.x, ch: r})
		}
	case isClose(r):
		if code {
			s.onCloseParen(r)
		}
	case r == '"':
		switch {
		case s.inStr:
			s.inStr = false
		case s.inComment:
			s.quoteDanger = !s.quoteDanger
			if s.quoteDanger {
				s.cachePos(ErrQuoteDanger)
			}
		default:
			s.inStr = true
			delete(s.cache, ErrUnclosedQuote)
			s.cachePos(ErrUnclosedQuote)
		}
	case r == ';':
		if code {
			s.inComment = true
		}
	case r == '\\':
		s.escaping = true
	case r == '\t':
		if code {
			s.ch = []rune("  ")
		}
	case r == '\n':
		s.inComment = false
	}
	s.updateTrail()
}

func (s *state) onCloseParen(r rune) {
	if n := len(s.stack); n > 0 && closers[s.stack[n-1].ch] == r {
		s.trail.endX = s.x + 1
		s.trail.openers = append(s.trail.openers, s.stack[n-1])
		s.stack = s.stack[:n-1]
		return
	}
	if s.unmatchedX < 0 {
		s.unmatchedX = s.x
		s.cachePos(ErrUnmatchedCloseParen)
	}
	s.ch = nil
}

// updateTrail starts a new paren trail after any code character that is not
// a close-paren or whitespace.
func (s *state) updateTrail() {
	if !s.inCode() || len(s.ch) == 0 || s.ch[0] == '\n' {
		return
	}
	ws := s.ch[0] == ' ' || (len(s.ch) == 2 && s.ch[0] == ' ')
	if (isClose(s.ch[0]) || ws) && !s.escaped {
		return
	}
	s.trail = trail{lineNo: s.lineNo, startX: s.x + len(s.ch), endX: s.x + len(s.ch)}
}

// correctParenTrail closes, at the last paren trail, every open-paren at or
// right of indentX.
func (s *state) correctParenTrail(indentX int) {
	if s.trail.lineNo < 0 {
		return
	}
	var parens []rune
	for n := len(s.stack); n > 0 && s.stack[n-1].x >= indentX; n = len(s.stack) {
		parens = append(parens, closers[s.stack[n-1].ch])
		s.stack = s.stack[:n-1]
	}
	line := s.lines[s.trail.lineNo]
	start, end := min(s.trail.startX, len(line)), min(s.trail.endX, len(line))
	out := append(append(append(make([]rune, 0, len(line)+len(parens)), line[:start]...), parens...), line[end:]...)
	s.lines[s.trail.lineNo] = out
	s.trail.endX = start + len(parens)
}

func (s *state) finalize() {
	if s.quoteDanger {
		s.fail(ErrQuoteDanger)
		return
	}
	if s.inStr {
		s.fail(ErrUnclosedQuote)
		return
	}
	s.correctParenTrail(0)
}
