package ops

import (
	"strings"
	"sync"
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
//
// Its line index (the offset of every line) is built the first time a line
// that is not among the first or last few is asked for: a whole-file write
// needs only its line count (counted at memory speed) and its first and last
// lines, and building the index of a 10 MB file costs more than that by far.
type Doc struct {
	Encoding Encoding // how the bytes were (and will be) encoded
	BOM      bool     // whether the file starts with a byte order mark

	text  string // decoded text, line endings included
	lines int    // LineCount
	cr    bool   // text has a '\r' (CRLF or CR endings): lines are found with the index only
	index *lineIndex
}

// lineIndex is a Doc's line index, built once (by whichever goroutine asks
// first: a Doc may be read from several).
type lineIndex struct {
	once   sync.Once
	starts []int // byte offset in text of each line's first byte
}

// nearEnds is how many lines from either end of a Doc without CRs are found
// by scanning rather than with the line index.
const nearEnds = 64

// NewDoc returns a Doc holding text that will be encoded as enc (with a BOM if
// bom is set). Use it to build a file the caller creates from scratch.
func NewDoc(text string, enc Encoding, bom bool) *Doc {
	d := &Doc{Encoding: enc, BOM: bom, text: text, cr: strings.IndexByte(text, '\r') >= 0, index: &lineIndex{}}
	if d.cr {
		d.lines = len(d.starts())
	} else if text != "" {
		d.lines = strings.Count(text, "\n")
		if text[len(text)-1] != '\n' {
			d.lines++
		}
	}
	return d
}

// with returns a Doc with d's encoding and BOM holding text.
func (d *Doc) with(text string) *Doc { return NewDoc(text, d.Encoding, d.BOM) }

// starts returns the line index, building it the first time.
func (d *Doc) starts() []int {
	d.index.once.Do(func() { d.index.starts = lineStarts(d.text) })
	return d.index.starts
}

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
func (d *Doc) LineCount() int { return d.lines }

// bounds returns, for line n (1..LineCount), the offset of its first byte, the
// offset just past its text (before the ending) and the offset just past its
// ending. On an empty Doc, line 1 is a virtual empty line at offset 0.
func (d *Doc) bounds(n int) (start, textEnd, end int) {
	if d.lines == 0 {
		return 0, 0, 0
	}
	start, end = d.span(n)
	textEnd = end
	if textEnd > start && d.text[textEnd-1] == '\n' {
		textEnd--
	}
	if textEnd > start && d.text[textEnd-1] == '\r' {
		textEnd--
	}
	return start, textEnd, end
}

// span returns the offsets of line n's first byte and just past its ending:
// found by scanning from the nearer end for a line near either end of a
// Doc without CRs, else from the line index.
func (d *Doc) span(n int) (start, end int) {
	if !d.cr && n-1 < nearEnds {
		for k := 1; k < n; k++ {
			start += strings.IndexByte(d.text[start:], '\n') + 1
		}
		if e := strings.IndexByte(d.text[start:], '\n'); e >= 0 {
			return start, start + e + 1
		}
		return start, len(d.text)
	}
	if !d.cr && d.lines-n < nearEnds {
		end = len(d.text)
		for k := d.lines; ; k-- {
			start = strings.LastIndexByte(d.text[:end-1], '\n') + 1
			if k == n {
				return start, end
			}
			end = start
		}
	}
	starts := d.starts()
	start, end = starts[n-1], len(d.text)
	if n < len(starts) {
		end = starts[n]
	}
	return start, end
}

// Line returns the text of line n (1-indexed) without its line ending, or ""
// if n is out of range.
func (d *Doc) Line(n int) string {
	if n < 1 || n > d.lines {
		return ""
	}
	s, t, _ := d.bounds(n)
	return d.text[s:t]
}

// EOL returns the line ending of line n: LF, CRLF, CR, or "" for a last line
// without a final newline (or n out of range).
func (d *Doc) EOL(n int) string {
	if n < 1 || n > d.lines {
		return ""
	}
	_, t, e := d.bounds(n)
	return d.text[t:e]
}

// HasFinalNewline reports whether the last line ends with a line ending.
// An empty Doc has none.
func (d *Doc) HasFinalNewline() bool {
	return strings.HasSuffix(d.text, "\n") || strings.HasSuffix(d.text, "\r")
}

// DominantEOL returns the most frequent line ending, ties going to the one
// seen first; LF when the file has none. Lines an op inserts use it.
func (d *Doc) DominantEOL() string {
	if !d.cr {
		return LF
	}
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
	starts := d.starts()
	lo, hi := 0, len(starts)
	for lo < hi { // first start > off
		m := (lo + hi) / 2
		if starts[m] <= off {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == 0 && len(starts) > 0 {
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
