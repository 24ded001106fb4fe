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
// and so is the ellipsis: a character of its own, written on purpose in
// prose and messages, not a stand-in for one ASCII character.

// asFileChars returns search and replace with every look-alike character
// the file's matched lines do not have mapped to its ASCII, when the search
// has at least one such character; otherwise both as they are.
func asFileChars(matched, search, replace string) (string, string) {
	foreign := func(r rune) bool {
		_, ok := lookalike(r)
		return ok && r != '\u2026' && !strings.ContainsRune(matched, r)
	}
	if strings.IndexFunc(search, foreign) < 0 {
		return search, replace
	}
	ascii := func(s string) string {
		var b strings.Builder
		b.Grow(len(s))
		for _, r := range s {
			if foreign(r) {
				m, _ := lookalike(r)
				b.WriteString(m)
				continue
			}
			b.WriteRune(r)
		}
		return b.String()
	}
	return ascii(search), ascii(replace)
}
