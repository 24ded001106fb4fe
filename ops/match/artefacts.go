package match

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// Agent artefacts: what agents copy into search text by mistake. Each is
// recognised only when the plain search text matches nowhere and the text
// without the artefact matches exactly once (at the exact, line-endings or
// whitespace level); the result says what was removed, and the artefact is
// never written into the file.

// variant is a search/replace pair with an artefact removed.
type variant struct {
	search, replace, note string
	// first, last: the numbers of the first and last prefixed lines when
	// line-number prefixes were removed (0 otherwise); they pick the
	// occurrence the caller read when the text stands in several places.
	first, last int
}

// numPrefix matches a line-number prefix as read tools print them: "12: "
// (read_content), "    12→" (Claude Code), "    12\t" (cat -n), "12| ",
// "12 | ".
var numPrefix = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*(\d+)(: ?|→|\t| ?\| ?)`) })

// numPrefixTight is numPrefix without the space a separator may be
// followed by ("12| x" may be "12|" + " x" or "12| " + "x").
var numPrefixTight = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*(\d+)(:|→|\t| ?\|)`) })

// stripNumbers removes line-number prefixes when every non-empty line has
// one of the same kind with consecutive numbers.
func stripNumbers(s string, tight bool) (string, string, bool) {
	out, sep, _, _, ok := numbered(s, tight)
	return out, sep, ok
}

// numbered is stripNumbers, also returning the first and last numbers.
func numbered(s string, tight bool) (string, string, int, int, bool) {
	re := numPrefix()
	if tight {
		re = numPrefixTight()
	}
	ls := strings.Split(toLF(s), "\n")
	sep, prev, n, first := "", -1, 0, 0
	out := make([]string, len(ls))
	for i, l := range ls {
		if strings.TrimSpace(l) == "" {
			out[i] = l
			continue
		}
		m := re.FindStringSubmatch(l)
		if m == nil {
			return "", "", 0, 0, false
		}
		num, _ := strconv.Atoi(m[1])
		if (sep != "" && strings.TrimSpace(m[2]) != sep) || (prev >= 0 && num != prev+1) {
			return "", "", 0, 0, false
		}
		if prev < 0 {
			first = num
		}
		sep, prev = strings.TrimSpace(m[2]), num
		out[i] = l[len(m[0]):]
		n++
	}
	if n == 0 {
		return "", "", 0, 0, false
	}
	return strings.Join(out, "\n"), sep, first, prev, true
}

// stripSomeNumbers removes prefixes of the kind sep from the lines of a
// replacement that have one (new lines an agent added carry none).
func stripSomeNumbers(s, sep string) string {
	ls := strings.Split(toLF(s), "\n")
	for i, l := range ls {
		if m := numPrefix().FindStringSubmatch(l); m != nil && strings.TrimSpace(m[2]) == sep {
			ls[i] = l[len(m[0]):]
		}
	}
	return strings.Join(ls, "\n")
}

// indentAgreement counts the lines of a whose text (trimmed) occurs in b
// with the same indentation.
func indentAgreement(a, b string) int {
	ind := map[string]string{}
	for _, l := range strings.Split(b, "\n") {
		ind[strings.TrimSpace(l)] = leadingWS(l)
	}
	n := 0
	for _, l := range strings.Split(a, "\n") {
		if w, ok := ind[strings.TrimSpace(l)]; ok && strings.TrimSpace(l) != "" && w == leadingWS(l) {
			n++
		}
	}
	return n
}

// unescaper undoes one level of escaping of a JSON string sent twice.
var unescaper = strings.NewReplacer(`\\`, `\`, `\n`, "\n", `\t`, "\t", `\"`, `"`, `\r`, "")

// doubleEscaped reports a one-line text holding escaped newlines or tabs.
func doubleEscaped(s string) bool {
	return !strings.Contains(s, "\n") && (strings.Contains(s, `\n`) || strings.Contains(s, `\t`))
}

// artefactVariants lists the ways the search text may carry artefacts, each
// with the replacement treated the same way.
func artefactVariants(search, replace string) []variant {
	var vs []variant
	s, r := search, replace
	first, last := 0, 0
	if ss, sep, f, l, ok := numbered(search, false); ok {
		rr := replace
		if rs, _, ok := stripNumbers(replace, false); ok {
			rr = rs
		} else {
			rr = stripSomeNumbers(replace, sep)
			// a replacement without prefixes decides whether the separator
			// took a space: the lines it keeps must keep their indentation
			if st, _, ok := stripNumbers(search, true); ok && indentAgreement(st, rr) > indentAgreement(ss, rr) {
				ss = st
			}
		}
		vs = append(vs, variant{ss, rr, "line-number prefixes (as read tools print them) were removed from the search and replacement text", f, l})
		s, r, first, last = ss, rr, f, l
	}
	if doubleEscaped(s) {
		rr := r
		if doubleEscaped(r) || !strings.Contains(r, "\n") {
			rr = unescaper.Replace(r)
		}
		note := `the search text was escaped twice (\n, \t, \" as text): it was unescaped once, and so was the replacement`
		if first > 0 {
			note = "line-number prefixes were removed and " + note[4:]
		}
		vs = append(vs, variant{unescaper.Replace(s), rr, note, first, last})
	}
	return vs
}

// atLines returns the one match of ms that stands at lines first..last,
// the line numbers the caller's prefixes gave; false unless exactly one
// does (numbers that point between occurrences, or off by one, pick none).
func atLines(ms []Match, first, last int) (Match, bool) {
	var at []Match
	for _, m := range ms {
		if first > 0 && m.Line == first && m.EndLine == last {
			at = append(at, m)
		}
	}
	if len(at) != 1 {
		return Match{}, false
	}
	return at[0], true
}

// cutMarkers are lines agents put where they left text out.
var cutMarker = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*(?:(?://|#|;;|--|/\*|<!--)\s*)?(?:…|\.\.\.|\[\.\.\.\]|\[…\]|\[truncated\]|\(truncated\)|\.\.\. ?\(?\d* ?(?:more )?lines?( omitted)?\)?)\s*(?:\*/|-->)?\s*$`)
})

// splitCut splits a text at its one cut-marker line into the lines before
// and after it. It fails unless there is exactly one, with text on both
// sides.
func splitCut(s string) (head, tail string, ok bool) {
	ls := strings.SplitAfter(toLF(s), "\n")
	at := -1
	for i, l := range ls {
		if cutMarker().MatchString(strings.TrimSuffix(l, "\n")) {
			if at >= 0 {
				return "", "", false
			}
			at = i
		}
	}
	if at < 0 {
		return "", "", false
	}
	head, tail = strings.Join(ls[:at], ""), strings.Join(ls[at+1:], "")
	if strings.TrimSpace(head) == "" || strings.TrimSpace(tail) == "" {
		return "", "", false
	}
	return head, tail, true
}
