package mcp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/journalfs/journal/ops"
	"github.com/journalfs/journal/ops/parinfer"
	"github.com/journalfs/journal/ops/syntax"
)

// formPlan is what a form or comment edit computed under the lock.
type formPlan struct {
	actual   int
	target   *FormRef
	newFirst int // first post-edit line of the new text
	newLines int
	final    int
	reg      region
	was, now []Diagnostic
	checked  bool
	elided   string // what newForm's elision markers stood for
}

func (s *Server) formEdit(ctx context.Context, c *call, in *FormIn, mode string) (*FormResult, string, error) {
	p := &formPlan{}
	if mode == "insert" && in.InsertMode != "" && in.InsertMode != "before" && in.InsertMode != "after" {
		return nil, "", invalid("insertMode is before or after", "insertMode %q is not before or after", in.InsertMode)
	}
	if mode == "replace" && in.InsertMode != "" {
		return nil, "", invalid("leave insertMode out: replace_top_level_form replaces", "insertMode is only for insert_top_level_form")
	}
	sr := &safetyReq{autoFix: in.AutoFix}
	rb := s.lineRebaser(c, in.FilePath, in.ExpectedVersion, &in.Line, nil, "line", "", lineHolds(in.TargetLine))
	done, err := s.editText(ctx, c, textEdit{path: in.FilePath, expected: in.ExpectedVersion, lineBased: true, safety: sr, rebase: rb,
		plan: func(src *source) (string, error) { return p.formEdit(src, in, mode) }})
	if err != nil {
		return nil, "", err
	}
	out := p.result(done)
	out.Notes = append(out.Notes, rb.notes...)
	if rep := sr.report; rep != nil {
		out.Propagated, out.AutoFixed = rep.propagated, rep.autoFixed
		out.DiagnosticsAfter = append(out.DiagnosticsAfter, rep.newDiags...)
		out.NewDiagnostics += len(rep.newDiags)
		out.Notes = append(out.Notes, rep.notes...)
	} else {
		out.Notes = append(out.Notes, lspSkipped(sr.skipped))
	}
	if in.TargetLine != "" {
		out.ActualLineUsed = p.actual
	}
	return out, formText(map[string]string{"replace": "replace_top_level_form", "insert": "insert_top_level_form"}[mode], out), nil
}

func (s *Server) commentEdit(ctx context.Context, c *call, in *CommentIn) (*FormResult, string, error) {
	if in.InsertMode != "before" && in.InsertMode != "after" {
		return nil, "", invalid("insertMode is before or after", "insertMode %q is not before or after", in.InsertMode)
	}
	if strings.TrimSpace(in.CommentText) == "" {
		return nil, "", invalid("give the comment text", "commentText is empty")
	}
	p := &formPlan{}
	rb := s.lineRebaser(c, in.FilePath, in.ExpectedVersion, &in.LineNumber, nil, "lineNumber", "", nil)
	done, err := s.editText(ctx, c, textEdit{path: in.FilePath, expected: in.ExpectedVersion, lineBased: true, rebase: rb,
		plan: func(src *source) (string, error) { return p.comment(src, in) }})
	if err != nil {
		return nil, "", err
	}
	out := p.result(done)
	out.Notes = append(out.Notes, rb.notes...)
	out.FinalLine = p.final
	return out, formText("insert_comment_at_line", out), nil
}

func (p *formPlan) result(done *textEdited) *FormResult {
	out := &FormResult{Success: true, FilePath: done.key, Form: p.target,
		Range:             LineRange{StartLine: p.newFirst, EndLine: p.newFirst + p.newLines - 1},
		DiagnosticsBefore: diagsOrEmpty(p.was), DiagnosticsAfter: diagsOrEmpty(p.now), NewDiagnostics: len(newOnly(p.now)),
		Event: done.event, Version: done.version}
	out.Context = ops.Context(ops.NewDoc(done.after, ops.UTF8, false), out.Range.StartLine, out.Range.EndLine, ops.ContextLines)
	if p.elided != "" {
		out.Notes = append(out.Notes, p.elided)
	}
	if !p.checked {
		out.Notes = append(out.Notes, "no syntax check: the language of this file is not supported")
	}
	if done.same {
		out.Notes = append(out.Notes, "the new text equals the old: nothing was written")
	}
	return out
}

func diagsOrEmpty(d []Diagnostic) []Diagnostic {
	if d == nil {
		return []Diagnostic{}
	}
	return d
}

// locate applies seed 002's targeting: line, or the line within ±2 whose
// text is targetLine.
func locate(d *ops.Doc, line int, targetLine string) (int, error) {
	if line < 1 || line > max(d.LineCount(), 1) {
		return 0, invalid(fmt.Sprintf("the file has %d lines", d.LineCount()), "line %d is out of range", line)
	}
	if targetLine == "" {
		return line, nil
	}
	n, err := ops.LocateLine(d, line, targetLine)
	var oe *ops.Error
	if errors.Is(err, ops.ErrNoMatch) && errors.As(err, &oe) {
		return 0, &ops.Error{Op: "target_line", Index: -1, Err: ops.ErrNoMatch,
			Msg:        fmt.Sprintf("Target line text not found. Expected: '%s' near line %d", strings.TrimSpace(targetLine), line),
			Hint:       oe.Hint,
			Candidates: oe.Candidates}
	}
	return n, err
}

// lispExts are Lisp dialects without a tree-sitter grammar here: their
// top-level forms come from their brackets (parinfer.TopLevel).
var lispExts = map[string]string{".el": ";;", ".lisp": ";;", ".lsp": ";;", ".cl": ";;", ".scm": ";;", ".ss": ";;",
	".rkt": ";;", ".fnl": ";;", ".hy": ";;", ".lfe": ";;", ".janet": "#"}

func isLisp(name, lang string) bool {
	_, ok := lispExts[strings.ToLower(filepath.Ext(name))]
	return lang == "clojure" || ok
}

// topForms returns the top-level forms of a file; ok is false when its
// language is not supported.
func topForms(name, text string) ([]syntax.Form, bool) {
	forms, ok, err := syntax.TopLevelForms(name, []byte(text))
	if err == nil && ok {
		return forms, true
	}
	if !isLisp(name, "") {
		return nil, false
	}
	for _, f := range parinfer.TopLevel(text) {
		kind := "form"
		if head := strings.Fields(strings.TrimLeft(text[f.StartByte:f.EndByte], "'`#?@([{")); len(head) > 0 {
			kind = strings.TrimRight(head[0], ")]}")
		}
		forms = append(forms, syntax.Form{Kind: kind,
			Span: syntax.Span{StartLine: f.StartLine, EndLine: f.EndLine, StartByte: f.StartByte, EndByte: f.EndByte}})
	}
	return forms, true
}

// checkBalance refuses an unbalanced Lisp form, offering parinfer's fix.
func checkBalance(name, lang, form string, line int) error {
	if !isLisp(name, lang) {
		return nil
	}
	bad := parinfer.Balanced(form)
	if bad == nil {
		return nil
	}
	e := &ops.Error{Op: "bracket_check", Index: -1, Path: name, Err: ops.ErrSyntax,
		Msg: fmt.Sprintf("newForm is unbalanced: %s at line %d, column %d of newForm; nothing was written", bad.Message, bad.LineNo+1, bad.X+1)}
	if res := parinfer.IndentMode(form); res.Success && parinfer.Balanced(res.Text) == nil {
		e.Msg += ". Suggested balanced version (parinfer indent mode, parens inferred from indentation):\n" + res.Text
		e.Hint = "if the suggestion (also the candidate's text) is what you meant, send it as newForm; else fix the brackets"
		e.Candidates = []ops.Candidate{{Line: line, Text: res.Text}}
	} else {
		e.Hint = "fix the brackets and strings of newForm (parinfer could not balance it)"
	}
	return e
}
