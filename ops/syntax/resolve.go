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

// Resolve finds the symbol at a dotted path such as "UserService.findById".
//
// A path matches a symbol whose Path equals it (Go methods are reached
// through their receiver, "UserService.findById"); failing that, a symbol
// whose Path ends with "."+path, so "findById" finds a unique method of any
// class. Names that contain dots (CSS selectors, TOML keys) match whole.
// When several symbols match (overloads, duplicate names) the error is an
// *ops.Error wrapping ops.ErrAmbiguousMatch that lists them; a suffix
// "@LINE" ("findById@42") picks the one starting on that line. A Rust impl
// block never hides the type it implements: "Point" resolves to the struct.
// A path that matches nothing yields ops.ErrNoMatch with similar names.
func Resolve(o *FileOutline, path string) (*Symbol, error) {
	path = strings.TrimSpace(path)
	if path == "" {
		return nil, &ops.Error{Op: "resolve_symbol", Index: -1, Err: ops.ErrInvalidInput, Msg: "empty symbol path"}
	}
	line := 0
	if i := strings.LastIndexByte(path, '@'); i > 0 {
		if n, err := strconv.Atoi(path[i+1:]); err == nil && n > 0 {
			path, line = path[:i], n
		}
	}
	var all []*Symbol
	if o != nil {
		all = flatten(o.Symbols, nil)
	}
	var exact, suffix []*Symbol
	for _, s := range all {
		switch {
		case s.Path == path:
			exact = append(exact, s)
		case strings.HasSuffix(s.Path, "."+path):
			suffix = append(suffix, s)
		}
	}
	cands := exact
	if len(cands) == 0 {
		cands = suffix
	}
	if line > 0 {
		var at []*Symbol
		for _, s := range cands {
			if s.Range.StartLine == line || s.Full.StartLine == line {
				at = append(at, s)
			}
		}
		cands = at
	}
	if len(cands) > 1 {
		var nonImpl []*Symbol
		for _, s := range cands {
			if s.Kind != KindImpl {
				nonImpl = append(nonImpl, s)
			}
		}
		if len(nonImpl) > 0 {
			cands = nonImpl
		}
	}
	switch len(cands) {
	case 1:
		return cands[0], nil
	case 0:
		e := &ops.Error{
			Op: "resolve_symbol", Index: -1, Err: ops.ErrNoMatch,
			Msg:        fmt.Sprintf("no symbol %q", path),
			Hint:       "use a path from the outline, e.g. Class.method (the nearest symbols are listed, nearest first)",
			Candidates: similar(all, path),
		}
		if len(e.Candidates) > 0 {
			var names []string
			for _, c := range e.Candidates[:min(len(e.Candidates), 5)] {
				names = append(names, c.Text)
			}
			e.Msg += "; nearest: " + strings.Join(names, ", ")
		}
		if s := sameSymbol(all, path); s != nil {
			e.Msg += fmt.Sprintf("; %s is the same name written differently", s.Path)
			e.Hint = fmt.Sprintf("did you mean %s? retry names it", s.Path)
			e.Retry = map[string]any{"target": s.Path}
		}
		return nil, e
	}
	return nil, &ops.Error{
		Op: "resolve_symbol", Index: -1, Err: ops.ErrAmbiguousMatch,
		Msg:        fmt.Sprintf("%d symbols match %q", len(cands), path),
		Hint:       fmt.Sprintf("qualify the path or add the start line, e.g. %q", fmt.Sprintf("%s@%d", path, cands[0].Range.StartLine)),
		Candidates: candidates(cands),
	}
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

func candidates(syms []*Symbol) []ops.Candidate {
	out := make([]ops.Candidate, 0, len(syms))
	for _, s := range syms {
		out = append(out, ops.Candidate{Line: s.Range.StartLine, EndLine: s.Range.EndLine, Text: string(s.Kind) + " " + s.Path})
	}
	return out
}

// similar offers up to 10 symbols nearest to path, nearest first: those
// under the same parent first, then by the similarity of their names with
// case and underscores ignored (findByID and find_by_id for findById).
func similar(all []*Symbol, path string) []ops.Candidate {
	parent, last := "", path
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		parent, last = path[:i], path[i+1:]
	}
	type scored struct {
		s     *Symbol
		score float64
	}
	var ss []scored
	for _, s := range all {
		if s.Name == "" || s.Kind == KindImpl {
			continue
		}
		sc := nameSimilarity(s.Name, last)
		if parent != "" && strings.TrimSuffix(s.Path, "."+s.Name) == parent {
			sc += 1
		}
		ss = append(ss, scored{s, sc})
	}
	sort.SliceStable(ss, func(i, j int) bool { return ss[i].score > ss[j].score })
	out := make([]ops.Candidate, 0, 10)
	for _, x := range ss[:min(len(ss), 10)] {
		c := candidates([]*Symbol{x.s})[0]
		c.Similarity = math.Round(min(x.score, 1)*1000) / 1000
		out = append(out, c)
	}
	return out
}

// canonName folds a name for comparison: lower case, no underscores.
func canonName(s string) string { return strings.ToLower(strings.ReplaceAll(s, "_", "")) }

// nameSimilarity is 1 - levenshtein/len of the folded names.
func nameSimilarity(a, b string) float64 {
	a, b = canonName(a), canonName(b)
	if a == b {
		return 1
	}
	n := max(len([]rune(a)), len([]rune(b)))
	if n == 0 {
		return 0
	}
	return 1 - float64(levenshtein.ComputeDistance(a, b))/float64(n)
}

// sameSymbol returns the one symbol whose path equals path but for the case
// and underscores of its names, if exactly one does.
func sameSymbol(all []*Symbol, path string) *Symbol {
	var found *Symbol
	for _, s := range all {
		if canonName(s.Path) == canonName(path) || strings.HasSuffix(canonName(s.Path), "."+canonName(path)) {
			if found != nil && found != s {
				return nil
			}
			found = s
		}
	}
	return found
}
