package match

import (
	"fmt"
	"strings"

	"github.com/journalfs/journal/ops"
)

// lineEnds records, on a completed match, the text of its first line
// before it (pre) and of its last line after it, with that line's
// terminator (post; "" when the match ends with its line's terminator or at
// the end of the content). Only Place reads them.
func (m *Match) lineEnds(content string) {
	m.pre = content[strings.LastIndexByte(content[:m.Start], '\n')+1 : m.Start]
	m.post = ""
	if m.End > m.Start && content[m.End-1] == '\n' {
		return
	}
	if i := strings.IndexByte(content[m.End:], '\n'); i >= 0 {
		m.post = content[m.End : m.End+i+1]
	} else {
		m.post = content[m.End:]
	}
}

// Place is RewriteExpanded after the match and the replacement are made to
// agree on whole lines (wholeLines): it returns the match as it is replaced
// (its bounds may have grown to the line's) and the text that replaces it.
func (m Match) Place(replace, path string) (Match, string, error) {
	m, replace, err := m.wholeLines(replace)
	if err != nil {
		return m, "", err
	}
	r, err := m.RewriteExpanded(replace, path)
	m.pre, m.post = "", ""
	m.Note = joinNote(m.Note, m.lookalikeNote(replace))
	return m, r, err
}

// wholeLines reads a search and a replacement whose ends disagree about
// lines as the whole lines the caller meant, and refuses where both a whole
// line and a change inside the line are plausible readings:
//
//   - the replacement starts with the text of the line before the match:
//     the match grows to the line's start (else that text would be
//     doubled); it starts with that text without its indentation: refused;
//   - the replacement ends with the rest of the line after the match and a
//     line ending: the match grows over it (else that rest would be split
//     onto a line of its own);
//   - the match ends at its line's end (only whitespace after it) and the
//     replacement with a line ending: the match takes the line's ending too
//     (else a blank line is added); at the end of a file without a final
//     newline, the replacement's is dropped (the file keeps its last line
//     unterminated). An empty replacement of lines matched from their start
//     deletes them with their ending (else an empty line stays);
//   - the search ends with a line ending and the replacement (not empty)
//     without: the replacement gets one (else the next line is glued on);
//   - the match ends inside a line, before more text, and the replacement
//     ends with a line ending that does not end with that text: refused
//     (the rest of the line would go onto a line of its own);
//   - an empty replacement of a match from its line's start (after the
//     indentation) to inside the line: refused (the line, or only its
//     start, may be meant);
//   - a match after its line's indentation replaced by text whose first
//     line is blank: the match grows to the line's start (else the blank
//     line keeps the indentation as trailing whitespace).
//
// Where the replacement continues the line (no line ending at its end
// while text follows the match), the literal meaning stands.
func (m Match) wholeLines(replace string) (Match, string, error) {
	r := toLF(replace)
	note := ""
	// the start: the line's text before the match
	if t := strings.TrimLeft(m.pre, " \t"); t != "" {
		switch {
		case strings.HasPrefix(r, m.pre):
			m.grow(m.pre, "")
			note = "the replacement starts with the line's text before the search: the whole line was replaced"
		case strings.HasPrefix(r, t):
			return m, "", m.linesError("the replacement starts with "+quote(t)+", the text before the search on its line but without the line's indentation, so it would stand on the line twice",
				"send the search text from the start of its line (candidate) and the replacement with the line's indentation, or a replacement that does not repeat the text before the search")
		}
	}
	if m.lead != "" && strings.Contains(r, "\n") && strings.TrimSpace(r[:strings.IndexByte(r, '\n')]) == "" {
		m.grow(m.pre, "")
	}
	// the rest of the line after the match: its text (rest, body in LF)
	// and its terminator
	term := eolOf(m.post)
	rest := m.post[:len(m.post)-len(term)]
	body := toLF(rest)
	if strings.TrimSpace(body) != "" {
		// text follows the match on its line
		rr := strings.TrimRight(strings.TrimSuffix(r, "\n"), " \t")
		switch {
		case r == "" && strings.TrimLeft(m.pre, " \t") == "":
			return m, "", m.linesError("the search starts at its line's start and ends inside it, before "+quote(strings.TrimSpace(body))+", and the replacement is empty: it may delete the line or only its start",
				"to delete the line, send the whole line as the search text (candidate); to delete only its start, send the search with the rest of the line and the replacement with that rest")
		case !strings.HasSuffix(r, "\n"):
			// the replacement continues the line: literal
		case strings.HasSuffix(rr, strings.TrimRight(body, " \t")):
			m.grow("", rest)
			m.post, rest, body = term, "", ""
			note = joinNote(note, "the replacement ends with the rest of the search's last line: the whole line was replaced")
		default:
			return m, "", m.linesError("the search ends inside its line, before "+quote(strings.TrimSpace(body))+", and the replacement ends with a line break, so the rest of the line would go onto a line of its own",
				"end the search text at the end of its line (candidate) and the replacement with the whole new line; to break the line there on purpose, put the rest of the line in both texts")
		}
	}
	if strings.TrimSpace(body) != "" {
		return m.noted(note), replace, nil
	}
	switch {
	case strings.HasSuffix(m.Matched, "\n"):
		if r == "" && m.lead != "" { // whole lines deleted: their indentation too
			m.grow(m.pre, "")
			note = joinNote(note, "the search held whole lines and the replacement is empty: the lines were deleted")
		}
		if r != "" && !strings.HasSuffix(r, "\n") {
			replace += "\n"
			note = joinNote(note, "the search ended with a line break and the replacement without: the replacement was written as whole lines")
		}
	case strings.HasSuffix(toLF(m.search), "\n"):
		// the search's line break stood for a final line without one
		// (a tolerant level's match): carried as it is
	case strings.HasSuffix(r, "\n"):
		m.grow("", rest+term)
		if term == "" { // the last line of a file without a final newline
			replace = strings.TrimSuffix(strings.TrimSuffix(replace, "\n"), "\r")
		}
		note = joinNote(note, "the search ended at its line's end without the line break and the replacement with one: whole lines were replaced")
	case r == "" && strings.TrimLeft(m.pre, " \t") == "":
		m.grow(m.pre, rest+term)
		note = joinNote(note, "the search held whole lines and the replacement is empty: the lines were deleted")
	}
	return m.noted(note), replace, nil
}

// grow extends the match by before and after, the content's text on either
// side of it.
func (m *Match) grow(before, after string) {
	if before == "" && after == "" {
		return
	}
	m.Start -= len(before)
	m.End += len(after)
	m.Matched = before + m.Matched + after
	m.search = before + m.search + after
	m.pre = strings.TrimPrefix(m.pre, before)
	if before != "" {
		m.lead = ""
	}
}

func (m Match) noted(note string) Match {
	m.Note = joinNote(m.Note, note)
	return m
}

func joinNote(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return a + "; " + b
}

// eolOf returns the line terminator s ends with.
func eolOf(s string) string {
	if strings.HasSuffix(s, "\r\n") {
		return "\r\n"
	}
	if strings.HasSuffix(s, "\n") {
		return "\n"
	}
	return ""
}

func quote(s string) string { return fmt.Sprintf("%q", shorten(s, 60)) }

// linesError refuses a change whose search and replacement read as both a
// change inside a line and a whole line; the candidate is the whole lines
// the match touches.
func (m Match) linesError(msg, hint string) error {
	whole := m.pre + m.Matched + m.post
	return &ops.Error{Op: "match", Index: -1, Err: ops.ErrInvalidInput,
		Msg:        fmt.Sprintf("matched at line %d, but %s", m.Line, msg),
		Hint:       hint,
		Candidates: []ops.Candidate{{Line: m.Line, EndLine: m.EndLine, Similarity: 1, Text: shorten(whole, 300), SearchText: whole}}}
}
