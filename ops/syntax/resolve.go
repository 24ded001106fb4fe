package syntax

import (
	"fmt"
	"strconv"
	"strings"

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
		return nil, &ops.Error{
			Op: "resolve_symbol", Index: -1, Err: ops.ErrNoMatch,
			Msg:        fmt.Sprintf("no symbol %q", path),
			Hint:       "use a path from the outline, e.g. Class.method",
			Candidates: similar(all, path),
		}
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

// similar offers up to 10 symbols whose name shares the last segment of
// path, case-insensitively, in either direction of containment.
func similar(all []*Symbol, path string) []ops.Candidate {
	last := strings.ToLower(path[strings.LastIndexByte(path, '.')+1:])
	var out []*Symbol
	for _, s := range all {
		name := strings.ToLower(s.Name)
		if name != "" && (strings.Contains(name, last) || strings.Contains(last, name)) {
			out = append(out, s)
			if len(out) == 10 {
				break
			}
		}
	}
	return candidates(out)
}
