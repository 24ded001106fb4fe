package match

import (
	"bytes"
	"strings"
)

func countNL(b []byte) int   { return bytes.Count(b, []byte{'\n'}) }
func lastNL(b []byte) int    { return bytes.LastIndexByte(b, '\n') }
func trimCR(b []byte) []byte { return bytes.TrimSuffix(b, []byte{'\r'}) }

// lineEnd returns the offset of the '\n' ending the line holding p, or len(buf).
func lineEnd(buf []byte, p int) int {
	if i := bytes.IndexByte(buf[p:], '\n'); i >= 0 {
		return p + i
	}
	return len(buf)
}

// nextLine returns the start of the line after the one holding p, or len(buf).
func nextLine(buf []byte, p int) int {
	if e := lineEnd(buf, p); e < len(buf) {
		return e + 1
	}
	return len(buf)
}

// region searches the lines starting in [from,to) of buf; from and to are
// line starts. Lines before from and after to are only read for context.
func (s *searcher) region(buf []byte, from, to int) {
	switch {
	case s.fz != nil:
		s.fuzzyRegion(buf, from, to)
	case s.re != nil && !strings.Contains(s.re.String(), "$"):
		s.regexRegion(buf, from, to)
	case s.re != nil:
		s.regexLines(buf, from, to) // '$' would not match before "\r\n" in a block
	default:
		s.exactRegion(buf, from, to)
	}
}

// exactRegion jumps from occurrence to occurrence with bytes.Index over the
// whole block; only matching lines are looked at.
func (s *searcher) exactRegion(buf []byte, from, to int) {
	for pos := from; pos < to && !s.stop; {
		i := bytes.Index(buf[pos:to], s.pat)
		if i < 0 {
			return
		}
		at := pos + i
		ls := lastNL(buf[:at]) + 1
		line := trimCR(buf[ls:lineEnd(buf, at)])
		var subs []Span
		for off := 0; ; {
			j := bytes.Index(line[off:], s.pat)
			if j < 0 {
				break
			}
			subs = append(subs, Span{off + j, off + j + len(s.pat)})
			off += j + len(s.pat)
		}
		s.emit(buf, ls, ls+len(line), subs, 1)
		pos = nextLine(buf, at)
	}
}

// regexRegion finds the next match in the block, then re-matches its line.
func (s *searcher) regexRegion(buf []byte, from, to int) {
	for pos := from; pos < to && !s.stop; {
		loc := s.re.FindIndex(buf[pos:to])
		if loc == nil {
			return
		}
		at := pos + loc[0]
		if at == to && (to == 0 || buf[to-1] == '\n') {
			return // empty match at the start of the next block
		}
		s.regexLine(buf, lastNL(buf[:at])+1)
		pos = nextLine(buf, at)
	}
}

// regexLines matches line by line.
func (s *searcher) regexLines(buf []byte, from, to int) {
	for ls := from; ls < to && !s.stop; ls = nextLine(buf, ls) {
		s.regexLine(buf, ls)
	}
}

func (s *searcher) regexLine(buf []byte, ls int) {
	line := trimCR(buf[ls:lineEnd(buf, ls)])
	idx := s.re.FindAllIndex(line, -1)
	if len(idx) == 0 {
		return
	}
	subs := make([]Span, len(idx))
	for k, m := range idx {
		subs[k] = Span{m[0], m[1]}
	}
	s.emit(buf, ls, ls+len(line), subs, 1)
}

func (s *searcher) fuzzyRegion(buf []byte, from, to int) {
	for ls := from; ls < to; ls = nextLine(buf, ls) {
		line := trimCR(buf[ls:lineEnd(buf, ls)])
		if sim, subs, ok := s.fz.score(line); ok {
			s.emit(buf, ls, ls+len(line), subs, sim)
		}
	}
}

// fuzzyLine scores a line by the best approximate occurrence of the pattern:
// similarity = 1 - d/len(pattern), d the least byte edit distance between the
// pattern and any substring of the line (Sellers' algorithm). A histogram
// bound skips lines that lack too many of the pattern's bytes.
type fuzzyLine struct {
	pat      []byte
	th       float64
	need     [256]int32
	distinct []byte
	have     [256]int32
	cost     [2][]int
	start    [2][]int
}

func newFuzzyLine(pat []byte, th float64) *fuzzyLine {
	f := &fuzzyLine{pat: pat, th: th}
	for _, c := range pat {
		if f.need[c] == 0 {
			f.distinct = append(f.distinct, c)
		}
		f.need[c]++
	}
	return f
}

func (f *fuzzyLine) score(line []byte) (float64, []Span, bool) {
	if bytes.Contains(line, f.pat) {
		var subs []Span
		for off := 0; ; {
			j := bytes.Index(line[off:], f.pat)
			if j < 0 {
				return 1, subs, true
			}
			subs = append(subs, Span{off + j, off + j + len(f.pat)})
			off += j + len(f.pat)
		}
	}
	m := float64(len(f.pat))
	for _, c := range line {
		f.have[c]++
	}
	deficit := 0
	for _, c := range f.distinct {
		deficit += int(max(0, f.need[c]-f.have[c]))
	}
	clear(f.have[:])
	if 1-float64(deficit)/m < f.th {
		return 0, nil, false
	}
	d, st, en := f.sellers(line)
	sim := 1 - float64(d)/m
	if sim < f.th {
		return 0, nil, false
	}
	return sim, []Span{{st, en}}, true
}

// sellers returns the least edit distance of the pattern to a substring of
// text, and that substring's range.
func (f *fuzzyLine) sellers(text []byte) (d, start, end int) {
	n := len(text)
	for r := range 2 {
		if cap(f.cost[r]) < n+1 {
			f.cost[r], f.start[r] = make([]int, n+1), make([]int, n+1)
		}
		f.cost[r], f.start[r] = f.cost[r][:n+1], f.start[r][:n+1]
	}
	prev, cur := 0, 1
	for j := 0; j <= n; j++ {
		f.cost[prev][j], f.start[prev][j] = 0, j
	}
	for i := 1; i <= len(f.pat); i++ {
		pc, ps, cc, cs := f.cost[prev], f.start[prev], f.cost[cur], f.start[cur]
		cc[0], cs[0] = i, 0
		for j := 1; j <= n; j++ {
			c, st := pc[j-1], ps[j-1]
			if f.pat[i-1] != text[j-1] {
				c++
			}
			if v := pc[j] + 1; v < c {
				c, st = v, ps[j]
			}
			if v := cc[j-1] + 1; v < c {
				c, st = v, cs[j-1]
			}
			cc[j], cs[j] = c, st
		}
		prev, cur = cur, prev
	}
	d, end = f.cost[prev][0], 0
	for j := 1; j <= n; j++ {
		if f.cost[prev][j] < d {
			d, end = f.cost[prev][j], j
		}
	}
	return d, f.start[prev][end], end
}
