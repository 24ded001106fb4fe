package mcp

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/journalfs/journal/ops/syntax"
	"github.com/journalfs/journal/snapshot"
)

// ErrNoLanguageServer means a tool that needs a language server has none
// for the file.
var ErrNoLanguageServer = errors.New("mcp: no language server for this file")

// RenameSymbolIn is rename_symbol's input.
type RenameSymbolIn struct {
	File            string `json:"file"`
	Target          string `json:"target" jsonschema:"a dotted path (A.b); name@LINE picks one"`
	NewName         string `json:"newName" jsonschema:"the last segment only"`
	ExpectedVersion string `json:"expected_version,omitempty"`
	DryRun          bool   `json:"dryRun,omitempty" jsonschema:"diff only, write nothing"`
	writeOpts
}

// RenameSymbolResult says what rename_symbol changed.
type RenameSymbolResult struct {
	Success        bool              `json:"success"`
	File           string            `json:"file"`
	Symbol         string            `json:"symbol"`
	NewName        string            `json:"newName"`
	FilesChanged   []string          `json:"filesChanged"`
	TotalEdits     int               `json:"totalEdits"`
	NewDiagnostics []Diagnostic      `json:"newDiagnostics"` // problems the rename introduced, as the server reports them
	Event          uint64            `json:"event,omitempty"`
	Versions       map[string]string `json:"versions,omitempty"`
	DryRun         bool              `json:"dryRun,omitempty"`
	Diff           string            `json:"diff,omitempty"`
	Notes          []string          `json:"notes,omitempty"`
}

// DiagnosticsIn is the diagnostics tool's input.
type DiagnosticsIn struct {
	File     string `json:"file,omitempty" jsonschema:"omitted: the workspace"`
	Severity string `json:"severity,omitempty" jsonschema:"lowest listed: error (default), warning, info, hint"`
}

// DiagnosticsResult lists a file's or the workspace's diagnostics.
type DiagnosticsResult struct {
	File        string         `json:"file,omitempty"`
	Version     string         `json:"version,omitempty"`
	Source      string         `json:"source"` // "language server" or "tree-sitter"
	FilesOpened int            `json:"filesOpened,omitempty"`
	Diagnostics []Diagnostic   `json:"diagnostics"`
	Counts      map[string]int `json:"counts"` // by severity
	Truncated   bool           `json:"truncated,omitempty"`
	Notes       []string       `json:"notes,omitempty"`
}

// Limits of the diagnostics tool.
const (
	diagMaxOpen  = 200 // files opened for a workspace check
	diagMaxShown = 200 // diagnostics listed
)

func init() { registrars = append(registrars, (*Server).registerLSPTools) }

func (s *Server) registerLSPTools() {
	addTool(s, def{name: "rename_symbol", toolset: ToolsetSemantic, title: "Rename a symbol everywhere",
		desc:        "Rename a symbol and its references across the workspace through the language server, as one event. NO_LANGUAGE_SERVER: use file_edit.",
		destructive: true},
		func(ctx context.Context, c *call, in *RenameSymbolIn) (*RenameSymbolResult, string, error) {
			return s.renameSymbol(ctx, c, in)
		})
	addTool(s, def{name: "diagnostics", toolset: ToolsetSemantic, title: "Errors and warnings of a file or the workspace",
		desc:     "The language server's diagnostics (type errors...) of a file, or of the workspace without one; without a server, syntax errors.",
		readOnly: true, idempotent: true},
		func(ctx context.Context, c *call, in *DiagnosticsIn) (*DiagnosticsResult, string, error) {
			return s.diagnostics(ctx, c, in)
		})
}

func (s *Server) renameSymbol(ctx context.Context, c *call, in *RenameSymbolIn) (*RenameSymbolResult, string, error) {
	if strings.TrimSpace(in.Target) == "" {
		return nil, "", invalid("give the symbol's dotted path, e.g. UserService.findById", "target is empty")
	}
	if in.NewName == "" || strings.ContainsAny(in.NewName, " \t\r\n.()") {
		return nil, "", invalid("give the new last segment of the name, e.g. findUser", "newName %q is not a name", in.NewName)
	}
	src, err := loadSource(s.eng.Read(in.File)) // path safety first: symlinks are followed inside the root only
	if err != nil {
		return nil, "", err
	}
	rp := src.file.Path
	if ok, why := s.lspFor(rp); !ok {
		return nil, "", fmt.Errorf("%s: %s: %w", rp.Rel, why, ErrNoLanguageServer)
	}
	var old string
	sr := &safetyReq{renames: func(src *source) ([]renameReq, error) {
		ol, _ := syntax.Outline(src.name(), []byte(src.text))
		if ol == nil || !ol.Supported {
			return nil, invalid("rename needs a file whose language has an outline", "no symbol outline for %s", src.name())
		}
		sym, err := syntax.Resolve(ol, in.Target)
		if err != nil {
			return nil, err
		}
		off := identOffset(src.text, sym.Range.StartByte, min(sym.Range.EndByte, len(src.text)), sym.Name)
		if off < 0 {
			return nil, invalid("name the symbol by its declaration", "the name %s is not in the declaration of %s", sym.Name, sym.Path)
		}
		old = sym.Path
		line := 1 + strings.Count(src.text[:off], "\n")
		col := off - (strings.LastIndexByte(src.text[:off], "\n"[0]) + 1)
		return []renameReq{{old: sym.Path, new: in.NewName, line: line, col: col}}, nil
	}}
	done, err := s.editText(ctx, c, textEdit{path: rp.Key, expected: in.ExpectedVersion, dryRun: in.DryRun, safety: sr,
		plan: func(src *source) (string, error) { return src.text, nil }})
	if err != nil {
		return nil, "", err
	}
	rep := sr.report
	if rep == nil {
		return nil, "", fmt.Errorf("%s: %s: %w", rp.Rel, sr.skipped, ErrNoLanguageServer)
	}
	if len(rep.propagated) == 0 || done.same {
		why := "the language server changed nothing"
		if len(rep.notes) > 0 {
			why = strings.Join(rep.notes, "; ")
		}
		return nil, "", invalid("check the new name; the language server's answer is in the message", "%s not renamed: %s", in.Target, why)
	}
	out := &RenameSymbolResult{Success: true, File: done.key, Symbol: old, NewName: in.NewName, FilesChanged: []string{},
		NewDiagnostics: diagsOrEmpty(rep.newDiags), Event: done.event, DryRun: in.DryRun, Notes: rep.notes}
	for _, pr := range rep.propagated {
		out.TotalEdits += pr.TotalEdits
	}
	if !in.DryRun {
		out.Versions = map[string]string{}
	}
	for _, f := range rep.changedFiles() {
		out.FilesChanged = append(out.FilesChanged, f.path.Key)
		if !in.DryRun {
			out.Versions[f.path.Key] = version(snapshot.Sum([]byte(f.text)))
		}
	}
	if in.DryRun {
		out.Diff = rep.diff()
	}
	var notCompared []string
	for _, p := range sortedKeys(rep.notCompared) {
		notCompared = append(notCompared, s.fileKey(p))
	}
	return out, renameText(out, notCompared), nil
}

// renameText is rename_symbol's text; notCompared names the files whose new
// problems are not known (the notes say why).
func renameText(out *RenameSymbolResult, notCompared []string) string {
	var b strings.Builder
	verb := "Renamed"
	if out.DryRun {
		verb = "Dry run: would rename"
	}
	fmt.Fprintf(&b, "## rename_symbol: %s `%s` → `%s`\n\n", verb, out.Symbol, out.NewName)
	fmt.Fprintf(&b, "%d edit(s) in %d file(s): %s\n", out.TotalEdits, len(out.FilesChanged), strings.Join(out.FilesChanged, ", "))
	if out.Event > 0 {
		fmt.Fprintf(&b, "journal event %d (one revert_edit takes back every file)\n", out.Event)
	}
	switch {
	case len(out.NewDiagnostics) == 0 && len(notCompared) > 0:
		fmt.Fprintf(&b, "\n**Safety Check:** no new problems known, but %s could not be compared (see the notes)\n", strings.Join(notCompared, ", "))
	case len(out.NewDiagnostics) == 0:
		b.WriteString("\n**Safety Check:** 0 new problems reported by the language server\n")
	default:
		fmt.Fprintf(&b, "\n**New problems (%d):**\n", len(out.NewDiagnostics))
		for i, d := range out.NewDiagnostics {
			fmt.Fprintf(&b, "%d. %s:%d — %s (%s)\n", i+1, d.File, d.Line, d.Message, d.Severity)
		}
	}
	for _, n := range out.Notes {
		fmt.Fprintf(&b, "Note: %s\n", n)
	}
	if out.DryRun {
		b.WriteString("\n" + out.Diff)
	}
	return b.String()
}

var severityRank = map[string]int{"error": 0, "warning": 1, "info": 2, "hint": 3}

func (s *Server) diagnostics(ctx context.Context, c *call, in *DiagnosticsIn) (*DiagnosticsResult, string, error) {
	floor := "error"
	if in.Severity != "" {
		floor = in.Severity
	}
	if _, ok := severityRank[floor]; !ok {
		return nil, "", invalid("severity is error, warning, info or hint", "severity %q is unknown", in.Severity)
	}
	out := &DiagnosticsResult{Source: "language server", Diagnostics: []Diagnostic{}, Counts: map[string]int{}}
	var paths []string
	if in.File != "" {
		src, err := loadSource(s.eng.Read(in.File))
		if err != nil {
			return nil, "", err
		}
		out.File, out.Version = src.file.Path.Key, version(src.file.ID)
		if ok, why := s.lspFor(src.file.Path); !ok {
			return s.syntaxDiagnostics(out, src, why)
		}
		paths = []string{src.file.Path.Abs()}
	} else {
		var skipped int
		paths, skipped = s.workspaceFiles(ctx)
		if skipped > 0 {
			out.Truncated = true
			out.Notes = append(out.Notes, fmt.Sprintf("%d more file(s) a language server handles were not opened (limit %d)", skipped, diagMaxOpen))
		}
		if len(paths) == 0 {
			out.Notes = append(out.Notes, "no file of the workspace is handled by an available language server")
			return out, diagnosticsText(out), nil
		}
	}
	s.lspMu.Lock()
	defer s.lspMu.Unlock()
	s.opts.LSP.Refresh(ctx)
	rep := &lspReport{files: map[string]*lspFile{}}
	for _, p := range paths {
		if _, err := s.lspWatch(ctx, rep, p); err != nil {
			if in.File != "" {
				return nil, "", err
			}
			out.Notes = append(out.Notes, fmt.Sprintf("not opened: %v", err))
		}
	}
	out.FilesOpened = len(rep.order)
	stop := c.progress.waiting("the language servers' diagnostics")
	got, err := s.opts.LSP.Diagnostics(ctx, rep.order...)
	stop()
	if err != nil {
		return nil, "", fmt.Errorf("mcp: diagnostics: %w", err)
	}
	for _, p := range sortedKeys(got.Unsettled) {
		out.Notes = append(out.Notes, fmt.Sprintf("%s may not be listed as it is now: %s", s.fileKey(p), got.Unsettled[p]))
	}
	if got.Incomplete != "" {
		out.Notes = append(out.Notes, "files not open may have problems not reported yet: "+got.Incomplete)
	}
	var all []Diagnostic
	for _, p := range sortedKeys(got.Files) {
		if in.File != "" && p != paths[0] {
			continue
		}
		for _, d := range got.Files[p] {
			if severityRank[d.Severity] > severityRank[floor] {
				continue
			}
			out.Counts[d.Severity]++
			all = append(all, s.diagnostic(d, false))
		}
	}
	sort.SliceStable(all, func(i, j int) bool {
		a, b := all[i], all[j]
		if severityRank[a.Severity] != severityRank[b.Severity] {
			return severityRank[a.Severity] < severityRank[b.Severity]
		}
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Line < b.Line
	})
	if len(all) > diagMaxShown {
		out.Truncated = true
		out.Notes = append(out.Notes, fmt.Sprintf("%d diagnostics, the first %d listed: ask for one file, or a higher severity", len(all), diagMaxShown))
		all = all[:diagMaxShown]
	}
	out.Diagnostics = append(out.Diagnostics, all...)
	return out, diagnosticsText(out), nil
}

// syntaxDiagnostics answers for a file no language server handles.
func (s *Server) syntaxDiagnostics(out *DiagnosticsResult, src *source, why string) (*DiagnosticsResult, string, error) {
	out.Source = "tree-sitter"
	out.Notes = append(out.Notes, why+": type checks skipped; these are tree-sitter syntax errors")
	errs, ok, _ := syntax.SyntaxErrors(src.name(), []byte(src.text))
	if !ok {
		out.Notes = append(out.Notes, "no parser for this file's language either: nothing was checked")
	}
	for _, e := range errs {
		out.Diagnostics = append(out.Diagnostics, diag(out.File, e))
		out.Counts["error"]++
	}
	return out, diagnosticsText(out), nil
}

// workspaceFiles lists the files of the roots an available language server
// handles, up to diagMaxOpen; skipped counts the rest.
func (s *Server) workspaceFiles(ctx context.Context) (paths []string, skipped int) {
	visited := 0
	s.walkWorkspace(ctx, func(w wsFile) error {
		if visited++; visited > impactMaxFiles {
			return fs.SkipAll
		}
		if ok, _ := s.opts.LSP.Available(w.abs); !ok {
			return nil
		}
		if len(paths) >= diagMaxOpen {
			skipped++
			return nil
		}
		paths = append(paths, w.abs)
		return nil
	})
	return paths, skipped
}

func diagnosticsText(out *DiagnosticsResult) string {
	var b strings.Builder
	what := "workspace"
	if out.File != "" {
		what = out.File
	}
	fmt.Fprintf(&b, "## diagnostics: %s (%s)\n\n", what, out.Source)
	if out.Version != "" {
		fmt.Fprintf(&b, "**Version:** %s\n", out.Version)
	}
	if out.FilesOpened > 0 {
		fmt.Fprintf(&b, "**Files checked:** %d\n", out.FilesOpened)
	}
	if len(out.Diagnostics) == 0 {
		b.WriteString("No problems found.\n")
	}
	for _, d := range out.Diagnostics {
		fmt.Fprintf(&b, "- %s:%d:%d %s: %s (%s)\n", d.File, d.Line, d.Column+1, d.Severity, d.Message, d.Source)
	}
	for _, n := range out.Notes {
		fmt.Fprintf(&b, "Note: %s\n", n)
	}
	return b.String()
}
