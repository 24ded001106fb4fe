package ops

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestNormalizeEOL: every line ending of the text becomes eol, lone CRs
// included; text already in eol comes back as it is (the CRLF fast path
// must not take text with a lone CR or LF).
func TestNormalizeEOL(t *testing.T) {
	for _, c := range []struct{ in, eol, want string }{
		{"a\nb\n", "\n", "a\nb\n"},
		{"a\nb\n", "\r\n", "a\r\nb\r\n"},
		{"a\r\nb\r\n", "\r\n", "a\r\nb\r\n"},
		{"a\r\nb\n", "\r\n", "a\r\nb\r\n"},
		{"a\r\nb\rc", "\r\n", "a\r\nb\r\nc"},
		{"a\r\nb\r", "\r\n", "a\r\nb\r\n"},
		{"\r\r\n\n", "\r\n", "\r\n\r\n\r\n"},
		{"a\r\nb\r\n", "\n", "a\nb\n"},
		{"a\rb", "\n", "a\nb"},
		{"", "\r\n", ""},
		{"no ending", "\r\n", "no ending"},
	} {
		if got := normalizeEOL(c.in, c.eol); got != c.want {
			t.Errorf("normalizeEOL(%q, %q) = %q, want %q", c.in, c.eol, got, c.want)
		}
	}
}

// TestDoc_LinesWithoutIndex: the line count and the lines near either end,
// found by scanning, are those of the line index, whatever the lines' lengths
// (empty ones included) and whether the text ends with a newline.
func TestDoc_LinesWithoutIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, lines := range []int{1, 2, 3, nearEnds - 1, nearEnds, nearEnds + 1, 2*nearEnds - 1, 2 * nearEnds, 2*nearEnds + 1, 300} {
		for _, final := range []bool{true, false} {
			var b strings.Builder
			for i := range lines {
				b.WriteString(strings.Repeat("x", rng.IntN(3)*rng.IntN(20)))
				if i < lines-1 || final {
					b.WriteByte('\n')
				}
			}
			text := b.String()
			d := NewDoc(text, UTF8, false)
			starts := lineStarts(text)
			if d.LineCount() != len(starts) {
				t.Fatalf("%d lines, final %v: LineCount %d, index %d", lines, final, d.LineCount(), len(starts))
			}
			for n := 1; n <= len(starts); n++ {
				wantEnd := len(text)
				if n < len(starts) {
					wantEnd = starts[n]
				}
				if s, e := d.span(n); s != starts[n-1] || e != wantEnd {
					t.Fatalf("%d lines, final %v: line %d spans [%d,%d), index [%d,%d)", lines, final, n, s, e, starts[n-1], wantEnd)
				}
			}
			if d.HasFinalNewline() != (d.EOL(d.LineCount()) != "") {
				t.Fatalf("%d lines: HasFinalNewline %v", lines, d.HasFinalNewline())
			}
		}
	}
}
