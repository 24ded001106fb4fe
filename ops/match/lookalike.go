package match

import (
	"strings"
)

// Look-alikes the caller typed. A search that matched only at the
// normalized level because it has a curly quote, a dash or a no-break
// space where the file has ASCII shows the caller's text substitutes
// look-alikes for the file's characters: its replacement does the same.
// The lines a change writes are in the file's characters (the promise of
// every tolerant match: only the lines changed, in the file's style), so
// before the change is carried the look-alikes the matched lines do not
// have are written as the ASCII they stand for, in search and replacement
// alike (the diff between them is unchanged). Look-alikes the file has
// itself (a Markdown file's curly quotes) are the file's style and kept,
// and so are the ellipsis and the em dash: punctuation of their own,
// written on purpose in prose and messages, not stand-ins for one ASCII
// character. Without that evidence (an exact match shows nothing of the
// caller's characters) only the look-alikes nobody can see are mapped: a
// no-break or other look-alike space, a zero-width character, which the
// matched lines do not have.

// asFileChars returns search and replace with the look-alike characters
// the file's matched lines do not have mapped to their ASCII: every
// look-alike but the ellipsis and the em dash when the search has one of
// them, else only the invisible ones (look-alike spaces, zero-width).
func asFileChars(matched, search, replace string) (string, string) {
	foreign := func(r rune) bool {
		_, ok := lookalike(r)
		return ok && r != '\u2026' && r != '\u2014' && !strings.ContainsRune(matched, r)
	}
	evidence := strings.IndexFunc(search, foreign) >= 0
	mapped := func(r rune) (string, bool) {
		if !foreign(r) {
			return "", false
		}
		m, _ := lookalike(r)
		return m, evidence || m == " " || m == ""
	}
	ascii := func(s string) string {
		if strings.IndexFunc(s, func(r rune) bool { _, ok := mapped(r); return ok }) < 0 {
			return s
		}
		var b strings.Builder
		b.Grow(len(s))
		for _, r := range s {
			if m, ok := mapped(r); ok {
				b.WriteString(m)
				continue
			}
			b.WriteRune(r)
		}
		return b.String()
	}
	return ascii(search), ascii(replace)
}
