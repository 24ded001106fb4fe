package parinfer

import "strings"

// Balanced checks that every bracket of text is closed by its match and
// every string is closed, reading strings, line comments (;) and escapes
// (\x) as indent mode does. It returns nil when text balances, else the
// first problem: "unmatched-close-paren", "unclosed-paren" (at the
// innermost open-paren left) or "unclosed-quote".
func Balanced(text string) *Error {
	var stack []opener
	line, x := 0, 0
	inStr, inComment, escaping := false, false, false
	strAt := Error{}
	for _, r := range text {
		switch {
		case r == '\n':
			inComment, escaping = false, false
		case escaping:
			escaping = false
		case r == '\\':
			escaping = true
		case inComment:
		case r == '"':
			inStr = !inStr
			strAt = Error{LineNo: line, X: x}
		case inStr:
		case r == ';':
			inComment = true
		case isOpen(r):
			stack = append(stack, opener{lineNo: line, x: x, ch: r})
		case isClose(r):
			if n := len(stack); n == 0 || closers[stack[n-1].ch] != r {
				return newError(ErrUnmatchedCloseParen, line, x)
			}
			stack = stack[:len(stack)-1]
		}
		if r == '\n' {
			line, x = line+1, 0
		} else if r != '\r' {
			x++
		}
	}
	switch {
	case inStr:
		return newError(ErrUnclosedQuote, strAt.LineNo, strAt.X)
	case len(stack) > 0:
		o := stack[len(stack)-1]
		return newError(ErrUnclosedParen, o.lineNo, o.x)
	}
	return nil
}

func newError(name string, line, x int) *Error {
	return &Error{Name: name, Message: messages[name], LineNo: line, X: x}
}

// Form is one top-level bracketed form found by TopLevel.
type Form struct {
	StartLine int `json:"start_line"` // 1-based
	EndLine   int `json:"end_line"`   // 1-based, inclusive
	StartByte int `json:"start_byte"` // byte offsets into the text, half-open
	EndByte   int `json:"end_byte"`
}

// TopLevel returns the top-level bracketed forms of a Lisp text in order,
// each with the reader prefix glued to its open-paren ('(, #(, `(, #{, @(,
// #?( ...). Bare top-level atoms are not forms. A form left open at the end
// of the text runs to the end.
func TopLevel(text string) []Form {
	var out []Form
	depth, line := 0, 1
	inStr, inComment, escaping := false, false, false
	var cur Form
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == '\n':
			inComment, escaping = false, false
		case escaping:
			escaping = false
		case c == '\\':
			escaping = true
		case inComment:
		case c == '"':
			inStr = !inStr
		case inStr:
		case c == ';':
			inComment = true
		case c == '(' || c == '[' || c == '{':
			if depth == 0 {
				start := i
				for start > 0 && !strings.ContainsRune(" \t\r\n()[]{}\";", rune(text[start-1])) {
					start--
				}
				cur = Form{StartLine: line, StartByte: start}
			}
			depth++
		case c == ')' || c == ']' || c == '}':
			if depth > 0 {
				depth--
				if depth == 0 {
					cur.EndLine, cur.EndByte = line, i+1
					out = append(out, cur)
				}
			}
		}
		if c == '\n' {
			line++
		}
	}
	if depth > 0 {
		end := strings.TrimRight(text, " \t\r\n")
		cur.EndByte = len(end)
		cur.EndLine = 1 + strings.Count(end, "\n")
		out = append(out, cur)
	}
	return out
}
