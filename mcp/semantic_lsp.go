package mcp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/journalfs/journal/ops"
	"github.com/journalfs/journal/ops/syntax"
	"github.com/journalfs/journal/replay"
	"github.com/journalfs/journal/replay/lsp"
	"github.com/journalfs/journal/snapshot"
)

// The language-server half of the safety layer (issue 7).
//
// An edit is shown to the language server BEFORE anything is written, as
// seed 000's virtual document: the files it will touch are opened in the
// server with their disk content, a detected rename is propagated with
// textDocument/rename at the old declaration (computed on the original
// contents, so the server still resolves the old name; the files it
// changes are opened too), the diagnostics of all of them are taken, the
// new contents are set as overlays, the diagnostics are taken again and
// compared (newProblems), and with autoFix quick fixes for new errors are
// folded in (chooseFixes). Only then is everything — the primary edit, the propagated
// rename and the fixes — written as ONE journal event, with every file
// checked against the version the server saw. A file changed meanwhile makes
// the edit EDIT_CONFLICT; nothing is half-written.

// Limits of one consultation.
const (
	lspMaxWatch    = 30 // files opened to watch their diagnostics (callers of the edited symbols)
	lspMaxFixLoops = 5  // rounds of quick fixes
	lspMaxFixes    = 20 // quick fixes applied in one edit
)

// errLSPSkip means the language server cannot be consulted on this file; the
// edit goes on without it and the reason is reported.
var errLSPSkip = errors.New("mcp: language server not consulted")

// renameReq is one rename to propagate: old's declaration identifier sits at
// line (1-based), col (byte) of the primary file's original content.
type renameReq struct {
	old, new  string
	line, col int
}

// lspJob is one edit the language server is consulted on.
type lspJob struct {
	primary replay.Path
	src     *source // the primary file as read (UTF-8 without BOM)
	after   string  // its new text as the tool computed it
	intents []syntax.Intent
	renames []renameReq // explicit renames (rename_symbol); file_edit's come from intents
	autoFix bool
}

// lspFile is one file the consultation read and may change.
type lspFile struct {
	path   replay.Path
	id     snapshot.ID  // the version the consultation read
	before string       // the content read
	text   string       // the content planned
	steps  []*offsetMap // how each change from before to text moved the rest (semantic_diags.go)
}

func (f *lspFile) changed() bool { return f.text != f.before }

// lspReport is what a consultation found and planned.
type lspReport struct {
	files       map[string]*lspFile // by absolute path
	order       []string            // absolute paths, primary first
	asked       map[string]bool     // the files whose diagnostics before the edit were taken
	propagated  []Propagation
	autoFixed   []AutoFix
	newDiags    []Diagnostic
	notCompared map[string]string // files whose new problems are not known, and why (newProblems)
	refs        []Impact
	notes       []string
}

func (r *lspReport) primary() *lspFile { return r.files[r.order[0]] }

// diff is the unified diff of every planned change, primary first.
func (r *lspReport) diff() string {
	var b strings.Builder
	for _, f := range r.changedFiles() {
		b.WriteString(ops.Diff(f.path.Key, f.path.Key, []byte(f.before), []byte(f.text)))
	}
	return b.String()
}

// changedFiles lists the files the plan changes, primary first.
func (r *lspReport) changedFiles() []*lspFile {
	var out []*lspFile
	for _, p := range r.order {
		if f := r.files[p]; f.changed() {
			out = append(out, f)
		}
	}
	return out
}

// lspFor reports whether a language server handles the file, and why not.
func (s *Server) lspFor(p replay.Path) (bool, string) {
	if s.opts.LSP == nil {
		return false, "no language server is configured (serve --lsp=false)"
	}
	return s.opts.LSP.Available(p.Abs())
}

// consult runs the language server over job. The caller holds s.lspMu and
// must settle the overlays (finish) whatever happens.
func (s *Server) consult(ctx context.Context, job *lspJob) (*lspReport, error) {
	m := s.opts.LSP
	rep := &lspReport{files: map[string]*lspFile{}}
	prim := &lspFile{path: job.primary, id: job.src.file.ID, before: job.src.text, text: job.src.text}
	rep.add(prim)
	abs := job.primary.Abs()
	m.Refresh(ctx) // files changed outside since the server saw them
	if err := m.Overlay(ctx, abs, []byte(prim.before)); err != nil {
		return rep, fmt.Errorf("open %s in the language server: %w", job.primary.Rel, err)
	}

	// Watch the callers of every symbol the edit renames, deletes or changes.
	type symbolAt struct {
		name      string
		intent    syntax.IntentType
		line, col int
	}
	renames := slices.Clone(job.renames)
	var targets []symbolAt
	for _, r := range job.renames {
		targets = append(targets, symbolAt{r.old, syntax.IntentRename, r.line, r.col})
	}
	before, _ := syntax.Outline(job.src.name(), []byte(job.src.text))
	for _, it := range job.intents {
		old := it.Name
		if it.Type == syntax.IntentRename {
			old = it.OldName
		}
		line, col, ok := declPosition(before, job.src.text, old, it.Line)
		if it.Type == syntax.IntentAdd || !ok {
			continue
		}
		if it.Type == syntax.IntentRename {
			renames = append(renames, renameReq{old: old, new: lastSegment(it.Name), line: line, col: col})
		}
		targets = append(targets, symbolAt{old, it.Type, line, col})
	}
	for _, t := range targets {
		locs, err := m.References(ctx, abs, t.line, t.col, false)
		if err != nil {
			rep.notes = append(rep.notes, fmt.Sprintf("references of %s: %v", t.name, err))
			continue
		}
		if t.intent == syntax.IntentDelete {
			rep.refs = append(rep.refs, s.impactOf(lastSegment(t.name), "delete", locs))
		}
		for _, l := range locs {
			if len(rep.order) >= lspMaxWatch {
				break
			}
			if _, err := s.lspWatch(ctx, rep, l.Path); err != nil && !errors.Is(err, errLSPSkip) {
				rep.notes = append(rep.notes, fmt.Sprintf("not watched: %v", err))
			}
		}
	}
	// Propagate the renames, computed on the original contents: every file
	// they touch is opened (with its content before the edit) before the
	// diagnostics before the edit are taken.
	prim.plan(job.after, newOffsetMap(prim.before, job.after))
	if err := s.propagate(ctx, rep, renames); err != nil {
		return rep, err
	}
	was, err := m.Diagnostics(ctx, rep.order...)
	if err != nil {
		return rep, fmt.Errorf("diagnostics before the edit: %w", err)
	}
	rep.asked = map[string]bool{}
	for _, p := range rep.order {
		rep.asked[p] = true
	}
	if err := s.overlayChanged(ctx, rep); err != nil {
		return rep, err
	}
	now, err := m.Diagnostics(ctx, rep.order...)
	if err != nil {
		return rep, fmt.Errorf("diagnostics after the edit: %w", err)
	}
	fresh, notCompared := newProblems(rep, was, now)

	// Fold in quick fixes for new errors (chooseFixes).
	for round := 0; job.autoFix && round < lspMaxFixLoops && len(rep.autoFixed) < lspMaxFixes; round++ {
		applied, err := s.applyQuickFix(ctx, rep, fresh)
		if err != nil {
			rep.notes = append(rep.notes, fmt.Sprintf("auto-fix stopped: %v", err))
			break
		}
		if !applied {
			break
		}
		if err := s.overlayChanged(ctx, rep); err != nil {
			return rep, err
		}
		if now, err = m.Diagnostics(ctx, rep.order...); err != nil {
			return rep, fmt.Errorf("diagnostics after auto-fix: %w", err)
		}
		fresh, notCompared = newProblems(rep, was, now)
	}
	for _, d := range fresh {
		rep.newDiags = append(rep.newDiags, s.diagnostic(d, true))
	}
	rep.notCompared = notCompared
	if now.Incomplete != "" {
		rep.notes = append(rep.notes, "files not open may have new problems not reported yet: "+now.Incomplete)
	}
	rep.notes = append(rep.notes, s.notComparedNotes(notCompared)...)
	return rep, nil
}

// propagate asks the server to rename each symbol at its old declaration and
// folds every edit into the planned contents. In the primary file, the
// edits that fall inside the text the tool replaced are dropped: the agent's
// code is authoritative there.
func (s *Server) propagate(ctx context.Context, rep *lspReport, renames []renameReq) error {
	m := s.opts.LSP
	abs := rep.order[0]
	edits := map[string][]lsp.TextEdit{} // by absolute path, on the contents read
	var order []string
	for _, r := range renames {
		if r.old == r.new || r.new == "" {
			continue
		}
		fes, err := m.Rename(ctx, abs, r.line, r.col, r.new)
		if err != nil {
			rep.notes = append(rep.notes, fmt.Sprintf("rename of %s → %s not propagated: %v", lastSegment(r.old), r.new, err))
			continue
		}
		prop := Propagation{Type: "rename", Symbol: lastSegment(r.old), NewName: r.new, FilesAffected: []string{}}
		for _, fe := range fes {
			f, err := s.lspWatch(ctx, rep, fe.Path)
			if err != nil {
				return fmt.Errorf("rename of %s would change %s: %w", lastSegment(r.old), fe.Path, err)
			}
			es := fe.Edits
			if fe.Path == abs {
				es = shiftOutside(es, f.before, f.text)
			}
			if len(es) == 0 {
				continue
			}
			if _, ok := edits[fe.Path]; !ok {
				order = append(order, fe.Path)
			}
			edits[fe.Path] = append(edits[fe.Path], es...)
			prop.TotalEdits += len(es)
			if fe.Path != abs {
				prop.FilesAffected = append(prop.FilesAffected, f.path.Key)
			}
		}
		sort.Strings(prop.FilesAffected)
		rep.propagated = append(rep.propagated, prop)
	}
	for _, p := range order {
		f := rep.files[p]
		es := edits[p]
		sort.SliceStable(es, func(i, j int) bool { return es[i].Start < es[j].Start })
		out, err := lsp.ApplyEdits([]byte(f.text), es)
		if err != nil {
			return fmt.Errorf("propagated rename in %s: %w", f.path.Rel, err)
		}
		f.plan(string(out), editsMap(es))
	}
	return nil
}

// applyQuickFix applies the first fix chooseFixes allows for one of the new
// errors; applied is false when there is none.
func (s *Server) applyQuickFix(ctx context.Context, rep *lspReport, fresh []lsp.Diagnostic) (bool, error) {
	for _, d := range fresh {
		if d.Severity != "error" {
			continue
		}
		fixes, err := s.opts.LSP.QuickFixes(ctx, d)
		if err != nil {
			return false, err
		}
		for _, fx := range chooseFixes(fixes) {
			plans := map[string]lsp.FileEdit{}
			for _, fe := range fx.Edits {
				f, err := s.lspWatch(ctx, rep, fe.Path)
				if err != nil {
					return false, fmt.Errorf("fix %q would change %s: %w", fx.Title, fe.Path, err)
				}
				if _, err := lsp.ApplyEdits([]byte(f.text), fe.Edits); err != nil {
					return false, fmt.Errorf("fix %q: %w", fx.Title, err)
				}
				plans[fe.Path] = fe
			}
			for p, fe := range plans {
				out, _ := lsp.ApplyEdits([]byte(rep.files[p].text), fe.Edits) // checked above
				rep.files[p].plan(string(out), editsMap(fe.Edits))
				rep.autoFixed = append(rep.autoFixed, AutoFix{File: rep.files[p].path.Key, Fix: fx.Title})
			}
			return true, nil
		}
	}
	return false, nil
}

// chooseFixes returns the fixes autoFix may apply, best first: those the
// server marks preferred; failing any, the only quick fix it offers (gopls
// marks none preferred, and a sole fix — "Add import: \"strings\"" — is not a
// guess between alternatives). Fixes without edits are never applied.
func chooseFixes(fixes []lsp.Fix) []lsp.Fix {
	var preferred, quick []lsp.Fix
	for _, fx := range fixes {
		if len(fx.Edits) == 0 {
			continue
		}
		if fx.Preferred {
			preferred = append(preferred, fx)
		}
		if fx.Kind == "quickfix" || strings.HasPrefix(fx.Kind, "quickfix.") {
			quick = append(quick, fx)
		}
	}
	if len(preferred) > 0 {
		return preferred
	}
	if len(quick) == 1 {
		return quick
	}
	return nil
}

// lspWatch reads a file for the consultation and opens it in the server with
// its disk content (servers such as pyright and tsserver diagnose open files
// only). The file must be inside a root and be UTF-8 text without a BOM.
func (s *Server) lspWatch(ctx context.Context, rep *lspReport, abs string) (*lspFile, error) {
	if f := rep.files[abs]; f != nil {
		return f, nil
	}
	rp, err := s.eng.Resolve(abs)
	if err != nil {
		return nil, err
	}
	src, err := loadSource(s.eng.Read(rp.Key))
	if err != nil {
		return nil, err
	}
	if src.doc.Encoding != ops.UTF8 || src.doc.BOM {
		return nil, fmt.Errorf("%s is not UTF-8 without a BOM: %w", rp.Rel, errLSPSkip)
	}
	f := &lspFile{path: rp, id: src.file.ID, before: src.text, text: src.text}
	if err := s.opts.LSP.Overlay(ctx, abs, []byte(f.before)); err != nil {
		return nil, fmt.Errorf("open %s in the language server: %w", rp.Rel, err)
	}
	rep.add(f)
	return f, nil
}

func (r *lspReport) add(f *lspFile) {
	abs := f.path.Abs()
	r.files[abs] = f
	r.order = append(r.order, abs)
}

// overlayChanged shows the server every planned content.
func (s *Server) overlayChanged(ctx context.Context, rep *lspReport) error {
	for _, f := range rep.changedFiles() {
		if err := s.opts.LSP.Overlay(ctx, f.path.Abs(), []byte(f.text)); err != nil {
			return fmt.Errorf("show %s to the language server: %w", f.path.Rel, err)
		}
	}
	return nil
}

// finish settles the server's view after a consultation: written files are
// saved (the overlay is now the disk content), anything else goes back to
// what is on disk. Every file of rep was opened with its disk content, so
// only the changed ones need it.
func (s *Server) finish(ctx context.Context, rep *lspReport, written bool) {
	if rep == nil {
		return
	}
	ctx = context.WithoutCancel(ctx)
	for _, p := range rep.order {
		f := rep.files[p]
		switch {
		case !f.changed():
		case written:
			s.opts.LSP.Saved(ctx, p)
		default:
			s.opts.LSP.Reset(ctx, p)
		}
	}
}

// applyConsulted writes the primary file and everything the consultation
// planned as one event, each file checked against the version the server saw.
func (s *Server) applyConsulted(ctx context.Context, c *call, rep *lspReport, dryRun bool) (*replay.Result, error) {
	return s.eng.Edit(ctx, func(r *replay.Reader) (*replay.Batch, error) {
		b := c.batch(dryRun)
		for _, f := range rep.changedFiles() {
			cur, err := r.Read(f.path.Key)
			if err != nil {
				return nil, err
			}
			if !cur.Exists || cur.ID != f.id {
				return nil, &replay.PathError{Path: f.path.Rel, Err: replay.ErrConflict,
					Msg:  "changed while the language server was consulted",
					Hint: "read the file again and retry the edit"}
			}
			id := f.id
			b.Changes = append(b.Changes, replay.Change{Path: f.path.Key, Data: []byte(f.text), Expect: &id})
		}
		return b, nil
	})
}

// declPosition finds the identifier of the symbol at path in src's outline:
// its line (1-based) and byte column. Of several symbols with that path the
// one nearest line wins.
func declPosition(ol *syntax.FileOutline, src, path string, line int) (int, int, bool) {
	if ol == nil || !ol.Supported {
		return 0, 0, false
	}
	var best *syntax.Symbol
	flat := syntax.Flatten(ol.Symbols)
	for i := range flat {
		sy := &flat[i]
		if sy.Path != path {
			continue
		}
		if best == nil || absInt(sy.Range.StartLine-line) < absInt(best.Range.StartLine-line) {
			best = sy
		}
	}
	if best == nil {
		return 0, 0, false
	}
	off := identOffset(src, best.Range.StartByte, min(best.Range.EndByte, len(src)), best.Name)
	if off < 0 {
		return 0, 0, false
	}
	l := 1 + strings.Count(src[:off], "\n")
	col := off - (strings.LastIndexByte(src[:off], '\n') + 1)
	return l, col, true
}

// identOffset is the offset of the first whole-word occurrence of name in
// src[from:to], or -1.
func identOffset(src string, from, to int, name string) int {
	if name == "" || from < 0 || from >= to {
		return -1
	}
	seg := src[from:to]
	for i := 0; ; {
		j := strings.Index(seg[i:], name)
		if j < 0 {
			return -1
		}
		at := i + j
		end := at + len(name)
		if (at == 0 || !isIdentByte(seg[at-1])) && (end == len(seg) || !isIdentByte(seg[end])) {
			return from + at
		}
		i = at + 1
	}
}

func isIdentByte(b byte) bool {
	return b == '_' || b == '$' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80
}

func absInt(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// shiftOutside maps edits made on before onto after, the tool's new text:
// an edit in the common prefix stays, one in the common suffix moves with
// it, and one that meets the changed span (widened to whole identifiers) is
// dropped, as is one whose text is not in after where it was in before.
func shiftOutside(edits []lsp.TextEdit, before, after string) []lsp.TextEdit {
	pre, suf := commonEnds(before, after)
	for pre > 0 && isIdentByte(before[pre-1]) {
		pre--
	}
	endOld := len(before) - suf
	for endOld < len(before) && isIdentByte(before[endOld]) {
		endOld++
	}
	delta := len(after) - len(before)
	var out []lsp.TextEdit
	for _, e := range edits {
		if e.Start < 0 || e.End < e.Start || e.End > len(before) {
			continue
		}
		was := before[e.Start:e.End]
		switch {
		case e.End <= pre:
		case e.Start >= endOld:
			e.Start, e.End = e.Start+delta, e.End+delta
		default:
			continue
		}
		if e.End > len(after) || after[e.Start:e.End] != was {
			continue
		}
		out = append(out, e)
	}
	return out
}

// commonEnds returns the lengths of the longest common prefix of a and b and
// of the longest common suffix of what remains.
func commonEnds(a, b string) (pre, suf int) {
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	return pre, suf
}

// diagnostic converts a language server's diagnostic, naming the file as
// the journal does.
func (s *Server) diagnostic(d lsp.Diagnostic, fresh bool) Diagnostic {
	file := s.fileKey(d.Path)
	src := d.Source
	if src == "" {
		src = "lsp"
	}
	if d.Code != "" {
		src += " " + d.Code
	}
	return Diagnostic{File: file, Line: d.Line, Column: d.Col, Message: d.Message, Severity: d.Severity, Source: src, New: fresh}
}

// fileKey names a file a language server reported as the journal does,
// else by its slash path.
func (s *Server) fileKey(abs string) string {
	if rp, err := s.eng.Resolve(abs); err == nil {
		return rp.Key
	}
	return filepath.ToSlash(abs)
}

// impactOf groups reference locations by file, as an impact scope.
func (s *Server) impactOf(symbol, intent string, locs []lsp.Location) Impact {
	imp := Impact{Symbol: symbol, Intent: intent, Files: []ImpactFile{}}
	byFile := map[string][]int{}
	var order []string
	for _, l := range locs {
		key := s.fileKey(l.Path)
		if _, ok := byFile[key]; !ok {
			order = append(order, key)
		}
		byFile[key] = append(byFile[key], l.Line)
	}
	for _, k := range order {
		imp.Files = append(imp.Files, ImpactFile{File: k, Lines: byFile[k]})
	}
	return imp
}
