package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

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
		_, _, err := s.settle(ctx, nil, m.cfg.Quiet, m.cfg.Max, m.cfg.Load)
		return err
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
	line, col = t.lineCol(t.clamp(r.Start, enc))
	endLine, endCol = t.lineCol(t.clamp(r.End, enc))
	return line, col, endLine, endCol
}

// clamp converts a position to a byte offset; one past the content is its
// end.
func (t *text) clamp(p protocol.Position, enc encoding) int {
	off, err := t.offset(p, enc)
	if err != nil {
		return len(t.b)
	}
	return off
}

// Diagnostic is one problem a server reported: 1-based lines, 0-based byte
// columns.
type Diagnostic struct {
	Path                       string
	Line, Col, EndLine, EndCol int
	Start, End                 int    // the range in bytes of the content the server had for Path (the open document, else the file)
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

// Diagnosed is what Diagnostics found.
type Diagnosed struct {
	// Files holds the latest diagnostics of every asked path (an empty list
	// when clean) and of every other file of the roots a server published
	// problems for, by absolute path.
	Files map[string][]Diagnostic
	// Unsettled names the asked paths whose diagnostics may not be those of
	// the content the server has, and why: the wait ran out before the
	// server published for the path's latest version, or while it was still
	// at work. Their Files entry is the latest the server published (for an
	// older version, or none).
	Unsettled map[string]string
	// Incomplete, when not "", says that a server was still at work when the
	// wait ran out: files that were not asked about may lack problems it had
	// yet to publish.
	Incomplete string
}

// Diagnostics opens paths that are not open (from disk), waits until their
// servers have settled (see the package documentation), and returns the
// latest diagnostics for paths and for every other file of the roots a
// server published problems for, saying which of paths were not settled.
// With no paths it settles every running server. Paths without a server are
// left out (see Available).
func (m *Manager) Diagnostics(ctx context.Context, paths ...string) (Diagnosed, error) {
	out := Diagnosed{Files: map[string][]Diagnostic{}, Unsettled: map[string]string{}}
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
			return out, fmt.Errorf("lsp: diagnostics %s: %w", p, err)
		}
		s, _, err := e.ensureOpen(ctx, p)
		if err != nil {
			return out, fmt.Errorf("lsp: diagnostics %s: %w", p, err)
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
	for e, s := range want {
		published, unsettled, incomplete, err := m.latest(ctx, e, s, askedBy[e])
		if err != nil {
			return out, fmt.Errorf("lsp: diagnostics from %s in %s: %w", e.cfg.Command[0], e.root, err)
		}
		for p, ds := range published {
			if asked[p] != e && (len(ds) == 0 || m.rootOf(p) != e.root) {
				continue
			}
			out.Files[p] = append(out.Files[p], e.diagnostics(p, ds, s.enc)...)
		}
		for p, why := range unsettled {
			out.Unsettled[p] = why
		}
		if incomplete != "" {
			out.Incomplete = strings.TrimPrefix(out.Incomplete+"; "+incomplete, "; ")
		}
	}
	for p := range asked {
		if out.Files[p] == nil {
			out.Files[p] = []Diagnostic{}
		}
	}
	return out, nil
}

// latest returns a server's current diagnostics by path: pulled, in path
// order, for every open document from a server that answers requests for
// them (typescript-language-server: exact, so never unsettled), otherwise
// the published ones once the server has settled for paths.
func (m *Manager) latest(ctx context.Context, e *entry, s *server, paths []string) (_ map[string][]protocol.Diagnostic, unsettled map[string]string, incomplete string, _ error) {
	out := map[string][]protocol.Diagnostic{}
	if s.pulls() {
		if err := s.ready(ctx, m.cfg.Load); err != nil {
			return nil, nil, "", err
		}
		e.mu.Lock()
		open := make([]string, 0, len(e.docs))
		for p := range e.docs {
			open = append(open, p)
		}
		e.mu.Unlock()
		// In a fixed order: which unresolved names tsserver gives spelling
		// suggestions to depends on the order its checker sees the files.
		sort.Strings(open)
		for _, p := range open {
			ds, err := s.pull(ctx, p)
			if err != nil {
				return nil, nil, "", fmt.Errorf("%s: %w", p, err)
			}
			out[p] = ds
		}
		return out, nil, "", nil
	}
	unsettled, incomplete, err := s.settle(ctx, paths, m.cfg.Quiet, m.cfg.Max, m.cfg.Load)
	if err != nil {
		return nil, nil, "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for p, d := range s.diags {
		out[p] = d
	}
	return out, unsettled, incomplete, nil
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
		x.Start, x.End = t.clamp(d.Range.Start, enc), t.clamp(d.Range.End, enc)
		x.Line, x.Col = t.lineCol(x.Start)
		x.EndLine, x.EndCol = t.lineCol(x.End)
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
