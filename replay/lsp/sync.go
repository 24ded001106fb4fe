package lsp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// serverLocked returns the running server, starting it (again) if needed and
// re-opening the documents the previous one had. e.mu must be held.
func (e *entry) serverLocked(ctx context.Context) (*server, error) {
	if e.srv != nil && !e.srv.dead() {
		return e.srv, nil
	}
	if e.srv != nil {
		e.srv.kill()
		e.srv = nil
	}
	s, err := startServer(ctx, e.cfg, e.root)
	if err != nil {
		e.startErr, e.failedAt = err, time.Now()
		return nil, err
	}
	e.startErr = nil
	e.srv = s
	for path, d := range e.docs {
		if !d.overlay {
			b, err := os.ReadFile(path)
			if err != nil {
				delete(e.docs, path)
				continue
			}
			d.text = b
		}
		if err := s.notify(ctx, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{
			"uri": pathURI(path), "languageId": e.cfg.LanguageID(filepath.Ext(path)), "version": d.version, "text": string(d.text),
		}}); err != nil {
			return nil, err
		}
		s.changed(path, d.version)
	}
	return s, nil
}

// MaxDocument is the largest document (in bytes) opened on a server:
// larger files fail with ErrUnsupported instead of being sent whole on
// every change.
const MaxDocument = 16 << 20

// openLocked sets the server's view of path to text: didOpen the first time,
// a full-text didChange after. e.mu must be held.
func (e *entry) openLocked(ctx context.Context, s *server, path string, text []byte, overlay bool) error {
	if len(text) > MaxDocument {
		return fmt.Errorf("%w: %s has %d bytes, more than a language server is given (%d)", ErrUnsupported, path, len(text), MaxDocument)
	}
	d := e.docs[path]
	if d == nil {
		d = &doc{version: 1, text: text, overlay: overlay}
		if err := s.notify(ctx, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{
			"uri": pathURI(path), "languageId": e.cfg.LanguageID(filepath.Ext(path)), "version": d.version, "text": string(text),
		}}); err != nil {
			return err
		}
		e.docs[path] = d
		s.changed(path, d.version)
		return nil
	}
	d.overlay = overlay
	if string(d.text) == string(text) {
		return nil
	}
	d.version++
	d.text = text
	if err := s.notify(ctx, "textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": pathURI(path), "version": d.version},
		"contentChanges": []any{map[string]any{"text": string(text)}},
	}); err != nil {
		return err
	}
	s.changed(path, d.version)
	return nil
}

// saveLocked sends didSave if the server asked for it. e.mu must be held.
func (e *entry) saveLocked(ctx context.Context, s *server, path string) error {
	save, withText := s.caps.wantsSave()
	if !save {
		return nil
	}
	p := map[string]any{"textDocument": map[string]any{"uri": pathURI(path)}}
	if withText {
		p["text"] = string(e.docs[path].text)
	}
	if err := s.notify(ctx, "textDocument/didSave", p); err != nil {
		return err
	}
	s.changed("", 0)
	return nil
}

// closeLocked sends didClose and forgets the document. e.mu must be held.
func (e *entry) closeLocked(ctx context.Context, s *server, path string) error {
	delete(e.docs, path)
	if err := s.notify(ctx, "textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": pathURI(path)}}); err != nil {
		return err
	}
	s.changed("", 0)
	return nil
}

// ensureOpen starts the server if needed and opens path from disk unless it
// is open already; it returns the server and the content the server sees.
func (e *entry) ensureOpen(ctx context.Context, path string) (*server, []byte, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	s, err := e.serverLocked(ctx)
	if err != nil {
		return nil, nil, err
	}
	if d := e.docs[path]; d != nil {
		return s, d.text, nil
	}
	if fi, err := os.Stat(path); err == nil && fi.Size() > MaxDocument {
		return nil, nil, fmt.Errorf("%w: %s has %d bytes, more than a language server is given (%d)", ErrUnsupported, path, fi.Size(), MaxDocument)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("lsp: open %s: %w", path, err)
	}
	e.onDisk[path] = true
	if err := e.openLocked(ctx, s, path, b, false); err != nil {
		return nil, nil, err
	}
	return s, b, nil
}

// content returns what the server sees for path: the open document, else
// the file on disk (nil if it does not exist).
func (e *entry) content(path string) []byte {
	e.mu.Lock()
	d := e.docs[path]
	e.mu.Unlock()
	if d != nil {
		return d.text
	}
	b, _ := os.ReadFile(path)
	return b
}

// Overlay sets the server's view of path to text without touching disk:
// didOpen the first time, a full-text didChange with the next version later.
func (m *Manager) Overlay(ctx context.Context, path string, text []byte) error {
	e, err := m.entry(path)
	if err != nil {
		return fmt.Errorf("lsp: overlay %s: %w", path, err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	s, err := e.serverLocked(ctx)
	if err != nil {
		return fmt.Errorf("lsp: overlay %s: %w", path, err)
	}
	if err := e.openLocked(ctx, s, path, append([]byte(nil), text...), true); err != nil {
		return fmt.Errorf("lsp: overlay %s: %w", path, err)
	}
	return nil
}

// Open opens paths from disk (unless they are open already), so that servers
// which only diagnose open files (pyright in openFilesOnly mode,
// typescript-language-server) report on them.
func (m *Manager) Open(ctx context.Context, paths ...string) error {
	for _, p := range paths {
		e, err := m.entry(p)
		if err != nil {
			return fmt.Errorf("lsp: open %s: %w", p, err)
		}
		if _, _, err := e.ensureOpen(ctx, p); err != nil {
			return fmt.Errorf("lsp: open %s: %w", p, err)
		}
	}
	return nil
}

// Saved tells the server that the overlay of path is now the file on disk
// (didSave). A path that is not open is left alone.
func (m *Manager) Saved(ctx context.Context, path string) error {
	e, err := m.entry(path)
	if err != nil {
		return fmt.Errorf("lsp: saved %s: %w", path, err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	d := e.docs[path]
	if d == nil || e.srv == nil || e.srv.dead() {
		return nil
	}
	d.overlay = false
	e.onDisk[path] = true
	if err := e.saveLocked(ctx, e.srv, path); err != nil {
		return fmt.Errorf("lsp: saved %s: %w", path, err)
	}
	return nil
}

// Reset puts the server's view of path back to the file on disk: a didChange
// to the disk content and didSave, or didClose if the file is gone. A path
// that is not open is left alone.
func (m *Manager) Reset(ctx context.Context, path string) error {
	e, err := m.entry(path)
	if err != nil {
		return fmt.Errorf("lsp: reset %s: %w", path, err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.resyncLocked(ctx, path); err != nil {
		return fmt.Errorf("lsp: reset %s: %w", path, err)
	}
	return nil
}

// resyncLocked makes an open document equal the file on disk again.
func (e *entry) resyncLocked(ctx context.Context, path string) error {
	d := e.docs[path]
	if d == nil || e.srv == nil || e.srv.dead() {
		return nil
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return e.closeLocked(ctx, e.srv, path)
	}
	if err != nil {
		return err
	}
	changed := d.overlay || string(d.text) != string(b)
	if err := e.openLocked(ctx, e.srv, path, b, false); errors.Is(err, ErrUnsupported) {
		return e.closeLocked(ctx, e.srv, path) // grew too large: the server reads it from disk, if at all
	} else if err != nil {
		return err
	}
	if changed {
		return e.saveLocked(ctx, e.srv, path)
	}
	return nil
}

// alone reports whether path is the only file with its extension in its
// directory (the first source file of a new package).
func alone(path string) bool {
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		return false
	}
	for _, de := range entries {
		if de.Name() != filepath.Base(path) && filepath.Ext(de.Name()) == filepath.Ext(path) {
			return false
		}
	}
	return true
}

// Changed tells running servers that paths changed on disk (a journaled
// write, a revert, an outside change): an open document is re-synced from
// disk, and every server of the path's root gets
// workspace/didChangeWatchedFiles: Deleted if it is gone, Created if the
// manager has not seen it before and it was written after the server
// started, Changed otherwise. A created file that is the only one of its
// extension in its directory is also opened (see the package
// documentation). Servers that are not running are not started. Failures are not reported: a server that
// missed a change is restarted or re-synced by a later call.
func (m *Manager) Changed(ctx context.Context, paths ...string) {
	const (
		created = 1
		changed = 2
		deleted = 3
	)
	if m.cfg.Disabled {
		return
	}
	byEntry := map[*entry][]map[string]any{}
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			continue
		}
		p = filepath.Clean(p)
		root := m.rootOf(p)
		if root == "" {
			continue
		}
		fi, statErr := os.Stat(p)
		exists := statErr == nil
		for _, e := range m.running(root) {
			e.mu.Lock()
			if e.srv == nil || e.srv.dead() {
				e.mu.Unlock()
				continue
			}
			_ = e.resyncLocked(ctx, p)
			kind := deleted
			if exists {
				kind = changed
				if !e.onDisk[p] && !fi.ModTime().Before(e.srv.started) {
					// Not seen by the manager and written since the server
					// started: it may be new to the server.
					kind = created
				}
				e.onDisk[p] = true
			} else {
				delete(e.onDisk, p)
			}
			if kind != changed {
				e.srv.mu.Lock()
				e.srv.created = true
				e.srv.mu.Unlock()
			}
			if kind == created && e.cfg.handles(filepath.Ext(p)) && e.docs[p] == nil && alone(p) {
				// gopls does not load a package in a new directory until one
				// of its files is open; opening it is harmless for the others.
				if b, err := os.ReadFile(p); err == nil {
					_ = e.openLocked(ctx, e.srv, p, b, false)
				}
			}
			e.mu.Unlock()
			byEntry[e] = append(byEntry[e], map[string]any{"uri": pathURI(p), "type": kind})
		}
	}
	for e, changes := range byEntry {
		e.mu.Lock()
		if s := e.srv; s != nil && !s.dead() {
			if s.notify(ctx, "workspace/didChangeWatchedFiles", map[string]any{"changes": changes}) == nil {
				s.changed("", 0)
			}
		}
		e.mu.Unlock()
	}
}

// Refresh re-syncs every open document whose file changed on disk since its
// server last saw it — a change made outside the journal, or by another
// process — so that the next rename, references or diagnostics answer about
// what is on disk (a rename's offsets refer to the server's view). Overlays
// are left alone. It reads every open document's file once.
func (m *Manager) Refresh(ctx context.Context) {
	var stale []string
	for _, e := range m.running("") {
		e.mu.Lock()
		for path, d := range e.docs {
			if d.overlay {
				continue
			}
			if b, err := os.ReadFile(path); err != nil || !bytes.Equal(b, d.text) {
				stale = append(stale, path)
			}
		}
		e.mu.Unlock()
	}
	if len(stale) > 0 {
		m.Changed(ctx, stale...)
	}
}
