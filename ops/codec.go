package ops

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// sniffLen is how much of a file Decode inspects to tell text from binary.
const sniffLen = 8 << 10

var (
	bomUTF8    = []byte{0xEF, 0xBB, 0xBF}
	bomUTF16LE = []byte{0xFF, 0xFE}
	bomUTF16BE = []byte{0xFE, 0xFF}
)

func sprintf(format string, a ...any) string { return fmt.Sprintf(format, a...) }

func invalid(format string, a ...any) *Error {
	return &Error{Err: ErrInvalidInput, Msg: sprintf(format, a...)}
}

func binaryErr(why string) error {
	return &Error{Op: "decode", Index: -1, Err: ErrBinary, Msg: "binary file: " + why,
		Hint: "text tools edit text files only; this file looks binary"}
}

// Decode detects the encoding, BOM and line endings of raw and returns the
// decoded Doc. Detection, in order: a UTF-8 BOM followed by valid UTF-8; a
// UTF-16 BOM (LE or BE); NUL bytes in the first 8 KiB, which mean binary
// unless the file is BOM-less UTF-16 (NULs only in the high bytes of code
// units); valid UTF-8; otherwise Latin-1, unless control bytes make it look
// binary. A binary file is refused with an error wrapping ErrBinary.
//
// Decode is lossless: Decode(raw).Encode() returns raw byte for byte.
func Decode(raw []byte) (*Doc, error) { return decode(raw, false) }

// decode is Decode; with share, UTF-8 text is raw's own memory, not a copy
// (the planner's: a Loader's bytes stay unchanged, see Loader). Copying a
// large file's bytes is one memmove that cannot be preempted, and the new
// pages it faults in cost more than the copy.
func decode(raw []byte, share bool) (*Doc, error) {
	text := func(b []byte) string {
		if share {
			return unsafe.String(unsafe.SliceData(b), len(b))
		}
		return string(b)
	}
	switch {
	case bytes.HasPrefix(raw, bomUTF8) && utf8.Valid(raw[3:]) && !hasNUL(raw[3:]):
		return NewDoc(text(raw[3:]), UTF8, true), nil
	case bytes.HasPrefix(raw, bomUTF16LE):
		return decodeUTF16(raw, UTF16LE, true)
	case bytes.HasPrefix(raw, bomUTF16BE):
		return decodeUTF16(raw, UTF16BE, true)
	case hasNUL(raw):
		if enc, ok := sniffUTF16(raw); ok {
			if d, err := decodeUTF16(raw, enc, false); err == nil {
				return d, nil
			}
		}
		return nil, binaryErr("it contains NUL bytes")
	case utf8.Valid(raw):
		return NewDoc(text(raw), UTF8, false), nil
	}
	if looksBinary(raw) {
		return nil, binaryErr("it is neither UTF-8 nor mostly printable")
	}
	var b strings.Builder
	b.Grow(len(raw) * 2)
	for _, c := range raw {
		b.WriteRune(rune(c))
	}
	return NewDoc(b.String(), Latin1, false), nil
}

func hasNUL(raw []byte) bool {
	return bytes.IndexByte(raw[:min(len(raw), sniffLen)], 0) >= 0
}

// looksBinary reports whether more than 10% of the sniffed bytes are control
// characters other than tab, newline, form feed, carriage return and escape.
func looksBinary(raw []byte) bool {
	s := raw[:min(len(raw), sniffLen)]
	ctl := 0
	for _, c := range s {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != 0x1b {
			ctl++
		}
	}
	return ctl*10 > len(s)
}

// sniffUTF16 recognises BOM-less UTF-16: even length, NULs confined to one
// byte of each code unit, and at least half of the code units with a zero
// high byte (text that is mostly ASCII or Latin-1).
func sniffUTF16(raw []byte) (Encoding, bool) {
	if len(raw)%2 != 0 {
		return 0, false
	}
	s := raw[:min(len(raw), sniffLen)&^1]
	var even, odd int
	for i, c := range s {
		if c == 0 {
			if i%2 == 0 {
				even++
			} else {
				odd++
			}
		}
	}
	units := len(s) / 2
	switch {
	case even == 0 && odd*2 >= units:
		return UTF16LE, true
	case odd == 0 && even*2 >= units:
		return UTF16BE, true
	}
	return 0, false
}

func decodeUTF16(raw []byte, enc Encoding, bom bool) (*Doc, error) {
	body := raw
	if bom {
		body = raw[2:]
	}
	if len(body)%2 != 0 {
		return nil, binaryErr("odd number of bytes after a UTF-16 byte order mark")
	}
	units := make([]uint16, len(body)/2)
	for i := range units {
		a, b := uint16(body[2*i]), uint16(body[2*i+1])
		if enc == UTF16LE {
			units[i] = a | b<<8
		} else {
			units[i] = a<<8 | b
		}
		if units[i] == 0 {
			return nil, binaryErr("UTF-16 text containing U+0000")
		}
	}
	d := NewDoc(string(utf16.Decode(units)), enc, bom)
	if !bytes.Equal(d.Encode(), raw) { // unpaired surrogates do not survive
		return nil, binaryErr("invalid UTF-16 (unpaired surrogates)")
	}
	return d, nil
}

// Encode returns the file bytes: BOM (if any) and the text in d's encoding.
// For a Doc that came from Decode and was not changed, this is exactly the
// input. Runes a Latin-1 file cannot hold are written as '?'; ApplyBatch
// refuses such content before it gets here.
func (d *Doc) Encode() []byte { return d.encode(false) }

// encode is Encode; with share, the bytes of UTF-8 text without a BOM are
// d's text itself, not a copy (see FileResult.New).
func (d *Doc) encode(share bool) []byte {
	if share && d.Encoding == UTF8 && !d.BOM {
		return unsafe.Slice(unsafe.StringData(d.text), len(d.text))
	}
	switch d.Encoding {
	case UTF16LE, UTF16BE:
		units := utf16.Encode([]rune(d.text))
		out := make([]byte, 0, 2+2*len(units))
		if d.BOM {
			out = append(out, bomFor(d.Encoding)...)
		}
		for _, u := range units {
			if d.Encoding == UTF16LE {
				out = append(out, byte(u), byte(u>>8))
			} else {
				out = append(out, byte(u>>8), byte(u))
			}
		}
		return out
	case Latin1:
		out := make([]byte, 0, len(d.text))
		for _, r := range d.text {
			if r > 0xFF {
				r = '?'
			}
			out = append(out, byte(r))
		}
		return out
	}
	if d.BOM {
		return append(append(make([]byte, 0, 3+len(d.text)), bomUTF8...), d.text...)
	}
	return []byte(d.text)
}

func bomFor(e Encoding) []byte {
	if e == UTF16LE {
		return bomUTF16LE
	}
	return bomUTF16BE
}

// representable reports whether d's encoding can hold every rune of s.
func (d *Doc) representable(s string) bool {
	if d.Encoding != Latin1 {
		return true
	}
	for _, r := range s {
		if r > 0xFF {
			return false
		}
	}
	return true
}

// normalizeEOL rewrites every line ending in s (LF, CRLF or lone CR) as eol.
func normalizeEOL(s, eol string) string {
	if strings.IndexByte(s, '\r') < 0 { // LF only: the common case, at memchr speed
		if eol == "\n" || strings.IndexByte(s, '\n') < 0 {
			return s
		}
		return strings.ReplaceAll(s, "\n", eol)
	}
	if eol == "\r\n" { // CRLF text for a CRLF file: counted at memchr speed
		if n := strings.Count(s, "\r\n"); n == strings.Count(s, "\n") && n == strings.Count(s, "\r") {
			return s
		}
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\r':
			if i+1 < len(s) && s[i+1] == '\n' {
				i++
			}
			b.WriteString(eol)
		case '\n':
			b.WriteString(eol)
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// hasEOL reports whether s ends with a line ending.
func hasEOL(s string) bool {
	return strings.HasSuffix(s, "\n") || strings.HasSuffix(s, "\r")
}

// ensureEOL appends eol to s unless s already ends with a line ending.
func ensureEOL(s, eol string) string {
	if hasEOL(s) {
		return s
	}
	return s + eol
}

// trimEOL removes one trailing line ending from s.
func trimEOL(s string) string {
	s, _ = strings.CutSuffix(s, "\n")
	if len(s) > 0 && s[len(s)-1] == '\r' {
		s = s[:len(s)-1]
	}
	return s
}
