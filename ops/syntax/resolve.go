package syntax

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/agnivade/levenshtein"

	"github.com/journalfs/journal/ops"
)

// maxNearest bounds the symbols an unknown path lists.
const maxNearest = 10

// Resolve finds the symbol at a dotted path such as "UserService.findById".
//
// A path matches a symbol whose Path equals it (Go methods are reached
// through their receiver, "UserService.findById"); failing that, a symbol
// whose Path ends with "."+path, so "findById" finds a unique method of any
// class. Names that contain dots (CSS selectors, TOML keys) match whole.
// A Rust impl block never hides the type it implements: "Point" resolves to
// the struct.
//
// Resolve never guesses. Every failure is an *ops.Error whose candidates
// are the paths to send instead ("kind path", or "kind path@LINE" where
// several symbols share a path), with a Retry {"target": path} when exactly
// one symbol is what the caller meant; the caller offers it, never takes it:
//
//   - several symbols match (overloads, duplicate names): ops.ErrAmbiguousMatch
//     listing them as name@LINE; a suffix "@LINE" ("findById@42") picks the
//     one whose declaration (or decoration) starts on that line. A line inside
//     exactly one of them, or the one symbol of that name, is the Retry.
//   - nothing matches: ops.ErrNoMatch listing up to 10 symbols, nearest
//     first (under the same parent, then by name similarity with case,
//     underscores and hyphens ignored, a name containing the other counting
//     as near). The Retry is the one symbol that is the same path written
//     differently (findByID, find_by_id or UserService::findById for
//     UserService.findById), else the one symbol of that name when the
//     requested parent does not exist (UserSvc.save → UserService.save).
func Resolve(o *FileOutline, path string) (*Symbol, error) {
	path = strings.TrimSpace(path)
	if path == "" {
		return nil, &ops.Error{Op: "resolve_symbol", Index: -1, Err: ops.ErrInvalidInput, Msg: "empty symbol path"}
	}
	path, line := splitLine(path)
	var all []*Symbol
	if o != nil {
		all = flatten(o.Symbols, nil)
	}
	named := byPath(all, path)
	if line > 0 {
		at := preferTypes(startingAt(named, line))
		switch {
		case len(at) == 1:
			return at[0], nil
		case len(at) > 1:
			return nil, ambiguous(all, at, path, line)
		case len(named) > 0:
			return nil, lineMiss(all, named, path, line)
		}
	}
	named = preferTypes(named)
	switch len(named) {
	case 1:
		return named[0], nil
	case 0:
		return nil, noMatch(all, path, line)
	}
	return nil, ambiguous(all, named, path, 0)
}

// Target returns the path that resolves to s in o: its Path, or Path@LINE
// when other symbols share that path (overloads, an impl block).
func Target(o *FileOutline, s *Symbol) string {
	if o == nil {
		return s.Path
	}
	return target(flatten(o.Symbols, nil), s)
}

func target(all []*Symbol, s *Symbol) string {
	for _, x := range all {
		if x != s && x.Path == s.Path && (s.Kind == KindImpl || x.Kind != KindImpl) {
			return fmt.Sprintf("%s@%d", s.Path, s.Range.StartLine)
		}
	}
	return s.Path
}

// Enclosing returns the innermost symbol whose full range (decorators and
// doc comments included) contains line, or nil.
func Enclosing(o *FileOutline, line int) *Symbol {
	if o == nil {
		return nil
	}
	var best *Symbol
	syms := o.Symbols
	for {
		var next *Symbol
		for i := range syms {
			s := &syms[i]
			if line >= s.Full.StartLine && line <= s.Range.EndLine {
				next = s
			}
		}
		if next == nil {
			return best
		}
		best, syms = next, next.Children
	}
}

// Flatten lists every symbol of the tree in source order, parents before
// children (the children stay attached).
func Flatten(syms []Symbol) []Symbol {
	var out []Symbol
	for _, s := range flatten(syms, nil) {
		out = append(out, *s)
	}
	return out
}

func flatten(syms []Symbol, out []*Symbol) []*Symbol {
	for i := range syms {
		out = append(out, &syms[i])
		out = flatten(syms[i].Children, out)
	}
	return out
}

// splitLine separates a "@LINE" suffix from path (0 when there is none).
func splitLine(path string) (string, int) {
	if i := strings.LastIndexByte(path, '@'); i > 0 {
		if n, err := strconv.Atoi(path[i+1:]); err == nil && n > 0 {
			return strings.TrimSpace(path[:i]), n
		}
	}
	return path, 0
}

// byPath returns the symbols whose Path is path, or failing those the ones
// whose Path ends with "."+path.
func byPath(all []*Symbol, path string) []*Symbol {
	var exact, suffix []*Symbol
	for _, s := range all {
		switch {
		case s.Path == path:
			exact = append(exact, s)
		case strings.HasSuffix(s.Path, "."+path):
			suffix = append(suffix, s)
		}
	}
	if len(exact) > 0 {
		return exact
	}
	return suffix
}

// startingAt keeps the symbols whose declaration or decoration starts on line.
func startingAt(syms []*Symbol, line int) []*Symbol {
	var at []*Symbol
	for _, s := range syms {
		if s.Range.StartLine == line || s.Full.StartLine == line {
			at = append(at, s)
		}
	}
	return at
}

// containing returns the innermost of syms whose full range holds line, if
// exactly one is innermost.
func containing(syms []*Symbol, line int) *Symbol {
	var best *Symbol
	tie := false
	for _, s := range syms {
		if line < s.Full.StartLine || line > s.Range.EndLine {
			continue
		}
		switch {
		case best == nil || span(s) < span(best):
			best, tie = s, false
		case span(s) == span(best):
			tie = true
		}
	}
	if tie {
		return nil
	}
	return best
}

func span(s *Symbol) int { return s.Range.EndLine - s.Full.StartLine }

// preferTypes drops impl blocks from several symbols when others remain.
func preferTypes(syms []*Symbol) []*Symbol {
	if len(syms) < 2 {
		return syms
	}
	var out []*Symbol
	for _, s := range syms {
		if s.Kind != KindImpl {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return syms
	}
	return out
}

// ambiguous is the error for several symbols matching path: they are
// listed as the paths that pick each one. A line hint (0 for none) inside
// exactly one of them makes that one the Retry.
func ambiguous(all, cands []*Symbol, path string, line int) *ops.Error {
	e := &ops.Error{
		Op: "resolve_symbol", Index: -1, Err: ops.ErrAmbiguousMatch,
		Msg:        fmt.Sprintf("%d symbols match %q: %s", len(cands), path, listed(all, cands, len(cands))),
		Hint:       fmt.Sprintf("name one by its start line, e.g. %q (the candidates are the paths to send)", target(all, cands[0])),
		Candidates: candidates(all, cands),
	}
	if line > 0 {
		e.Msg = fmt.Sprintf("%d symbols match %q on line %d: %s", len(cands), path, line, listed(all, cands, len(cands)))
	}
	return e
}

// lineMiss is the error for a path whose symbols exist but none starts on
// line: they are listed, and the one holding line — or the only one — is
// the Retry.
func lineMiss(all, named []*Symbol, path string, line int) *ops.Error {
	named = preferTypes(named)
	pick := containing(named, line)
	if pick == nil && len(named) == 1 {
		pick = named[0]
	}
	e := &ops.Error{
		Op: "resolve_symbol", Index: -1, Err: ops.ErrNoMatch,
		Msg:  fmt.Sprintf("no symbol %q starts on line %d; %s", path, line, listed(all, named, len(named))),
		Hint: "name the symbol by the line its declaration starts on, or without @LINE when its path is unique (the candidates are the paths to send)",
	}
	if len(named) > 1 {
		e.Err = ops.ErrAmbiguousMatch
		e.Msg = fmt.Sprintf("%d symbols match %q, none starting on line %d: %s", len(named), path, line, listed(all, named, len(named)))
	}
	if pick != nil {
		named = append([]*Symbol{pick}, without(named, pick)...)
		t := target(all, pick)
		e.Retry = map[string]any{"target": t}
		e.Hint = fmt.Sprintf("did you mean %s (lines %d-%d)? the retry names it; nothing was done", t, pick.Range.StartLine, pick.Range.EndLine)
	}
	e.Candidates = candidates(all, named)
	return e
}

// noMatch is the error for a path no symbol has: the nearest symbols, and
// the one that is the same name written differently as the Retry.
func noMatch(all []*Symbol, path string, line int) *ops.Error {
	e := &ops.Error{
		Op: "resolve_symbol", Index: -1, Err: ops.ErrNoMatch,
		Msg:  fmt.Sprintf("no symbol %q", path),
		Hint: "use one of the candidates (the paths that exist, nearest first), or read the file without a target for its outline",
	}
	if len(all) == 0 {
		e.Hint = "the file has no symbols: address it by lines"
	}
	near := nearest(all, path)
	s, why := confident(all, path, line)
	if s != nil {
		near = append([]*Symbol{s}, without(near, s)...)
		near = near[:min(len(near), maxNearest)]
		t := target(all, s)
		e.Retry = map[string]any{"target": t}
		e.Hint = fmt.Sprintf("did you mean %s (%s)? the retry names it; nothing was done", t, why)
	}
	e.Candidates = candidates(all, near)
	for i := range e.Candidates {
		e.Candidates[i].Similarity = similarity(near[i], path)
	}
	if len(near) > 0 {
		e.Msg += "; nearest: " + listed(all, near, 5)
	}
	if s != nil {
		e.Msg += fmt.Sprintf("; %s is %s", s.Path, why)
	}
	return e
}

// confident returns the one symbol the caller plainly meant by a path no
// symbol has, and why: the same path but for case, underscores, hyphens
// and separators ("::", "#", "->"), or the same name when the requested
// parent does not exist and only one symbol has that name. A line hint
// (0 for none) narrows several to the one holding it.
func confident(all []*Symbol, path string, line int) (*Symbol, string) {
	want := canonPath(path)
	var same []*Symbol
	for _, s := range all {
		if c := canonPath(s.Path); c == want || strings.HasSuffix(c, "."+want) {
			same = append(same, s)
		}
	}
	if s := one(preferTypes(same), line); s != nil {
		return s, "the same name written differently"
	}
	if len(same) > 0 {
		return nil, ""
	}
	parent, last := splitPath(path)
	if parent == "" {
		return nil, ""
	}
	cp := canonPath(parent)
	var named []*Symbol
	for _, s := range all {
		c := canonPath(s.Path)
		if c == cp || strings.HasSuffix(c, "."+cp) {
			return nil, "" // the parent exists: the name is not in it
		}
		if canonName(s.Name) == canonName(last) {
			named = append(named, s)
		}
	}
	if s := one(preferTypes(named), line); s != nil {
		where := "the top level"
		if p, _ := splitPath(s.Path); p != "" && s.Path != s.Name {
			where = p
		}
		return s, fmt.Sprintf("the only %s, under %s", s.Name, where)
	}
	return nil, ""
}

// one returns the only symbol of syms, or with a line hint the one that
// holds it.
func one(syms []*Symbol, line int) *Symbol {
	if len(syms) == 1 {
		return syms[0]
	}
	if line > 0 && len(syms) > 1 {
		if at := startingAt(syms, line); len(at) == 1 {
			return at[0]
		}
		return containing(syms, line)
	}
	return nil
}

// splitPath splits a dotted path into its parent and last segment.
func splitPath(path string) (parent, last string) {
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		return path[:i], path[i+1:]
	}
	return "", path
}

// parentPath is the path of s's parent ("" at the top level, and for names
// that hold dots themselves).
func parentPath(s *Symbol) string {
	if s.Path == s.Name || !strings.HasSuffix(s.Path, "."+s.Name) {
		return ""
	}
	return strings.TrimSuffix(s.Path, "."+s.Name)
}

// nearest ranks every symbol by closeness to path (see similarity) and
// returns up to maxNearest, nearest first.
func nearest(all []*Symbol, path string) []*Symbol {
	type scored struct {
		s   *Symbol
		sim float64
	}
	var ss []scored
	for _, s := range all {
		if s.Name != "" && s.Kind != KindImpl {
			ss = append(ss, scored{s, similarity(s, path)})
		}
	}
	sort.SliceStable(ss, func(i, j int) bool { return ss[i].sim > ss[j].sim })
	out := make([]*Symbol, 0, maxNearest)
	for _, x := range ss[:min(len(ss), maxNearest)] {
		out = append(out, x.s)
	}
	return out
}

// similarity is how near s is to the requested path, 0..1: the similarity
// of its name (see nameSimilarity) weighted 2:1 with that of its parent's
// path when path names a parent, so the symbols under the requested parent
// come first unless a name elsewhere is much nearer. Separators of other
// notations ("::", "#", "->") count as dots.
func similarity(s *Symbol, path string) float64 {
	parent, last := splitPath(dotted(path))
	sim := nameSimilarity(s.Name, last)
	if parent != "" {
		sim = (2*sim + pathSimilarity(parentPath(s), parent)) / 3
	}
	return math.Round(sim*1000) / 1000
}

// candidates lists syms as error candidates: the declaration's lines and
// "kind path" (path@LINE where several symbols share the path) — the text
// after the kind is what to send.
func candidates(all, syms []*Symbol) []ops.Candidate {
	out := make([]ops.Candidate, 0, len(syms))
	for _, s := range syms {
		out = append(out, ops.Candidate{Line: s.Range.StartLine, EndLine: s.Range.EndLine, Text: string(s.Kind) + " " + target(all, s)})
	}
	return out
}

// listed renders up to n of syms for a message: "path (kind, lines a-b)".
func listed(all, syms []*Symbol, n int) string {
	var parts []string
	for _, s := range syms[:min(len(syms), n)] {
		parts = append(parts, fmt.Sprintf("%s (%s, lines %d-%d)", target(all, s), s.Kind, s.Range.StartLine, s.Range.EndLine))
	}
	if len(syms) > n {
		parts = append(parts, fmt.Sprintf("%d more", len(syms)-n))
	}
	return strings.Join(parts, ", ")
}

// without returns syms without s.
func without(syms []*Symbol, s *Symbol) []*Symbol {
	var out []*Symbol
	for _, x := range syms {
		if x != s {
			out = append(out, x)
		}
	}
	return out
}

// canonName folds a name for comparison: lower case, without the
// underscores and hyphens of snake_case and kebab-case.
func canonName(s string) string {
	return strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(s))
}

// canonPath folds a path: the separators of other notations become dots
// and every segment is folded by canonName.
func canonPath(p string) string { return canonName(dotted(p)) }

// dotted turns the separators of other notations ("::", "#", "->") into dots.
func dotted(p string) string { return strings.NewReplacer("::", ".", "#", ".", "->", ".").Replace(p) }

// nameSimilarity is 1 - levenshtein/length of the folded names, raised for
// a name that contains the other (find → find_by_id).
func nameSimilarity(a, b string) float64 {
	a, b = canonName(a), canonName(b)
	if a == b {
		return 1
	}
	la, lb := len([]rune(a)), len([]rune(b))
	n := max(la, lb)
	if n == 0 {
		return 0
	}
	sim := 1 - float64(levenshtein.ComputeDistance(a, b))/float64(n)
	if short := min(la, lb); short >= 3 && (strings.Contains(a, b) || strings.Contains(b, a)) {
		sim = max(sim, 0.5+0.4*float64(short)/float64(n))
	}
	return sim
}

// pathSimilarity is 1 - levenshtein/length of the folded paths (a nested
// path does not count as near its prefix).
func pathSimilarity(a, b string) float64 {
	a, b = canonPath(a), canonPath(b)
	if a == b {
		return 1
	}
	n := max(len([]rune(a)), len([]rune(b)))
	return 1 - float64(levenshtein.ComputeDistance(a, b))/float64(n)
}
