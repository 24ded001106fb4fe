package syntax

import (
	"encoding/json"
	"strconv"
	"strings"
)

// JSON and Markdown are outlined by small scanners: smacker/go-tree-sitter
// bundles no JSON grammar, and Markdown headings need no parser.

// jsonScanner outlines object keys (KindKey) and container array elements
// (KindKey named "[i]"). It tolerates // and /* */ comments (JSONC) and stops
// at the first syntax error, keeping what it has.
type jsonScanner struct {
	t     *text
	i     int
	bad   bool
	depth int
}

func outlineJSON(t *text) ([]Symbol, bool) {
	s := &jsonScanner{t: t}
	s.ws()
	syms := s.value()
	s.ws()
	if s.i < len(t.src) {
		s.bad = true
	}
	return syms, s.bad
}

func (s *jsonScanner) ws() {
	src := s.t.src
	for s.i < len(src) {
		switch {
		case isSpace(src[s.i]):
			s.i++
		case strings.HasPrefix(string(src[s.i:min(s.i+2, len(src))]), "//"):
			for s.i < len(src) && src[s.i] != '\n' {
				s.i++
			}
		case strings.HasPrefix(string(src[s.i:min(s.i+2, len(src))]), "/*"):
			end := strings.Index(string(src[s.i+2:]), "*/")
			if end < 0 {
				s.i, s.bad = len(src), true
				return
			}
			s.i += end + 4
		default:
			return
		}
	}
}

// value scans one value and returns the symbols inside it.
func (s *jsonScanner) value() []Symbol {
	src := s.t.src
	if s.i >= len(src) || s.bad {
		s.bad = true
		return nil
	}
	if s.depth > 1000 {
		s.bad = true
		return nil
	}
	switch src[s.i] {
	case '{':
		s.depth++
		defer func() { s.depth-- }()
		return s.object()
	case '[':
		s.depth++
		defer func() { s.depth-- }()
		return s.array()
	case '"':
		s.str()
	default:
		start := s.i
		for s.i < len(src) && !isSpace(src[s.i]) && !strings.ContainsRune(",]}:", rune(src[s.i])) {
			s.i++
		}
		if s.i == start {
			s.bad = true
		}
	}
	return nil
}

func (s *jsonScanner) object() []Symbol {
	src := s.t.src
	var out []Symbol
	s.i++ // {
	for {
		s.ws()
		if s.i >= len(src) {
			s.bad = true
			return out
		}
		if src[s.i] == '}' {
			s.i++
			return out
		}
		start := s.i
		if src[s.i] != '"' {
			s.bad = true
			return out
		}
		key := s.str()
		s.ws()
		if s.i >= len(src) || src[s.i] != ':' {
			s.bad = true
			return out
		}
		s.i++
		s.ws()
		children := s.value()
		out = append(out, Symbol{Name: key, Kind: KindKey, Range: s.t.span(start, s.i), Children: children})
		if s.bad {
			return out
		}
		s.ws()
		if s.i < len(src) && src[s.i] == ',' {
			s.i++
		}
	}
}

func (s *jsonScanner) array() []Symbol {
	src := s.t.src
	var out []Symbol
	s.i++ // [
	for idx := 0; ; idx++ {
		s.ws()
		if s.i >= len(src) {
			s.bad = true
			return out
		}
		if src[s.i] == ']' {
			s.i++
			return out
		}
		start := s.i
		container := src[s.i] == '{' || src[s.i] == '['
		children := s.value()
		if container {
			out = append(out, Symbol{Name: "[" + strconv.Itoa(idx) + "]", Kind: KindKey, Range: s.t.span(start, s.i), Children: children})
		}
		if s.bad {
			return out
		}
		s.ws()
		if s.i < len(src) && src[s.i] == ',' {
			s.i++
		}
	}
}

// str scans a string literal and returns its unescaped value.
func (s *jsonScanner) str() string {
	src := s.t.src
	start := s.i
	s.i++
	for s.i < len(src) && src[s.i] != '"' {
		if src[s.i] == '\\' {
			s.i++
		}
		s.i++
	}
	if s.i >= len(src) {
		s.bad = true
		return string(src[start+1:])
	}
	s.i++
	raw := src[start:s.i]
	var v string
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw[1 : len(raw)-1])
	}
	return v
}

// outlineMarkdown outlines ATX ("## Title") and setext (underlined) headings,
// nested by level. A heading's range runs to the line before the next heading
// of the same or a higher level. Fenced code blocks and front matter are skipped.
func outlineMarkdown(t *text) []Symbol {
	type heading struct {
		level, line int
		name        string
	}
	var hs []heading
	n := t.lines()
	lineText := func(l int) string {
		end := len(t.src)
		if l < len(t.starts) {
			end = t.starts[l] - 1
		}
		return strings.TrimRight(string(t.src[t.starts[l-1]:end]), "\r")
	}
	fence := ""
	for l := 1; l <= n; l++ {
		raw := lineText(l)
		line := strings.TrimLeft(raw, " ")
		if len(raw)-len(line) > 3 {
			continue // indented code
		}
		if l == 1 && line == "---" { // YAML front matter
			for l++; l <= n && strings.TrimSpace(lineText(l)) != "---"; l++ {
			}
			continue
		}
		if fence != "" {
			if strings.HasPrefix(line, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~") {
			fence = line[:3]
			continue
		}
		if lvl := len(line) - len(strings.TrimLeft(line, "#")); lvl >= 1 && lvl <= 6 && (len(line) == lvl || line[lvl] == ' ' || line[lvl] == '\t') {
			name := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(line[lvl:]), "#"))
			hs = append(hs, heading{lvl, l, name})
			continue
		}
		trimmed := strings.TrimSpace(line)
		if l > 1 && trimmed != "" && (strings.Trim(trimmed, "=") == "" || strings.Trim(trimmed, "-") == "") {
			prev := strings.TrimSpace(lineText(l - 1))
			if prev != "" && !strings.HasPrefix(prev, "#") && (len(hs) == 0 || hs[len(hs)-1].line != l-1) {
				lvl := 1
				if trimmed[0] == '-' {
					lvl = 2
				}
				hs = append(hs, heading{lvl, l - 1, prev})
			}
		}
	}
	var build func(i, parentLevel int) ([]Symbol, int)
	build = func(i, parentLevel int) ([]Symbol, int) {
		var out []Symbol
		for i < len(hs) && hs[i].level > parentLevel {
			h := hs[i]
			children, next := build(i+1, h.level)
			end := n
			if next < len(hs) {
				end = hs[next].line - 1
			}
			endByte := len(t.src)
			if end < len(t.starts) {
				endByte = t.starts[end]
			}
			sp := t.span(t.starts[h.line-1], endByte)
			out = append(out, Symbol{Name: h.name, Kind: KindHeading, Range: sp, Children: children})
			i = next
		}
		return out, i
	}
	syms, _ := build(0, 0)
	return syms
}
