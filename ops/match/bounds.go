package match

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/journalfs/journal/ops"
)

// Where an exact match may start and end. A search text is a piece of the
// file the caller looked at; when it occurs only as part of a longer number
// ("maxConns = 100" inside "maxConns = 1000") or of a longer word ("count"
// inside "account"), the caller did not mean that place, and replacing there
// writes a wrong edit ("maxConns = 2000"). So the exact and line-ending
// levels take an occurrence only where it starts and ends on a token
// boundary:
//
//   - a number is never cut: no digit on both sides of an edge, nor a
//     letter before a digit (item2, int64, md5), nor a letter that goes on
//     with the number (0x1F, 1e5); a unit after a whole number is a token
//     of its own (100 in 100px, 10 in 10ms);
//   - a word is cut only at a sub-word boundary: beside an underscore, at a
//     lower-to-upper hump (getUser|Name) or before the last capital of an
//     acronym (HTTP|Server) — so that renaming part of a compound name on
//     purpose (Handler in UserHandler) still applies.
//
// An occurrence that cuts is dropped; when only such occurrences exist the
// change is refused (ops.ErrNoMatch) with their lines as candidates. Options
// Substring keeps the plain substring behaviour.

// cuts reports whether the occurrence [s,e) of a search text in content
// starts or ends inside a token, and which kind ("number" or "word").
func cuts(content string, s, e int) (string, bool) {
	if e <= s {
		return "", false
	}
	if k, ok := cutAt(content, s); ok {
		return k, true
	}
	return cutAt(content, e)
}

// cutAt judges the edge at byte p of content (between the rune before and
// the rune at p).
func cutAt(content string, p int) (string, bool) {
	if p <= 0 || p >= len(content) {
		return "", false
	}
	a, _ := utf8.DecodeLastRuneInString(content[:p])
	b, nb := utf8.DecodeRuneInString(content[p:])
	if !isWord(a) || !isWord(b) {
		return "", false
	}
	if unicode.IsDigit(a) && unicode.IsLetter(b) {
		// a unit or suffix after a whole number (100px, 10ms, 5L) is a
		// token of its own; a hexadecimal or binary literal's digits and
		// an exponent are the same number
		return "number", inLiteral(content, p, b)
	}
	switch {
	case unicode.IsDigit(a), unicode.IsDigit(b) && a == '_':
		return "number", true
	case unicode.IsDigit(b): // item|2, int|64
		return "word", true
	}
	if a == '_' || b == '_' || (unicode.IsLower(a) && unicode.IsUpper(b)) {
		return "", false
	}
	if unicode.IsUpper(a) && unicode.IsUpper(b) {
		if c, _ := utf8.DecodeRuneInString(content[p+nb:]); unicode.IsLower(c) {
			return "", false // HTTP|Server
		}
	}
	return "word", true
}

// inLiteral reports whether letter b at p continues the number that ends
// just before p: the digits of a 0x/0b/0o literal, or an exponent (1e5).
func inLiteral(content string, p int, b rune) bool {
	i := p
	for i > 0 && (isASCIIAlnum(content[i-1]) || content[i-1] == '_') {
		i--
	}
	lit := strings.ToLower(content[i:p])
	switch {
	case strings.HasPrefix(lit, "0x"):
		return strings.ContainsRune("abcdefABCDEF", b)
	case strings.HasPrefix(lit, "0b"), strings.HasPrefix(lit, "0o"):
		return false
	case b == 'e' || b == 'E':
		rest := content[p+1:]
		return rest != "" && (rest[0] >= '0' && rest[0] <= '9' || rest[0] == '-' || rest[0] == '+')
	}
	return false
}

func isASCIIAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// keepWhole drops the exact-level occurrences that cut a token (see cuts);
// tolerant levels match whole lines and are kept as they are.
func keepWhole(content string, ms []Match) []Match {
	out := ms[:0:0]
	for _, m := range ms {
		if m.Level == LevelExact || m.Level == LevelLineEndings {
			if _, cut := cuts(content, m.Start, m.End); cut {
				continue
			}
		}
		out = append(out, m)
	}
	return out
}

// cutMatches returns the exact-level occurrences of search, those that cut
// a token included, completed with their lines.
func cutMatches(content string, li *lineIndex, search string) []Match {
	ms := findExact(content, search)
	if len(ms) == 0 {
		ms = findLineEndings(content, search)
	}
	for i := range ms {
		m := &ms[i]
		m.Line, m.EndLine = li.span(m.Start, m.End)
		m.Matched, m.search = content[m.Start:m.End], search
	}
	return ms
}

// cutError refuses a change whose search text occurs only inside longer
// numbers or words (ms, from cutMatches): each occurrence is a candidate
// showing its whole lines. nil when ms is empty.
func cutError(content string, li *lineIndex, ms []Match) error {
	if len(ms) == 0 {
		return nil
	}
	var cands []ops.Candidate
	kind := ""
	for _, m := range ms {
		k, _ := cuts(content, m.Start, m.End)
		if kind == "" || k == "number" {
			kind = k
		}
		s, _, _ := li.bounds(m.Line - 1)
		_, _, e := li.bounds(m.EndLine - 1)
		cands = append(cands, ops.Candidate{Line: m.Line, EndLine: m.EndLine, Similarity: 1, Text: content[s:e]})
		if len(cands) == 20 {
			break
		}
	}
	return CutRefusal(kind, cands)
}

// Cuts reports whether the occurrence [start,end) of a search text in
// content starts or ends inside a longer number or word, and which kind
// ("number" or "word"): for callers that find the occurrences themselves,
// in a window of whole lines (files matched in place).
func Cuts(content string, start, end int) (kind string, cut bool) { return cuts(content, start, end) }

// CutRefusal is the refusal (ops.ErrNoMatch) of a search text that occurs
// only inside longer tokens of kind ("number" wins over "word"), with each
// occurrence's whole lines as a candidate (cands, in file order; their text
// is shortened here).
func CutRefusal(kind string, cands []ops.Candidate) error {
	if len(cands) == 0 {
		return nil
	}
	cands = append([]ops.Candidate(nil), cands...)
	for i := range cands {
		cands[i].Text = shorten(cands[i].Text, 300)
	}
	return &ops.Error{Op: "match", Index: -1, Err: ops.ErrNoMatch,
		Msg: fmt.Sprintf("the search text occurs only inside a longer %s (at line %s): %q is not where it starts and ends, so replacing there would change a different %s",
			kind, candLines(cands), strings.TrimSpace(shorten(cands[0].Text, 120)), kind),
		Hint:       "send the whole " + kind + " as the file has it (the candidates show the lines), or substring=true to replace inside it on purpose",
		Candidates: cands}
}

// candLines lists the first lines of candidates ("3, 9").
func candLines(cs []ops.Candidate) string {
	var b strings.Builder
	for i, c := range cs {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprint(&b, c.Line)
	}
	return b.String()
}

// leadOf returns the whitespace between the start of the line holding off
// and off, when only whitespace precedes off on its line ("" otherwise).
func leadOf(content string, off int) string {
	ls := strings.LastIndexByte(content[:off], '\n') + 1
	lead := content[ls:off]
	if lead == "" || strings.TrimLeft(lead, " \t") != "" {
		return ""
	}
	return lead
}
