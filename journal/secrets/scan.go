package secrets

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
)

// Finding is one secret found in a text: the bytes [Start, End) are the
// secret (the rule's secret group, not its whole match), on line Line
// (from 1, counting "\n"), found by rule Rule (a gitleaks rule ID, such as
// "aws-access-token"). It never holds the secret's value, so it can be
// stored and printed.
type Finding struct {
	Rule  string `json:"rule"`
	Start int    `json:"start"`
	End   int    `json:"end"`
	Line  int    `json:"line"`
	// Arg is, for a finding in an event's arguments (ScanArgs), the JSON
	// Pointer of the string value holding it; Start and End are then
	// offsets into that string's decoded value.
	Arg string `json:"arg,omitempty"`
}

// Limits of a scan. A content larger than MaxSize is not scanned (a
// streamed multi-gigabyte file would hold the scan for minutes); a content
// with a NUL byte in its first BinarySniff bytes is binary (as git decides)
// and is not scanned either, as nothing prints it as text. Texts are scanned
// in windows of window bytes, cut after a newline, each overlapping the one
// before by overlap bytes so that a secret spanning lines (a PEM key) across
// a cut is still found whole: rules run on a window only when it holds one
// of their keywords, so the time is bounded by the size, not by how many
// keywords the whole file holds.
const (
	MaxSize     = 64 << 20
	BinarySniff = 8000
	window      = 64 << 10
	overlap     = 8 << 10
)

// MaxSpan bounds the bytes a finding of a text's content covers (a window
// and its overlap, and the rest of the window's last line): a part of a
// larger text scanned with MaxSpan bytes on each side of what is shown of
// it finds every secret that reaches into what is shown.
const MaxSpan = window + overlap

// allowSignature on a line keeps gitleaks from reporting a secret there; the
// journal honours it too, so that a test fixture can say so.
const allowSignature = "gitleaks:allow"

// Scan returns the secrets in b, by the embedded gitleaks rules, in order of
// their start. b is a file's content or any text; a binary or oversized b
// has none (see MaxSize). Scan is ScanFile without a path: rules and
// allowlists that depend on a file's path do not apply.
func Scan(b []byte) []Finding { return ScanFile("", b) }

// ScanFile is Scan for the content of the file at path (slash-separated,
// relative to its root): gitleaks' path rules and allowlists apply (no
// findings in go.sum, lock files or vendored trees; a rule on a path alone,
// such as a PKCS#12 file, reports the whole content as one finding).
func ScanFile(path string, b []byte) []Finding { return (*Cache)(nil).ScanFile(path, b) }

// ScanFile is ScanFile, remembering what each rule found in each region of
// b: a later scan of an edited version re-runs the rules only on the
// regions the edit changed. A nil Cache remembers nothing.
func (c *Cache) ScanFile(path string, b []byte) []Finding {
	fs, _ := c.scan(path, &text{buf: b, size: len(b), eof: true})
	return fs
}

// ScanReader is ScanFile of the content of size bytes that r yields, read
// as it is scanned: it holds one window and its overlap (a little more
// than window+overlap bytes, or a line if a line is longer), never the
// whole content, and finds exactly what ScanFile finds in the same bytes
// (the windows, their overlap and so the secrets spanning a cut are the
// same; TestScanReader_SameAsScanFile). A content over MaxSize is not read.
// An error of r, or r yielding other than size bytes, is returned with no
// findings: the content was not scanned.
func (c *Cache) ScanReader(path string, size int64, r io.Reader) ([]Finding, error) {
	if size > MaxSize {
		fs, _ := c.scan(path, &text{size: int(size), eof: true})
		return fs, nil
	}
	return c.scan(path, &text{r: r, buf: make([]byte, 0, readBuf), size: int(size)})
}

// readBuf is ScanReader's first buffer: a window, its overlap and room for
// the reads that complete the window's last line.
const readBuf = window + overlap + 32<<10

// scan is ScanFile over t.
func (c *Cache) scan(path string, t *text) ([]Finding, error) {
	rs := rules()
	for _, a := range rs.global {
		if a.pathAllowed(path) {
			return nil, nil
		}
	}
	var fs []Finding
	for _, r := range rs.rules {
		if r.src == "" && r.path != nil && path != "" && r.path.MatchString(path) && !r.pathAllowed(path) {
			fs = append(fs, Finding{Rule: r.id, Start: 0, End: t.size, Line: 1})
		}
	}
	if t.size == 0 || t.size > MaxSize {
		return fs, nil
	}
	if t.fill(BinarySniff); t.err != nil {
		return nil, t.err
	}
	if IsBinary(t.buf) {
		return fs, nil
	}
	w := windowScan{c: c, rs: rs, path: path, seen: map[[2]int]bool{}, hits: make([][]int, len(rs.keywords))}
	// lo is where the window's new bytes start, line its line (from 1);
	// the window [from, hi) starts overlap bytes before lo, after a
	// newline, and ends after the first newline past lo+window
	lo, line := 0, 1
	for {
		if t.fill(lo + 1); t.err != nil {
			return nil, t.err
		}
		if lo >= t.end() {
			break
		}
		hi := t.cut(lo + window)
		from, fromLine := lo, line
		if lo > 0 {
			from = t.cut(lo - overlap)
			fromLine -= bytes.Count(t.at(from, lo), nl)
		}
		if t.err != nil {
			return nil, t.err
		}
		fs = w.scan(fs, t.at(from, hi), from, fromLine)
		line += bytes.Count(t.at(lo, hi), nl)
		lo = hi
		t.discard(lo - overlap)
	}
	if t.end() != t.size {
		return nil, fmt.Errorf("secrets: %s: read %d bytes of %d", path, t.end(), t.size)
	}
	return settle(fs), nil
}

var nl = []byte{'\n'}

// rank orders rules by how much their name says of a secret: a gitleaks
// rule for one format, then gitleaks' generic ones, then the heuristics
// (heuristic.go), of which a known token prefix says most and entropy
// least.
func rank(rule string) int {
	switch rule {
	case RuleTokenPrefix:
		return 4
	case RuleCredentialURL:
		return 3
	case RuleAssignment:
		return 2
	case RuleHighEntropy:
		return 1
	}
	if strings.Contains(rule, "generic") {
		return 5
	}
	return 6
}

// windowScan is the state of one scan across its windows.
type windowScan struct {
	c    *Cache
	rs   *ruleSet
	path string
	seen map[[2]int]bool // rule, start: found already (in an overlap)
	hits [][]int         // by keyword: where it ends in the window
	at   []int
}

// scan appends to fs what the rules find in the window b, which starts at
// offset off of the text, on line line, after a newline (or at the start)
// and ends after one (or at the end): every line of a match, and so every
// rule's view of it, lies inside b. Findings are returned in the text's
// offsets and lines.
func (w *windowScan) scan(fs []Finding, b []byte, off, line int) []Finding {
	rs, path, c := w.rs, w.path, w.c
	for i := range w.hits {
		w.hits[i] = w.hits[i][:0]
	}
	rs.trie.hits(b, func(end, k int) { w.hits[k] = append(w.hits[k], end-1) })
	var lines lineIndex
	for ri, r := range rs.rules {
		if (r.src == "" && r.heur == nil) || (r.path != nil && (path == "" || !r.path.MatchString(path))) || r.pathAllowed(path) {
			continue
		}
		w.at = w.at[:0]
		for _, k := range r.keywords {
			w.at = append(w.at, w.hits[k]...)
		}
		if len(r.keywords) > 0 && len(w.at) == 0 {
			continue
		}
		regions := [][2]int{{0, len(b)}}
		if len(r.keywords) > 0 && r.lines() != unbounded {
			if lines == nil {
				lines = newLineIndex(b, 0)
			}
			sort.Ints(w.at)
			regions = lines.regions(w.at, r.lines(), len(b))
		}
		for _, rg := range regions {
			var got []Finding
			switch {
			case c != nil && rg[0] == 0:
				got = c.find(ri, r, rs, path, b, rg, 1)
			case c != nil: // a region of lines: lines is built
				got = c.find(ri, r, rs, path, b, rg, 1+lines.line(rg[0]))
			default:
				got = r.find(rs, path, b, rg[0], rg[1])
			}
			for _, f := range got {
				f.Start, f.End, f.Line = f.Start+off, f.End+off, f.Line+line-1
				k := [2]int{ri, f.Start}
				if !w.seen[k] {
					w.seen[k] = true
					fs = append(fs, f)
				}
			}
		}
	}
	return fs
}

// text is what a scan reads: a content given whole (r nil, buf all of it)
// or read from r as the scan goes, keeping buf, its bytes from offset off.
type text struct {
	r    io.Reader
	buf  []byte
	off  int
	size int // as the caller says
	eof  bool
	err  error
}

// end is the offset after the last byte read.
func (t *text) end() int { return t.off + len(t.buf) }

// at returns the bytes [i, j) of the text, which buf holds.
func (t *text) at(i, j int) []byte { return t.buf[i-t.off : j-t.off] }

// read reads once from r into buf, growing it when full.
func (t *text) read() {
	if t.eof {
		return
	}
	if len(t.buf) == cap(t.buf) {
		t.buf = append(t.buf, make([]byte, max(cap(t.buf), readBuf))...)[:len(t.buf)]
	}
	n, err := t.r.Read(t.buf[len(t.buf):cap(t.buf)])
	t.buf = t.buf[:len(t.buf)+n]
	if t.end() > t.size && err == nil {
		err = fmt.Errorf("secrets: more than %d bytes", t.size)
	}
	switch {
	case err == io.EOF:
		t.eof = true
	case err != nil:
		t.eof, t.err = true, err
	}
}

// fill reads until buf holds the text up to offset i, or to its end.
func (t *text) fill(i int) {
	for !t.eof && t.end() < i {
		t.read()
	}
}

// cut is cut on the text: the offset just after the first newline at or
// after i, or the end of the text.
func (t *text) cut(i int) int {
	if i <= 0 {
		return 0
	}
	for {
		t.fill(i + 1)
		if i >= t.end() {
			return t.end()
		}
		if j := bytes.IndexByte(t.buf[i-t.off:], '\n'); j >= 0 {
			return i + j + 1
		}
		if t.eof {
			return t.end()
		}
		i = t.end() // searched to here
	}
}

// discard lets go of the bytes before offset i (a text given whole keeps
// them: they are the caller's).
func (t *text) discard(i int) {
	if t.r == nil || i <= t.off {
		return
	}
	n := copy(t.buf, t.buf[i-t.off:])
	t.buf, t.off = t.buf[:n], i
}

// IsBinary reports whether b looks binary: a NUL byte in its first
// BinarySniff bytes.
func IsBinary(b []byte) bool {
	return bytes.IndexByte(b[:min(len(b), BinarySniff)], 0) >= 0
}

// cut returns the offset just after the first newline at or after i (or the
// end of b).
func cut(b []byte, i int) int {
	if i >= len(b) {
		return len(b)
	}
	if i <= 0 {
		return 0
	}
	if j := bytes.IndexByte(b[i:], '\n'); j >= 0 {
		return i + j + 1
	}
	return len(b)
}

// pathAllowed reports whether one of the rule's allowlists allows the file.
func (r *rule) pathAllowed(path string) bool {
	for _, a := range r.allow {
		if a.pathAllowed(path) {
			return true
		}
	}
	return false
}

// find runs the rule on b[from:hi] as gitleaks' detectRule does: each match,
// trimmed of newlines, is matched again alone to take its secret group (or
// its first non-empty group), which must pass the rule's entropy and no
// allowlist may allow.
func (r *rule) find(rs *ruleSet, path string, b []byte, from, hi int) []Finding {
	if r.heur != nil {
		return r.findHeuristic(rs, path, b, from, hi)
	}
	text := b[from:hi]
	var fs []Finding
	for _, m := range r.regex().FindAllIndex(text, -1) {
		start, end := from+m[0], from+m[1]
		for start < end && b[start] == '\n' {
			start++
		}
		for end > start && b[end-1] == '\n' {
			end--
		}
		if start == end {
			continue
		}
		match := string(b[start:end])
		ls, le := lineStart(b, start), lineEnd(b, end)
		line := string(b[ls:le])
		if strings.Contains(line, allowSignature) {
			continue
		}
		s0, s1 := start, end
		if g := r.regex().FindStringSubmatchIndex(match); len(g) >= 4 {
			if r.secretGroup > 0 {
				if 2*r.secretGroup+1 >= len(g) || g[2*r.secretGroup] < 0 {
					continue
				}
				s0, s1 = start+g[2*r.secretGroup], start+g[2*r.secretGroup+1]
			} else {
				for i := 2; i+1 < len(g); i += 2 {
					if g[i] >= 0 && g[i+1] > g[i] {
						s0, s1 = start+g[i], start+g[i+1]
						break
					}
				}
			}
		}
		secret := string(b[s0:s1])
		if r.entropy != 0 && entropy(secret) <= r.entropy {
			continue
		}
		if allowed(rs.global, path, secret, match, line) || allowed(r.allow, path, secret, match, line) {
			continue
		}
		fs = append(fs, Finding{Rule: r.id, Start: s0, End: s1, Line: 1 + bytes.Count(b[:s0], []byte{'\n'})})
	}
	return fs
}

// findHeuristic runs a heuristic rule on b[from:hi]: its secrets, less
// those on a line saying gitleaks:allow and those gitleaks' global
// allowlist allows.
func (r *rule) findHeuristic(rs *ruleSet, path string, b []byte, from, hi int) []Finding {
	var fs []Finding
	for _, s := range r.heur(b, from, hi) {
		line := string(b[lineStart(b, s[0]):lineEnd(b, s[1])])
		secret := string(b[s[0]:s[1]])
		if strings.Contains(line, allowSignature) || allowed(rs.global, path, secret, secret, line) {
			continue
		}
		fs = append(fs, Finding{Rule: r.id, Start: s[0], End: s[1], Line: 1 + bytes.Count(b[:s[0]], nl)})
	}
	return fs
}

// allowed reports whether one of the allowlists allows a finding.
func allowed(as []*allowlist, path, secret, match, line string) bool {
	for _, a := range as {
		if a.findingAllowed(path, secret, match, line) {
			return true
		}
	}
	return false
}

func lineStart(b []byte, i int) int { return bytes.LastIndexByte(b[:i], '\n') + 1 }

func lineEnd(b []byte, i int) int {
	if j := bytes.IndexByte(b[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(b)
}

// entropy is gitleaks' Shannon entropy: counts by rune, frequencies by byte
// length, as gitleaks computes it (so thresholds mean what they mean there).
func entropy(s string) float64 {
	if s == "" {
		return 0
	}
	counts := map[rune]int{}
	for _, c := range s {
		counts[c]++
	}
	inv := 1 / float64(len(s))
	e := 0.0
	for _, n := range counts {
		f := float64(n) * inv
		e -= f * math.Log2(f)
	}
	return e
}

// settle sorts findings by start and merges overlapping ones: the union is
// named by the most specific rule (rank; gitleaks' filter keeps a specific
// rule's finding over a generic one's).
func settle(fs []Finding) []Finding {
	if len(fs) < 2 {
		return fs
	}
	sort.Slice(fs, func(i, j int) bool {
		if fs[i].Start != fs[j].Start {
			return fs[i].Start < fs[j].Start
		}
		if fs[i].End != fs[j].End {
			return fs[i].End > fs[j].End
		}
		return fs[i].Rule < fs[j].Rule
	})
	out := fs[:0]
	for _, f := range fs {
		if n := len(out); n > 0 && f.Start < out[n-1].End {
			prev := out[n-1]
			if rank(f.Rule) > rank(prev.Rule) { // the more specific rule names the union
				out[n-1].Rule = f.Rule
			}
			out[n-1].End = max(prev.End, f.End)
			continue
		}
		out = append(out, f)
	}
	return out
}
