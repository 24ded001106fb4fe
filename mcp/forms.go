package mcp

import (
	"context"
	"fmt"
	"strings"
)

// FormIn is the input of replace_top_level_form and insert_top_level_form (seed 002).
type FormIn struct {
	FilePath          string `json:"filePath"`
	Line              int    `json:"line" jsonschema:"any line of the form"`
	TargetLine        string `json:"targetLine,omitempty" jsonschema:"recommended: line's exact text, looked for within 2 lines"`
	NewForm           string `json:"newForm"`
	InsertMode        string `json:"insertMode,omitempty" jsonschema:"insert only: before (default) or after"`
	AllowSyntaxErrors bool   `json:"allowSyntaxErrors,omitempty"`
	ExpectedVersion   string `json:"expected_version,omitempty"`
	AutoFix           bool   `json:"autoFix,omitempty" jsonschema:"apply the server's preferred quick fixes, same event"`
	writeOpts
}

// CommentIn is insert_comment_at_line's input (seed 002).
type CommentIn struct {
	FilePath        string `json:"filePath"`
	LineNumber      int    `json:"lineNumber"`
	CommentText     string `json:"commentText" jsonschema:"without the prefix; may be several lines"`
	InsertMode      string `json:"insertMode" jsonschema:"before or after"`
	ExpectedVersion string `json:"expected_version,omitempty"`
	writeOpts
}

// FormRef describes the form an edit targeted, in pre-edit lines.
type FormRef struct {
	Kind      string `json:"kind"`
	Name      string `json:"name,omitempty"`
	StartLine int    `json:"startLine"`
	EndLine   int    `json:"endLine"`
	InComment bool   `json:"inComment,omitempty"` // a form of a Clojure rich comment
}

// FormResult is the result of the seed 002 tools: the diagnostics before and
// after the edit (new ones marked "new": true), and where the text went.
type FormResult struct {
	Success           bool         `json:"success"`
	FilePath          string       `json:"filePath"`
	ActualLineUsed    int          `json:"actual-line-used,omitempty"` // when targetLine was given
	Form              *FormRef     `json:"form,omitempty"`
	Range             LineRange    `json:"range"`                // the new text, post-edit lines
	FinalLine         int          `json:"final-line,omitempty"` // insert_comment_at_line: the comment's first line
	DiagnosticsBefore []Diagnostic `json:"diagnostics-before-edit"`
	DiagnosticsAfter  []Diagnostic `json:"diagnostics-after-edit"`
	NewDiagnostics    int          `json:"new-diagnostics"`
	// Propagated and AutoFixed are what the file's language server did in
	// the same event: a renamed form's references, quick fixes (autoFix).
	Propagated []Propagation `json:"propagated,omitempty"`
	AutoFixed  []AutoFix     `json:"autoFixed,omitempty"`
	Context    []string      `json:"context,omitempty"`
	Event      uint64        `json:"event,omitempty"`
	Version    string        `json:"version,omitempty"`
	Notes      []string      `json:"notes,omitempty"`
}

func init() { registrars = append(registrars, (*Server).registerForms) }

func (s *Server) registerForms() {
	addTool(s, def{name: "replace_top_level_form", toolset: ToolsetForms, title: "Replace a top-level form",
		desc:        "Replace the top-level form at line (a Lisp form, or any language's top-level declaration) with newForm. Unbalanced brackets or new syntax errors are refused with SYNTAX_ERROR (a balanced candidate) unless allowSyntaxErrors. With a language server, a renamed form's references follow in the same event.",
		destructive: true},
		func(ctx context.Context, c *call, in *FormIn) (*FormResult, string, error) {
			return s.formEdit(ctx, c, in, "replace")
		})
	addTool(s, def{name: "insert_top_level_form", toolset: ToolsetForms, title: "Insert a top-level form",
		desc: "Insert newForm as a top-level form before or after the one at line; a line past the end appends. Checks as replace_top_level_form."},
		func(ctx context.Context, c *call, in *FormIn) (*FormResult, string, error) {
			return s.formEdit(ctx, c, in, "insert")
		})
	addTool(s, def{name: "insert_comment_at_line", toolset: ToolsetForms, title: "Insert a line comment",
		desc: "Insert a line comment before or after a line, with the file's comment prefix, indented as the code there."},
		func(ctx context.Context, c *call, in *CommentIn) (*FormResult, string, error) {
			return s.commentEdit(ctx, c, in)
		})
}

// formText renders a seed 002 result.
func formText(tool string, out *FormResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## %s: %s", tool, out.FilePath)
	if out.ActualLineUsed > 0 {
		fmt.Fprintf(&b, " (actual-line-used: %d)", out.ActualLineUsed)
	}
	b.WriteString("\n\n✅ **Success**")
	if f := out.Form; f != nil {
		name := f.Kind
		if f.Name != "" {
			name += " " + f.Name
		}
		fmt.Fprintf(&b, " — form `%s` (lines %d-%d before the edit)", name, f.StartLine, f.EndLine)
	}
	fmt.Fprintf(&b, "; new text at lines %d-%d", out.Range.StartLine, out.Range.EndLine)
	if out.FinalLine > 0 {
		fmt.Fprintf(&b, "; comment at line %d", out.FinalLine)
	}
	fmt.Fprintf(&b, "\njournal event %d, version %s\n", out.Event, out.Version)
	for _, l := range out.Context {
		fmt.Fprintf(&b, "  %s\n", l)
	}
	fmt.Fprintf(&b, "\n**Diagnostics before edit:** %d\n", len(out.DiagnosticsBefore))
	fmt.Fprintf(&b, "**Diagnostics after edit:** %d (%d new)\n", len(out.DiagnosticsAfter), out.NewDiagnostics)
	for _, d := range out.DiagnosticsAfter {
		mark := "- "
		if d.New {
			mark = "- ⚠️ **NEW** "
		}
		where := ""
		if d.File != out.FilePath {
			where = d.File + " "
		}
		fmt.Fprintf(&b, "%s%sline %d:%d %s\n", mark, where, d.Line, d.Column+1, d.Message)
	}
	for _, pr := range out.Propagated {
		fmt.Fprintf(&b, "propagated: renamed `%s` → `%s` in %d other file(s) (%d edits) %s\n", pr.Symbol, pr.NewName, len(pr.FilesAffected), pr.TotalEdits, strings.Join(pr.FilesAffected, ", "))
	}
	for _, f := range out.AutoFixed {
		fmt.Fprintf(&b, "auto-fixed: %s: %s\n", f.File, f.Fix)
	}
	for _, n := range out.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	return b.String()
}
