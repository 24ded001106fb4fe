package mcp

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/journalfs/journal/ops"
	"github.com/journalfs/journal/ops/match"
)

// Matching in files read in place (the stream threshold, 16 MiB, and more): the whole text is
// scanned for the search text exactly, then with the other line ending
// (LF ↔ CRLF); a miss falls back to the whitespace and fuzzy levels in
// windows around the lines holding the search text's longest line. Memory
// stays bounded by the scan block and the windows.

// hit is one occurrence found by scanning: byte offset and 1-based line.
type hit struct {
	off  int64
	line int
}

// scanLimit bounds the occurrences one change may match (replace_all included).
const scanLimit = 1000

// scanBlock is how much of the stream a scan reads at a time.
const scanBlock = 4 << 20

// scan finds up to limit occurrences of pat in the text.
func (t *ltext) scan(pat string, limit int) ([]hit, error) {
	p := []byte(pat)
	if len(p) == 0 {
		return nil, nil
	}
	if t.data != nil {
		return scanBytes(t.data, p, limit), nil
	}
	buf := make([]byte, scanBlock+len(p))
	var f finder
	var hits []hit
	var base int64        // offset of buf[0]
	line, counted := 1, 0 // line of buf[counted]
	keep := 0             // bytes carried over from the previous block
	for base+int64(keep) < t.size && len(hits) < limit {
		n, err := t.body.ReadAt(buf[keep:], base+int64(keep))
		if n == 0 && err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		data := buf[:keep+n]
		if base == 0 {
			f = newFinder(p, data)
		}
		from := 0
		for len(hits) < limit {
			i := f.index(data[from:])
			if i < 0 {
				break
			}
			at := from + i
			line += bytes.Count(data[counted:at], []byte{'\n'})
			counted = at
			hits = append(hits, hit{off: base + int64(at), line: line})
			from = at + len(p)
		}
		if n == 0 {
			break
		}
		next := max(len(data)-(len(p)-1), from) // never carry a found occurrence over
		line += bytes.Count(data[counted:next], []byte{'\n'})
		keep = copy(buf, data[next:])
		base += int64(next)
		counted = 0
	}
	return hits, nil
}

// scanBytes is scan over a text in memory or mapped: no copies, one pass.
func scanBytes(data, p []byte, limit int) []hit {
	f := newFinder(p, data)
	var hits []hit
	line, counted := 1, 0 // line of data[counted]
	for from := 0; len(hits) < limit; {
		i := f.index(data[from:])
		if i < 0 {
			break
		}
		at := from + i
		line += bytes.Count(data[counted:at], []byte{'\n'})
		counted = at
		hits = append(hits, hit{off: int64(at), line: line})
		from = at + len(p)
	}
	return hits
}

// eolReach is how far past an exact hit hitWindow looks for a line ending.
const eolReach = 4 << 10

// hitWindow returns the text from an exact hit of n bytes at off to the end
// of the line the hit ends on, with its line ending (match.Find takes the
// ending the replacement gets from there, and the rest of the line after the
// hit, as match.Locate does from the whole text), and whether that ending was
// within eolReach of the hit. Without one, the text runs eolReach bytes past
// the hit (or to the end of the file).
func (t *ltext) hitWindow(off int64, n int) (string, bool, error) {
	hi := min(off+int64(n)+eolReach, t.size)
	buf := make([]byte, hi-off)
	if _, err := t.body.ReadAt(buf, off); err != nil && !errors.Is(err, io.EOF) {
		return "", false, err
	}
	if n > 0 && buf[n-1] == '\n' {
		return string(buf[:n]), true, nil
	}
	nl := bytes.IndexByte(buf[n:], '\n')
	if nl < 0 {
		return string(buf), false, nil
	}
	return string(buf[:n+nl+1]), true, nil
}

// lineLead returns the text between the start of the line holding off and
// off, at most eolReach bytes of it.
func (t *ltext) lineLead(off int64) (string, error) {
	lo := max(off-eolReach, 0)
	buf := make([]byte, off-lo)
	if _, err := t.body.ReadAt(buf, lo); err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	return string(buf[bytes.LastIndexByte(buf, '\n')+1:]), nil
}

// window returns the whole lines around [off, off+n), at most about slack
// bytes beyond them on each side, with the offset and line of its start.
func (t *ltext) window(off int64, n, slack int, line int) (string, int64, int, error) {
	lo, hi := max(off-int64(slack), 0), min(off+int64(n+slack), t.size)
	buf := make([]byte, hi-lo)
	if _, err := t.body.ReadAt(buf, lo); err != nil && !errors.Is(err, io.EOF) {
		return "", 0, 0, err
	}
	s := 0
	if lo > 0 {
		s = bytes.IndexByte(buf, '\n') + 1 // drop a cut first line
		if s > int(off-lo) {
			s = bytes.LastIndexByte(buf[:off-lo], '\n') + 1
		}
	}
	e := len(buf)
	if hi < t.size {
		if i := bytes.LastIndexByte(buf, '\n'); i+1 >= int(off-lo)+n {
			e = i + 1
		}
	}
	first := line - bytes.Count(buf[s:off-lo], []byte{'\n'})
	return string(buf[s:e]), lo + int64(s), first, nil
}

// errNotExact: a change did not resolve at the exact level alone.
var errNotExact = errors.New("not an unambiguous exact match")

// streamLocate is match.Locate for streamed files. With exactOnly it
// resolves every change at the exact level or fails (errNotExact, or the
// error of an ambiguous, out-of-range or overlapping match).
func (t *ltext) streamLocate(changes []match.Change, exactOnly bool) ([]match.Edit, error) {
	var edits []match.Edit
	for i, c := range changes {
		ms, err := t.streamFind(c, exactOnly)
		if err != nil {
			var oe *ops.Error
			if errors.As(err, &oe) {
				oe.Index = i
			}
			return nil, err
		}
		done, err := t.appliedAlready(c, ms)
		if err != nil {
			var oe *ops.Error
			if errors.As(err, &oe) {
				oe.Index = i
			}
			return nil, err
		}
		for _, m := range ms {
			if done {
				edits = append(edits, match.Edit{Applied: match.Applied{Change: i, Match: m, AlreadyApplied: true}, Replacement: m.Matched})
				continue
			}
			m, r, err := m.Place(c.Replace, c.Path)
			if err != nil {
				var oe *ops.Error
				if errors.As(err, &oe) {
					oe.Index = i
				}
				return nil, err
			}
			edits = append(edits, match.Edit{Applied: match.Applied{Change: i, Match: m}, Replacement: r})
		}
	}
	if err := t.insideMade(changes, edits); err != nil {
		return nil, err
	}
	if err := match.Restyle(edits, changes); err != nil {
		return nil, err
	}
	sort.SliceStable(edits, func(a, b int) bool { return edits[a].Match.Start < edits[b].Match.Start })
	byteDelta, lineDelta := 0, 0
	for k := range edits {
		e := &edits[k]
		if k > 0 && e.Match.Start < edits[k-1].Match.End {
			p := edits[k-1]
			return nil, &ops.Error{Op: "match", Index: e.Change, Err: ops.ErrOverlap,
				Msg:  fmt.Sprintf("change %d (line %d) overlaps change %d (line %d)", p.Change, p.Match.Line, e.Change, e.Match.Line),
				Hint: "merge the overlapping changes into one, or make their search texts disjoint"}
		}
		e.NewStart = e.Match.Start + byteDelta
		e.NewEnd = e.NewStart + len(e.Replacement)
		e.NewLine = e.Match.Line + lineDelta
		e.NewEndLine = e.NewLine
		if r := e.Replacement; r != "" {
			e.NewEndLine += strings.Count(r[:len(r)-1], "\n")
		}
		byteDelta += len(e.Replacement) - len(e.Match.Matched)
		lineDelta += strings.Count(e.Replacement, "\n") - strings.Count(e.Match.Matched, "\n")
	}
	return edits, nil
}

// insideMade is match.Locate's judge of a retried batch for streamed files:
// a change found made already, and another change of the batch matched
// within reach of its replacement, are located again together on a window
// of whole lines around the first, as in memory. The other change is made
// already there (edits[k] becomes the occurrence its MadeAt names), or the
// window's refusal (ErrMaybeRepeat: its search stands only inside what the
// batch made) is the call's, its candidate's lines counted from the file's
// start.
func (t *ltext) insideMade(changes []match.Change, edits []match.Edit) error {
	for k, e := range edits {
		if e.AlreadyApplied || changes[e.Change].AllowRepeat {
			continue
		}
		for _, a := range edits {
			reach := len(changes[a.Change].Replace)
			if !a.AlreadyApplied || a.Change == e.Change || e.Match.Start < a.Match.Start-reach || e.Match.End > a.Match.End+reach {
				continue
			}
			w, off, first, err := t.window(int64(a.Match.Start), len(a.Match.Matched), 2*reach+4096, a.Match.Line)
			if err != nil {
				return err
			}
			made, other := changes[a.Change], changes[e.Change]
			made.Occurrence, made.ReplaceAll, other.Occurrence, other.ReplaceAll = 0, false, 0, false
			made.MadeAt, other.MadeAt = 0, max(0, other.MadeAt-first+1)
			es, err := match.Locate(w, []match.Change{made, other})
			var oe *ops.Error
			if errors.Is(err, match.ErrMaybeRepeat) && errors.As(err, &oe) {
				oe.Index = e.Change
				for i := range oe.Candidates {
					oe.Candidates[i].Line += first - 1
					oe.Candidates[i].EndLine += first - 1
				}
				return err
			}
			if err != nil {
				continue
			}
			for _, x := range es {
				if x.Change == 1 && x.AlreadyApplied {
					m := x.Match
					m.Start, m.End = m.Start+int(off), m.End+int(off)
					m.Line, m.EndLine = m.Line+first-1, m.EndLine+first-1
					edits[k] = match.Edit{Applied: match.Applied{Change: e.Change, Match: m, AlreadyApplied: true}, Replacement: m.Matched}
				}
			}
		}
	}
	return nil
}

// appliedAlready reports whether change c is made already at every match of
// ms — a retried insertion: its search text still there, the text it adds
// already beside it — as the in-memory cascade judges it (match.Locate) on
// a window of whole lines around each match. A change whose search text is
// gone and whose replacement is present is not judged here: telling that
// place from others would take the whole file, so the miss says where the
// replacement is and the edit is refused.
func (t *ltext) appliedAlready(c match.Change, ms []match.Match) (bool, error) {
	if c.AllowRepeat || c.Replace == c.Search || len(ms) == 0 || len(ms) > appliedCheckMax {
		return false, nil
	}
	slack := 2*len(c.Replace) + 4096
	one := c
	one.Occurrence, one.ReplaceAll = 0, false
	for _, m := range ms {
		w, off, first, err := t.window(int64(m.Start), len(m.Matched), slack, m.Line)
		if err != nil {
			return false, err
		}
		es, err := match.Locate(w, []match.Change{one})
		var oe *ops.Error
		if errors.Is(err, match.ErrMaybeRepeat) && errors.As(err, &oe) {
			// short lines already beside the search: refused as in memory,
			// the candidate's lines counted from the file's start
			for i := range oe.Candidates {
				oe.Candidates[i].Line += first - 1
				oe.Candidates[i].EndLine += first - 1
			}
			return false, err
		}
		if err != nil || len(es) != 1 || !es[0].AlreadyApplied || off+int64(es[0].Match.Start) != int64(m.Start) {
			return false, nil
		}
	}
	return true, nil
}

// appliedCheckMax bounds the matches appliedAlready looks at: a replace_all
// over more places is no retried insertion.
const appliedCheckMax = 50

// streamFind finds one change's matches (see the comment at the top).
func (t *ltext) streamFind(c match.Change, exactOnly bool) ([]match.Match, error) {
	if err := checkChange(c); err != nil {
		return nil, err
	}
	lf := strings.ReplaceAll(c.Search, "\r\n", "\n")
	variants := []string{c.Search}
	for _, v := range []string{lf, strings.ReplaceAll(lf, "\n", "\r\n")} {
		if v != c.Search && !exactOnly && !strings.Contains(strings.Join(variants, "\x00"), v) {
			variants = append(variants, v)
		}
	}
	all := match.Options{ReplaceAll: true, Fuzzy: c.Fuzzy, Threshold: c.Threshold}
	var ms []match.Match
	cut := cutHits{} // occurrences inside longer tokens, dropped
	for vi, v := range variants {
		hits, err := t.scan(v, scanLimit)
		if err != nil {
			return nil, err
		}
		if exactOnly && len(hits) >= scanLimit {
			return nil, errNotExact // match.Locate counts them all
		}
		for _, h := range hits {
			w, eol, err := t.hitWindow(h.off, len(v))
			if err != nil {
				return nil, err
			}
			if exactOnly && !eol {
				return nil, errNotExact
			}
			// the line before the hit too: match.Find judges whether the
			// hit cuts a longer number or word, and whether it starts
			// after the line's indentation, from the text before it
			lead, err := t.lineLead(h.off)
			if err != nil {
				return nil, err
			}
			found, _ := match.Find(lead+w, v, match.Options{ReplaceAll: true, Substring: c.Substring})
			took := false
			for _, m := range found {
				if m.Start == len(lead) {
					if vi > 0 {
						m.Level = match.LevelLineEndings
					}
					ms = append(ms, shift(m, h.off-int64(len(lead)), h.line))
					took = true
				}
			}
			if !took && !c.Substring {
				cut.add(lead+w, len(lead), len(v), h.line)
			}
		}
		if len(ms) > 0 {
			break
		}
	}
	if len(ms) == 0 && exactOnly {
		return nil, errNotExact
	}
	if len(ms) == 0 {
		var near []match.Hit
		var err error
		if ms, near, err = t.nearAnchor(c, all); err != nil || len(ms) == 0 {
			if err == nil && len(cut.cands) > 0 {
				return nil, t.cutMiss(c, cut)
			}
			return nil, t.streamMiss(c, near, err)
		}
	}
	return pick(ms, c.Options)
}

// cutHits collects the exact occurrences dropped for cutting a longer
// number or word, as the in-memory cascade refuses them (match.CutRefusal).
type cutHits struct {
	kind  string
	cands []ops.Candidate
}

// add judges the occurrence of n bytes at off in w, whole lines starting
// at line first of the file, and keeps it if it cuts a token.
func (ch *cutHits) add(w string, off, n, first int) {
	kind, cut := match.Cuts(w, off, off+n)
	if !cut || len(ch.cands) == 20 {
		return
	}
	if ch.kind == "" || kind == "number" {
		ch.kind = kind
	}
	ch.cands = append(ch.cands, ops.Candidate{Line: first, EndLine: first + strings.Count(strings.TrimSuffix(w, "\n"), "\n"), Similarity: 1, Text: w})
}

// cutMiss refuses a change whose search text occurs only inside longer
// tokens, as match.Find does, saying also when the replacement is present.
func (t *ltext) cutMiss(c match.Change, cut cutHits) error {
	err := match.CutRefusal(cut.kind, cut.cands)
	var e *ops.Error
	if errors.As(err, &e) && strings.TrimSpace(c.Replace) != "" {
		if hits, serr := t.scan(c.Replace, 1); serr == nil && len(hits) > 0 {
			e.Msg += fmt.Sprintf("; the replacement text is present at line %d (not reported as already applied: nothing shows it was put there in place of the search text)", hits[0].line)
		}
	}
	return err
}

// checkChange refuses what match.Locate refuses before searching.
func checkChange(c match.Change) error {
	bad := func(msg, hint string) error {
		return &ops.Error{Op: "match", Err: ops.ErrInvalidInput, Msg: msg, Hint: hint}
	}
	switch {
	case c.Search == "":
		return bad("search text is empty", "give the exact text to replace, with a few lines of context")
	case c.Occurrence < 0:
		return bad(fmt.Sprintf("occurrence %d is negative", c.Occurrence), "occurrence is 1-based")
	case c.Occurrence > 0 && c.ReplaceAll:
		return bad("occurrence and replace_all are exclusive", "give one of them")
	case c.Threshold < 0 || c.Threshold > 1:
		return bad(fmt.Sprintf("threshold %g is outside (0,1]", c.Threshold), "use e.g. 0.8")
	}
	return nil
}

// nearAnchor tries the whitespace and fuzzy levels in windows around the
// lines that hold the search text's longest line (trimmed) exactly, or, for
// there are none, lines similar to it. That fuzzy line search is slow per
// byte, so it runs only on a miss and only over mapped files up to
// fuzzyScanMax; its best lines are returned as the nearest candidates.
func (t *ltext) nearAnchor(c match.Change, o match.Options) ([]match.Match, []match.Hit, error) {
	anchor := longestLine(c.Search)
	if len(anchor) < 4 {
		return nil, nil, nil
	}
	hits, err := t.scan(anchor, 200)
	if err != nil {
		return nil, nil, err
	}
	ms, err := t.inWindows(c, o, anchor, hits)
	if len(ms) > 0 || err != nil || t.data == nil || t.size > fuzzyScanMax {
		return ms, nil, err
	}
	res, err := match.Search(t.data, anchor, match.SearchOptions{Fuzzy: true, Threshold: 0.5, MaxResults: 50})
	if err != nil {
		return nil, nil, err
	}
	hits = hits[:0]
	for _, h := range res.Hits {
		hits = append(hits, hit{off: h.Offset, line: h.Line})
	}
	near := res.Hits[:min(len(res.Hits), nearestCount)]
	if !c.Fuzzy {
		return nil, near, nil
	}
	ms, err = t.inWindows(c, o, anchor, hits)
	return ms, near, err
}

// fuzzyScanMax bounds the fuzzy line search of a miss (about 5 s).
const fuzzyScanMax = 64 << 20

// longestLine returns the longest line of s, trimmed.
func longestLine(s string) string {
	longest := ""
	for _, l := range strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n") {
		if l = strings.TrimSpace(l); len(l) > len(longest) {
			longest = l
		}
	}
	return longest
}

// nearestCount is how many candidates a miss lists.
const nearestCount = 3

// inWindows runs match.Find in a window around each hit and keeps the
// matches of the best level (and, for fuzzy, the best similarity).
func (t *ltext) inWindows(c match.Change, o match.Options, anchor string, hits []hit) ([]match.Match, error) {
	seen := map[int]bool{}
	var ms []match.Match
	for _, h := range hits {
		w, base, first, err := t.window(h.off, len(anchor), 2*len(c.Search)+256, h.line)
		if err != nil {
			return nil, err
		}
		found, ferr := match.Find(w, c.Search, o)
		if ferr != nil {
			continue
		}
		for _, m := range found {
			if m = shift(m, base, first); !seen[m.Start] {
				seen[m.Start] = true
				ms = append(ms, m)
			}
		}
	}
	sort.SliceStable(ms, func(a, b int) bool { return levelRank(ms[a]) < levelRank(ms[b]) })
	var best []match.Match
	for _, m := range ms {
		if len(best) == 0 || levelRank(m) == levelRank(best[0]) {
			best = append(best, m)
		}
	}
	return best, nil
}
