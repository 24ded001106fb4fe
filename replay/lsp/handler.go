package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// handle answers the server's requests and records its notifications. It
// runs on the connection's read loop, so it never blocks.
func (s *server) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	params := []byte(req.Params())
	if trace {
		fmt.Fprintf(os.Stderr, "lsp trace %s %s <- %s %.300s\n", time.Now().Format("15:04:05.000"), s.cfg.Language, req.Method(), params)
	}
	switch req.Method() {
	case "textDocument/publishDiagnostics":
		var p protocol.PublishDiagnosticsParams
		if err := json.Unmarshal(params, &p); err != nil {
			return nil
		}
		path, err := uriPath(string(p.URI))
		if err != nil {
			return nil
		}
		s.mu.Lock()
		s.diags[path] = p.Diagnostics
		s.lastPublish = time.Now()
		// A publish for an older version of the document (computed before
		// the latest change arrived) does not settle it; one without a
		// version (a file that is not open, or a server that does not say)
		// is taken as current.
		if want, ok := s.pending[path]; ok && (p.Version == 0 || int32(p.Version) >= want) {
			delete(s.pending, path)
		}
		s.everPubd = true
		s.signalLocked()
		s.mu.Unlock()
		return nil
	case "$/progress":
		var p struct {
			Token json.RawMessage `json:"token"`
			Value struct {
				Kind string `json:"kind"`
			} `json:"value"`
		}
		if err := json.Unmarshal(params, &p); err != nil {
			return nil
		}
		s.mu.Lock()
		switch p.Value.Kind {
		case "begin":
			s.progress[string(p.Token)] = time.Time{} // begun: busy until it ends
		case "end":
			delete(s.progress, string(p.Token))
		}
		s.lastPublish = time.Now() // the server is working: not quiet yet
		s.signalLocked()
		s.mu.Unlock()
		return nil
	case "workspace/configuration":
		var p struct {
			Items []struct {
				Section string `json:"section"`
			} `json:"items"`
		}
		_ = json.Unmarshal(params, &p)
		out := make([]any, len(p.Items))
		for i, it := range p.Items {
			out[i] = lookupSection(s.cfg.Settings, it.Section)
		}
		return reply(ctx, out, nil)
	case "workspace/workspaceFolders":
		return reply(ctx, []any{map[string]any{"uri": uri.File(s.root), "name": filepath.Base(s.root)}}, nil)
	case "workspace/applyEdit":
		var p struct {
			Edit json.RawMessage `json:"edit"`
		}
		_ = json.Unmarshal(params, &p)
		s.mu.Lock()
		capture := s.capture
		if capture != nil {
			*capture = append(*capture, p.Edit)
		}
		s.mu.Unlock()
		if capture == nil {
			return reply(ctx, map[string]any{"applied": false, "failureReason": "journal applies edits only through its own tools"}, nil)
		}
		return reply(ctx, map[string]any{"applied": true}, nil)
	case "window/workDoneProgress/create":
		// pyright creates the token as it starts analysing and begins it
		// later: count it as work from now.
		var p struct {
			Token json.RawMessage `json:"token"`
		}
		if json.Unmarshal(params, &p) == nil {
			s.mu.Lock()
			s.progress[string(p.Token)] = time.Now()
			s.signalLocked()
			s.mu.Unlock()
		}
		return reply(ctx, nil, nil)
	case "client/registerCapability", "client/unregisterCapability",
		"window/showMessageRequest", "window/showDocument",
		"workspace/semanticTokens/refresh", "workspace/codeLens/refresh", "workspace/inlayHint/refresh",
		"workspace/inlineValue/refresh", "workspace/diagnostic/refresh", "workspace/foldingRange/refresh":
		return reply(ctx, nil, nil)
	}
	if _, ok := req.(*jsonrpc2.Call); ok {
		return reply(ctx, nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "method not found: %s", req.Method()))
	}
	return nil // logMessage, showMessage, telemetry/event, ...
}

// lookupSection finds a dotted section ("python.analysis") in settings,
// through its JSON form; "" is the whole of settings. Missing is nil.
func lookupSection(settings any, section string) any {
	if settings == nil {
		return nil
	}
	b, err := json.Marshal(settings)
	if err != nil {
		return nil
	}
	var v any
	if json.Unmarshal(b, &v) != nil {
		return nil
	}
	if section == "" {
		return v
	}
	for _, key := range strings.Split(section, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		if v, ok = m[key]; !ok {
			return nil
		}
	}
	return v
}
