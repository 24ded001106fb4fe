package match

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/journalfs/journal/ops"
	"github.com/journalfs/journal/ops/syntax"
)

// Look-alikes by class. Where no search shows what the caller's channel
// does to ASCII (an exact match, a line tool's new lines), a look-alike is
// still an artefact without doubt where no one could mean it, whatever the
// file:
//
//   - a dash (an em dash aside) opening a word after a space, the line's
//     start or an opening bracket or quote, before a letter or a hyphen:
//     a command-line option (`–-key`, `–run`); before a digit too in code
//     (a minus). Typography has no dash glued to the next word only.
//   - in code outside comments, a curly quote escaped by a backslash
//     (`\”`): an escaped ASCII quote.
//   - in code (a language with a grammar, syntax.InText), a look-alike
//     where the syntax needs the ASCII character: outside comments and
//     string literals (`“s.py”` as a Go string's delimiters, `’(’` as a
//     rune's, `cap(b) – len(b)` as a minus) — in a text with no ASCII
//     quote or hyphen after a space (one with them went through no filter,
//     and a parse that puts its look-alikes outside strings is thrown off
//     by something else), and only as far as the text parses better with
//     them as ASCII.
//
// Neither is looked for in a text that has ASCII quotes or a hyphen after
// a space: it went through no filter (a test about look-alikes, a comment
// quoting one mean theirs).
//
// Such an artefact (or a search showing look-alikes typed, lookalike.go)
// shows the channel's typographic filter at work: the other look-alikes a
// filter makes (curly quotes, en dashes: filterMade) in the same text are
// the filter's too (filtered), unless the file has that look-alike itself
// (its style: tests about look-alikes, prose with curly quotes), it is a
// dash glued between two words or numbers (a range, `44–77`: a filter
// makes a dash only of a hyphen after a space), or the text has ASCII
// characters where the filter would have changed them (a quote, a hyphen
// after a space: it went through no filter, so its look-alikes are its
// own). An em dash, a minus sign, a prime are typed on purpose.
//
// What is left is undecidable from the text: in prose it stays as sent (a
// person writes curly quotes); in a code file's comments and strings, new
// look-alikes the file never uses are refused (unclearLookalikes), and
// fuzzy false writes them as sent.

// certainArtefacts returns, for each rune of text, whether it is a
// look-alike no one could mean there (above); path names the file (its
// language), before is the file's text before text (its last lines: what
// text continues, a comment or string it may start inside).
func certainArtefacts(text []rune, path, before string) []bool {
	out := make([]bool, len(text))
	code := codeLang(path)
	if unfiltered(string(text), '\u2019') {
		// a text with ASCII quotes or hyphens after a space went through no
		// filter: its look-alikes are meant (a test about them, a doc
		// comment quoting one), and where the parse puts them outside
		// strings it is thrown off by something else
		return out
	}
	var idx, esc []int // the visible look-alikes; quotes after a backslash
	for i, r := range text {
		if m, ok := lookalike(r); ok && m != "" && m != " " {
			if isDash(r) && optionDash(text, i, code != "") {
				out[i] = true
			} else if code != "" && (m == "'" || m == `"`) && escaped(text, i) {
				esc = append(esc, i)
			}
			idx = append(idx, i)
		}
	}
	if code == "" || len(idx) == 0 {
		return out
	}
	before = lastLines(before, contextLines)
	if len(esc) > 0 {
		// an escaped quote is an artefact where a backslash escapes, not
		// in a comment (a note about `\”` means it)
		cm, ok := syntax.InComment(code, []byte(before+string(text)), offsets(text, len(before), esc))
		for k, i := range esc {
			out[i] = !ok || !cm[k]
		}
	}
	// a quote the syntax takes for a delimiter opens (or closes) a string
	// whose other delimiter is the next quote of its kind that ends one:
	// once both are ASCII, the text between reads as the string it is, and
	// the text is read again (a few times at most); only then are other
	// look-alikes outside comments and strings taken (a range's dash in a
	// string whose delimiters were curled is the string's)
	cur := slices.Clone(text)
	for i, r := range cur {
		if m, ok := lookalike(r); ok && (m == " " || m == "") {
			cur[i] = ' ' // invisible: a space to the parser
		}
	}
	offs := offsets(cur, len(before), idx)
	// each reading is kept only if the language takes it better than the
	// last (fewer bytes in error): a parse thrown off by something else (a
	// fragment without its function) proves nothing
	bad, ok := syntax.ErrorBytes(code, []byte(before+string(cur)))
	for range 6 {
		in, ok2 := syntax.InText(code, []byte(before+string(cur)), offs)
		if !ok || !ok2 {
			break
		}
		next, marks := slices.Clone(cur), slices.Clone(out)
		quotes := false
		inside := -1 // the closing quote of the string just opened: what stands before it is its text
		for k, i := range idx {
			m, _ := lookalike(text[i])
			if in[k] || marks[i] || i < inside || m != "'" && m != `"` {
				continue
			}
			quotes, marks[i], next[i] = true, true, rune(m[0])
			if j := closingQuote(next, i, m); j > 0 {
				marks[j], next[j], inside = true, rune(m[0]), j
			}
		}
		if !quotes {
			for k, i := range idx {
				if m, _ := lookalike(text[i]); !in[k] && !marks[i] && text[i] != '\u2014' && len(m) == 1 {
					marks[i], next[i] = true, rune(m[0])
				}
			}
		}
		b, _ := syntax.ErrorBytes(code, []byte(before+string(next)))
		if b >= bad {
			break
		}
		bad, cur, out = b, next, marks
		if !quotes {
			break
		}
		offs = offsets(cur, len(before), idx)
	}
	return out
}

// offsets returns the byte offsets of the runes idx of text, which starts
// at byte at of what is parsed.
func offsets(text []rune, at int, idx []int) []int {
	all := make([]int, len(text))
	for i, r := range text {
		all[i] = at
		at += utf8.RuneLen(r)
	}
	out := make([]int, len(idx))
	for k, i := range idx {
		out[k] = all[i]
	}
	return out
}

// closingQuote returns the index of the quote look-alike of kind m (its
// ASCII) that closes the string the one at i opens, on the same line: the
// next followed by what may follow a string (the line's end, a comma, a
// closing bracket, an operator: `“hi”.\n”` inside a string is its text);
// -1 if none.
func closingQuote(text []rune, i int, m string) int {
	for j := i + 1; j < len(text) && text[j] != '\n'; j++ {
		if mj, ok := lookalike(text[j]); !ok || mj != m {
			continue
		}
		k := j + 1
		for k < len(text) && (text[k] == ' ' || text[k] == '\t') {
			k++
		}
		if k == len(text) || strings.ContainsRune("\r\n,;)]}:+=&|!<>?", text[k]) {
			return j
		}
	}
	return -1
}

// contextLines is how many of the file's lines before a text its
// syntax is read with.
const contextLines = 200

// lastLines returns the last n lines of s (whole lines: from a line's
// start).
func lastLines(s string, n int) string {
	end := len(s)
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '\n' && i < end-1 {
			n--
			if n == 0 {
				return s[i+1:]
			}
		}
	}
	return s
}

// codeLang returns the programming language of path ("" for prose,
// markup, or a name no grammar knows).
func codeLang(path string) string {
	switch l := syntax.Detect(path, nil); l {
	case "markdown", "html":
		return ""
	default:
		return l
	}
}

// isDash reports a dash look-alike other than the em dash.
func isDash(r rune) bool {
	m, _ := lookalike(r)
	return m == "-" && r != '\u2014'
}

// optionDash reports a dash at text[i] that opens a word (see
// certainArtefacts).
func optionDash(text []rune, i int, code bool) bool {
	if i+1 >= len(text) {
		return false
	}
	if p := text[max(i-1, 0)]; i > 0 && !strings.ContainsRune(" \t\n([{`'\"=", p) {
		if m, _ := lookalike(p); m != " " { // a no-break space before it too
			return false
		}
	}
	n := text[i+1]
	return n == '-' || n < utf8.RuneSelf && ('a' <= n|0x20 && n|0x20 <= 'z' || code && '0' <= n && n <= '9')
}

// escaped reports a look-alike after an odd run of backslashes: an
// escaped ASCII quote (`\”` is no escape in any language).
func escaped(text []rune, i int) bool {
	n := 0
	for j := i - 1; j >= 0 && text[j] == '\\'; j-- {
		n++
	}
	return n%2 == 1
}

// gluedDash reports a dash between two characters that are not spaces (a
// range).
func gluedDash(text []rune, i int) bool {
	if !isDash(text[i]) || i == 0 || i+1 >= len(text) {
		return false
	}
	sp := func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' }
	return !sp(text[i-1]) && !sp(text[i+1])
}

// unfiltered reports whether text has ASCII characters a filter turns
// into look-alikes where it would (a quote of either kind, a hyphen after a
// space): it went through no such filter, so its look-alikes are its own
// (r: the look-alike asked about, one a filter makes).
func unfiltered(text string, r rune) bool {
	return filterMade(r) && (strings.ContainsAny(text, `'"`) || strings.Contains(text, " -"))
}

// filtered reports whether text[i] (s is text) is a look-alike a filter
// shown at work put there (see above): not one the file uses
// (fileUses), not an em dash or glued dash, not of a kind text has
// unfiltered.
func filtered(text []rune, i int, s string, fileUses func(rune) bool) bool {
	r := text[i]
	if !filterMade(r) || fileUses(r) || gluedDash(text, i) {
		return false
	}
	return !unfiltered(s, r)
}

// filterMade reports the visible look-alikes typographic filters put in
// place of ASCII: curly quotes and the en dash (a minus sign, a figure
// dash or a prime is typed on purpose; an em dash stands for two hyphens).
func filterMade(r rune) bool {
	return strings.ContainsRune("\u2018\u2019\u201C\u201D\u2013", r)
}

// fileLooks is what the file tells of a replacement's look-alikes: its
// path (its language), its text before the match, the look-alikes it has
// anywhere (uses), and whether the class rules apply (on: a fuzzy call;
// an exact one, fuzzy false, writes its visible characters as sent).
type fileLooks struct {
	path, before, uses string
	on                 bool
}

// replacement returns replace with look-alikes written as their ASCII:
// the invisible ones mapped says (asFileChars), those of the kinds a
// search shows typed (mapped) unless glued dashes or of a kind replace
// has unfiltered, the certain artefacts, and, once a filter is shown at
// work (typed, a no-break space, a certain artefact), what it put there
// (filtered).
func (f fileLooks) replacement(replace string, mapped func(rune) (string, bool), typed bool) string {
	if strings.IndexFunc(replace, func(r rune) bool { _, ok := lookalike(r); return ok }) < 0 {
		return replace
	}
	rs := []rune(replace)
	var certain []bool
	if f.on {
		certain = certainArtefacts(rs, f.path, f.before)
	}
	// a no-break space the file lacks shows the channel at work too
	spaced := strings.IndexFunc(replace, func(r rune) bool { m, ok := mapped(r); return ok && m == " " }) >= 0
	atWork := f.on && (typed || spaced || slices.Contains(certain, true))
	uses := func(r rune) bool { return strings.ContainsRune(f.uses, r) }
	var b strings.Builder
	b.Grow(len(replace))
	for i, r := range rs {
		m, ok := mapped(r)
		switch {
		case ok && (m == " " || m == "" || !gluedDash(rs, i) && !unfiltered(replace, r)):
			b.WriteString(m)
		case certain != nil && certain[i], atWork && filtered(rs, i, replace, uses):
			m, _ = lookalike(r)
			b.WriteString(m)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// fileUses returns the look-alikes content has, each once.
func fileUses(content string) string {
	var b strings.Builder
	for _, r := range content {
		if r >= 0x80 {
			if _, ok := lookalike(r); ok && !strings.ContainsRune(b.String(), r) {
				b.WriteRune(r)
			}
		}
	}
	return b.String()
}

// unclearLookalikes refuses (ops.ErrInvalidInput) a replacement for a
// code file that, once its artefacts are written as ASCII (asFileChars),
// still has look-alikes a filter makes (curly quotes, en dashes) in its
// comments or strings that the file never uses, of a kind the replacement
// has nowhere as ASCII, with nothing to show whether they are meant or a
// filter's: a person's `// it’s` and a channel's look the same. Prose
// keeps them (new prose may mean them); fuzzy false writes them as sent.
func (m Match) unclearLookalikes(replace string) error {
	f := m.looks
	if !f.on || codeLang(f.path) == "" || strings.IndexFunc(replace, filterMade) < 0 {
		return nil
	}
	_, out := asFileChars(m.Matched, m.search, replace, m.typed, f)
	rs := []rune(out)
	var seen []string
	for i, r := range rs {
		if filterMade(r) && !strings.ContainsRune(f.uses, r) && !gluedDash(rs, i) && !unfiltered(out, r) {
			if q := strconv.QuoteRune(r); !slices.Contains(seen, q) {
				seen = append(seen, q)
			}
		}
	}
	if len(seen) == 0 {
		return nil
	}
	return &ops.Error{Op: "match", Index: -1, Err: ops.ErrInvalidInput,
		Msg: fmt.Sprintf("the replacement has look-alike characters (%s) in its comments or strings that this file never uses, and nothing shows whether they stand for ASCII quotes and hyphens (text put through a typographic filter) or are meant: nothing was written",
			strings.Join(seen, ", ")),
		Hint: "send the replacement with ASCII quotes and hyphens; to write these characters on purpose, send the call again with fuzzy: false (exact match, the text written as sent)"}
}

// lookalikeNote says how many look-alikes of replace the class rules
// (certainArtefacts, filtered) write as ASCII, "" for none.
func (m Match) lookalikeNote(replace string) string {
	if !m.looks.on || strings.IndexFunc(replace, filterMade) < 0 && strings.IndexFunc(replace, isDash) < 0 {
		return ""
	}
	_, with := asFileChars(m.Matched, m.search, replace, m.typed, m.looks)
	off := m.looks
	off.on = false
	_, without := asFileChars(m.Matched, m.search, replace, m.typed, off)
	if with == without {
		return ""
	}
	n := 0
	a, b := []rune(with), []rune(without)
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			n++
		}
	}
	return fmt.Sprintf("%d look-alike character(s) of the replacement (curly quotes, dashes) were written as ASCII: some stand where no one could mean them (a dash opening a command-line option, a quote or dash where the code's syntax needs ASCII), so the others of a typographic filter's kinds this file never uses were the filter's too (fuzzy: false writes them as sent)", n)
}
