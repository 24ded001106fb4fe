package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/journalfs/journal/ops"
	"github.com/journalfs/journal/ops/syntax"
)

// FileReadIn is file_read's input (seed 000).
type FileReadIn struct {
	File            string `json:"file"`
	Target          string `json:"target,omitempty" jsonschema:"a dotted path (A.b); name@LINE picks one"`
	StartLine       *int   `json:"startLine,omitempty"`
	EndLine         *int   `json:"endLine,omitempty"`
	IncludeMetadata *bool  `json:"includeMetadata,omitempty" jsonschema:"default true"`
	MaxDepth        *int   `json:"maxDepth,omitempty"`
}

// LineRange is an inclusive range of 1-indexed lines.
type LineRange struct {
	StartLine int `json:"startLine"`
	EndLine   int `json:"endLine"`
}

// SymbolRef names a symbol.
type SymbolRef struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
}

// SymbolMeta is the metadata of a symbol read by target.
type SymbolMeta struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
	Path string `json:"path"`
	// Range is the declaration; FullRange adds its decorators, attributes
	// and doc comments (the lines file_read returns).
	Range     LineRange  `json:"range"`
	FullRange LineRange  `json:"fullRange"`
	Parent    *SymbolRef `json:"parent,omitempty"`
	Children  []string   `json:"children,omitempty"`
	Siblings  []string   `json:"siblings,omitempty"`
}

// FileReadResult is seed 000's FileReadResult plus the version. The content
// itself is in the text result, not repeated here.
type FileReadResult struct {
	File       string        `json:"file"`
	Version    string        `json:"version"`
	Language   string        `json:"language,omitempty"`
	Range      LineRange     `json:"range"`
	TotalLines int           `json:"totalLines"`
	Symbol     *SymbolMeta   `json:"symbol,omitempty"`
	Outline    []OutlineItem `json:"outline,omitempty"`
	More       string        `json:"more,omitempty"` // how to read on
}

func init() { registrars = append(registrars, (*Server).registerSemantic) }

func (s *Server) registerSemantic() {
	addTool(s, def{name: "file_read", toolset: ToolsetSemantic, title: "Read a symbol or lines",
		desc:     "Read a symbol by name (target) with its doc comments, kind, range, parent and children; else lines startLine..endLine or the whole file, paged. The code is in the text result. NO_MATCH lists the symbols that exist, with a retry when one is plainly meant.",
		readOnly: true, idempotent: true},
		func(ctx context.Context, c *call, in *FileReadIn) (*FileReadResult, string, error) {
			return s.fileRead(c, in)
		})
	addTool(s, def{name: "file_edit", toolset: ToolsetSemantic, title: "Edit a symbol with a safety layer",
		desc:        "Replace a symbol (target), lines (startLine/endLine) or the whole file with code, as-is; its decorators and doc comments stay unless code has its own. New syntax errors are refused with SYNTAX_ERROR unless allowSyntaxErrors. With a language server, a rename reaches every reference in the same event, and new errors are reported.",
		destructive: true},
		func(ctx context.Context, c *call, in *FileEditIn) (*FileEditResult, string, error) {
			return s.fileEdit(ctx, c, in)
		})
}

func (s *Server) fileRead(c *call, in *FileReadIn) (*FileReadResult, string, error) {
	src, err := loadSource(s.eng.Read(in.File))
	if err != nil {
		return nil, "", err
	}
	f, d := src.file, src.doc
	s.saw(c.session, f.Path.Key, f.ID)
	s.reads.remember(f.ID, f.Data)
	out := &FileReadResult{File: f.Path.Key, Version: version(f.ID), TotalLines: d.LineCount()}
	meta := in.IncludeMetadata == nil || *in.IncludeMetadata
	ol, _ := syntax.Outline(f.Path.Rel, []byte(src.text))
	if ol != nil && ol.Supported {
		out.Language = ol.Language
	}
	start, end := 1, out.TotalLines
	switch {
	case in.Target != "":
		if ol == nil || !ol.Supported {
			return nil, "", invalid("use startLine/endLine for this file", "no symbol outline for %s (language not recognised)", f.Path.Rel)
		}
		sym, err := resolveSymbol(ol, f.Path.Rel, in.Target, in.StartLine, in)
		if err != nil {
			return nil, "", err
		}
		start, end = sym.Full.StartLine, sym.Full.EndLine
		if meta {
			out.Symbol = symbolMeta(ol, sym, in.MaxDepth)
		}
	case in.StartLine != nil || in.EndLine != nil:
		if in.StartLine != nil {
			start = *in.StartLine
		}
		if in.EndLine != nil {
			end = *in.EndLine
		}
		if start < 1 || start > max(out.TotalLines, 1) || end < start {
			return nil, "", invalid(fmt.Sprintf("the file has %d lines; lines are 1-indexed and startLine ≤ endLine", out.TotalLines), "lines %d-%d are out of range", start, end)
		}
		end = min(end, out.TotalLines)
	default:
		if meta && ol != nil && ol.Supported {
			out.Outline = depthLimited(flatOutline(ol.Symbols), in.MaxDepth)
		}
	}
	var code strings.Builder
	budget := s.opts.ResultCap - 2000
	for n := start; n <= end; n++ {
		line := d.Line(n) + "\n"
		if code.Len()+len(line) > budget && n > start {
			out.More = fmt.Sprintf("result cap reached: call again with startLine=%d", n)
			end = n - 1
			break
		}
		if room := max(budget, s.opts.ResultCap/2); len(line) > room { // one line longer than a result: its start
			shown := line[:runeStartString(line, room)]
			code.WriteString(shown + "\n")
			out.More = fmt.Sprintf("line %d is %d bytes, longer than a result: its first %d are shown", n, len(line)-1, len(shown))
			if s.enabled(ToolsetLargefile, "read_content") {
				out.More += fmt.Sprintf("; read_content with target=%d and column=%d reads it on", n, len(shown))
			}
			if n < end {
				out.More += fmt.Sprintf("; the next lines: call again with startLine=%d", n+1)
			}
			end = n
			break
		}
		code.WriteString(line)
	}
	out.Range = LineRange{StartLine: start, EndLine: end}
	if out.TotalLines == 0 {
		out.Range = LineRange{}
	}
	return out, readText(out, in.Target, code.String()), nil
}

// runeStartString moves i back to the start of the UTF-8 character it falls
// in, so s[:i] ends on a whole character.
func runeStartString(s string, i int) int {
	for k := 0; k < 3 && i > 0 && i < len(s) && s[i]&0xC0 == 0x80; k++ {
		i--
	}
	return i
}

// resolveSymbol resolves the symbol path target of a file_read or
// file_edit call whose decoded input is in (its "target" argument). A
// failure is the resolver's *ops.Error — the existing symbols nearest
// first, or the several of that name as name@LINE — given the file's name
// rel; when the resolver is sure which one symbol was meant (the same name
// written differently, a line that picks one of several), it carries the
// same call with target corrected as a retry, offered and never taken.
// hint, when set, is a line the caller gave besides target (startLine): it
// picks one of several symbols as target@LINE would, as a retry only.
func resolveSymbol(ol *syntax.FileOutline, rel, target string, hint *int, in any) (*syntax.Symbol, error) {
	sym, err := syntax.Resolve(ol, target)
	if err == nil {
		return sym, nil
	}
	var oe *ops.Error
	if !errors.As(err, &oe) {
		return nil, fmt.Errorf("resolve %q in %s: %w", target, rel, err)
	}
	e := *oe
	e.Path = rel
	if e.Retry == nil && hint != nil && *hint > 0 && !strings.Contains(target, "@") && !errors.Is(err, ops.ErrInvalidInput) {
		at := fmt.Sprintf("%s@%d", target, *hint)
		if s, herr := syntax.Resolve(ol, at); herr == nil {
			e.Retry = map[string]any{"target": syntax.Target(ol, s)}
			e.Hint = fmt.Sprintf("startLine %d picks %s (lines %d-%d): the retry names it; nothing was done", *hint, syntax.Target(ol, s), s.Range.StartLine, s.Range.EndLine)
		} else if he := (*ops.Error)(nil); errors.As(herr, &he) && he.Retry != nil {
			e.Retry, e.Hint = he.Retry, he.Hint
		}
	}
	fixed, ok := e.Retry["target"].(string)
	e.Retry = nil // the call's own arguments are rebuilt below, whole
	if !ok || fixed == target {
		return nil, &e
	}
	args, aerr := argsOf(in)
	if aerr != nil {
		return nil, &e
	}
	args["target"] = fixed
	return nil, withRetry(&e, args, fmt.Sprintf("target %q → %q", target, fixed))
}

// argsOf returns a tool's decoded input as the arguments that send it again.
func argsOf(in any) (map[string]any, error) {
	b, err := json.Marshal(in)
	if err != nil {
		return nil, fmt.Errorf("encode arguments: %w", err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("decode arguments: %w", err)
	}
	return m, nil
}

// symbolMeta describes sym: its parent, children to maxDepth, siblings.
func symbolMeta(ol *syntax.FileOutline, sym *syntax.Symbol, maxDepth *int) *SymbolMeta {
	m := &SymbolMeta{Name: sym.Name, Kind: string(sym.Kind), Path: sym.Path,
		Range:     LineRange{StartLine: sym.Range.StartLine, EndLine: sym.Range.EndLine},
		FullRange: LineRange{StartLine: sym.Full.StartLine, EndLine: sym.Full.EndLine}}
	parent := parentOf(ol.Symbols, sym, nil)
	siblings := ol.Symbols
	if parent != nil {
		m.Parent = &SymbolRef{Name: parent.Name, Kind: string(parent.Kind)}
		siblings = parent.Children
	}
	for i := range siblings {
		if &siblings[i] != sym {
			m.Siblings = append(m.Siblings, siblings[i].Name)
		}
	}
	depth := 1
	if maxDepth != nil {
		depth = *maxDepth
	}
	for _, it := range flatOutline(sym.Children) {
		if it.Depth < depth {
			m.Children = append(m.Children, strings.TrimPrefix(it.Path, sym.Path+"."))
		}
	}
	return m
}

// parentOf finds the symbol whose children hold target (nil at the top).
func parentOf(syms []syntax.Symbol, target, parent *syntax.Symbol) *syntax.Symbol {
	for i := range syms {
		if &syms[i] == target {
			return parent
		}
		if p := parentOf(syms[i].Children, target, &syms[i]); p != nil {
			return p
		}
	}
	return nil
}

func depthLimited(items []OutlineItem, maxDepth *int) []OutlineItem {
	if maxDepth == nil {
		return items
	}
	var out []OutlineItem
	for _, it := range items {
		if it.Depth < *maxDepth {
			out = append(out, it)
		}
	}
	return out
}

// readText renders a read as seed 000's example does.
func readText(out *FileReadResult, target, code string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## file_read: %s", out.File)
	if target != "" {
		fmt.Fprintf(&b, " → %s", target)
	}
	b.WriteString("\n\n")
	if sm := out.Symbol; sm != nil {
		fmt.Fprintf(&b, "**Symbol:** `%s` (%s)\n", sm.Name, sm.Kind)
	}
	fmt.Fprintf(&b, "**Range:** lines %d-%d of %d\n", out.Range.StartLine, out.Range.EndLine, out.TotalLines)
	if sm := out.Symbol; sm != nil && sm.Parent != nil {
		fmt.Fprintf(&b, "**Parent:** %s (%s)\n", sm.Parent.Name, sm.Parent.Kind)
	}
	fmt.Fprintf(&b, "**Version:** %s\n\n", out.Version)
	fence := "```"
	for strings.Contains(code, fence) {
		fence += "`"
	}
	fmt.Fprintf(&b, "%s%s\n%s%s\n", fence, out.Language, code, fence)
	if sm := out.Symbol; sm != nil {
		if len(sm.Children) > 0 {
			fmt.Fprintf(&b, "\n**Children:** %s\n", strings.Join(sm.Children, ", "))
		}
		if len(sm.Siblings) > 0 {
			fmt.Fprintf(&b, "\n**Siblings:** %s\n", strings.Join(sm.Siblings, ", "))
		}
	}
	if len(out.Outline) > 0 {
		b.WriteString("\n**Outline:**\n")
		writeOutline(&b, out.Outline)
	}
	if out.More != "" {
		fmt.Fprintf(&b, "\n[... %s]\n", out.More)
	}
	return b.String()
}
