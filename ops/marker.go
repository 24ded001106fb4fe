package ops

import (
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Elision markers: the lines agents write in new text to mean "the lines
// that were here stay" — Cursor's and Morph's "// ... existing code ...",
// Continue's "... text ..." comments, Aider's bare "...", and the prose
// forms ("# rest of the method unchanged", "/* (unchanged) */"). A line is
// a marker only when the WHOLE line is one: a comment (in any of the
// common comment syntaxes) or bare text whose content, delimiters and
// ellipses removed, is an ellipsis alone or a short elision phrase. What
// stays literal: ellipses that are code (Python's "..." body, a C variadic
// "..." before ")", YAML's document end, spread and range syntax, which
// never stand alone), prose (bare ellipses in Markdown and text files, a
// comment that says something else, "TODO: ..."), lines inside a Python
// string or a Markdown code fence, and any line the old text holds itself.

// markerKind is how a file's language treats a bare ellipsis line.
type markerKind int

const (
	kindCode   markerKind = iota
	kindPython            // "..." may be a block's body (Ellipsis)
	kindYAML              // "..." ends a document
	kindProse             // Markdown, text: ellipses are prose; code fences are quoted text
)

func kindOf(path string) markerKind {
	ext := strings.ToLower(filepath.Ext(path))
	switch {
	case ext == ".py" || ext == ".pyi" || ext == ".pyw":
		return kindPython
	case ext == ".yml" || ext == ".yaml":
		return kindYAML
	case codeExts[ext]:
		return kindCode
	}
	return kindProse // Markdown, text, HTML, logs, data: what is not known as code
}

// codeExts are the extensions of languages in which a bare "..." line is
// not code (outside the rules of bareMarker), so it is a marker.
var codeExts = func() map[string]bool {
	m := map[string]bool{}
	for _, e := range strings.Fields(`.go .js .jsx .mjs .cjs .ts .tsx .mts .cts .java .kt .kts .scala .groovy .gradle
		.c .h .cc .cpp .cxx .hpp .hh .hxx .cs .fs .fsx .rs .swift .m .mm .rb .php .lua .sh .bash .zsh .ps1 .sql .r .dart
		.ex .exs .erl .hs .ml .mli .clj .cljs .cljc .edn .el .lisp .scm .vue .svelte .css .scss .less .json .jsonc .toml
		.ini .cfg .tf .hcl .proto .graphql .pl .pm .jl .nim .zig .sol .elm .vb .cmake`) {
		m[e] = true
	}
	return m
}()

// commentDelims are comment openers with their optional closers, longest
// first.
var commentDelims = [][2]string{
	{"<!--", "-->"}, {"{/*", "*/}"}, {"/*", "*/"}, {"(*", "*)"},
	{"//", ""}, {"--", ""}, {";;", ""}, {";", ""}, {"#", ""}, {"%", ""},
}

// uncomment strips a comment's delimiters from a trimmed line (in prose
// only HTML's: "#" is a heading, "//" text).
func uncomment(s string, kind markerKind) (string, bool) {
	delims := commentDelims
	if kind == kindProse {
		delims = delims[:1]
	}
	for _, d := range delims {
		if strings.HasPrefix(s, d[0]) {
			in := strings.TrimPrefix(s, d[0])
			if d[1] != "" {
				in = strings.TrimSuffix(in, d[1])
			}
			return strings.TrimSpace(strings.TrimLeft(in, "/#;%-*")), true
		}
	}
	return s, false
}

var (
	// pureEllipsis: the content is an ellipsis alone.
	pureEllipsis = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:\.\.\.|…|\. \. \.|\[(?:\.\.\.|…)\]|\((?:\.\.\.|…)\)|\{(?:\.\.\.|…)\})$`)
	})
	// strongPhrase: words that say lines were left out or stay.
	strongPhrase = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b(?:unchanged|remains? the same|stays? the same|remains? as is|same as before|as before|as is|omitted|elided|for brevity|untouched|intact|not shown|snip|snipped|truncated|skipped)\b`)
	})
	// subject: what an elision phrase speaks of.
	subject = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b(?:rest|remaining|remainder|existing|other|others|code|lines?|body|method|methods|function|functions|file|class|implementation|everything|previous|original|logic|content|contents|imports|fields|props|properties|tests|cases|members)\b`)
	})
	// shortForm: whole phrases agents write without an ellipsis.
	shortForm = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:(?:the )?(?:rest|remainder) of (?:the )?(?:code|file|function|method|class|module|component|implementation|body|logic|struct|impl|test|tests|imports|content|contents|config|file content)|(?:keep )?existing (?:code|imports|methods|functions|fields|logic|implementation|content|tests|properties|routes|styles|config|members|cases)(?: here)?|keep existing|existing code|(?:other|remaining) (?:code|methods|functions|fields|imports|tests|cases|members)(?: here)?)$`)
	})
	// weakWord: enough beside an ellipsis ("// ... other handlers ...").
	weakWord = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b(?:existing|rest|remaining|remainder|other|more|previous|original|code|lines|same|keep|kept|unchanged)\b`)
	})
	// numberedOmission: "... 20 lines omitted ...", "(12 more lines)".
	numberedOmission = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\(?\d+ (?:more )?lines?(?: (?:omitted|hidden|not shown|elided|skipped))?\)?$`)
	})
)

// phrasePunct is what an elision phrase may hold besides letters and digits.
const phrasePunct = " '’-(),.:/_"

// phraseChars: an elision phrase holds words, not code.
func phraseChars(s string) bool {
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune(phrasePunct, r) {
			return false
		}
	}
	return true
}

// elisionWords are the words every elision phrase holds one of (a
// quick test before the phrase patterns); beside an ellipsis, weaker ones
// do too.
var (
	elisionWords = []string{"unchanged", "same", "as is", "as before", "omit", "elid", "brevity", "untouched", "intact",
		"not shown", "snip", "truncat", "skipped", "rest of", "remainder", "existing", "other", "remaining", "line"}
	weakElisionWords = []string{"rest", "more", "previous", "original", "code", "keep", "kept"}
)

// hasEllipsis reports whether s holds an ellipsis in any form a marker
// can take ("...", "…", ". . ."): a line without one is a marker only as a
// comment naming an elision in words.
func hasEllipsis(s string) bool {
	return strings.Contains(s, "...") || strings.Contains(s, "…") || strings.Contains(s, ". . .")
}

// elisionStems are what mentionsElision looks for (without an ellipsis) as
// they stand in the raw text — each word, or the first word of a phrase of
// several, whose spacing the phrase's normalization may change — by their
// first letter.
var elisionStems = func() (by [256][]string) {
	for _, w := range elisionWords {
		stem := strings.Fields(w)[0]
		by[stem[0]] = append(by[stem[0]], stem)
	}
	return by
}()

// mayMentionElision is a quick, allocation-free test that
// mentionsElision(p, false) can hold of a phrase p made from s (lowered,
// spaces folded): s holds one of elisionStems, ASCII letters folded, or a
// rune that lowers to an ASCII letter (U+0130, U+212A: the only two,
// TestMayMentionElision_Runes), where it answers yes.
func mayMentionElision(s string) bool {
	if strings.Contains(s, "\u0130") || strings.Contains(s, "\u212a") {
		return true
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		for _, w := range elisionStems[c] {
			if len(s)-i >= len(w) && foldedPrefix(s[i+1:], w[1:]) {
				return true
			}
		}
	}
	return false
}

// foldedPrefix reports whether s begins with w (lower-case ASCII letters),
// ASCII letters of s folded.
func foldedPrefix(s, w string) bool {
	for k := 0; k < len(w); k++ {
		c := s[k]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != w[k] {
			return false
		}
	}
	return true
}

func mentionsElision(p string, ellipsis bool) bool {
	for _, w := range elisionWords {
		if strings.Contains(p, w) {
			return true
		}
	}
	if ellipsis {
		for _, w := range weakElisionWords {
			if strings.Contains(p, w) {
				return true
			}
		}
	}
	return false
}

// trimEllipses removes ellipses and brackets around a phrase, reporting
// whether it led and ended with one.
func trimEllipses(s string) (string, bool, bool) {
	lead, trail := false, false
	for {
		t := strings.TrimSpace(s)
		switch {
		case strings.HasPrefix(t, "..."):
			s, lead = t[3:], true
		case strings.HasPrefix(t, "…"):
			s, lead = t[len("…"):], true
		case strings.HasSuffix(t, "..."):
			s, trail = t[:len(t)-3], true
		case strings.HasSuffix(t, "…"):
			s, trail = t[:len(t)-len("…")], true
		case len(t) >= 2 && (t[0] == '(' && t[len(t)-1] == ')' || t[0] == '[' && t[len(t)-1] == ']'):
			s = t[1 : len(t)-1]
		default:
			return strings.TrimRight(t, ".:;,"), lead, trail
		}
	}
}

// isMarkerLine reports whether a trimmed line is, on its own, an elision
// marker; bare (no comment delimiter) is reported for the context rules.
func isMarkerLine(key string, kind markerKind) (ok, bare bool) {
	if key == "" || len(key) > 160 {
		return false, false
	}
	in, comment := uncomment(key, kind)
	ellipsis := hasEllipsis(in)
	if !comment && !ellipsis {
		return false, false // bare text needs an ellipsis
	}
	if !ellipsis && !mayMentionElision(in) {
		return false, false // a comment needs an ellipsis or a word of a phrase
	}
	return phraseMarker(in, comment)
}

// phraseMarker is isMarkerLine past its quick tests: in is the line's
// content (uncommented), comment whether it was a comment.
func phraseMarker(in string, comment bool) (ok, bare bool) {
	if pureEllipsis().MatchString(in) {
		return true, !comment
	}
	phrase, lead, trail := trimEllipses(in)
	if cannotPhrase(phrase) {
		return false, false
	}
	return phraseRest(phrase, lead, trail, comment)
}

// cannotPhrase reports a phrase phraseRest refuses, found without building
// the lowered phrase it tests: more than 10 words (lowering moves no space),
// or a rune phraseChars refuses that has no case (lowering leaves it in
// place). Most comments are code or sentences, refused here
// (TestCannotPhrase_OnlyWhatPhraseRestRefuses).
func cannotPhrase(phrase string) bool {
	words, inWord := 0, false
	for _, r := range phrase {
		if unicode.IsSpace(r) {
			inWord = false
			continue
		}
		if !inWord {
			words, inWord = words+1, true
		}
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune(phrasePunct, r) && unicode.ToLower(r) == r && unicode.ToUpper(r) == r {
			return true
		}
	}
	return words > 10
}

// phraseRest is phraseMarker past the pure ellipsis: phrase is the line's
// content without its ellipses (lead, trail: it had them).
func phraseRest(phrase string, lead, trail, comment bool) (ok, bare bool) {
	p := strings.ToLower(strings.Join(strings.Fields(phrase), " "))
	if p == "" || !phraseChars(p) || len(strings.Fields(p)) > 10 || !mentionsElision(p, lead || trail) {
		return false, false
	}
	if runsOn(p) {
		return false, false // a sentence that goes on to the next line: prose
	}
	for _, w := range []string{"todo", "fixme", "note", "xxx", "hack", "nb", "see", "wait"} {
		if p == w || strings.HasPrefix(p, w+" ") || strings.HasPrefix(p, w+":") {
			return false, false
		}
	}
	strong := strongPhrase().MatchString(p) && (subject().MatchString(p) || len(strings.Fields(p)) <= 2)
	switch {
	case numberedOmission().MatchString(p) && (lead || trail || comment):
		return true, !comment
	case !comment && !(lead && trail):
		// bare text is a marker only between two ellipses
		return false, false
	case lead || trail:
		weak := weakWord().MatchString(p) && len(strings.Fields(p)) <= 4
		return strong || weak || shortForm().MatchString(p), !comment
	default:
		return strong || shortForm().MatchString(p), false
	}
}

// runsOn reports a phrase that ends as a sentence going on does: with a
// comma, a conjunction, an article or a preposition ("unchanged line on
// either side, or").
func runsOn(p string) bool {
	if strings.HasSuffix(p, ",") || strings.HasSuffix(p, "(") {
		return true
	}
	f := strings.Fields(p)
	if len(f) < 2 {
		return false
	}
	switch f[len(f)-1] {
	case "or", "and", "but", "the", "a", "an", "of", "to", "on", "in", "with", "for", "that", "which", "is", "are", "by", "as":
		return true
	}
	return false
}

// markerLines returns the indexes of the lines of text (split with their
// endings) that are elision markers, with the context rules applied, and
// the lines that may be either (soft): in prose the bare ellipsis lines and
// the marker lines inside code fences and triple-quoted strings (a marker
// may stand for a fence's or a string's end), in Python a "..." that is the
// whole body of a block other than a def's or a class's.
//
// lines are text's. Outside prose, where text holds no triple quote, a line
// that is no comment and holds no ellipsis is passed over on its first
// bytes (cannotMark): isMarkerLine would refuse it, and it moves no state.
func markerLines(text string, lines []string, kind markerKind) (out, soft []int) {
	quick := kind != kindProse && !strings.Contains(text, `"""`) && !strings.Contains(text, `'''`)
	ellipses := quick && hasEllipsis(text)
	quote := "" // inside a triple-quoted string: its delimiter
	fence := "" // inside a Markdown code fence: its opener
	for i, l := range lines {
		if quick && cannotMark(l, ellipses) {
			continue
		}
		key := strings.TrimSpace(l)
		if kind == kindProse {
			if f := fenceOf(key); f != "" && (fence == "" || strings.HasPrefix(key, fence)) {
				if fence == "" {
					fence = f
				} else {
					fence = ""
				}
				continue
			}
			if fence != "" {
				// quoted text, or a marker for lines the fence held (its
				// end among them)
				if ok, _ := isMarkerLine(key, kindCode); ok {
					soft = append(soft, i)
				}
				continue
			}
		}
		wasQuoted := quote != ""
		quote = tripleQuotes(l, quote)
		if wasQuoted {
			// a docstring's or a raw string's line is text, or a marker
			// for lines the string held (its end among them)
			if ok, _ := isMarkerLine(key, kind); ok && quote != "" {
				soft = append(soft, i)
			}
			continue
		}
		ok, bare := isMarkerLine(key, kind)
		if ok && bare && (kind == kindProse && pureEllipsis().MatchString(key) ||
			kind == kindPython && key == "..." && pythonBody(lines, i) != "" && !stubHeader(pythonBody(lines, i))) {
			soft = append(soft, i)
			continue
		}
		if !ok || bare && !bareMarker(lines, i, key, kind) || !bare && inCommentBlock(lines, i, key, kind) {
			continue
		}
		out = append(out, i)
	}
	return out, soft
}

// cannotMark reports a line isMarkerLine refuses whatever its kind: its
// first byte after ASCII blanks opens no comment delimiter (commentDelims)
// and, if ellipses (the text holds one), it holds no ellipsis. A line
// starting with a non-ASCII byte is left to isMarkerLine (TrimSpace takes
// Unicode spaces too).
func cannotMark(l string, ellipses bool) bool {
	k := 0
	for k < len(l) && (l[k] == ' ' || l[k] == '\t' || l[k] == '\n' || l[k] == '\r' || l[k] == '\v' || l[k] == '\f') {
		k++
	}
	if k == len(l) {
		return true // blank
	}
	if commentStarts[l[k]] {
		return false // perhaps a comment
	}
	return l[k] < utf8.RuneSelf && (!ellipses || !hasEllipsis(l))
}

// commentStarts marks the first bytes of commentDelims' openers.
var commentStarts = func() (m [256]bool) {
	for _, d := range commentDelims {
		m[d[0][0]] = true
	}
	return m
}()

// inCommentBlock reports a comment that is an ellipsis alone ("//	...")
// between two comment lines of the same kind: a doc comment's example
// leaving something out, prose, not a marker.
func inCommentBlock(lines []string, i int, key string, kind markerKind) bool {
	in, _ := uncomment(key, kind)
	if !pureEllipsis().MatchString(in) {
		return false
	}
	open := ""
	for _, d := range commentDelims {
		if strings.HasPrefix(key, d[0]) {
			open = d[0]
			break
		}
	}
	if open == "" || strings.HasPrefix(open, "<") || strings.HasPrefix(open, "/*") || strings.HasPrefix(open, "{") || strings.HasPrefix(open, "(") {
		return false // block comments close on their line
	}
	prev := ""
	for k := i - 1; k >= 0 && prev == ""; k-- {
		prev = strings.TrimSpace(lines[k])
	}
	next := strings.TrimSpace(nextLine(lines, i))
	return strings.HasPrefix(prev, open) && strings.HasPrefix(next, open)
}

// fenceOf returns a Markdown code fence's marker run ("```", "~~~~").
func fenceOf(key string) string {
	for _, c := range []string{"`", "~"} {
		n := len(key) - len(strings.TrimLeft(key, c))
		if n >= 3 {
			return strings.Repeat(c, n)
		}
	}
	return ""
}

// tripleQuotes follows Python-style triple-quoted strings across a line:
// the delimiter open after it ("" when none).
func tripleQuotes(l, open string) string {
	for {
		if open != "" {
			i := strings.Index(l, open)
			if i < 0 {
				return open
			}
			l, open = l[i+3:], ""
			continue
		}
		i, j := strings.Index(l, `"""`), strings.Index(l, `'''`)
		switch {
		case i < 0 && j < 0:
			return ""
		case j < 0 || i >= 0 && i < j:
			l, open = l[i+3:], `"""`
		default:
			l, open = l[j+3:], `'''`
		}
	}
}

// bareMarker applies the rules under which a bare ellipsis line is code or
// prose, not a marker.
func bareMarker(lines []string, i int, key string, kind markerKind) bool {
	pure := pureEllipsis().MatchString(key)
	if !pure {
		return true // "... existing code ..." between ellipses
	}
	switch kind {
	case kindProse:
		return false
	case kindYAML:
		return indentWidth(lines[i]) > 0 // a document's end stands at the margin
	}
	next := ""
	for _, l := range lines[i+1:] {
		if next = strings.TrimSpace(l); next != "" {
			break
		}
	}
	if strings.HasPrefix(next, ")") {
		return false // a C variadic parameter
	}
	if kind == kindPython && key == "..." && pythonBody(lines, i) != "" {
		return false // a block's whole body: Ellipsis
	}
	return true
}

// pythonBody returns the header of the block whose whole body line i is
// ("" if it is not one).
func pythonBody(lines []string, i int) string {
	prev := ""
	for k := i - 1; k >= 0 && prev == ""; k-- {
		prev = strings.TrimSpace(lines[k])
	}
	next := nextLine(lines, i)
	if strings.HasSuffix(prev, ":") && (next == "" || indentWidth(next) < indentWidth(lines[i])) {
		return prev
	}
	return ""
}

// stubHeader reports a Python header whose body "..." is the idiom of a
// stub (a def or a class: a protocol, an overload, an abstract method).
func stubHeader(h string) bool {
	h = strings.TrimPrefix(h, "async ")
	return strings.HasPrefix(h, "def ") || strings.HasPrefix(h, "class ")
}

// nextLine returns the first non-blank line after i ("" if none).
func nextLine(lines []string, i int) string {
	for _, l := range lines[i+1:] {
		if strings.TrimSpace(l) != "" {
			return l
		}
	}
	return ""
}

// indentWidth counts a line's leading blanks, a tab as 8.
func indentWidth(l string) int {
	n := 0
	for _, r := range l {
		switch r {
		case ' ':
			n++
		case '\t':
			n += 8
		default:
			return n
		}
	}
	return n
}
