package ops

import "testing"

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
