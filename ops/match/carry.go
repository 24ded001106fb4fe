package match

import (
	"errors"
	"fmt"
	"strings"

	"github.com/journalfs/journal/ops/merge"
)

// Carrying a change. When a match is not byte-exact, the replacement text is
// not written as sent: the caller's search and replace are diffed line by
// line, lines the caller left unchanged keep the file's own bytes, and only
// changed and added lines are written — with the file's indentation style
// (indenter), the file's line endings, and within a changed line the file's
// own characters outside the span the caller changed (mergeLine).

// errIndent is returned when a new line's indentation cannot be translated
// into the file's style with confidence.
var errIndent = errors.New("indentation cannot be translated")

// line is one line of text with its terminator ("", "\n" or "\r\n").
type line struct{ text, eol string }

// splitKeep splits s into lines, keeping each terminator.
func splitKeep(s string) []line {
	var ls []line
	for len(s) > 0 {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			ls = append(ls, line{text: s})
			break
		}
		t, eol := s[:i], "\n"
		if strings.HasSuffix(t, "\r") {
			t, eol = t[:len(t)-1], "\r\n"
		}
		ls = append(ls, line{t, eol})
		s = s[i+1:]
	}
	return ls
}

// carrier holds what carry needs besides the texts.
type carrier struct {
	window []line // the file's matched lines
	align  []int  // search line → window line, -1 when unaligned (a blank line)
	style  []string
	eol    string // the matched line's terminator: the file's, where the window shows none
	loose  bool   // near-miss mode: a changed line must merge without conflict

	batch [][2]string // indentation pairs other changes of the batch aligned (restyle.go)
}

// carry returns the text that replaces the window: the change search→replace
// carried onto the file's lines. In loose mode (a suggestion for a near
// miss) any changed line whose file text differs from the search in the
// span the caller changed fails the carry.
//
// A window whose last line has no terminator (a search that does not end
// with a line ending, or the file's last line without one) is open: what
// follows it in the file stays after the replacement. Its lines are carried
// as if the window, the search and the replacement all went on to the line
// end — one virtual terminator each — and that terminator is taken off the
// result, so every line the carry writes before it ends with one: a line
// added after the window's last line is never glued to it, and a line taken
// out leaves no blank line behind.
func (c *carrier) carry(search, replace string) (string, error) {
	n := len(c.window)
	if n == 0 || c.window[n-1].eol != "" {
		return c.carryLines(search, replace)
	}
	virtual := c.eol
	if virtual == "" {
		virtual = "\n"
		for _, w := range c.window {
			if w.eol != "" {
				virtual = w.eol
				break
			}
		}
	}
	closed := *c
	closed.window = append(append([]line(nil), c.window[:n-1]...), line{c.window[n-1].text, virtual})
	if search, replace = toLF(search), toLF(replace); !strings.HasSuffix(search, "\n") {
		search, replace = search+"\n", replace+"\n"
	}
	out, err := closed.carryLines(search, replace)
	if err != nil {
		return "", err
	}
	if !strings.HasSuffix(replace, "\n") {
		return out, nil // the caller took the final line ending away: nothing virtual was written
	}
	for _, eol := range []string{"\r\n", "\n"} {
		if strings.HasSuffix(out, eol) {
			return out[:len(out)-len(eol)], nil
		}
	}
	return "", errors.New("the carried text lost the line end that closes the matched lines")
}

// carryLines carries search→replace onto a window whose last line is
// closed by a terminator (see carry).
func (c *carrier) carryLines(search, replace string) (string, error) {
	sl, rl := splitKeep(toLF(search)), splitKeep(toLF(replace))
	st, rt := make([]string, len(sl)), make([]string, len(rl))
	for i, l := range sl {
		st[i] = l.text
	}
	for i, l := range rl {
		rt[i] = l.text
	}
	ind := c.indenter(sl, rl)
	fileEOL := "\n"
	if c.eol != "" {
		fileEOL = c.eol
	}
	for _, w := range c.window {
		if w.eol != "" {
			fileEOL = w.eol
			break
		}
	}
	var b strings.Builder
	wpos := 0               // next window line to emit
	emitTo := func(k int) { // window lines [wpos, k]
		for ; wpos <= k && wpos < len(c.window); wpos++ {
			b.WriteString(c.window[wpos].text + c.window[wpos].eol)
		}
	}
	spos := 0
	for _, h := range append(merge.DiffStrings(st, rt), merge.Hunk{A0: len(sl), A1: len(sl), B0: len(rl), B1: len(rl)}) {
		trailingBlank := false
		for i := spos; i < h.A0; i++ { // unchanged search lines
			if c.align[i] >= 0 {
				emitTo(c.align[i])
				trailingBlank = false
			} else {
				trailingBlank = true
			}
		}
		if h.A0 == h.A1 && h.B0 == h.B1 {
			break
		}
		first, last := -1, -1
		for i := h.A0; i < h.A1; i++ {
			if a := c.align[i]; a >= 0 {
				if first < 0 {
					first = a
				}
				last = a
			}
		}
		switch {
		case first >= 0:
			emitTo(first - 1)
			wpos = last + 1
		case trailingBlank && h.A1 < len(sl):
			// an insertion after a blank line of the search the file has
			// as several (or none): insert just before the next aligned line
			if n := c.nextAligned(h.A1); n >= 0 {
				emitTo(n - 1)
			}
		}
		eolAt := fileEOL
		if wpos > 0 && c.window[wpos-1].eol != "" {
			eolAt = c.window[wpos-1].eol
		}
		nd, na := h.A1-h.A0, h.B1-h.B0
		for k := 0; k < na; k++ {
			r := rl[h.B0+k]
			var out string
			var err error
			if k < nd && nd == na && c.align[h.A0+k] >= 0 {
				f := c.window[c.align[h.A0+k]]
				out, err = c.changed(f.text, sl[h.A0+k].text, r.text, ind)
				if r.eol != "" {
					eolAt = f.eol
					if eolAt == "" {
						eolAt = fileEOL
					}
				}
			} else {
				out, err = c.added(r.text, ind)
			}
			if err != nil {
				return "", fmt.Errorf("replacement line %d: %w", h.B0+k+1, err)
			}
			b.WriteString(out)
			if r.eol != "" {
				b.WriteString(eolAt)
			}
		}
		spos = h.A1
	}
	emitTo(len(c.window) - 1)
	return b.String(), nil
}

// nextAligned returns the window line of the first aligned search line at or
// after i, or -1.
func (c *carrier) nextAligned(i int) int {
	for ; i < len(c.align); i++ {
		if c.align[i] >= 0 {
			return c.align[i]
		}
	}
	return -1
}

// indenter learns the indentation rule from the aligned lines.
func (c *carrier) indenter(sl, rl []line) *indenter {
	var pairs [][2]string
	var all []string
	for i, l := range sl {
		if isBlank(l.text) {
			continue
		}
		all = append(all, leadingWS(l.text))
		if a := c.align[i]; a >= 0 && !isBlank(c.window[a].text) {
			pairs = append(pairs, [2]string{leadingWS(l.text), leadingWS(c.window[a].text)})
		}
	}
	for _, l := range rl {
		if !isBlank(l.text) {
			all = append(all, leadingWS(l.text))
		}
	}
	for _, p := range c.batch {
		pairs, all = append(pairs, p), append(all, p[0])
	}
	return newIndenter(pairs, all, c.style)
}

// added returns a new line of the caller's in the file's indentation.
func (c *carrier) added(r string, ind *indenter) (string, error) {
	if isBlank(r) {
		return "", nil
	}
	w := leadingWS(r)
	fw, ok := ind.translate(w)
	if !ok {
		return "", fmt.Errorf("%w: %q", errIndent, w)
	}
	return fw + r[len(w):], nil
}

// changed returns the caller's changed line r (search line s, file line f)
// with the file's indentation, trailing whitespace and characters wherever
// the caller did not change them.
func (c *carrier) changed(f, s, r string, ind *indenter) (string, error) {
	if isBlank(r) {
		return "", nil
	}
	si, ri, fi := leadingWS(s), leadingWS(r), leadingWS(f)
	indent := fi
	if ri != si {
		if strings.TrimSpace(r) == strings.TrimSpace(s) && !ind.sTab && ind.su < 2 {
			// only the indentation changed, by an amount no unit of the
			// caller's explains (3 spaces in the search, 4 in the
			// replacement): a slip, not a change to carry
			return "", fmt.Errorf("%w: the line's indentation changed from %q to %q and nothing else", errIndent, si, ri)
		}
		var ok bool
		if indent, ok = ind.translate(ri); !ok {
			return "", fmt.Errorf("%w: %q", errIndent, ri)
		}
	}
	sb, rb, fb := s[len(si):], r[len(ri):], f[len(fi):]
	st, rt, ft := trailingWS(sb), trailingWS(rb), trailingWS(fb)
	sb, rb, fb = sb[:len(sb)-len(st)], rb[:len(rb)-len(rt)], fb[:len(fb)-len(ft)]
	// A changed line is the caller's text to its end: its trailing
	// whitespace is the replacement's, as every line-based tool writes it
	// (a value line of a .env keeps no spaces the caller did not send).
	tail := rt
	body, ok := mergeLine(fb, sb, rb)
	if !ok {
		if c.loose {
			return "", errors.New("the file's line differs from the search where the change is")
		}
		body = rb
	}
	return indent + body + tail, nil
}

// mergeLine carries the change s→r onto f, the file's version of s, unit by
// unit: the span of s the caller changed takes r's units, the rest keeps f's.
// It fails when f differs from s inside (or across) the changed span.
func mergeLine(f, s, r string) (string, bool) {
	if r == s {
		return f, true
	}
	if f == s {
		return r, true
	}
	fu, su, ru := units(f), units(s), units(r)
	ns, nf, nr := len(su), len(fu), len(ru)
	p1 := 0 // s↔f prefix, fold-equal
	for p1 < ns && p1 < nf && unitKey(su[p1]) == unitKey(fu[p1]) {
		p1++
	}
	q1 := 0
	for q1 < ns-p1 && q1 < nf-p1 && unitKey(su[ns-1-q1]) == unitKey(fu[nf-1-q1]) {
		q1++
	}
	p2 := 0 // s↔r prefix, exact
	for p2 < ns && p2 < nr && su[p2] == ru[p2] {
		p2++
	}
	q2 := 0
	for q2 < ns-p2 && q2 < nr-p2 && su[ns-1-q2] == ru[nr-1-q2] {
		q2++
	}
	d2a, d2b := p2, ns-q2 // the span of s the caller changed
	join := func(us []string) string { return strings.Join(us, "") }
	mid := join(ru[p2 : nr-q2])
	// differences of f from s that fold away are not differences
	if p1 == ns && nf == ns {
		return join(fu[:p2]) + mid + join(fu[nf-q2:]), true
	}
	d1a, d1b := p1, ns-q1 // the span where f differs from s
	switch {
	case d2b <= d1a: // the change lies before f's difference
		return join(fu[:p2]) + mid + join(fu[d2b:]), true
	case d2a >= d1b: // after it
		shift := nf - ns
		return join(fu[:d2a+shift]) + mid + join(fu[d2b+shift:]), true
	}
	return "", false
}

func isBlank(s string) bool { return strings.TrimSpace(s) == "" }
