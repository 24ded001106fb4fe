package lsp

import (
	"fmt"
	"sort"
	"unicode/utf8"

	"go.lsp.dev/protocol"
)

// TextEdit replaces the bytes [Start, End) of a file's content with NewText.
type TextEdit struct {
	Start, End int
	NewText    string
}

// FileEdit is one file's edits, sorted ascending and non-overlapping.
type FileEdit struct {
	Path  string
	Edits []TextEdit
}

// ApplyEdits returns content with edits applied. Edits are byte offsets into
// content; they are sorted (stably, so inserts at one offset keep their order)
// and refused if any is out of range or overlaps another.
func ApplyEdits(content []byte, edits []TextEdit) ([]byte, error) {
	sorted := append([]TextEdit(nil), edits...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Start < sorted[j].Start })
	size := len(content)
	prevEnd := 0
	for i, e := range sorted {
		if e.Start < 0 || e.End < e.Start || e.End > len(content) {
			return nil, fmt.Errorf("lsp: edit [%d,%d) out of range of %d bytes", e.Start, e.End, len(content))
		}
		if i > 0 && e.Start < prevEnd {
			return nil, fmt.Errorf("lsp: edit [%d,%d) overlaps the edit ending at %d", e.Start, e.End, prevEnd)
		}
		prevEnd = e.End
		size += len(e.NewText) - (e.End - e.Start)
	}
	out := make([]byte, 0, size)
	last := 0
	for _, e := range sorted {
		out = append(out, content[last:e.Start]...)
		out = append(out, e.NewText...)
		last = e.End
	}
	return append(out, content[last:]...), nil
}

// encoding is the unit of an LSP position's character: UTF-16 code units
// (the LSP default), UTF-8 bytes, or UTF-32 code points.
type encoding string

const (
	utf16 encoding = "utf-16"
	utf8e encoding = "utf-8"
	utf32 encoding = "utf-32"
)

// text indexes a document's lines. Lines end at '\n'; a '\r' before it is
// not part of the line's addressable columns for clamping, but a lone '\r'
// is not a line break.
type text struct {
	b     []byte
	lines []int // byte offset of each line's start
}

func newText(b []byte) *text {
	t := &text{b: b, lines: []int{0}}
	for i, c := range b {
		if c == '\n' {
			t.lines = append(t.lines, i+1)
		}
	}
	return t
}

// lineEnd returns the offset of line l's end, before its "\n" or "\r\n".
func (t *text) lineEnd(l int) int {
	end := len(t.b)
	if l+1 < len(t.lines) {
		end = t.lines[l+1] - 1
		if end > t.lines[l] && t.b[end-1] == '\r' {
			end--
		}
	}
	return end
}

// offset converts an LSP position to a byte offset. A character past the end
// of its line is clamped to the line's end (as the LSP specification says);
// a line past the end of the document is an error.
func (t *text) offset(p protocol.Position, enc encoding) (int, error) {
	l := int(p.Line)
	if l >= len(t.lines) {
		if l == len(t.lines) && p.Character == 0 {
			return len(t.b), nil
		}
		return 0, fmt.Errorf("lsp: position %d:%d past the last line (%d)", p.Line, p.Character, len(t.lines))
	}
	start, end := t.lines[l], t.lineEnd(l)
	want := int(p.Character)
	if enc == utf8e {
		return min(start+want, end), nil
	}
	i, units := start, 0
	for i < end && units < want {
		r, n := utf8.DecodeRune(t.b[i:end])
		u := 1
		if enc == utf16 && r >= 0x10000 {
			u = 2
		}
		if units+u > want {
			break // inside a surrogate pair: stay before the rune
		}
		units += u
		i += n
	}
	return i, nil
}

// position converts a byte offset to an LSP position.
func (t *text) position(off int, enc encoding) (protocol.Position, error) {
	if off < 0 || off > len(t.b) {
		return protocol.Position{}, fmt.Errorf("lsp: offset %d out of range of %d bytes", off, len(t.b))
	}
	l := sort.Search(len(t.lines), func(i int) bool { return t.lines[i] > off }) - 1
	start := t.lines[l]
	if enc == utf8e {
		return protocol.Position{Line: uint32(l), Character: uint32(off - start)}, nil
	}
	units := 0
	for i := start; i < off; {
		r, n := utf8.DecodeRune(t.b[i:off])
		if enc == utf16 && r >= 0x10000 {
			units += 2
		} else {
			units++
		}
		i += n
	}
	return protocol.Position{Line: uint32(l), Character: uint32(units)}, nil
}

// lineCol converts a byte offset to our 1-based line and 0-based byte column.
func (t *text) lineCol(off int) (line, col int) {
	off = max(0, min(off, len(t.b)))
	l := sort.Search(len(t.lines), func(i int) bool { return t.lines[i] > off }) - 1
	return l + 1, off - t.lines[l]
}

// byteOffset converts our 1-based line and 0-based byte column to an offset.
func (t *text) byteOffset(line, col int) (int, error) {
	if line < 1 || line > len(t.lines) {
		return 0, fmt.Errorf("lsp: line %d out of range 1..%d", line, len(t.lines))
	}
	start := t.lines[line-1]
	end := len(t.b)
	if line < len(t.lines) {
		end = t.lines[line] - 1
	}
	if col < 0 || start+col > end {
		return 0, fmt.Errorf("lsp: column %d out of range of line %d (%d bytes)", col, line, end-start)
	}
	return start + col, nil
}

// lspRange converts an LSP range to byte offsets.
func (t *text) lspRange(r protocol.Range, enc encoding) (start, end int, err error) {
	if start, err = t.offset(r.Start, enc); err != nil {
		return 0, 0, err
	}
	if end, err = t.offset(r.End, enc); err != nil {
		return 0, 0, err
	}
	if end < start {
		return 0, 0, fmt.Errorf("lsp: range %d:%d-%d:%d ends before it starts", r.Start.Line, r.Start.Character, r.End.Line, r.End.Character)
	}
	return start, end, nil
}
