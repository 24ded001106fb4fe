package match

import (
	"fmt"
	"strings"

	"github.com/journalfs/journal/ops"
	"github.com/journalfs/journal/ops/merge"
)

// Two readings of a replacement's indentation. The search text of a
// tolerant match is in the caller's indentation (it had to be, or it would
// have matched exactly), but its replacement may be written either in that
// style too (the caller reading) or already in the file's (the file
// reading: the caller copied the search loosely and wrote the new code as
// the file has it). Translating a replacement that is already in the file's
// style indents it twice. The lines the replacement keeps from the search
// (same text but for indentation; lines equal byte for byte are aligned
// first, see keptPairs) tell the readings apart:
//
//   - indented as in the search where the file differs: the caller reading;
//   - indented as in the file where the search differs: the file reading,
//     if every line of the replacement is indented in the file's unit (if
//     not, the kept line was nested deeper in the caller's unit: the
//     caller reading);
//   - both kinds: no reading holds, and the change is refused with both;
//   - neither (every line changed, or the same indentation everywhere): the
//     lines replaced one for one are asked the same, then the least
//     indentation of each side (a search copied without its block's
//     indentation, a replacement starting where the search does); when
//     they say nothing either and the two readings write different text,
//     the change is refused with both.
//
// Under the file reading the search is taken in the file's indentation, so
// new lines are written as sent.

// Readings of a replacement's indentation.
const (
	readNone   = 0
	readCaller = 1
	readFile   = 2
)

// reading judges which style the replacement rl is written in, from the
// search lines sl (aligned to the window by c.align).
func (c *carrier) reading(sl, rl []line) int {
	sk, rk := trimmed(sl), trimmed(rl)
	kept, hunks := keptPairs(sl, rl)
	got := readNone
	vote := func(i, j int) {
		a := c.align[i]
		if a < 0 || sk[i] == "" || rk[j] == "" || isBlank(c.window[a].text) {
			return
		}
		s, r, f := leadingWS(sl[i].text), leadingWS(rl[j].text), leadingWS(c.window[a].text)
		switch {
		case s == f:
		case r == s:
			got |= readCaller
		case r == f:
			got |= readFile
		}
	}
	// kept lines first
	for _, p := range kept {
		vote(p[0], p[1])
	}
	if s, r, f := c.bases(sl, rl); got == readFile && s != f && r != f {
		// every kept line voting so was indented anew, which is also
		// how a line nested one level deeper of the caller's lands at
		// the file's indentation; the least indentation is not the
		// file's (it follows the search's, or a line the change adds
		// further out): both
		return readCaller | readFile
	}
	if got != readNone {
		return got
	}
	for _, h := range hunks { // then lines replaced one for one
		if h.A1-h.A0 == h.B1-h.B0 {
			for k := 0; k < h.A1-h.A0; k++ {
				vote(h.A0+k, h.B0+k)
			}
		}
	}
	if got != readNone {
		return got
	}
	// last, the base
	return c.baseReading(sl, rl)
}

// baseReading judges the reading by the least indentation of each side:
// the replacement's as the search's (readCaller: a search copied without
// its block's indentation, a replacement starting where the search does)
// or as the file's lines the search matched (readFile); readNone when the
// search's is the file's or neither holds.
func (c *carrier) baseReading(sl, rl []line) int {
	s, r, f := c.bases(sl, rl)
	switch {
	case s == f:
	case r == s:
		return readCaller
	case r == f:
		return readFile
	}
	return readNone
}

// trimmed returns the lines' texts without their indentation and trailing
// whitespace.
func trimmed(ls []line) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = strings.TrimSpace(l.text)
	}
	return out
}

// keptPairs aligns the lines the replacement rl keeps from the search sl,
// as pairs of indexes, and returns the hunks of the lines it does not keep.
// Lines equal byte for byte are aligned first, then, between them, lines
// equal but for indentation: a line that stays as it was is the same line
// kept, so a line the replacement adds with the same text at another
// indentation (a closing brace of a new block before the kept one) is not
// taken for it.
func keptPairs(sl, rl []line) (kept [][2]int, hunks []merge.Hunk) {
	st, rt := make([]string, len(sl)), make([]string, len(rl))
	for i, l := range sl {
		st[i] = l.text
	}
	for i, l := range rl {
		rt[i] = l.text
	}
	sk, rk := trimmed(sl), trimmed(rl)
	i, j := 0, 0
	for _, h := range append(merge.DiffStrings(st, rt), merge.Hunk{A0: len(sl), A1: len(sl), B0: len(rl), B1: len(rl)}) {
		for ; i < h.A0 && j < h.B0; i, j = i+1, j+1 {
			kept = append(kept, [2]int{i, j})
		}
		// between exact anchors: equal but for indentation
		a, b := h.A0, h.B0
		for _, g := range append(merge.DiffStrings(sk[h.A0:h.A1], rk[h.B0:h.B1]), merge.Hunk{A0: h.A1 - h.A0, A1: h.A1 - h.A0, B0: h.B1 - h.B0, B1: h.B1 - h.B0}) {
			for ; a < h.A0+g.A0 && b < h.B0+g.B0; a, b = a+1, b+1 {
				kept = append(kept, [2]int{a, b})
			}
			if g.A0 != g.A1 || g.B0 != g.B1 {
				hunks = append(hunks, merge.Hunk{A0: h.A0 + g.A0, A1: h.A0 + g.A1, B0: h.B0 + g.B0, B1: h.B0 + g.B1})
			}
			a, b = h.A0+g.A1, h.B0+g.B1
		}
		i, j = h.A1, h.B1
	}
	return kept, hunks
}

// baseOf returns the shortest indentation of the non-blank lines.
func baseOf(ls []line) string {
	base, seen := "", false
	for _, l := range ls {
		if isBlank(l.text) {
			continue
		}
		if w := leadingWS(l.text); !seen || len(w) < len(base) {
			base, seen = w, true
		}
	}
	return base
}

// fileStyled reports whether every non-blank line of rl is indented in the
// file's unit (tabs, or a multiple of its spaces), as a replacement written
// in the file's style is.
func (c *carrier) fileStyled(rl []line) bool {
	ws := append([]string(nil), c.style...)
	for _, w := range c.window {
		if !isBlank(w.text) {
			ws = append(ws, leadingWS(w.text))
		}
	}
	unit, tabs, ok := unitOf(ws)
	if !ok || unit == 0 {
		return true // nothing to judge by
	}
	for _, l := range rl {
		if isBlank(l.text) {
			continue
		}
		if _, ok := level(leadingWS(l.text), unit, tabs); !ok {
			return false
		}
	}
	return true
}

// inFileStyle returns the search lines sl with the indentation of the file's
// lines they are aligned to; ok is false when that changes nothing.
func (c *carrier) inFileStyle(sl []line) (string, bool) {
	var b strings.Builder
	changed := false
	for i, l := range sl {
		t := l.text
		if a := c.align[i]; a >= 0 && !isBlank(t) && !isBlank(c.window[a].text) {
			f := leadingWS(c.window[a].text)
			if s := leadingWS(t); s != f {
				t, changed = f+t[len(s):], true
			}
		}
		b.WriteString(t + l.eol)
	}
	return b.String(), changed
}

// carryRead carries search→replace under the reading the replacement
// shows (see reading), or refuses with both readings.
func (c *carrier) carryRead(search, replace string, at Match) (string, error) {
	sl, rl := splitKeep(toLF(search)), splitKeep(toLF(replace))
	asFile, differs := c.inFileStyle(sl)
	if !differs {
		return c.carry(search, replace)
	}
	rd := c.reading(sl, rl)
	why := "nothing in it tells which"
	switch {
	case rd == readFile && !c.fileStyled(rl):
		// a kept line indented as the file is by chance (nested one
		// level of the caller's deeper): the rest is not in the file's
		// unit, so the replacement is in the caller's style
		rd = readCaller
	case rd == readCaller|readFile:
		why = "its unchanged lines and its indentation follow both"
	}
	if rd == readFile {
		return c.carry(asFile, replace)
	}
	out, err := c.carry(search, replace)
	if rd == readCaller {
		return out, err
	}
	alt, altErr := c.carry(asFile, replace)
	switch {
	case err != nil && altErr != nil:
		return "", err
	case err == nil && altErr == nil && alt == out:
		return out, nil
	}
	var cands []ops.Candidate
	for _, o := range []struct {
		text string
		err  error
	}{{out, err}, {alt, altErr}} {
		if o.err == nil {
			cands = append(cands, ops.Candidate{Line: at.Line, EndLine: at.EndLine, Similarity: 1, Text: shorten(o.text, 300),
				SearchText: at.Matched, ReplaceText: o.text})
		}
	}
	return "", &ops.Error{Op: "match", Index: -1, Err: ops.ErrAmbiguousMatch,
		Msg: fmt.Sprintf("matched at line %d (%s level) with another indentation than the file's, and the replacement may be indented as your search (translated to the file's style) or as the file already is (written as sent): %s, and the two give different text",
			at.Line, at.Level, why),
		Hint:       "send one of the candidates' search_text/replace_text pairs (the first translates your replacement, the second writes it as sent), or resend with the search text exactly as the file has it",
		Candidates: cands}
}

// bases returns the least indentation of the search lines sl, of the
// replacement lines rl and of the file's lines the search matched.
func (c *carrier) bases(sl, rl []line) (s, r, f string) {
	var fl []line
	for i := range sl {
		if a := c.align[i]; a >= 0 {
			fl = append(fl, c.window[a])
		}
	}
	return baseOf(sl), baseOf(rl), baseOf(fl)
}
