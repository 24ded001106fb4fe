package mcp

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/journalfs/journal/ops/syntax"
)

func (s *Server) readContent(c *call, in *ReadIn) (*ReadOut, string, error) {
	mode := strings.ToLower(strings.TrimSpace(in.Mode))
	if mode == "" {
		mode = "lines"
	}
	if mode != "lines" && mode != "semantic" && mode != "tail" {
		return nil, "", invalid("mode is lines, semantic or tail", "unknown mode %q", in.Mode)
	}
	if in.MaxLines < 0 {
		return nil, "", invalid("max_lines is a positive number of lines", "max_lines %d", in.MaxLines)
	}
	if in.Column < 0 || in.Column > 0 && mode != "lines" {
		return nil, "", invalid("column is a byte offset (0-based) in the target line, in mode lines", "column %d in mode %s", in.Column, mode)
	}
	t, err := s.openLarge(c, in.AbsoluteFilePath)
	if err != nil {
		return nil, "", err
	}
	defer t.v.Close()
	out := &ReadOut{FilePath: t.v.Path.Key, Version: version(t.v.ID), Mode: mode}
	budget := s.opts.ResultCap - 600
	if mode == "tail" {
		return s.tail(t, in, out, budget)
	}
	li, err := t.index()
	if err != nil {
		return nil, "", err
	}
	out.TotalLines = li.lines
	line, sym, err := s.locate(t, li, in.Target)
	if err != nil {
		return nil, "", err
	}
	if in.Column > 0 {
		return s.readOn(t, li, line, in.Column, budget, out)
	}
	from, to := line, line+max(in.MaxLines, 100)-1
	if in.MaxLines > 0 {
		to = line + in.MaxLines - 1
	}
	if mode == "semantic" && sym == nil {
		if sym = syntax.Enclosing(t.outline(), line); sym == nil {
			out.Note = "no enclosing function or class (or no outline for this file): showing lines instead"
		}
	}
	if sym != nil && (mode == "semantic" || in.MaxLines == 0) {
		from, to = sym.Full.StartLine, sym.Range.EndLine
		out.Symbol = &flatOutline([]syntax.Symbol{*sym})[0]
	}
	to = min(to, li.lines)
	ls, err := t.lines(li, from, to, budget)
	if err != nil {
		return nil, "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (version %s, %d lines)", out.FilePath, out.Version, li.lines)
	if out.Symbol != nil {
		fmt.Fprintf(&b, " %s %s", out.Symbol.Kind, out.Symbol.Path)
	}
	b.WriteByte('\n')
	if out.Note != "" {
		b.WriteString(out.Note + "\n")
	}
	writeLines(&b, ls, true)
	out.StartLine, out.EndLine = from, from-1
	if len(ls) > 0 {
		out.EndLine = ls[len(ls)-1].n
	}
	switch {
	case out.EndLine < to:
		out.More = fmt.Sprintf("result cap reached: call again with target=%d (mode=lines) to read on", out.EndLine+1)
	case out.EndLine < li.lines && out.Symbol == nil:
		out.More = fmt.Sprintf("%d more lines: call again with target=%d", li.lines-out.EndLine, out.EndLine+1)
	}
	for _, l := range ls { // the first long line cut: how to read it on
		if l.cut > 0 {
			more := fmt.Sprintf("line %d has %d more bytes: call again with target=%d and column=%d to read on", l.n, l.cut, l.n, l.col+len(l.text))
			if out.More != "" {
				more = out.More + "; " + more
			}
			out.More = more
			break
		}
	}
	if out.More != "" {
		fmt.Fprintf(&b, "[... %s]\n", out.More)
	}
	return out, b.String(), nil
}

// tail reads the last N lines. Line numbers come from the line index when it
// is cached or the file is in memory or mapped; a streamed file's tail is read
// from the end without a full scan, so its lines are numbered from the end.
func (s *Server) tail(t *ltext, in *ReadIn, out *ReadOut, budget int) (*ReadOut, string, error) {
	n, text, err := parseTarget(in.Target)
	if err != nil {
		return nil, "", err
	}
	if text != "" {
		return nil, "", invalid("in tail mode, target is the number of lines to read from the end", "target %q is not a number", text)
	}
	if n == 0 {
		n = max(in.MaxLines, 100)
	}
	off, err := t.tailStart(n)
	if err != nil {
		return nil, "", err
	}
	br := bufio.NewReaderSize(io.NewSectionReader(t.body, off, t.size-off), 64<<10)
	var ls []lineText
	size := 0
	for k := 0; ; k++ {
		raw, cut, err := readLine(br)
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, "", err
		}
		if len(raw) > 0 || err == nil {
			ls = append(ls, lineText{n: k, text: string(raw), cut: cut})
			size += len(raw) + 8
			for size > budget && len(ls) > 1 { // keep the newest lines that fit
				size -= len(ls[0].text) + 8
				ls = ls[1:]
			}
		}
		if err != nil {
			break
		}
	}
	var li *lineIdx
	if cached, ok := lineCache.get(t.v.ID.String()); ok {
		li = cached
	} else if t.data != nil {
		if li, err = t.index(); err != nil {
			return nil, "", err
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (version %s", out.FilePath, out.Version)
	if li != nil {
		out.TotalLines = li.lines
		first := li.lines - len(ls) + 1
		for i := range ls {
			ls[i].n = first + i
		}
		if len(ls) > 0 {
			out.StartLine, out.EndLine = first, li.lines
		}
		fmt.Fprintf(&b, ", %d lines", li.lines)
	} else {
		for i := range ls {
			ls[i].n = i - len(ls)
		}
		out.Note = "streamed file: lines are numbered from the end (-1 is the last line); get_overview counts them"
		if len(ls) > 0 {
			out.StartLine, out.EndLine = -len(ls), -1
		}
	}
	b.WriteString(")\n")
	if out.Note != "" {
		b.WriteString(out.Note + "\n")
	}
	if len(ls) < n && li != nil && len(ls) < li.lines {
		out.More = fmt.Sprintf("result cap reached: the %d lines before are at target=%d (mode=lines)", n-len(ls), max(out.StartLine-(n-len(ls)), 1))
	}
	writeLines(&b, ls, true)
	if out.More != "" {
		fmt.Fprintf(&b, "[... %s]\n", out.More)
	}
	return out, b.String(), nil
}

func writeLines(b *strings.Builder, ls []lineText, numbered bool) {
	for _, l := range ls {
		if numbered {
			fmt.Fprintf(b, "%d: ", l.n)
		}
		b.WriteString(l.text)
		switch {
		case l.cut > 0 && l.n > 0:
			fmt.Fprintf(b, " [… %d more bytes on this line: target=%d column=%d reads on]", l.cut, l.n, l.col+len(l.text))
		case l.cut > 0:
			fmt.Fprintf(b, " [… %d more bytes on this line]", l.cut)
		}
		b.WriteByte('\n')
	}
}

// readOn reads line n of a long line from byte col on (read_content's
// column): one piece of at most budget bytes, and where the next starts.
func (s *Server) readOn(t *ltext, li *lineIdx, n, col, budget int, out *ReadOut) (*ReadOut, string, error) {
	l, err := t.lineAt(li, n, col, budget-200)
	if err != nil {
		return nil, "", err
	}
	out.StartLine, out.EndLine, out.Column, out.LineBytes = n, n, l.col, l.col+len(l.text)+l.cut
	var b strings.Builder
	fmt.Fprintf(&b, "%s (version %s, %d lines)\n", out.FilePath, out.Version, li.lines)
	switch {
	case l.col >= out.LineBytes:
		out.Note = fmt.Sprintf("line %d is %d bytes: column %d is at or past its end", n, out.LineBytes, col)
	case l.col != col:
		out.Note = fmt.Sprintf("line %d from byte %d of its %d (column %d is inside a character: moved to its start)", n, l.col, out.LineBytes, col)
	default:
		out.Note = fmt.Sprintf("line %d from byte %d of its %d", n, l.col, out.LineBytes)
	}
	b.WriteString(out.Note + "\n")
	writeLines(&b, []lineText{l}, true)
	switch {
	case l.cut > 0:
		out.More = fmt.Sprintf("line %d has %d more bytes: call again with target=%d and column=%d to read on", n, l.cut, n, l.col+len(l.text))
	case n < li.lines:
		out.More = fmt.Sprintf("the end of line %d; %d more lines: call again with target=%d", n, li.lines-n, n+1)
	}
	if out.More != "" {
		fmt.Fprintf(&b, "[... %s]\n", out.More)
	}
	return out, b.String(), nil
}
