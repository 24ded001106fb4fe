package ops

// This file holds the plan step of each seed-003 op: validate it against the
// original file and turn it into edits.

func (op CreateOp) plan(p *planner, i int) error {
	p.results[i].Path = op.Path
	if err := requirePath("path", op.Path); err != nil {
		return err
	}
	fs, err := p.file(op.Path)
	if err != nil {
		return err
	}
	if fs.exists {
		return &Error{Path: op.Path, Err: ErrFileExists, Msg: "file already exists",
			Hint: "use file_replace to overwrite it, or file_insert_text to add to it"}
	}
	return p.setWhole(fs, i, op.Content, true)
}

func (op ReplaceOp) plan(p *planner, i int) error {
	p.results[i].Path = op.Path
	if err := requirePath("path", op.Path); err != nil {
		return err
	}
	if op.StartLine == nil {
		if op.EndLine != nil || op.StartCol != nil || op.EndCol != nil || op.TargetLineText != "" {
			return &Error{Path: op.Path, Err: ErrInvalidInput,
				Msg:  "start_line is required when end_line, start_col, end_col or target_line_text is given",
				Hint: "omit them all to replace the whole file"}
		}
		fs, err := p.file(op.Path)
		if err != nil {
			return err
		}
		d, err := fs.readable()
		if err != nil {
			return err
		}
		text, es, err := ExpandMarkers(d.Text(), op.Content, op.Path)
		if err != nil {
			return withPath(op.Path, err)
		}
		p.elided(i, es, 1)
		if d.LineCount() > 1 || d.HasFinalNewline() { // the file has an ending to keep
			text = normalizeEOL(text, d.DominantEOL())
		}
		if err := fs.checkText(text); err != nil {
			return err
		}
		return p.setWhole(fs, i, text, false)
	}
	fs, err := p.target(i, op.Path, false)
	if err != nil {
		return err
	}
	e, err := op.edit(p, fs.doc, i)
	if err != nil {
		return withPath(op.Path, err)
	}
	return fs.add(e)
}

func (op ReplaceOp) edit(p *planner, d *Doc, i int) (edit, error) {
	a := *op.StartLine
	b := a
	if op.EndLine != nil {
		b = *op.EndLine
	}
	if op.TargetLineText != "" {
		found, err := LocateLine(d, a, op.TargetLineText)
		if err != nil {
			return edit{}, err
		}
		if found != a {
			p.results[i].Warnings = append(p.results[i].Warnings,
				sprintf("target_line_text found at line %d, not %d: range shifted by %+d", found, a, found-a))
			b += found - a
			a = found
		}
		p.results[i].ActualLine = found
	}
	if err := d.checkLine(a, "start_line"); err != nil {
		return edit{}, err
	}
	if err := d.checkLine(b, "end_line"); err != nil {
		return edit{}, err
	}
	if b < a {
		return edit{}, invalid("end_line %d is before start_line %d", b, a)
	}
	eol := d.DominantEOL()
	text := normalizeEOL(op.Content, eol)
	if op.StartCol == nil && op.EndCol == nil {
		if text == "" {
			s, e := lineRemove(d, a, b)
			return edit{start: s, end: e, op: i}, nil
		}
		s, _, _ := d.bounds(a)
		_, _, e := d.bounds(b)
		text, es, err := ExpandMarkers(d.Text()[s:e], text, op.Path)
		if err != nil {
			return edit{}, err
		}
		p.elided(i, es, a)
		if d.EOL(b) == "" {
			text = trimEOL(text)
		} else {
			text = ensureEOL(text, eol)
		}
		return edit{start: s, end: e, text: text, op: i}, nil
	}
	s, e, err := charRange(d, a, op.StartCol, b, op.EndCol, "start_col", "end_col")
	return edit{start: s, end: e, text: text, op: i}, err
}

func (op InsertOp) plan(p *planner, i int) error {
	p.results[i].Path = op.Path
	if err := requirePath("path", op.Path); err != nil {
		return err
	}
	switch op.At {
	case AtBOF, AtEOF:
	case AtBeforeLine, AtAfterLine:
		if op.Line == nil {
			return &Error{Path: op.Path, Err: ErrInvalidInput, Msg: "line is required for at=" + op.At,
				Hint: "give line (1-indexed), or use at=bof / at=eof"}
		}
	default:
		return &Error{Path: op.Path, Err: ErrInvalidInput, Msg: sprintf("at %q is not one of bof, eof, before_line, after_line", op.At)}
	}
	fs, err := p.target(i, op.Path, false)
	if err != nil {
		return err
	}
	e, err := op.edit(fs.doc)
	if err != nil {
		return withPath(op.Path, err)
	}
	e.op = i
	return fs.add(e)
}

func (op InsertOp) edit(d *Doc) (edit, error) {
	eol := d.DominantEOL()
	text := normalizeEOL(op.Content, eol)
	n := d.LineCount()
	switch {
	case op.At == AtBOF && op.Col != nil:
		return edit{text: text}, nil
	case op.At == AtEOF && op.Col != nil:
		end := len(d.Text())
		return edit{start: end, end: end, text: text}, nil
	case op.At == AtBOF:
		return lineInsert(d, 1, text, eol), nil
	case op.At == AtEOF:
		return lineInsert(d, n+1, text, eol), nil
	}
	line := *op.Line
	if n == 0 {
		return edit{}, &Error{Err: ErrInvalidInput, Msg: "the file is empty: it has no line " + itoa(line),
			Hint: "use at=bof or at=eof"}
	}
	if err := d.checkLine(line, "line"); err != nil {
		return edit{}, err
	}
	if op.Col != nil {
		off, err := d.colOffset(line, *op.Col, "col")
		return edit{start: off, end: off, text: text}, err
	}
	if op.At == AtAfterLine {
		line++
	}
	return lineInsert(d, line, text, eol), nil
}

// lineInsert inserts text as whole lines before line n (1..LineCount), or
// after the last line when n is LineCount+1. A file without a final newline
// keeps lacking one.
func lineInsert(d *Doc, n int, text, eol string) edit {
	if n <= d.LineCount() {
		s, _, _ := d.bounds(n)
		return edit{start: s, end: s, text: ensureEOL(text, eol)}
	}
	end := len(d.Text())
	if d.LineCount() == 0 || d.HasFinalNewline() {
		return edit{start: end, end: end, text: ensureEOL(text, eol)}
	}
	return edit{start: end, end: end, text: eol + trimEOL(text), lead: len(eol)}
}

// lineRemove returns the range that deletes lines a..b with their endings.
// Deleting the last lines of a file without a final newline also takes the
// ending of the line before, so the file still lacks one.
func lineRemove(d *Doc, a, b int) (int, int) {
	s, _, _ := d.bounds(a)
	_, _, e := d.bounds(b)
	if b == d.LineCount() && !d.HasFinalNewline() && a > 1 {
		_, s, _ = d.bounds(a - 1)
	}
	return s, e
}

// charRange resolves a character-precise range: a nil start column is the
// beginning of the line, a nil end column the end of the line text.
func charRange(d *Doc, a int, sc *int, b int, ec *int, sf, ef string) (int, int, error) {
	c0, c1 := 0, -1
	if sc != nil {
		c0 = *sc
	}
	if ec != nil {
		c1 = *ec
	}
	s, err := d.colOffset(a, c0, sf)
	if err != nil {
		return 0, 0, err
	}
	e, err := d.colOffset(b, c1, ef)
	if err != nil {
		return 0, 0, err
	}
	if e < s {
		return 0, 0, invalid("the range ends (line %d, col %d) before it starts (line %d, col %d)", b, c1, a, c0)
	}
	return s, e, nil
}

// elided notes in op i's result what the elision markers of its new text
// stood for; base is the file line of the replaced text's first line.
func (p *planner) elided(i int, es []Elision, base int) {
	if len(es) > 0 {
		p.results[i].Warnings = append(p.results[i].Warnings, ElisionNote(es, base, ""))
	}
}
