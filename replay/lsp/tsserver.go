package lsp

import (
	"context"
	"encoding/json"
	"fmt"

	"go.lsp.dev/protocol"
)

// tsserverRequest is typescript-language-server's command that forwards a
// request to tsserver and returns its response.
const tsserverRequest = "typescript.tsserverRequest"

// pulls reports whether diagnostics are asked of the server rather than
// waited for: typescript-language-server publishes only after a delay of
// 300-800ms, once per kind (syntax, semantic, suggestion) and not at all when
// nothing changed, and says nowhere when it is done; tsserver's own
// *DiagnosticsSync requests answer exactly, through tsserverRequest.
func (s *server) pulls() bool {
	if s.caps.ExecuteCommand == nil {
		return false
	}
	for _, c := range s.caps.ExecuteCommand.Commands {
		if c == tsserverRequest {
			return true
		}
	}
	return false
}

// tsDiagnostic is a diagnostic as tsserver reports it: 1-based lines and
// 1-based UTF-16 offsets.
type tsDiagnostic struct {
	Start, End struct {
		Line   uint32 `json:"line"`
		Offset uint32 `json:"offset"`
	}
	Text               string `json:"text"`
	Code               int    `json:"code"`
	Category           string `json:"category"`
	ReportsUnnecessary bool   `json:"reportsUnnecessary"`
	ReportsDeprecated  bool   `json:"reportsDeprecated"`
}

// pull asks tsserver for path's syntactic, semantic and suggestion
// diagnostics, as typescript-language-server would publish them.
func (s *server) pull(ctx context.Context, path string) ([]protocol.Diagnostic, error) {
	var out []protocol.Diagnostic
	for _, cmd := range []string{"syntacticDiagnosticsSync", "semanticDiagnosticsSync", "suggestionDiagnosticsSync"} {
		var res struct {
			Success bool           `json:"success"`
			Message string         `json:"message"`
			Body    []tsDiagnostic `json:"body"`
		}
		var raw json.RawMessage
		err := s.call(ctx, "workspace/executeCommand", map[string]any{"command": tsserverRequest, "arguments": []any{cmd, map[string]any{"file": path}}}, &raw)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", cmd, err)
		}
		if err := json.Unmarshal(raw, &res); err != nil {
			return nil, fmt.Errorf("%s: %w", cmd, err)
		}
		if !res.Success {
			return nil, fmt.Errorf("%s: tsserver: %s", cmd, res.Message)
		}
		for _, d := range res.Body {
			pd := protocol.Diagnostic{
				Range: protocol.Range{
					Start: protocol.Position{Line: d.Start.Line - 1, Character: d.Start.Offset - 1},
					End:   protocol.Position{Line: d.End.Line - 1, Character: d.End.Offset - 1},
				},
				Severity: map[string]protocol.DiagnosticSeverity{
					"error": protocol.DiagnosticSeverityError, "warning": protocol.DiagnosticSeverityWarning,
					"suggestion": protocol.DiagnosticSeverityHint,
				}[d.Category],
				Code:    d.Code,
				Source:  "typescript",
				Message: d.Text,
			}
			if pd.Severity == 0 {
				pd.Severity = protocol.DiagnosticSeverityInformation
			}
			if d.ReportsUnnecessary {
				pd.Tags = append(pd.Tags, protocol.DiagnosticTagUnnecessary)
			}
			if d.ReportsDeprecated {
				pd.Tags = append(pd.Tags, protocol.DiagnosticTagDeprecated)
			}
			out = append(out, pd)
		}
	}
	return out, nil
}
