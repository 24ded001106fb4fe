package ops

import (
	"strings"
	"unicode/utf8"
)

// cutShort reports a marker candidate (i, a line of lines with keys nkeys)
// that is an old line cut short, not a marker: the new text's last line
// (its line ending, if any, may be the whole-lines reading's), beginning
// as a line of old (okeys) does for at least three words and most of its
// length. A replacement cut short inside
// a comment of prose stops at words that read as a marker ("// as before,
// so a line's v" of "// as before, so a line's verdict does not change",
// "// unchanged line on either side, or " of "// unchanged line on either
// side are refused"; the edit fuzzer's trunc-replace class on this
// repository's own history), and expanding it kept the old line in place of
// the text sent. A marker the caller ends the text with shares no such
// start with a line it stands for.
func cutShort(lines, nkeys, okeys []string, i int) bool {
	if i != len(lines)-1 {
		return false
	}
	k := nkeys[i]
	for _, o := range okeys {
		n := commonPrefix(k, o)
		if len(strings.Fields(k[:n])) >= 3 && 2*utf8.RuneCountInString(k[:n]) > utf8.RuneCountInString(k) {
			return true
		}
	}
	return false
}

// commonPrefix returns the length in bytes of the longest common prefix
// of a and b, ending on a rune boundary.
func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	for n > 0 && n < len(a) && !utf8.RuneStart(a[n]) {
		n--
	}
	return n
}
