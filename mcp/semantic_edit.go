package mcp

import (
	"context"
	"fmt"
	"strings"

	"github.com/journalfs/journal/ops"
	"github.com/journalfs/journal/ops/syntax"
)

// FileEditIn is file_edit's input (seed 000).
type FileEditIn struct {
	File              string `json:"file"`
	Code              string `json:"code" jsonschema:"the new code, as-is (\"\" deletes)"`
	Target            string `json:"target,omitempty" jsonschema:"a dotted path (A.b); name@LINE picks one"`
	StartLine         *int   `json:"startLine,omitempty"`
	EndLine           *int   `json:"endLine,omitempty"`
	AllowSyntaxErrors bool   `json:"allowSyntaxErrors,omitempty"`
	ExpectedVersion   string `json:"expected_version,omitempty"`
	DryRun            bool   `json:"dryRun,omitempty" jsonschema:"diff only, write nothing"`
	AutoFix           bool   `json:"autoFix,omitempty" jsonschema:"apply the server's quick fixes, same event"`
	writeOpts
}

// DetectedIntent is one intent the safety layer found (seed 000).
type DetectedIntent struct {
	Type    string `json:"type"`   // rename | delete | add | body_change
	Symbol  string `json:"symbol"` // the symbol's path (before a rename or delete)
	Details string `json:"details,omitempty"`
	Kind    string `json:"kind,omitempty"`
	Line    int    `json:"line,omitempty"` // where it is after the edit (before, for a delete)
}

// Propagation is an automatic follow-up edit (seed 000), made by the
// file's language server in the same journal event.
type Propagation struct {
	Type          string   `json:"type"` // rename | import_update
	Symbol        string   `json:"symbol,omitempty"`
	NewName       string   `json:"newName,omitempty"`
	FilesAffected []string `json:"filesAffected"` // files other than the edited one
	TotalEdits    int      `json:"totalEdits"`
}

// AutoFix is a language server's preferred quick fix, applied in the same
// journal event (seed 000; file_edit's autoFix).
type AutoFix struct {
	File string `json:"file"`
	Fix  string `json:"fix"`
}

// FileEditResult is seed 000's FileEditResult plus the journal's fields.
type FileEditResult struct {
	Success         bool             `json:"success"`
	File            string           `json:"file"`
	Target          string           `json:"target,omitempty"`
	DetectedIntents []DetectedIntent `json:"detectedIntents"`
	Propagated      []Propagation    `json:"propagated"`
	AutoFixed       []AutoFix        `json:"autoFixed"`
	RemainingErrors []Diagnostic     `json:"remainingErrors"`
	ImpactScope     []Impact         `json:"impactScope,omitempty"`
	Summary         string           `json:"summary"`
	Notes           []string         `json:"notes,omitempty"`
	Range           LineRange        `json:"range"`             // the new region, post-edit lines
	Context         []string         `json:"context,omitempty"` // the region ±2 lines
	Event           uint64           `json:"event,omitempty"`
	Version         string           `json:"version,omitempty"`
	DryRun          bool             `json:"dryRun,omitempty"`
	// Unchanged: the code equals what the file has, so nothing was written
	// and no journal event recorded.
	Unchanged bool   `json:"unchanged,omitempty"`
	Diff      string `json:"diff,omitempty"` // dry runs

	// AlreadyApplied: the file already had the code (Unchanged), or this
	// exact request made its last change (repeat.go); nothing was written.
	AlreadyApplied bool `json:"already_applied,omitempty"`
}

// editPlan is what the safety layer computed under the lock.
type editPlan struct {
	what    string // "symbol", "lines" or "file"
	sym     *syntax.Symbol
	reg     region
	intents []syntax.Intent
	was     []Diagnostic
	now     []Diagnostic
	checked bool
	elided  string // what the code's elision markers stood for
	// artefacts says what agent artefacts were undone in the code of a
	// line range (lines_content.go).
	artefacts []string
}

func (s *Server) fileEdit(ctx context.Context, c *call, in *FileEditIn) (*FileEditResult, string, error) {
	if out, ok := s.fileEditRepeat(c, in); ok {
		return out, "## file_edit: Already applied to " + out.File + "\n" + out.Summary + "\n", nil
	}
	p := &editPlan{}
	sr := &safetyReq{autoFix: in.AutoFix, intents: func() []syntax.Intent { return p.intents }}
	lineBased := in.Target == "" && in.StartLine != nil
	var rb *rebaser
	if lineBased {
		rb = s.lineRebaser(c, in.File, in.ExpectedVersion, in.StartLine, in.EndLine, "startLine", "endLine", nil)
	}
	done, err := s.editText(ctx, c, textEdit{path: in.File, expected: in.ExpectedVersion, dryRun: in.DryRun,
		lineBased: lineBased, safety: sr, rebase: rb,
		plan: func(src *source) (string, error) { return p.apply(src, in) }})
	if err != nil {
		return nil, "", err
	}
	out := &FileEditResult{Success: true, File: done.key, Target: in.Target, DetectedIntents: []DetectedIntent{},
		Propagated: []Propagation{}, AutoFixed: []AutoFix{}, RemainingErrors: []Diagnostic{},
		Event: done.event, Version: done.version, DryRun: in.DryRun}
	if rb != nil {
		out.Notes = append(out.Notes, rb.notes...)
	}
	out.Notes = append(out.Notes, p.artefacts...)
	if p.elided != "" {
		out.Notes = append(out.Notes, p.elided)
	}
	if !p.checked {
		out.Notes = append(out.Notes, "no syntax check: the language of this file is not supported")
	}
	if p.now != nil {
		out.RemainingErrors = p.now
	}
	rep := sr.report
	if rep == nil {
		out.Notes = append(out.Notes, lspSkipped(sr.skipped))
	} else {
		out.Propagated = append(out.Propagated, rep.propagated...)
		out.AutoFixed = append(out.AutoFixed, rep.autoFixed...)
		out.RemainingErrors = append(out.RemainingErrors, rep.newDiags...)
		out.Notes = append(out.Notes, rep.notes...)
	}
	gone := map[string]string{}
	for _, it := range p.intents {
		di := DetectedIntent{Type: string(it.Type), Symbol: it.Name, Details: it.Details, Kind: string(it.Kind), Line: it.Line}
		if it.Type == syntax.IntentRename {
			di.Symbol, di.Details = it.OldName, "renamed to "+it.Name
			gone[lastSegment(it.OldName)] = "rename"
		}
		if it.Type == syntax.IntentDelete {
			gone[lastSegment(it.Name)] = "delete"
		}
		out.DetectedIntents = append(out.DetectedIntents, di)
	}
	if rep != nil {
		out.ImpactScope = rep.refs
		for _, pr := range rep.propagated {
			delete(gone, pr.Symbol)
		}
		for name, intent := range gone {
			if intent == "delete" {
				delete(gone, name)
			}
		}
	}
	if len(gone) > 0 && len(gone) <= 5 {
		out.ImpactScope = append(out.ImpactScope, s.impactScope(ctx, done.key, done.src.name(), done.after, gone)...)
	}
	after := ops.NewDoc(done.after, ops.UTF8, false)
	first, last := p.reg.from, p.reg.to+p.reg.delta
	if last < first { // a deletion: show where it was
		last = first - 1
	}
	out.Range = LineRange{StartLine: first, EndLine: max(last, first-1)}
	out.Context = ops.Context(after, max(first, 1), max(last, 1), ops.ContextLines)
	if in.DryRun {
		out.Diff = ops.Diff(done.key, done.key, []byte(done.src.text), []byte(done.after))
		if rep != nil {
			out.Diff = rep.diff()
		}
	}
	if done.same {
		out.Unchanged, out.AlreadyApplied = true, !in.DryRun
		out.Notes = append(out.Notes, "the code equals what the file already has: nothing was written")
	}
	out.Summary = editSummary(out, p)
	return out, editText(out, p, in), nil
}

// apply computes the edited text and runs the safety layer on it.
func (p *editPlan) apply(src *source, in *FileEditIn) (string, error) {
	name, d := src.name(), src.doc
	before, _ := syntax.Outline(name, []byte(src.text))
	supported := before != nil && before.Supported
	n := d.LineCount()
	code := withEOL(in.Code, d.DominantEOL())
	var a, b int
	switch {
	case in.Target != "":
		if !supported {
			return "", invalid("use startLine/endLine for this file", "no symbol outline for %s (language not recognised)", name)
		}
		sym, err := resolveSymbol(before, name, in.Target, in.StartLine, in)
		if err != nil {
			return "", err
		}
		p.what, p.sym = "symbol", sym
		a, b = sym.Range.StartLine, sym.Range.EndLine
		if sym.Full.StartLine < a && (in.Code == "" || leadsWithDecoration(in.Code, before.Language, d, sym)) {
			a = sym.Full.StartLine
		}
		code = reindent(code, indentOf(d.Line(a)))
	case in.StartLine != nil:
		a, b = *in.StartLine, *in.StartLine
		if in.EndLine != nil {
			b = *in.EndLine
		}
		if a < 1 || b < a || b > n {
			return "", invalid(fmt.Sprintf("the file has %d lines; lines are 1-indexed, startLine ≤ endLine", n), "lines %d-%d are out of range", a, b)
		}
		p.what = "lines"
	default:
		p.what, a, b = "file", 1, n
	}
	var after string
	p.elided = ""
	if p.what == "file" {
		var es []ops.Elision
		var err error
		if after, es, err = ops.ExpandMarkers(src.text, code, name); err != nil {
			return "", err
		}
		p.elided = ops.ElisionNote(es, 1, "")
		if d.HasFinalNewline() && after != "" && !strings.HasSuffix(after, "\n") && !strings.HasSuffix(after, "\r") {
			after += d.DominantEOL()
		}
	} else {
		start, end, next := lineSpan(d, a, b)
		if in.Code == "" {
			after = src.text[:start] + src.text[next:]
		} else {
			if p.what == "lines" {
				sent, err := p.lineContent(in.Code, d, a, b, name)
				if err != nil {
					return "", err
				}
				code = withEOL(sent, d.DominantEOL())
			}
			code, es, err := ops.ExpandMarkers(src.text[start:end], code, name)
			if err != nil {
				return "", err
			}
			p.elided = ops.ElisionNote(es, a, "")
			after = src.text[:start] + trimOneEOL(code) + src.text[end:]
		}
	}
	p.reg = region{from: a, to: b, delta: lineCount(after) - n}
	if supported {
		o2, _ := syntax.Outline(name, []byte(after))
		if o2 != nil {
			// Seed 000 diffs the symbols of the edited scope: those that
			// overlap the region (and the parents around it).
			p.intents = syntax.DiffSymbols(inScope(before.Symbols, a, b), inScope(o2.Symbols, a, max(b+p.reg.delta, a-1)))
		}
	}
	p.was, p.now, p.checked = syntaxCheck(src.file.Path.Key, name, src.text, after, p.reg)
	if introduced := newOnly(p.now); len(introduced) > 0 && !in.AllowSyntaxErrors {
		return "", syntaxRefusal(src.file.Path.Key, introduced)
	}
	return after, nil
}

// leadsWithDecoration reports whether code begins with its own decorators,
// attributes, annotations or doc comments: its first line is a comment, one
// of the lines above sym's declaration, or starts with @, #[ or [ where the
// declaration itself does not.
func leadsWithDecoration(code, lang string, d *ops.Doc, sym *syntax.Symbol) bool {
	first := ""
	for _, l := range strings.Split(code, "\n") {
		if first = strings.TrimSpace(l); first != "" {
			break
		}
	}
	if first == "" {
		return false
	}
	for n := sym.Full.StartLine; n < sym.Range.StartLine; n++ {
		if strings.TrimSpace(d.Line(n)) == first {
			return true
		}
	}
	comments := []string{"//", "/*"}
	if c := syntax.CommentPrefix(lang); c != "" && c != "#" {
		comments = append(comments, c)
	} else if c == "#" {
		comments = append(comments, "# ", "#\t")
	}
	for _, pre := range comments {
		if strings.HasPrefix(first, pre) || first == strings.TrimSpace(pre) {
			return true
		}
	}
	decl := strings.TrimSpace(d.Line(sym.Range.StartLine))
	for _, pre := range []string{"@", "#[", "["} {
		if strings.HasPrefix(first, pre) && !strings.HasPrefix(decl, pre) {
			return true
		}
	}
	return false
}

// inScope flattens the symbols whose lines meet lo..hi (a region that is
// empty, hi < lo, meets the symbols around it).
func inScope(syms []syntax.Symbol, lo, hi int) []syntax.Symbol {
	var out []syntax.Symbol
	for _, s := range syntax.Flatten(syms) {
		if s.Full.StartLine <= hi && s.Range.EndLine >= lo {
			out = append(out, s)
		}
	}
	return out
}

// lspSkipped is the note a result carries when no language server was
// consulted.
func lspSkipped(why string) string {
	if why == "" {
		why = "no language server was consulted"
	}
	return why + ": rename propagation, reference checks, type diagnostics and quick fixes were skipped; diagnostics are tree-sitter syntax errors"
}

func lastSegment(path string) string { return path[strings.LastIndexByte(path, '.')+1:] }
