package mcp

import (
	"context"
	"fmt"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/journalfs/journal/ops"
	"github.com/journalfs/journal/ops/syntax"
)

// EditFileIn is ai_code_editing.edit_file's input (seed 001).
type EditFileIn struct {
	TargetFile      string  `json:"target_file"`
	EditInstruction string  `json:"edit_instruction" jsonschema:"what the edit does (journaled; generates the code by sampling if code_block is missing)"`
	StartLine       *int    `json:"start_line,omitempty" jsonschema:"insert: before this line"`
	EndLine         *int    `json:"end_line,omitempty"`
	CodeBlock       *string `json:"code_block,omitempty"`
	EditType        string  `json:"edit_type,omitempty" jsonschema:"insert, replace or delete"`
	ExpectedVersion string  `json:"expected_version,omitempty"`
	writeOpts
}

// EditFileOut is seed 001's result, plus the journal event and the new version.
type EditFileOut struct {
	Status   string `json:"status"` // "success"
	FilePath string `json:"file_path"`
	Message  string `json:"message"`
	Diff     string `json:"diff,omitempty"`
	Event    uint64 `json:"event"`
	Version  string `json:"version"`

	// AlreadyApplied: the lines already held the code, or this exact
	// request made the file's last change (repeat.go); nothing was written.
	AlreadyApplied bool `json:"already_applied,omitempty"`
}

// CodeContextIn is ai_get_code_context's input.
type CodeContextIn struct {
	FilePath  string `json:"file_path"`
	StartLine int    `json:"start_line,omitempty" jsonschema:"default 1"`
	EndLine   int    `json:"end_line,omitempty" jsonschema:"default start_line+199"`
	Symbol    string `json:"symbol,omitempty" jsonschema:"a dotted path: its source instead of lines"`
	Outline   *bool  `json:"include_outline,omitempty" jsonschema:"default true"`
}

// CodeContextOut is ai_get_code_context's result. The code itself is in the text content.
type CodeContextOut struct {
	FilePath   string        `json:"file_path"`
	Version    string        `json:"version"`
	Language   string        `json:"language,omitempty"`
	TotalLines int           `json:"total_lines"`
	StartLine  int           `json:"start_line"`
	EndLine    int           `json:"end_line"`
	Symbol     *OutlineItem  `json:"symbol,omitempty"`
	Outline    []OutlineItem `json:"outline,omitempty"`
	More       string        `json:"more,omitempty"` // how to read on
}

func init() { registrars = append(registrars, (*Server).registerClassic) }

func (s *Server) registerClassic() {
	addTool(s, def{name: "ai_code_editing.edit_file", toolset: ToolsetClassic, title: "Edit lines of a file",
		desc:        "Insert, replace or delete lines of a file (edit_type: default replace with start_line, else insert). Returns a diff.",
		destructive: true},
		func(ctx context.Context, c *call, in *EditFileIn) (*EditFileOut, string, error) {
			if err := s.resolveKey(&in.TargetFile); err != nil {
				return nil, "", err
			}
			op := ops.EditFileOp{TargetFile: in.TargetFile, EditInstruction: in.EditInstruction, StartLine: in.StartLine,
				EndLine: in.EndLine, CodeBlock: in.CodeBlock, EditType: in.EditType}
			if op.CodeBlock == nil && op.Type() != ops.EditDelete {
				code, err := s.sampleCode(ctx, in)
				if err != nil {
					return nil, "", err
				}
				op.CodeBlock = &code
			}
			spec := batchSpec{ops: []ops.Op{op}, lineBased: in.StartLine != nil, diff: true, repeatCheck: true, lineContent: true}
			if in.ExpectedVersion != "" {
				spec.expected = map[string]string{in.TargetFile: in.ExpectedVersion}
			}
			out, err := s.runBatch(ctx, c, spec)
			if err != nil {
				return nil, "", err
			}
			if out.RepeatOf > 0 {
				res := &EditFileOut{Status: "success", FilePath: in.TargetFile, Version: out.Versions[in.TargetFile], AlreadyApplied: true,
					Message: "Already applied: " + strings.Join(out.Notes, "; ") + "."}
				return res, res.Message, nil
			}
			a := out.Applied[0]
			res := &EditFileOut{Status: "success", FilePath: in.TargetFile, Diff: out.Diff, Event: out.Event, Version: out.Versions[in.TargetFile],
				Message: fmt.Sprintf("File updated successfully: %s lines %d-%d (journal event %d).", op.Type(), a.StartLine, a.EndLine, out.Event)}
			if out.AlreadyApplied {
				res.AlreadyApplied = true
				res.Message = fmt.Sprintf("Already applied: lines %d-%d already hold this code; nothing was written and no journal event was recorded.", a.StartLine, a.EndLine)
			}
			for _, n := range append(out.Notes, a.Warnings...) {
				res.Message += " Note: " + n + "."
			}
			return res, res.Message + "\n" + res.Diff, nil
		})
	addTool(s, def{name: "ai_get_code_context", toolset: ToolsetClassic, title: "Get code context",
		desc:     "A file's outline (symbols with line ranges) and numbered lines, or one symbol's source.",
		readOnly: true, idempotent: true},
		func(ctx context.Context, c *call, in *CodeContextIn) (*CodeContextOut, string, error) {
			return s.codeContext(c, in)
		})
}

// sampleCode asks the client's model for the code when code_block is missing.
func (s *Server) sampleCode(ctx context.Context, in *EditFileIn) (string, error) {
	hint := "send code_block with the exact code to insert or replace (this client does not support sampling, so the server cannot generate it)"
	cs := server.ClientSessionFromContext(ctx)
	capable := false
	if cc, ok := cs.(interface {
		GetClientCapabilities() mcpgo.ClientCapabilities
	}); ok {
		capable = cc.GetClientCapabilities().Sampling != nil
	}
	if !capable && server.InProcessSamplingHandlerFromContext(ctx) == nil {
		return "", invalid(hint, "code_block is missing")
	}
	var where string
	if in.StartLine != nil {
		if f, err := s.eng.Read(in.TargetFile); err == nil && f.Data != nil {
			if d, err := ops.Decode(f.Data); err == nil {
				end := *in.StartLine
				if in.EndLine != nil {
					end = *in.EndLine
				}
				where = "\nThe lines concerned are:\n" + strings.Join(ops.Context(d, *in.StartLine, end, 0), "\n")
			}
		}
	}
	req := mcpgo.CreateMessageRequest{CreateMessageParams: mcpgo.CreateMessageParams{
		Messages: []mcpgo.SamplingMessage{{Role: mcpgo.RoleUser, Content: mcpgo.NewTextContent(
			fmt.Sprintf("Write the code for this edit of %s: %s%s\nReply with the code only, no explanation, no Markdown fences.", in.TargetFile, in.EditInstruction, where))}},
		SystemPrompt: "You write code for a file edit. Reply with code only.",
		MaxTokens:    4000,
	}}
	res, err := s.srv.RequestSampling(ctx, req)
	if err != nil {
		return "", invalid(hint, "code_block is missing and sampling failed: %v", err)
	}
	text := ""
	switch c := res.Content.(type) {
	case mcpgo.TextContent:
		text = c.Text
	case *mcpgo.TextContent:
		text = c.Text
	case map[string]any:
		text, _ = c["text"].(string)
	}
	text = strings.TrimSpace(text)
	if strings.HasPrefix(text, "```") { // models add fences despite being asked not to
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			text = strings.TrimSuffix(strings.TrimSpace(text[i+1:]), "```")
		}
	}
	if text == "" {
		return "", invalid(hint, "code_block is missing and the client's model returned no code")
	}
	return text, nil
}

func (s *Server) codeContext(c *call, in *CodeContextIn) (*CodeContextOut, string, error) {
	f, err := s.eng.Read(in.FilePath)
	if err != nil {
		return nil, "", err
	}
	if !f.Exists {
		return nil, "", fmt.Errorf("%s: %w", in.FilePath, ops.ErrFileNotFound)
	}
	if f.Data == nil {
		return nil, "", fmt.Errorf("%s is %d bytes: %w", f.Path.Rel, f.Size, ErrTooLarge)
	}
	d, err := ops.Decode(f.Data)
	if err != nil {
		return nil, "", err
	}
	s.saw(c.session, f.Path.Key, f.ID)
	s.reads.remember(f.ID, f.Data)
	out := &CodeContextOut{FilePath: f.Path.Key, Version: version(f.ID), TotalLines: d.LineCount()}
	ol, err := syntax.Outline(f.Path.Rel, []byte(d.Text()))
	if err == nil && ol.Supported {
		out.Language = ol.Language
		if in.Outline == nil || *in.Outline {
			out.Outline = flatOutline(ol.Symbols)
		}
	}
	start, end := in.StartLine, in.EndLine
	if in.Symbol != "" {
		if err != nil || !ol.Supported {
			return nil, "", invalid("use start_line/end_line for this file", "no symbol outline for %s (language not recognised)", f.Path.Rel)
		}
		sym, err := syntax.Resolve(ol, in.Symbol)
		if err != nil {
			return nil, "", err
		}
		out.Symbol = &flatOutline([]syntax.Symbol{*sym})[0]
		start, end = sym.Full.StartLine, sym.Full.EndLine
	}
	if start <= 0 {
		start = 1
	}
	if end <= 0 {
		end = start + 199
	}
	if end > out.TotalLines {
		end = out.TotalLines
	}
	if start > out.TotalLines && out.TotalLines > 0 {
		return nil, "", invalid(fmt.Sprintf("the file has %d lines", out.TotalLines), "start_line %d is past the end of the file", start)
	}
	out.StartLine, out.EndLine = start, end
	var b strings.Builder
	fmt.Fprintf(&b, "%s (version %s, %d lines", out.FilePath, out.Version, out.TotalLines)
	if out.Language != "" {
		fmt.Fprintf(&b, ", %s", out.Language)
	}
	b.WriteString(")\n")
	if len(out.Outline) > 0 {
		b.WriteString("outline:\n")
		writeOutline(&b, out.Outline)
	}
	fmt.Fprintf(&b, "lines %d-%d:\n", start, end)
	size := b.Len()
	for n := start; n <= end; n++ {
		line := fmt.Sprintf("%d: %s\n", n, d.Line(n))
		if room := s.opts.ResultCap - 200 - size; len(line) > room && n == start {
			// one line longer than a result: its start, and how to read on
			// (never "call again" with the same start_line)
			shown := line[:runeStartString(line, max(room, 0))]
			cut := len(shown) - len(fmt.Sprintf("%d: ", n))
			b.WriteString(shown + "\n")
			out.EndLine = n
			out.More = fmt.Sprintf("line %d is %d bytes, longer than a result: its first %d are shown", n, len(d.Line(n)), max(cut, 0))
			if s.enabled(ToolsetLargefile, "read_content") {
				out.More += fmt.Sprintf("; read_content with target=%d and column=%d reads it on", n, max(cut, 0))
			}
			if n < out.TotalLines {
				out.More += fmt.Sprintf("; the next lines: call again with start_line=%d", n+1)
			}
			fmt.Fprintf(&b, "[... %s]\n", out.More)
			break
		}
		if size+len(line) > s.opts.ResultCap-200 {
			out.EndLine = n - 1
			out.More = fmt.Sprintf("result cap reached: call again with start_line=%d", n)
			fmt.Fprintf(&b, "[... %s]\n", out.More)
			break
		}
		b.WriteString(line)
		size += len(line)
	}
	if out.More == "" && end < out.TotalLines && in.Symbol == "" {
		out.More = fmt.Sprintf("%d more lines: call again with start_line=%d", out.TotalLines-end, end+1)
		fmt.Fprintf(&b, "[... %s]\n", out.More)
	}
	return out, b.String(), nil
}

// OutlineItem is one symbol of a file's outline, flattened (JSON schemas cannot
// describe the recursive tree, so depth and the dotted path carry the nesting).
type OutlineItem struct {
	Name      string `json:"name"`
	Kind      string `json:"kind"`
	Path      string `json:"path"` // dotted symbol path, e.g. UserService.findById
	Depth     int    `json:"depth"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
	FullStart int    `json:"full_start_line,omitempty"` // with decorators and doc comments
}

// maxOutline bounds the outline in one result.
const maxOutline = 400

func flatOutline(syms []syntax.Symbol) []OutlineItem {
	var out []OutlineItem
	var walk func([]syntax.Symbol, int)
	walk = func(ss []syntax.Symbol, depth int) {
		for _, s := range ss {
			if len(out) >= maxOutline {
				return
			}
			it := OutlineItem{Name: s.Name, Kind: string(s.Kind), Path: s.Path, Depth: depth, StartLine: s.Range.StartLine, EndLine: s.Range.EndLine}
			if s.Full.StartLine != s.Range.StartLine {
				it.FullStart = s.Full.StartLine
			}
			out = append(out, it)
			walk(s.Children, depth+1)
		}
	}
	walk(syms, 0)
	return out
}

func writeOutline(b *strings.Builder, items []OutlineItem) {
	for _, s := range items {
		fmt.Fprintf(b, "%s%s %s (%d-%d)\n", strings.Repeat("  ", s.Depth+1), s.Kind, s.Name, s.StartLine, s.EndLine)
	}
	if len(items) >= maxOutline {
		b.WriteString("  ... (outline truncated)\n")
	}
}
