package mcp

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/journalfs/journal/ops"
	"github.com/journalfs/journal/ops/syntax"
)

// formEdit computes a replace or insert of a top-level form.
func (p *formPlan) formEdit(src *source, in *FormIn, mode string) (string, error) {
	name, d, text := src.name(), src.doc, src.text
	lang := syntax.Detect(name, []byte(text))
	line := in.Line
	if mode == "replace" || line <= d.LineCount() || in.TargetLine != "" {
		var err error
		if line, err = locate(d, in.Line, in.TargetLine); err != nil {
			return "", err
		}
	} else {
		line = d.LineCount() + 1 // insert past the end: append
	}
	p.actual = line
	forms, ok := topForms(name, text)
	if !ok {
		return "", invalid("use file_edit with startLine/endLine for this file", "no top-level forms for %s (language not supported)", name)
	}
	if err := checkBalance(name, lang, in.NewForm, line); err != nil {
		return "", err
	}
	eol := d.DominantEOL()
	nf := trimOneEOL(withEOL(strings.TrimRight(in.NewForm, " \t\r\n"), eol))
	if strings.TrimSpace(nf) == "" {
		return "", invalid("give the form's code in newForm (to delete lines use file_edit with code \"\")", "newForm is empty")
	}
	f := syntax.FormAt(forms, line)
	var after string
	switch {
	case mode == "replace" && f == nil:
		return "", noFormAt(forms, line)
	case mode == "replace":
		p.target = formRef(f)
		indent := indentOf(d.Line(f.StartLine))
		nf = strings.TrimLeft(reindent(nf, indent), " \t")
		var es []ops.Elision
		var err error
		if nf, es, err = ops.ExpandMarkers(text[f.StartByte:f.EndByte], nf, name); err != nil {
			return "", err
		}
		p.elided = ops.ElisionNote(es, f.StartLine, "")
		after = text[:f.StartByte] + nf + text[f.EndByte:]
		p.newFirst, p.newLines = f.StartLine, lineCount(nf)
		p.reg = region{from: f.StartLine, to: f.EndLine}
	default:
		at, indent := line, ""
		if f != nil {
			p.target = formRef(f)
			indent = indentOf(d.Line(f.StartLine))
			at = attachedStart(d, forms, f, lang, name)
			if in.InsertMode == "after" {
				at = f.EndLine + 1
			}
		} else if line == d.LineCount() && in.InsertMode == "after" {
			at = line + 1
		}
		after, p.newFirst, p.newLines = insertBlock(d, at, strings.Split(reindent(nf, indent), eol), true)
		p.reg = region{from: at, to: at - 1}
	}
	p.reg.delta = lineCount(after) - d.LineCount()
	p.was, p.now, p.checked = syntaxCheck(src.file.Path.Key, name, text, after, p.reg)
	if introduced := newOnly(p.now); len(introduced) > 0 && !in.AllowSyntaxErrors {
		return "", syntaxRefusal(src.file.Path.Key, introduced)
	}
	return after, nil
}

// comment computes an insert_comment_at_line.
func (p *formPlan) comment(src *source, in *CommentIn) (string, error) {
	name, d, text := src.name(), src.doc, src.text
	lang := syntax.Detect(name, []byte(text))
	if _, err := locate(d, in.LineNumber, ""); err != nil {
		return "", err
	}
	open, closing := commentSyntax(name, lang)
	if open == "" {
		return "", invalid("use file_insert_text to add text to this file", "no comment syntax is known for %s", name)
	}
	at := in.LineNumber // insert before line at
	if in.InsertMode == "after" {
		at++
	}
	forms, ok := topForms(name, text)
	interior := !ok
	for _, f := range forms {
		if f.StartLine < at && f.EndLine >= at {
			interior = true
		}
	}
	indent, spaced := "", false
	if interior {
		indent = indentOf(d.Line(in.LineNumber))
		if at <= d.LineCount() && strings.TrimSpace(d.Line(at)) != "" && in.InsertMode == "after" {
			indent = indentOf(d.Line(at))
		}
	} else if prev := strings.TrimSpace(d.Line(at - 1)); at > 1 && prev != "" && !strings.HasPrefix(prev, open) && !strings.HasPrefix(prev, ";") {
		spaced = true
	}
	var lines []string
	for _, l := range strings.Split(withEOL(strings.TrimRight(in.CommentText, " \t\r\n"), "\n"), "\n") {
		l = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), open))
		if l == "" {
			lines = append(lines, indent+open+closing)
		} else {
			lines = append(lines, indent+open+" "+l+closing)
		}
	}
	if spaced {
		lines = append([]string{""}, lines...)
	}
	after, first, n := insertBlock(d, at, lines, false)
	if spaced {
		first, n = first+1, n-1
	}
	p.newFirst, p.newLines, p.final = first, n, first
	p.reg = region{from: at, to: at - 1, delta: lineCount(after) - d.LineCount()}
	p.was, p.now, p.checked = syntaxCheck(src.file.Path.Key, name, text, after, p.reg)
	return after, nil
}

// insertBlock inserts lines before line at (at = LineCount+1 appends). With
// spaced, a blank line separates them from non-blank neighbours. It returns
// the new text and the first line and number of the inserted lines.
func insertBlock(d *ops.Doc, at int, lines []string, spaced bool) (string, int, int) {
	text, eol, n := d.Text(), d.DominantEOL(), d.LineCount()
	first, count := at, len(lines)
	if spaced && at > 1 && strings.TrimSpace(d.Line(at-1)) != "" {
		lines = append([]string{""}, lines...)
		first++
	}
	if spaced && at <= n && strings.TrimSpace(d.Line(at)) != "" {
		lines = append(lines, "")
	}
	block := strings.Join(lines, eol)
	if at > n {
		if n > 0 && !d.HasFinalNewline() {
			return text + eol + block, first, count
		}
		return text + block + eol, first, count
	}
	off, _ := d.Offset(at, 0)
	return text[:off] + block + eol + text[off:], first, count
}

// attachedStart is the first line of f with the comment lines directly above it.
func attachedStart(d *ops.Doc, forms []syntax.Form, f *syntax.Form, lang, name string) int {
	prefix, _ := commentSyntax(name, lang)
	at := f.StartLine
	for at > 1 {
		prev := strings.TrimSpace(d.Line(at - 1))
		if prev == "" || prefix == "" || !strings.HasPrefix(prev, prefix) || syntax.FormAt(forms, at-1) != nil {
			break
		}
		at--
	}
	return at
}

func formRef(f *syntax.Form) *FormRef {
	return &FormRef{Kind: f.Kind, Name: f.Name, StartLine: f.StartLine, EndLine: f.EndLine, InComment: f.InComment}
}

// noFormAt is the NO_MATCH for a line outside every top-level form.
func noFormAt(forms []syntax.Form, line int) error {
	var cands []ops.Candidate
	for _, f := range forms {
		if f.EndLine >= line-10 && f.StartLine <= line+10 && !f.InComment {
			cands = append(cands, ops.Candidate{Line: f.StartLine, EndLine: f.EndLine, Text: strings.TrimSpace(f.Kind + " " + f.Name)})
		}
	}
	return &ops.Error{Op: "top_level_form", Index: -1, Err: ops.ErrNoMatch,
		Msg:  fmt.Sprintf("no top-level form at line %d (a blank or comment line)", line),
		Hint: "give a line inside the form (the candidates are the forms nearby); to add a form use insert_top_level_form", Candidates: cands}
}

// blockComments are languages with block comments only.
var blockComments = map[string][2]string{"css": {"/*", " */"}, "html": {"<!--", " -->"}, "markdown": {"<!--", " -->"},
	"svelte": {"<!--", " -->"}, "ocaml": {"(*", " *)"}}

// commentSyntax returns the comment opener of a file (and a closer for block comments).
func commentSyntax(name, lang string) (open, closing string) {
	if c := syntax.CommentPrefix(lang); c != "" {
		return c, ""
	}
	if b, ok := blockComments[lang]; ok {
		return b[0], b[1]
	}
	if c, ok := lispExts[strings.ToLower(filepath.Ext(name))]; ok {
		return c, ""
	}
	return "", ""
}
