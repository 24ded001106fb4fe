package secrets

import (
	"bytes"
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
	rs := rules()
	for _, a := range rs.global {
		if a.pathAllowed(path) {
			return nil
		}
	}
	var fs []Finding
	for _, r := range rs.rules {
		if r.src == "" && r.path != nil && path != "" && r.path.MatchString(path) && !r.pathAllowed(path) {
			fs = append(fs, Finding{Rule: r.id, Start: 0, End: len(b), Line: 1})
		}
	}
	if len(b) == 0 || len(b) > MaxSize || IsBinary(b) {
		return fs
	}
	seen := map[[2]int]bool{}
	hits := make([][]int, len(rs.keywords))
	var at []int
	for lo := 0; lo < len(b); {
		hi := cut(b, lo+window)
		from := lo
		if lo > 0 {
			from = cut(b, lo-overlap)
		}
		for i := range hits {
			hits[i] = hits[i][:0]
		}
		rs.trie.hits(b[from:hi], func(end, k int) { hits[k] = append(hits[k], from+end-1) })
		var lines lineIndex
		base := 0 // the line of from, when c is used
		if c != nil {
			base = 1 + bytes.Count(b[:from], []byte{'\n'})
		}
		for ri, r := range rs.rules {
			if r.src == "" || (r.path != nil && (path == "" || !r.path.MatchString(path))) || r.pathAllowed(path) {
				continue
			}
			at = at[:0]
			for _, k := range r.keywords {
				at = append(at, hits[k]...)
			}
			if len(r.keywords) > 0 && len(at) == 0 {
				continue
			}
			regions := [][2]int{{from, hi}}
			if len(r.keywords) > 0 && r.lines() != unbounded {
				if lines == nil {
					lines = newLineIndex(b[from:hi], from)
				}
				sort.Ints(at)
				regions = lines.regions(at, r.lines(), hi)
			}
			for _, rg := range regions {
				var got []Finding
				switch {
				case c != nil && rg[0] == from:
					got = c.find(ri, r, rs, path, b, rg, base)
				case c != nil: // a region of lines: lines is built
					got = c.find(ri, r, rs, path, b, rg, base+lines.line(rg[0]))
				default:
					got = r.find(rs, path, b, rg[0], rg[1])
				}
				for _, f := range got {
					k := [2]int{ri, f.Start}
					if !seen[k] {
						seen[k] = true
						fs = append(fs, f)
					}
				}
			}
		}
		lo = hi
	}
	return settle(fs)
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

// settle sorts findings by start and drops a generic rule's finding that
// overlaps a specific rule's (gitleaks' filter keeps the specific one), then
// any finding inside another.
func settle(fs []Finding) []Finding {
	if len(fs) < 2 {
		return fs
	}
	sort.Slice(fs, func(i, j int) bool {
		if fs[i].Start != fs[j].Start {
			return fs[i].Start < fs[j].Start
		}
		return fs[i].End > fs[j].End
	})
	generic := func(f Finding) bool { return strings.Contains(f.Rule, "generic") }
	out := fs[:0]
	for _, f := range fs {
		if n := len(out); n > 0 && f.Start < out[n-1].End {
			prev := out[n-1]
			if generic(prev) && !generic(f) { // the specific rule names the union
				out[n-1].Rule = f.Rule
			}
			out[n-1].End = max(prev.End, f.End)
			continue
		}
		out = append(out, f)
	}
	return out
}
