package ops

import "strconv"

func itoa(n int) string { return strconv.Itoa(n) }

// textRange is a source range of a copy or move, resolved on the original.
type textRange struct {
	start, end int
	text       string
	lineMode   bool
}

// sourceRange resolves the source fields shared by CopyPasteOp and MoveOp.
// Line mode (no column anywhere, target included) takes whole lines with their
// endings; otherwise the range is character-precise.
func sourceRange(d *Doc, sl int, sc *int, el int, ec *int, tc *int) (textRange, error) {
	if d.LineCount() == 0 {
		return textRange{}, &Error{Err: ErrInvalidInput, Msg: "the source file is empty: there is nothing to copy"}
	}
	if err := d.checkLine(sl, "source_start_line"); err != nil {
		return textRange{}, err
	}
	if err := d.checkLine(el, "source_end_line"); err != nil {
		return textRange{}, err
	}
	if el < sl {
		return textRange{}, invalid("source_end_line %d is before source_start_line %d", el, sl)
	}
	if sc == nil && ec == nil && tc == nil {
		s, _, _ := d.bounds(sl)
		_, _, e := d.bounds(el)
		text := d.Text()[s:e]
		if !hasEOL(text) {
			text += LF
		}
		return textRange{start: s, end: e, text: text, lineMode: true}, nil
	}
	s, e, err := charRange(d, sl, sc, el, ec, "source_start_col", "source_end_col")
	if err != nil {
		return textRange{}, err
	}
	return textRange{start: s, end: e, text: d.Text()[s:e]}, nil
}

// pasteAt builds the insert of r's text at the target position of d.
func pasteAt(d *Doc, r textRange, line int, col *int) (edit, error) {
	eol := d.DominantEOL()
	text := normalizeEOL(r.text, eol)
	n := d.LineCount()
	if r.lineMode {
		if line == -1 {
			line = n + 1
		}
		if line < 1 || line > n+1 {
			return edit{}, &Error{Err: ErrInvalidInput,
				Msg:  sprintf("target_line %d is out of range: the file has %d lines", line, n),
				Hint: sprintf("use 1..%d (the pasted lines go before it), or -1 for the end of the file", n+1)}
		}
		return lineInsert(d, line, text, eol), nil
	}
	if line == -1 {
		line = max(n, 1)
	}
	if err := d.checkLine(line, "target_line"); err != nil {
		return edit{}, err
	}
	c := 0
	if col != nil {
		c = *col
	}
	off, err := d.colOffset(line, c, "target_col")
	return edit{start: off, end: off, text: text}, err
}

func (op CopyPasteOp) plan(p *planner, i int) error {
	r := &p.results[i]
	r.Path, r.SourcePath = op.TargetPath, op.SourcePath
	if err := requirePath("source_path", op.SourcePath); err != nil {
		return err
	}
	if err := requirePath("target_path", op.TargetPath); err != nil {
		return err
	}
	src, err := p.source(op.SourcePath)
	if err != nil {
		return err
	}
	tr, err := sourceRange(src, op.SourceStartLine, op.SourceStartCol, op.SourceEndLine, op.SourceEndCol, op.TargetCol)
	if err != nil {
		return withPath(op.SourcePath, err)
	}
	fs, err := p.target(i, op.TargetPath, false)
	if err != nil {
		return err
	}
	e, err := pasteAt(fs.doc, tr, op.TargetLine, op.TargetCol)
	if err != nil {
		return withPath(op.TargetPath, err)
	}
	e.op = i
	return fs.add(e)
}

func (op MoveOp) plan(p *planner, i int) error {
	r := &p.results[i]
	r.Path, r.TargetPath = op.SourcePath, op.TargetPath
	if err := requirePath("source_path", op.SourcePath); err != nil {
		return err
	}
	if err := requirePath("target_path", op.TargetPath); err != nil {
		return err
	}
	sfs, err := p.target(i, op.SourcePath, false)
	if err != nil {
		return err
	}
	tr, err := sourceRange(sfs.doc, op.SourceStartLine, op.SourceStartCol, op.SourceEndLine, op.SourceEndCol, op.TargetCol)
	if err != nil {
		return withPath(op.SourcePath, err)
	}
	rm := edit{start: tr.start, end: tr.end, op: i, source: true}
	if tr.lineMode {
		rm.start, rm.end = lineRemove(sfs.doc, op.SourceStartLine, op.SourceEndLine)
	}
	tfs, err := p.target(i, op.TargetPath, true)
	if err != nil {
		return err
	}
	e, err := pasteAt(tfs.doc, tr, op.TargetLine, op.TargetCol)
	if err != nil {
		return withPath(op.TargetPath, err)
	}
	e.op = i
	if err := tfs.add(e); err != nil {
		return err
	}
	return sfs.add(rm)
}
