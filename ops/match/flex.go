package match

import "strings"

// findWhitespace matches whole lines, ignoring trailing whitespace and one
// uniform indentation offset (added to or removed from every non-blank line).
func findWhitespace(li *lineIndex, search string) []Match {
	sl, finalNL := searchLines(search)
	k0 := firstNonBlank(sl)
	if k0 < 0 {
		return nil
	}
	key := strings.TrimLeft(sl[k0], " \t")
	var ms []Match
	for i := 0; i+len(sl) <= li.n(); i++ {
		if strings.TrimLeft(trimRight(li.text(i+k0)), " \t") != key {
			continue
		}
		add, del, ok := flexWindow(li, i, sl, k0)
		if !ok {
			continue
		}
		m := windowMatch(li, i, len(sl), finalNL)
		m.Level, m.Similarity = LevelWhitespace, 1
		m.indentAdd, m.indentDel = add, del
		ms = append(ms, m)
		i += len(sl) - 1
	}
	return ms
}

// flexWindow reports whether content lines [i, i+len(sl)) equal the search
// lines up to trailing whitespace and one indentation offset, and returns it.
func flexWindow(li *lineIndex, i int, sl []string, k0 int) (add, del string, ok bool) {
	add, del, ok = indentOffset(trimRight(li.text(i+k0)), sl[k0])
	if !ok {
		return "", "", false
	}
	for k, s := range sl {
		c := trimRight(li.text(i + k))
		switch {
		case s == "":
			if c != "" {
				return "", "", false
			}
		case add != "":
			if c != add+s {
				return "", "", false
			}
		default:
			if s != del+c {
				return "", "", false
			}
		}
	}
	return add, del, true
}

// indentOffset returns the prefix that turns search line s's indentation into
// content line c's (add) or the reverse (del).
func indentOffset(c, s string) (add, del string, ok bool) {
	cw, sw := leadingWS(c), leadingWS(s)
	switch {
	case strings.HasSuffix(cw, sw):
		return cw[:len(cw)-len(sw)], "", true
	case strings.HasSuffix(sw, cw):
		return "", sw[:len(sw)-len(cw)], true
	}
	return "", "", false
}

func firstNonBlank(ls []string) int {
	for i, l := range ls {
		if !isBlank(l) {
			return i
		}
	}
	return -1
}

// windowMatch returns the byte range of content lines [i, i+n): from the start
// of line i to the end of line i+n-1, its terminator included if finalNL.
func windowMatch(li *lineIndex, i, n int, finalNL bool) Match {
	start, _, _ := li.bounds(i)
	_, textEnd, end := li.bounds(i + n - 1)
	m := Match{Start: start, End: textEnd}
	if finalNL {
		m.End = end
		m.dropFinalNL = end == textEnd
	}
	m.eol = eolAt(li.s, start)
	return m
}
