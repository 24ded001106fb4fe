package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sort"

	"go.lsp.dev/protocol"
)

// position opens path if needed and converts our (line, byte col) to the
// server's position in the content it sees.
func (m *Manager) position(ctx context.Context, path string, line, col int) (*entry, *server, protocol.Position, error) {
	e, err := m.entry(path)
	if err != nil {
		return nil, nil, protocol.Position{}, err
	}
	s, content, err := e.ensureOpen(ctx, filepath.Clean(path))
	if err != nil {
		return nil, nil, protocol.Position{}, err
	}
	if err := m.prepare(ctx, s); err != nil {
		return nil, nil, protocol.Position{}, err
	}
	t := newText(content)
	off, err := t.byteOffset(line, col)
	if err != nil {
		return nil, nil, protocol.Position{}, err
	}
	pos, err := t.position(off, s.enc)
	return e, s, pos, err
}

// prepare waits before a request that needs the server's whole view: for
// any load it reports ($/progress), and for diagnostics to settle after files
// were created or deleted (gopls, for one, only loads a new package's
// metadata when it diagnoses it).
func (m *Manager) prepare(ctx context.Context, s *server) error {
	s.mu.Lock()
	created := s.created
	s.mu.Unlock()
	if created {
		return s.settle(ctx, nil, m.cfg.Quiet, m.cfg.Max, m.cfg.Load)
	}
	return s.ready(ctx, m.cfg.Load)
}

// Rename asks the server to rename the symbol at (line, col) of path to
// newName: textDocument/prepareRename when the server offers it, then
// textDocument/rename. It returns every file's edits as byte offsets into the
// content the server saw (the open document, else the disk). A workspace edit
// with resource operations fails with ErrUnsupported.
func (m *Manager) Rename(ctx context.Context, path string, line, col int, newName string) ([]FileEdit, error) {
	path = filepath.Clean(path)
	e, s, pos, err := m.position(ctx, path, line, col)
	if err != nil {
		return nil, fmt.Errorf("lsp: rename %s: %w", path, err)
	}
	if !provides(s.caps.RenameProvider) {
		return nil, fmt.Errorf("lsp: rename %s: %w: %s has no rename", path, ErrUnsupported, s.name)
	}
	doc := map[string]any{"uri": pathURI(path)}
	if option(s.caps.RenameProvider, "prepareProvider") {
		var prep json.RawMessage
		if err := s.call(ctx, "textDocument/prepareRename", map[string]any{"textDocument": doc, "position": pos}, &prep); err != nil {
			return nil, fmt.Errorf("lsp: rename %s:%d:%d: %w", path, line, col, err)
		}
		if len(prep) == 0 || string(prep) == "null" {
			return nil, fmt.Errorf("lsp: rename %s:%d:%d: no symbol that can be renamed here", path, line, col)
		}
	}
	var raw json.RawMessage
	if err := s.call(ctx, "textDocument/rename", map[string]any{"textDocument": doc, "position": pos, "newName": newName}, &raw); err != nil {
		return nil, fmt.Errorf("lsp: rename %s:%d:%d: %w", path, line, col, err)
	}
	edits, err := e.fileEdits(raw, s.enc)
	if err != nil {
		return nil, fmt.Errorf("lsp: rename %s:%d:%d: %w", path, line, col, err)
	}
	return edits, nil
}

// Location is a range in a file: 1-based lines, 0-based byte columns.
type Location struct {
	Path                       string
	Line, Col, EndLine, EndCol int
}

// References returns the references to the symbol at (line, col) of path,
// with its declaration if includeDecl, sorted by path and position.
func (m *Manager) References(ctx context.Context, path string, line, col int, includeDecl bool) ([]Location, error) {
	path = filepath.Clean(path)
	e, s, pos, err := m.position(ctx, path, line, col)
	if err != nil {
		return nil, fmt.Errorf("lsp: references %s: %w", path, err)
	}
	if !provides(s.caps.ReferencesProvider) {
		return nil, fmt.Errorf("lsp: references %s: %w: %s has no references", path, ErrUnsupported, s.name)
	}
	var locs []protocol.Location
	err = s.call(ctx, "textDocument/references", map[string]any{
		"textDocument": map[string]any{"uri": pathURI(path)},
		"position":     pos,
		"context":      map[string]any{"includeDeclaration": includeDecl},
	}, &locs)
	if err != nil {
		return nil, fmt.Errorf("lsp: references %s:%d:%d: %w", path, line, col, err)
	}
	texts := map[string]*text{}
	out := make([]Location, 0, len(locs))
	for _, l := range locs {
		p, err := uriPath(string(l.URI))
		if err != nil {
			continue
		}
		t := texts[p]
		if t == nil {
			t = newText(e.content(p))
			texts[p] = t
		}
		loc := Location{Path: p}
		loc.Line, loc.Col, loc.EndLine, loc.EndCol = t.span(l.Range, s.enc)
		out = append(out, loc)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
	return out, nil
}

// span converts an LSP range to our lines and byte columns, clamping
// positions that no longer fit the content.
func (t *text) span(r protocol.Range, enc encoding) (line, col, endLine, endCol int) {
	clamp := func(p protocol.Position) int {
		off, err := t.offset(p, enc)
		if err != nil {
			return len(t.b)
		}
		return off
	}
	line, col = t.lineCol(clamp(r.Start))
	endLine, endCol = t.lineCol(clamp(r.End))
	return line, col, endLine, endCol
}

// Diagnostic is one problem a server reported: 1-based lines, 0-based byte
// columns.
type Diagnostic struct {
	Path                       string
	Line, Col, EndLine, EndCol int
	Severity                   string // "error", "warning", "info" or "hint"
	Message, Source, Code      string

	raw protocol.Diagnostic // as published, for QuickFixes
}

func severity(s protocol.DiagnosticSeverity) string {
	switch s {
	case protocol.DiagnosticSeverityError:
		return "error"
	case protocol.DiagnosticSeverityWarning:
		return "warning"
	case protocol.DiagnosticSeverityHint:
		return "hint"
	default:
		return "info"
	}
}

// Diagnostics opens paths that are not open (from disk), waits until their
// servers have settled (see the package documentation), and returns the
// latest diagnostics for paths (an empty list when clean) and for every other
// file of the roots a server published problems for, keyed by absolute path.
// With no paths it settles every running server. Paths without a server are
// left out (see Available).
func (m *Manager) Diagnostics(ctx context.Context, paths ...string) (map[string][]Diagnostic, error) {
	want := map[*entry]*server{}
	asked := map[string]*entry{}
	askedBy := map[*entry][]string{}
	for _, p := range paths {
		p = filepath.Clean(p)
		e, err := m.entry(p)
		if errors.Is(err, ErrNoServer) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("lsp: diagnostics %s: %w", p, err)
		}
		s, _, err := e.ensureOpen(ctx, p)
		if err != nil {
			return nil, fmt.Errorf("lsp: diagnostics %s: %w", p, err)
		}
		want[e] = s
		asked[p] = e
		askedBy[e] = append(askedBy[e], p)
	}
	if len(paths) == 0 {
		for _, e := range m.running("") {
			e.mu.Lock()
			if e.srv != nil && !e.srv.dead() {
				want[e] = e.srv
			}
			e.mu.Unlock()
		}
	}
	out := map[string][]Diagnostic{}
	for e, s := range want {
		published, err := m.latest(ctx, e, s, askedBy[e])
		if err != nil {
			return nil, fmt.Errorf("lsp: diagnostics from %s in %s: %w", e.cfg.Command[0], e.root, err)
		}
		for p, ds := range published {
			if asked[p] != e && (len(ds) == 0 || m.rootOf(p) != e.root) {
				continue
			}
			out[p] = append(out[p], e.diagnostics(p, ds, s.enc)...)
		}
	}
	for p := range asked {
		if out[p] == nil {
			out[p] = []Diagnostic{}
		}
	}
	return out, nil
}

// latest returns a server's current diagnostics by path: pulled for every
// open document from a server that answers requests for them
// (typescript-language-server), otherwise the published ones once the
// server has settled for paths.
func (m *Manager) latest(ctx context.Context, e *entry, s *server, paths []string) (map[string][]protocol.Diagnostic, error) {
	out := map[string][]protocol.Diagnostic{}
	if s.pulls() {
		if err := s.ready(ctx, m.cfg.Load); err != nil {
			return nil, err
		}
		e.mu.Lock()
		open := make([]string, 0, len(e.docs))
		for p := range e.docs {
			open = append(open, p)
		}
		e.mu.Unlock()
		for _, p := range open {
			ds, err := s.pull(ctx, p)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", p, err)
			}
			out[p] = ds
		}
		return out, nil
	}
	if err := s.settle(ctx, paths, m.cfg.Quiet, m.cfg.Max, m.cfg.Load); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for p, d := range s.diags {
		out[p] = d
	}
	return out, nil
}

// diagnostics converts published diagnostics of path to ours.
func (e *entry) diagnostics(path string, ds []protocol.Diagnostic, enc encoding) []Diagnostic {
	t := newText(e.content(path))
	out := make([]Diagnostic, 0, len(ds))
	for _, d := range ds {
		x := Diagnostic{Path: path, Severity: severity(d.Severity), Message: d.Message, Source: d.Source, raw: d}
		if d.Code != nil {
			x.Code = fmt.Sprint(d.Code)
		}
		x.Line, x.Col, x.EndLine, x.EndCol = t.span(d.Range, enc)
		out = append(out, x)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Line != out[j].Line {
			return out[i].Line < out[j].Line
		}
		return out[i].Col < out[j].Col
	})
	return out
}
