package mcp

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/journalfs/journal/ops"
	"github.com/journalfs/journal/ops/syntax"
	"github.com/journalfs/journal/replay"
)

// openLarge opens a file for the large-file tools and records that the
// session saw its version. The caller closes the view.
func (s *Server) openLarge(c *call, path string) (*ltext, error) {
	v, err := s.eng.View(path, mmapLimit)
	if err != nil {
		return nil, err
	}
	t, err := openText(v)
	if err != nil {
		v.Close()
		return nil, err
	}
	t.progress = c.progress
	s.saw(c.session, v.Path.Key, v.ID)
	if v.Strategy == replay.StrategyMemory {
		s.reads.remember(v.ID, v.Data)
	}
	return t, nil
}

var outlineCache = newLRU[*syntax.FileOutline](32)

// outline returns the file's outline (cached by content hash and name), or
// nil for files read in place (too large to parse) and unknown languages.
func (t *ltext) outline() *syntax.FileOutline {
	if t.v.Strategy != replay.StrategyMemory {
		return nil
	}
	key := t.v.ID.String() + "\x00" + t.v.Path.Rel
	if o, ok := outlineCache.get(key); ok {
		return o
	}
	o, err := syntax.Outline(t.v.Path.Rel, t.data)
	if err != nil || !o.Supported {
		o = nil
	}
	outlineCache.put(key, o)
	return o
}

func (s *Server) overview(c *call, in *OverviewIn) (*OverviewOut, string, error) {
	t, err := s.openLarge(c, in.AbsoluteFilePath)
	if err != nil {
		return nil, "", err
	}
	defer t.v.Close()
	li, err := t.index()
	if err != nil {
		return nil, "", err
	}
	out := &OverviewOut{FilePath: t.v.Path.Key, Version: version(t.v.ID), LineCount: li.lines, FileSize: t.v.Size,
		Encoding: t.enc.String(), BOM: t.bom, LineEndings: li.eolName(), FinalNewline: li.finalNL,
		HasLongLines: li.long > 0, LongLines: li.long, MaxLineLength: li.maxLen, Access: string(t.v.Strategy), Outline: []OutlineItem{}}
	out.Language = syntax.Detect(t.v.Path.Rel, nil)
	if o := t.outline(); o != nil {
		out.Language = o.Language
		out.Outline = flatOutline(o.Symbols)
	} else {
		if t.v.Strategy != replay.StrategyMemory {
			out.Note = "too large to parse: no outline; the summary samples lines across the file"
		}
		if out.Summary, err = t.summary(li); err != nil {
			return nil, "", err
		}
	}
	out.SearchHints = searchHints(out.Language, len(out.Outline) == 0)
	var b strings.Builder
	fmt.Fprintf(&b, "%s (version %s): %d lines, %d bytes, %s", out.FilePath, out.Version, out.LineCount, out.FileSize, out.Encoding)
	if out.BOM {
		b.WriteString(" with BOM")
	}
	fmt.Fprintf(&b, ", %s line endings", out.LineEndings)
	if !out.FinalNewline && out.LineCount > 0 {
		b.WriteString(", no final newline")
	}
	if out.HasLongLines {
		fmt.Fprintf(&b, ", %d long lines (longest %d bytes)", out.LongLines, out.MaxLineLength)
	}
	fmt.Fprintf(&b, "; read by %s\n", out.Access)
	if out.Note != "" {
		b.WriteString(out.Note + "\n")
	}
	if len(out.Outline) > 0 {
		fmt.Fprintf(&b, "outline (%s):\n", out.Language)
		writeOutline(&b, out.Outline)
	}
	for _, l := range out.Summary {
		b.WriteString("  " + l + "\n")
	}
	fmt.Fprintf(&b, "search hints: %s\n", strings.Join(out.SearchHints, " | "))
	return out, b.String(), nil
}

// summary samples up to 12 lines evenly across the file, cut to 160 bytes.
func (t *ltext) summary(li *lineIdx) ([]string, error) {
	const samples, width = 12, 160
	var out []string
	step := max(li.lines/samples, 1)
	for n := 1; n <= li.lines && len(out) < samples; n += step {
		ls, err := t.lines(li, n, n, width*4)
		if err != nil {
			return nil, err
		}
		for _, l := range ls {
			text := l.text
			if len(text) > width {
				text = text[:width] + "…"
			}
			out = append(out, fmt.Sprintf("%d: %s", l.n, text))
		}
	}
	return out, nil
}

// searchHints suggests first patterns for search_content.
func searchHints(lang string, plain bool) []string {
	hints := map[string][]string{
		"go": {"func ", "type ", "import"}, "python": {"def ", "class ", "import "},
		"javascript": {"function ", "class ", "export "}, "typescript": {"function ", "class ", "interface ", "export "},
		"tsx": {"function ", "export ", "return ("}, "java": {"class ", "public ", "import "}, "kotlin": {"fun ", "class "},
		"rust": {"fn ", "struct ", "impl ", "use "}, "c": {"#include", "struct ", "static "}, "cpp": {"class ", "#include", "::"},
		"csharp": {"class ", "public ", "using "}, "ruby": {"def ", "class ", "module "}, "php": {"function ", "class "},
		"markdown": {"# ", "## ", "```"}, "json": {"\"id\"", "\"name\""}, "yaml": {"name:", "- "}, "clojure": {"(defn ", "(ns "},
	}[lang]
	if plain {
		hints = append(hints, "ERROR", "WARN")
	}
	return append(hints, "TODO", "FIXME")
}

// parseTarget reads read_content's target: a line number or a string.
func parseTarget(v any) (line int, text string, err error) {
	switch x := v.(type) {
	case nil:
		return 0, "", nil
	case float64:
		if x != float64(int(x)) || x < 1 {
			return 0, "", invalid("target is a 1-based line number, a symbol name or a pattern", "target %v is not a line number", x)
		}
		return int(x), "", nil
	case string:
		if n, err := strconv.Atoi(strings.TrimSpace(x)); err == nil && n >= 1 {
			return n, "", nil
		}
		if x == "" {
			return 0, "", invalid("give a line number, a symbol name or a pattern", "target is empty")
		}
		return 0, x, nil
	}
	return 0, "", invalid("target is a 1-based line number, a symbol name or a pattern", "target of type %T", v)
}

// locate turns a target into a line (and the symbol it named, if any).
func (s *Server) locate(t *ltext, li *lineIdx, target any) (int, *syntax.Symbol, error) {
	line, text, err := parseTarget(target)
	if err != nil {
		return 0, nil, err
	}
	switch {
	case text == "" && line == 0:
		return 1, nil, nil
	case text == "":
		if line > max(li.lines, 1) {
			return 0, nil, invalid(fmt.Sprintf("the file has %d lines", li.lines), "line %d is past the end of the file", line)
		}
		return line, nil, nil
	}
	var symErr *ops.Error // why text is not a symbol of the file, if it looks like one
	if o := t.outline(); o != nil {
		sym, err := syntax.Resolve(o, text)
		if err == nil {
			return sym.Full.StartLine, sym, nil
		}
		if symbolLike(text) {
			errors.As(err, &symErr)
		}
	}
	res, err := t.search(text, searchOpts{max: 1})
	if err != nil {
		return 0, nil, err
	}
	if len(res.Hits) > 0 {
		return res.Hits[0].Line, nil, nil
	}
	if symErr != nil && errors.Is(symErr, ops.ErrAmbiguousMatch) {
		e := *symErr
		e.Path = t.v.Path.Rel
		return 0, nil, &e
	}
	e := &ops.Error{Op: "read_content", Index: -1, Path: t.v.Path.Rel, Err: ops.ErrNoMatch,
		Msg:  fmt.Sprintf("target %q is neither a line number, a symbol of the file nor text found in it", text),
		Hint: "use get_overview for symbols, or search_content to find the text"}
	if symErr != nil {
		// A name: the symbols that exist, nearest first, and the one meant
		// as the retry (read_content's own arguments, target corrected).
		e.Msg += "; as a symbol: " + symErr.Msg
		e.Candidates = append(e.Candidates, symErr.Candidates...)
		if symErr.Retry != nil {
			e.Hint, e.Retry = symErr.Hint, symErr.Retry
		}
	}
	if t.data != nil {
		if near, err := t.search(text, searchOpts{max: 3, fuzzy: true}); err == nil {
			for _, h := range near.Hits {
				e.Candidates = append(e.Candidates, ops.Candidate{Line: h.Line, Similarity: h.Similarity, Text: h.Text})
			}
		}
	}
	return 0, nil, e
}

// symbolLike reports whether a read_content target reads as a symbol path
// (identifiers joined by dots or ::, an optional @LINE) rather than text.
func symbolLike(target string) bool {
	if target == "" || strings.ContainsAny(target, " \t\r\n(){}[];,='\"") {
		return false
	}
	return strings.IndexFunc(target, func(r rune) bool { return unicode.IsLetter(r) || r == '_' }) >= 0
}
