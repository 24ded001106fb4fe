package mcp

import (
	"errors"

	"github.com/journalfs/journal/ops"
	"github.com/journalfs/journal/ops/match"
)

// lineContent undoes the agent artefacts in the content of the line-range
// replacements of list (file_replace's ops with start_line and no columns,
// ai_code_editing.edit_file's replace), judged against the lines they
// replace in the files as load reads them (match.LineContent): copied
// line-number prefixes, text escaped twice, look-alike characters. It
// returns the ops to apply and, by op index, the notes that say what was
// undone; an artefact that is there but ambiguous refuses the batch
// (ops.ErrInvalidInput). An op whose file or lines cannot be read is left
// for the batch to refuse as it does.
func lineContent(list []ops.Op, load func(string) ([]byte, bool, error)) ([]ops.Op, map[int][]string, error) {
	out := list
	var notes map[int][]string
	for i, o := range list {
		path, content, a, b, set := lineRangeContent(o)
		if set == nil || content == "" {
			continue
		}
		data, exists, err := load(path)
		if err != nil || !exists {
			continue
		}
		d, err := ops.Decode(data)
		if err != nil {
			continue
		}
		if r, ok := o.(ops.ReplaceOp); ok && r.TargetLineText != "" {
			found, err := ops.LocateLine(d, a, r.TargetLineText)
			if err != nil {
				continue
			}
			a, b = found, b+found-a
		}
		if a < 1 || b < a || b > d.LineCount() {
			continue
		}
		c, ns, err := rangeContent(content, d, a, b, o.Kind(), i, path)
		if err != nil {
			return nil, nil, err
		}
		if len(ns) == 0 {
			continue
		}
		if notes == nil {
			out, notes = append([]ops.Op(nil), list...), map[int][]string{}
		}
		out[i], notes[i] = set(c), ns
	}
	return out, notes, nil
}

// lineRangeContent returns the file, content and lines of a line-range
// replacement, and how to make the op with other content; set is nil for
// any other op.
func lineRangeContent(o ops.Op) (path, content string, a, b int, set func(string) ops.Op) {
	switch op := o.(type) {
	case ops.ReplaceOp:
		if op.StartLine == nil || op.StartCol != nil || op.EndCol != nil {
			return
		}
		a, b = *op.StartLine, *op.StartLine
		if op.EndLine != nil {
			b = *op.EndLine
		}
		return op.Path, op.Content, a, b, func(c string) ops.Op { op.Content = c; return op }
	case ops.EditFileOp:
		if op.Type() != ops.EditReplace || op.StartLine == nil || op.CodeBlock == nil {
			return
		}
		a, b = *op.StartLine, *op.StartLine
		if op.EndLine != nil {
			b = *op.EndLine
		}
		return op.TargetFile, *op.CodeBlock, a, b, func(c string) ops.Op { op.CodeBlock = &c; return op }
	}
	return
}

// lineContent undoes the agent artefacts in file_edit's code for lines
// a..b of d (match.LineContent), saying so in p.artefacts.
func (p *editPlan) lineContent(code string, d *ops.Doc, a, b int, path string) (string, error) {
	c, notes, err := rangeContent(code, d, a, b, "file_edit", -1, path)
	if err != nil {
		return "", err
	}
	p.artefacts = notes
	return c, nil
}

// rangeContent is match.LineContent for content replacing lines a..b of
// d, its refusal naming the op (kind, index in its batch, path).
func rangeContent(content string, d *ops.Doc, a, b int, kind string, index int, path string) (string, []string, error) {
	old := make([]string, 0, b-a+1)
	for n := a; n <= b; n++ {
		old = append(old, d.Line(n))
	}
	c, notes, err := match.LineContent(content, old, a, d.Text(), path)
	var oe *ops.Error
	if errors.As(err, &oe) {
		e := *oe
		e.Op, e.Index, e.Path = kind, index, path
		return "", nil, &e
	}
	return c, notes, err
}
