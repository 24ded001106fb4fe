package ops

import (
	"strings"
	"unicode/utf8"
)

// Encoding names how a Doc's text is stored on disk.
type Encoding int

// The encodings Decode recognises. Text is always held as UTF-8 in memory and
// written back in the encoding it was read in.
const (
	UTF8    Encoding = iota // UTF-8, with or without BOM
	UTF16LE                 // UTF-16 little endian, with or without BOM
	UTF16BE                 // UTF-16 big endian, with or without BOM
	Latin1                  // ISO-8859-1: bytes that are not valid UTF-8 and not binary
)

// String returns the conventional name of the encoding.
func (e Encoding) String() string {
	switch e {
	case UTF16LE:
		return "utf-16le"
	case UTF16BE:
		return "utf-16be"
	case Latin1:
		return "latin-1"
	}
	return "utf-8"
}

// Line endings a Doc recognises. A lone CR ends a line too (classic Mac files).
const (
	LF   = "\n"
	CRLF = "\r\n"
	CR   = "\r"
)

// Doc is a decoded text file: its encoding, whether it had a byte order mark,
// and its text as UTF-8 with the original line endings kept byte for byte.
//
// Lines are 1-indexed; columns are 0-indexed and count runes (Unicode code
// points) within a line, not bytes. Column -1 means the end of the line, before
// its line ending. A Doc is immutable.
type Doc struct {
	Encoding Encoding // how the bytes were (and will be) encoded
	BOM      bool     // whether the file starts with a byte order mark

	text   string // decoded text, line endings included
	starts []int  // byte offset in text of each line's first byte
}

// NewDoc returns a Doc holding text that will be encoded as enc (with a BOM if
// bom is set). Use it to build a file the caller creates from scratch.
func NewDoc(text string, enc Encoding, bom bool) *Doc {
	return &Doc{Encoding: enc, BOM: bom, text: text, starts: lineStarts(text)}
}

// with returns a Doc with d's encoding and BOM holding text.
func (d *Doc) with(text string) *Doc { return NewDoc(text, d.Encoding, d.BOM) }

func lineStarts(text string) []int {
	if text == "" {
		return nil
	}
	starts := make([]int, 1, strings.Count(text, "\n")+2) // lone CRs are rare: at most a regrowth
	if strings.IndexByte(text, '\r') < 0 {                // LF only: IndexByte is memchr, IndexAny is a byte loop
		for i := 0; ; {
			j := strings.IndexByte(text[i:], '\n')
			if j < 0 {
				return starts
			}
			if i += j + 1; i < len(text) {
				starts = append(starts, i)
			}
		}
	}
	for i := 0; i < len(text); {
		j := strings.IndexAny(text[i:], "\r\n")
		if j < 0 {
			break
		}
		i += j + 1
		if text[i-1] == '\r' && i < len(text) && text[i] == '\n' {
			i++
		}
		if i < len(text) {
			starts = append(starts, i)
		}
	}
	return starts
}

// Text returns the decoded text, line endings included.
func (d *Doc) Text() string { return d.text }

// LineCount returns the number of lines. An empty file has 0 lines; "a\n" and
// "a" have 1; "a\n\n" has 2.
func (d *Doc) LineCount() int { return len(d.starts) }

// bounds returns, for line n (1..LineCount), the offset of its first byte, the
// offset just past its text (before the ending) and the offset just past its
// ending. On an empty Doc, line 1 is a virtual empty line at offset 0.
func (d *Doc) bounds(n int) (start, textEnd, end int) {
	if len(d.starts) == 0 {
		return 0, 0, 0
	}
	start = d.starts[n-1]
	end = len(d.text)
	if n < len(d.starts) {
		end = d.starts[n]
	}
	textEnd = end
	if textEnd > start && d.text[textEnd-1] == '\n' {
		textEnd--
	}
	if textEnd > start && d.text[textEnd-1] == '\r' {
		textEnd--
	}
	return start, textEnd, end
}

// Line returns the text of line n (1-indexed) without its line ending, or ""
// if n is out of range.
func (d *Doc) Line(n int) string {
	if n < 1 || n > len(d.starts) {
		return ""
	}
	s, t, _ := d.bounds(n)
	return d.text[s:t]
}

// EOL returns the line ending of line n: LF, CRLF, CR, or "" for a last line
// without a final newline (or n out of range).
func (d *Doc) EOL(n int) string {
	if n < 1 || n > len(d.starts) {
		return ""
	}
	_, t, e := d.bounds(n)
	return d.text[t:e]
}

// HasFinalNewline reports whether the last line ends with a line ending.
// An empty Doc has none.
func (d *Doc) HasFinalNewline() bool { return d.EOL(d.LineCount()) != "" }

// DominantEOL returns the most frequent line ending, ties going to the one
// seen first; LF when the file has none. Lines an op inserts use it.
func (d *Doc) DominantEOL() string {
	kinds := []string{LF, CRLF, CR}
	var count [3]int
	first := -1
	for n := 1; n <= d.LineCount(); n++ {
		for k, e := range kinds {
			if d.EOL(n) == e {
				count[k]++
				if first < 0 {
					first = k
				}
			}
		}
	}
	if first < 0 {
		return LF
	}
	best := first
	for k := range kinds {
		if count[k] > count[best] {
			best = k
		}
	}
	return kinds[best]
}

// LineAt returns the 1-indexed line holding byte offset off of Text (clamped
// to the last line; 0 for an empty Doc).
func (d *Doc) LineAt(off int) int {
	lo, hi := 0, len(d.starts)
	for lo < hi { // first start > off
		m := (lo + hi) / 2
		if d.starts[m] <= off {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == 0 && len(d.starts) > 0 {
		return 1
	}
	return lo
}

// Offset returns the byte offset in Text of line n (1-indexed), column col
// (0-indexed runes; -1 = end of line text). The error wraps ErrInvalidInput.
func (d *Doc) Offset(line, col int) (int, error) {
	if err := d.checkLine(line, "line"); err != nil {
		return 0, err
	}
	return d.colOffset(line, col, "col")
}

func (d *Doc) colOffset(line, col int, field string) (int, error) {
	s, t, _ := d.bounds(line)
	if col == -1 {
		return t, nil
	}
	text := d.text[s:t]
	if col < 0 {
		return 0, invalid("%s %d is invalid: columns are 0-indexed, -1 means end of line", field, col)
	}
	i, n := 0, 0
	for ; n < col && i < len(text); n++ {
		_, w := utf8.DecodeRuneInString(text[i:])
		i += w
	}
	if n < col {
		return 0, &Error{Err: ErrInvalidInput,
			Msg:  sprintf("%s %d is out of range: line %d has %d characters", field, col, line, n),
			Hint: "columns are 0-indexed runes; use -1 for the end of the line"}
	}
	return s + i, nil
}

// checkLine accepts 1..LineCount, and line 1 of an empty Doc.
func (d *Doc) checkLine(line int, field string) error {
	n := d.LineCount()
	if line >= 1 && (line <= n || (n == 0 && line == 1)) {
		return nil
	}
	return &Error{Err: ErrInvalidInput,
		Msg:  sprintf("%s %d is out of range: the file has %d lines", field, line, n),
		Hint: "lines are 1-indexed and refer to the file as it was before this batch; re-read the file"}
}
