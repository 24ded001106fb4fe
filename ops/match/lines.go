package match

import (
	"fmt"
	"slices"
	"strings"

	"github.com/journalfs/journal/ops"
)

// Agent artefacts in a line tool's content. A line tool (file_replace,
// ai_code_editing.edit_file, file_edit) has no search text to tell an
// artefact from the file's text, so its content is judged against the
// lines it replaces (old, numbered from start) and the file (text): an
// artefact is undone only on unambiguous evidence, and named in a note;
// an artefact that is plainly there but ambiguous is refused
// (ops.ErrInvalidInput, with a hint); anything else is written as sent.
//
//   - line-number prefixes ("12: ", "12→", "    12\t"): every non-blank
//     line has one of one kind, numbered on from start — the read's own
//     numbers. Removed, unless the lines replaced carry such prefixes
//     themselves (then they are the file's text, and only a second layer
//     is removed). Prefixes on the first line and some others, numbered
//     from start but not all consecutive: refused.
//   - text escaped twice: one line, no real line break, ending with the two
//     characters \n — whole lines sent as one JSON-escaped string. Unescaped
//     once, unless a line of the file ends so itself (and the content does
//     not unescape into two of the lines it replaces), or the content holds
//     what an escaping leaves none of (a real tab, an unescaped ").
//   - look-alikes (curly quotes, dashes, no-break spaces) the file never
//     uses: when one of them stands where the lines replaced have its ASCII
//     character, in text otherwise the same (placedAs), or where no one
//     could mean it (lookalike_class.go: a dash opening an option, a quote
//     or dash where the code's syntax needs ASCII, whatever the file uses;
//     an invisible space), the agent's text went through a typographic
//     filter, and the look-alikes a filter makes are put back to ASCII —
//     but not a range's glued dash, nor in a text that has ASCII quotes or
//     hyphens after a space too, and an em dash only on its own evidence.
//     A look-alike the file uses itself (prose with curly quotes) is kept.
//     With none so shown, they are kept in prose (new prose may mean
//     them), and refused in code (code: a file in a programming language),
//     where the filter is the likely reading and nothing shows it — but an
//     em dash is kept.

// LineContent returns content with the artefacts above undone, the notes
// that say so, or an *ops.Error wrapping ops.ErrInvalidInput. old holds
// the lines replaced (without line endings; none for an insertion before
// line start), text the whole file, path the file's name: a programming
// language (code), or prose.
func LineContent(content string, old []string, start int, text, path string) (string, []string, error) {
	code := codeLang(path) != ""
	var notes []string
	out, note, err := linePrefixes(content, old, start)
	if err != nil {
		return "", nil, err
	}
	if note != "" {
		notes = append(notes, note)
	}
	if u, ok := escapedTwice(out, old, text); ok {
		out = u
		notes = append(notes, `the content was escaped twice (\n, \t, \" as text, no line break): it was unescaped once`)
	}
	f, note, unshown := lookalikesBack(out, old, text, path, start)
	if note != "" {
		out = f
		notes = append(notes, note)
	} else if unshown != "" && code {
		return "", nil, &ops.Error{Op: "content", Index: -1, Err: ops.ErrInvalidInput,
			Msg:  fmt.Sprintf("the content has look-alike characters (%s) this file never uses, and no line it replaces shows whether they stand for ASCII quotes, hyphens or spaces (text put through a typographic filter) or are meant: nothing was written", unshown),
			Hint: "send the content with ASCII quotes, hyphens and spaces; to write the characters on purpose, use edit_content or replace the whole file"}
	}
	return out, notes, nil
}

// linePrefixes removes the read's line-number prefixes from content (see
// LineContent).
func linePrefixes(content string, old []string, start int) (string, string, error) {
	first := firstPrefix(content)
	if first == nil || first.num != start {
		return content, "", nil
	}
	if oldPrefixed(old, first.sep) {
		// the file's own lines carry such prefixes: only a second layer,
		// the read's, is removed
		if s, _, f, l, ok := numbered(content, false); ok && f == start && oldPrefixed(strings.Split(s, "\n"), first.sep) {
			return s, fmt.Sprintf("line-number prefixes (as read tools print them, %d-%d) were removed from the content; the file's own prefixes after them are kept", f, l), nil
		}
		return content, "", nil
	}
	if s, _, f, l, ok := numbered(content, false); ok && f == start {
		return s, fmt.Sprintf("line-number prefixes (as read tools print them, %d-%d) were removed from the content", f, l), nil
	}
	n, with := 0, 0
	for _, l := range strings.Split(toLF(content), "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n++
		if m := numPrefix().FindStringSubmatch(l); m != nil && strings.TrimSpace(m[2]) == first.sep {
			with++
		}
	}
	if n >= 2 && with >= 2 {
		return "", "", &ops.Error{Op: "content", Index: -1, Err: ops.ErrInvalidInput,
			Msg: fmt.Sprintf("the content's lines start with line numbers as a read prints them (%q on its first line, the range's first line number), but not on every line, or not counting on one by one: which of them are the file's text is unclear, so nothing was written",
				strings.TrimSpace(content[:min(len(content), strings.IndexAny(content+"\n", "\n"))])),
			Hint: "send the lines as the file should have them, without the read's \"N: \" prefixes"}
	}
	return content, "", nil
}

// prefix is a line-number prefix: its number and separator (trimmed).
type prefix struct {
	num int
	sep string
}

// firstPrefix returns the prefix of content's first non-blank line.
func firstPrefix(content string) *prefix {
	for _, l := range strings.Split(toLF(content), "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		m := numPrefix().FindStringSubmatch(l)
		if m == nil {
			return nil
		}
		var n int
		fmt.Sscan(m[1], &n)
		return &prefix{n, strings.TrimSpace(m[2])}
	}
	return nil
}

// oldPrefixed reports whether a line of old starts with a number and sep.
func oldPrefixed(old []string, sep string) bool {
	for _, l := range old {
		if m := numPrefix().FindStringSubmatch(l); m != nil && strings.TrimSpace(m[2]) == sep {
			return true
		}
	}
	return false
}

// escapedTwice unescapes content sent escaped twice (see LineContent).
// Content holding a real tab or a double quote no backslash escapes is
// not escaped twice — the escaping would have left neither —: its \n are
// the file's kind of text, cut short (a Go line whose string holds
// "<ul>\n"); so is content in a file whose own lines end in \n, unless it
// unescapes into lines the range replaced (keepsLines).
func escapedTwice(content string, old []string, text string) (string, bool) {
	if strings.Contains(content, "\n") || !strings.HasSuffix(content, `\n`) || strings.HasSuffix(content, `\\n`) {
		return "", false
	}
	if strings.Contains(content, "\t") || bareQuote(content) {
		return "", false
	}
	u := unescaper.Replace(content)
	if keepsLines(u, old) {
		return u, true
	}
	for _, l := range strings.Split(toLF(text), "\n") {
		if strings.HasSuffix(l, `\n`) {
			return "", false // the file's own lines end so: its text
		}
	}
	return u, true
}

// keepsLines reports whether u, content unescaped once, holds two or more
// non-blank lines that stand among the lines it replaces (old), each
// whole: lines of the file, which the one-line reading would glue into one
// (a line of Go source ending in a comment's `\n` does not make those
// pieces its kind of text).
func keepsLines(u string, old []string) bool {
	had := map[string]bool{}
	for _, l := range old {
		if t := strings.TrimSpace(l); t != "" {
			had[t] = true
		}
	}
	n := 0
	for _, l := range strings.Split(u, "\n") {
		if t := strings.TrimSpace(l); t != "" && had[t] {
			n++
		}
	}
	return n >= 2
}

// bareQuote reports a double quote in s that no backslash escapes.
func bareQuote(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return true
		}
	}
	return false
}

// lookalikesBack puts back to ASCII the look-alikes of content the file
// never uses when one stands where old has its ASCII character, or is an
// artefact by class (certainArtefacts; an invisible space), see
// LineContent and lookalike_class.go; note is empty when nothing was
// changed, and unshown then lists the look-alikes (em dashes aside) with
// nothing to show what they are. The content replaces lines from start.
func lookalikesBack(content string, old []string, text, path string, start int) (out string, note string, unshown string) {
	if strings.IndexFunc(content, func(r rune) bool { _, ok := lookalike(r); return ok }) < 0 {
		return content, "", ""
	}
	cr := []rune(content)
	certain := certainArtefacts(cr, path, textBefore(text, start))
	folded := slices.Clone(cr)
	var at []int // positions of look-alikes the file never uses, or no one could mean
	for i, r := range cr {
		if m, ok := lookalike(r); ok && len(m) == 1 && (certain[i] || !strings.ContainsRune(text, r)) {
			folded[i] = rune(m[0])
			at = append(at, i)
		}
	}
	if len(at) == 0 {
		return content, "", ""
	}
	oldText := strings.Join(old, "\n")
	shown := map[rune]bool{} // kinds with a look-alike where old has the ASCII character
	placed := map[int]bool{}
	atWork := false
	var seen []string
	for _, i := range at {
		if placedAs(folded, i, oldText) {
			shown[lookalikeKind(cr[i])], placed[i] = true, true
		}
		if m, _ := lookalike(cr[i]); certain[i] || m == " " {
			atWork = true
		}
		if q := fmt.Sprintf("%q", cr[i]); cr[i] != '\u2014' && !slices.Contains(seen, q) {
			seen = append(seen, q)
		}
	}
	if len(shown) == 0 && !atWork {
		return content, "", strings.Join(seen, ", ")
	}
	res := slices.Clone(cr)
	n := 0
	uses := func(r rune) bool { return strings.ContainsRune(text, r) }
	for _, i := range at {
		// the filter shown at work, its other look-alikes are taken as its
		// too; an em dash, common in prose, needs its own evidence, a
		// glued dash (a range) or a kind the content has as ASCII too its
		// own place's (lookalike_class.go)
		m, _ := lookalike(cr[i])
		if placed[i] || certain[i] || m == " " || cr[i] == '\u2014' && shown[cr[i]] || filtered(cr, i, content, uses) {
			res[i] = folded[i]
			n++
		}
	}
	if n == 0 {
		return content, "", ""
	}
	return string(res), fmt.Sprintf("%d look-alike character(s) (curly quotes, dashes, no-break spaces) were written as ASCII: the file uses none of them, and the content has some where the lines replaced have the ASCII character, or where no one could mean them (a dash opening an option, a quote or dash where the code's syntax needs ASCII, an invisible space)", n), ""
}

// textBefore returns text's lines before line start (1-based).
func textBefore(text string, start int) string {
	at := 0
	for n := 1; n < start && at < len(text); n++ {
		i := strings.IndexByte(text[at:], '\n')
		if i < 0 {
			return text
		}
		at += i + 1
	}
	return text[:at]
}

// placedAs reports whether the runes around position i of folded (the
// content with look-alikes as ASCII), up to lookalikeContext on each side
// within its line, stand in old as they are: the file has the ASCII
// character at that place, in text otherwise the same.
func placedAs(folded []rune, i int, old string) bool {
	a, b := i, i+1
	for a > 0 && i-a < lookalikeContext && folded[a-1] != '\n' {
		a--
	}
	for b < len(folded) && b-i-1 < lookalikeContext && folded[b] != '\n' {
		b++
	}
	return b-a > lookalikeContext && strings.Contains(old, string(folded[a:b]))
}

// lookalikeContext is how many characters on each side of a look-alike
// placedAs compares.
const lookalikeContext = 4

// lookalikeKind groups look-alikes by what an agent's text turns into
// them: quotes (opening and closing alike) by their ASCII character, any
// other look-alike by itself.
func lookalikeKind(r rune) rune {
	if m, _ := lookalike(r); m == "'" || m == `"` {
		return rune(m[0])
	}
	return r
}
