package match

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Tolerance. Two texts are the "same place" for the tolerant levels when they
// differ only in what fold erases: indentation and trailing whitespace, the
// length of whitespace runs inside a line, look-alike punctuation (curly
// quotes, dashes, no-break and other spaces, the ellipsis), zero-width
// characters and Unicode normalisation (NFD vs NFC). Identifiers, numbers,
// string contents and the presence of whitespace between two words never
// fold together.

// lookalike maps a rune to the ASCII text it is mistaken for ("" removes it).
func lookalike(r rune) (string, bool) {
	switch r {
	case '\u2018', '\u2019', '\u201A', '\u201B', '\u2032':
		return "'", true
	case '\u201C', '\u201D', '\u201E', '\u201F', '\u2033':
		return `"`, true
	case '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212', '\uFE63', '\uFF0D':
		return "-", true
	case '\u2026':
		return "...", true
	case '\u00A0', '\u2000', '\u2001', '\u2002', '\u2003', '\u2004', '\u2005', '\u2006',
		'\u2007', '\u2008', '\u2009', '\u200A', '\u202F', '\u205F', '\u3000':
		return " ", true
	case '\u200B', '\u200C', '\u200D', '\u2060', '\uFEFF':
		return "", true
	}
	return "", false
}

// isSpace reports the in-line whitespace fold collapses.
func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\f' || b == '\v' || b == '\r' }

// fold returns the key of one line (no terminator) for the normalized level:
// NFC, look-alikes mapped, zero-width characters dropped, whitespace removed
// except between two word characters (where any run is one space, so
// "a+b" and "a + b" fold together but "ab" and "a b" do not). A plain ASCII
// line that needs none of it is returned without allocating.
func fold(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		t := strings.TrimFunc(s, func(r rune) bool { return r < utf8.RuneSelf && isSpace(byte(r)) })
		clean := true
		for i := 0; i < len(t); i++ {
			if isSpace(t[i]) && (t[i] != ' ' || !wordByte(t[i-1]) || !wordByte(t[i+1])) {
				clean = false
				break
			}
		}
		if clean {
			return t
		}
	} else {
		s = norm.NFC.String(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	space := false
	var prev rune
	for _, r := range s {
		if m, ok := lookalike(r); ok {
			if m == " " {
				space = true
				continue
			}
			if m == "" {
				continue
			}
			r = rune(m[0])
			if len(m) > 1 {
				b.WriteString(m[:len(m)-1])
				r = rune(m[len(m)-1])
			}
		} else if r < utf8.RuneSelf && isSpace(byte(r)) {
			space = true
			continue
		}
		if space && b.Len() > 0 && isWord(prev) && isWord(r) {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
		prev = r
	}
	return b.String()
}

func wordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= utf8.RuneSelf
}

// trimKey is the whitespace level's key: the line without indentation and
// trailing whitespace.
func trimKey(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return r < utf8.RuneSelf && isSpace(byte(r)) })
}

// units splits a line body into comparison units: a whitespace run, or one
// rune with the combining marks that follow it.
func units(s string) []string {
	var us []string
	for i := 0; i < len(s); {
		if isSpace(s[i]) {
			j := i + 1
			for j < len(s) && isSpace(s[j]) {
				j++
			}
			us = append(us, s[i:j])
			i = j
			continue
		}
		_, n := utf8.DecodeRuneInString(s[i:])
		j := i + n
		for j < len(s) {
			r, m := utf8.DecodeRuneInString(s[j:])
			if !unicode.Is(unicode.Mn, r) {
				break
			}
			j += m
		}
		us = append(us, s[i:j])
		i = j
	}
	return us
}

// unitKey is what a unit compares as: whitespace runs (and look-alike
// spaces) as one space, other units folded.
func unitKey(u string) string {
	if isSpace(u[0]) {
		return " "
	}
	if r, n := utf8.DecodeRuneInString(u); n == len(u) {
		if m, ok := lookalike(r); ok && m == " " {
			return " "
		}
	}
	return fold(u)
}

// leadingWS returns the indentation of s.
func leadingWS(s string) string {
	return s[:len(s)-len(strings.TrimLeft(s, " \t"))]
}

// trailingWS returns the trailing whitespace of s.
func trailingWS(s string) string {
	return s[len(strings.TrimRight(s, " \t\f\v\r")):]
}
