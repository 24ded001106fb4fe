package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
)

// Fix is a code action that repairs a diagnostic, as edits.
type Fix struct {
	Title     string
	Kind      string
	Preferred bool
	Edits     []FileEdit
}

// codeAction is a Command or a CodeAction as servers send them.
type codeAction struct {
	Title       string          `json:"title"`
	Kind        string          `json:"kind"`
	IsPreferred bool            `json:"isPreferred"`
	Disabled    json.RawMessage `json:"disabled"`
	Edit        json.RawMessage `json:"edit"`
	Command     json.RawMessage `json:"command"` // a string in a Command, an object in a CodeAction
	Data        json.RawMessage `json:"data"`
	Arguments   json.RawMessage `json:"arguments"`
}

type command struct {
	Title     string          `json:"title"`
	Command   string          `json:"command"`
	Arguments json.RawMessage `json:"arguments"`
}

// diskCommands run tools that write files themselves (the go command), so
// their edits could not be captured: their actions are skipped.
var diskCommands = map[string]bool{
	"gopls.add_dependency": true, "gopls.go_get_package": true, "gopls.upgrade_dependency": true,
	"gopls.remove_dependency": true, "gopls.tidy": true, "gopls.update_go_sum": true, "gopls.vendor": true,
	"gopls.run_go_work_command": true, "gopls.regenerate_cgo": true, "gopls.generate": true,
	"gopls.run_tests": true, "gopls.test": true, "gopls.run_govulncheck": true, "gopls.vulncheck": true,
}

// QuickFixes asks the server for quick fixes of d (textDocument/codeAction
// with only quickfix and d as context), resolves lazy actions
// (codeAction/resolve) and runs command-only actions with
// workspace/executeCommand while capturing the workspace/applyEdit requests
// they send back (answered applied:true, nothing touches disk). Fixes without
// edits are left out; the preferred ones come first.
func (m *Manager) QuickFixes(ctx context.Context, d Diagnostic) ([]Fix, error) {
	path := filepath.Clean(d.Path)
	e, err := m.entry(path)
	if err != nil {
		return nil, fmt.Errorf("lsp: quick fixes %s: %w", path, err)
	}
	s, _, err := e.ensureOpen(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("lsp: quick fixes %s: %w", path, err)
	}
	if err := m.prepare(ctx, s); err != nil {
		return nil, fmt.Errorf("lsp: quick fixes %s: %w", path, err)
	}
	if !provides(s.caps.CodeActionProvider) {
		return nil, fmt.Errorf("lsp: quick fixes %s: %w: %s has no code actions", path, ErrUnsupported, s.name)
	}
	var actions []json.RawMessage
	err = s.call(ctx, "textDocument/codeAction", map[string]any{
		"textDocument": map[string]any{"uri": pathURI(path)},
		"range":        d.raw.Range,
		"context":      map[string]any{"diagnostics": []any{d.raw}, "only": []string{"quickfix"}, "triggerKind": 1},
	}, &actions)
	if err != nil {
		return nil, fmt.Errorf("lsp: quick fixes %s:%d:%d: %w", path, d.Line, d.Col, err)
	}
	var fixes []Fix
	for _, raw := range actions {
		fix, ok, err := e.fix(ctx, s, raw)
		if err != nil {
			return nil, fmt.Errorf("lsp: quick fixes %s:%d:%d: %w", path, d.Line, d.Col, err)
		}
		if ok {
			fixes = append(fixes, fix)
		}
	}
	// Preferred first, otherwise in the server's order.
	out := make([]Fix, 0, len(fixes))
	for _, f := range fixes {
		if f.Preferred {
			out = append(out, f)
		}
	}
	for _, f := range fixes {
		if !f.Preferred {
			out = append(out, f)
		}
	}
	return out, nil
}

// fix turns one code action into a Fix; ok is false for actions that are
// disabled, run disk-writing commands, or produce no edits.
func (e *entry) fix(ctx context.Context, s *server, raw json.RawMessage) (Fix, bool, error) {
	var a codeAction
	if err := json.Unmarshal(raw, &a); err != nil {
		return Fix{}, false, fmt.Errorf("code action: %w", err)
	}
	var name string
	if json.Unmarshal(a.Command, &name) == nil && name != "" {
		// A bare Command.
		return e.commandFix(ctx, s, a.Title, "", false, command{Title: a.Title, Command: name, Arguments: a.Arguments})
	}
	if provides(a.Disabled) {
		return Fix{}, false, nil
	}
	if len(a.Edit) == 0 && len(a.Data) > 0 && option(s.caps.CodeActionProvider, "resolveProvider") {
		var resolved json.RawMessage
		if err := s.call(ctx, "codeAction/resolve", raw, &resolved); err != nil {
			return Fix{}, false, fmt.Errorf("resolve %q: %w", a.Title, err)
		}
		if err := json.Unmarshal(resolved, &a); err != nil {
			return Fix{}, false, fmt.Errorf("resolve %q: %w", a.Title, err)
		}
	}
	if len(a.Edit) > 0 && string(a.Edit) != "null" {
		edits, err := e.fileEdits(a.Edit, s.enc)
		if err != nil {
			return Fix{}, false, fmt.Errorf("code action %q: %w", a.Title, err)
		}
		if len(edits) == 0 {
			return Fix{}, false, nil
		}
		// An action may carry both an edit and a command; the command is
		// not run (it is usually telemetry or a follow-up rename).
		return Fix{Title: a.Title, Kind: a.Kind, Preferred: a.IsPreferred, Edits: edits}, true, nil
	}
	var c command
	if len(a.Command) > 0 && json.Unmarshal(a.Command, &c) == nil && c.Command != "" {
		return e.commandFix(ctx, s, a.Title, a.Kind, a.IsPreferred, c)
	}
	return Fix{}, false, nil
}

// commandFix runs a command with workspace/executeCommand, capturing the
// edits the server asks the client to apply.
func (e *entry) commandFix(ctx context.Context, s *server, title, kind string, preferred bool, c command) (Fix, bool, error) {
	if diskCommands[c.Command] || strings.Contains(c.Command, "vulncheck") {
		return Fix{}, false, nil
	}
	if s.caps.ExecuteCommand == nil {
		return Fix{}, false, nil
	}
	params := map[string]any{"command": c.Command}
	if len(c.Arguments) > 0 {
		params["arguments"] = c.Arguments
	}
	s.execMu.Lock()
	defer s.execMu.Unlock()
	var captured []json.RawMessage
	s.mu.Lock()
	s.capture = &captured
	s.mu.Unlock()
	err := s.call(ctx, "workspace/executeCommand", params, nil)
	s.mu.Lock()
	s.capture = nil
	s.mu.Unlock()
	if err != nil {
		return Fix{}, false, fmt.Errorf("command %s of %q: %w", c.Command, title, err)
	}
	var lists [][]FileEdit
	for _, we := range captured {
		edits, err := e.fileEdits(we, s.enc)
		if err != nil {
			return Fix{}, false, fmt.Errorf("command %s of %q: %w", c.Command, title, err)
		}
		lists = append(lists, edits)
	}
	edits := mergeFileEdits(lists...)
	if len(edits) == 0 {
		return Fix{}, false, nil
	}
	return Fix{Title: title, Kind: kind, Preferred: preferred, Edits: edits}, true, nil
}
