package mcp

import (
	"context"
	"fmt"
	"strings"
)

// FormIn is the input of replace_top_level_form and insert_top_level_form (seed 002).
type FormIn struct {
	FilePath          string `json:"filePath" jsonschema:"path to the file"`
	Line              int    `json:"line" jsonschema:"1-indexed line of the target top-level form (any line inside it)"`
	TargetLine        string `json:"targetLine,omitempty" jsonschema:"recommended: the exact text of that line; it is searched within 2 lines above and below and the line found is used (actual-line-used)"`
	NewForm           string `json:"newForm" jsonschema:"the new form's code"`
	InsertMode        string `json:"insertMode,omitempty" jsonschema:"insert_top_level_form only: before (default) or after the form at line"`
	AllowSyntaxErrors bool   `json:"allowSyntaxErrors,omitempty" jsonschema:"write the edit even if it introduces syntax errors"`
	ExpectedVersion   string `json:"expected_version,omitempty" jsonschema:"the version you read; line numbers count from it (lines moved since are edited where they are now, lines changed since are refused with EDIT_CONFLICT)"`
	AutoFix           bool   `json:"autoFix,omitempty" jsonschema:"apply the language server's preferred quick fixes for errors the edit introduces, in the same journal event"`
}

// CommentIn is insert_comment_at_line's input (seed 002).
type CommentIn struct {
	FilePath        string `json:"filePath" jsonschema:"path to the file"`
	LineNumber      int    `json:"lineNumber" jsonschema:"1-indexed line to position the comment at"`
	CommentText     string `json:"commentText" jsonschema:"the comment text without the comment prefix (added automatically); several lines give a multi-line comment"`
	InsertMode      string `json:"insertMode" jsonschema:"before (insert before the line) or after (insert after the line)"`
	ExpectedVersion string `json:"expected_version,omitempty" jsonschema:"the version you read; line numbers count from it (lines moved since are edited where they are now, lines changed since are refused with EDIT_CONFLICT)"`
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
	const rich = " In Clojure the forms inside a rich comment (comment ...) count as top level: give a line inside one to target it alone. Works for Lisps and, generalised, for the top-level declarations of every supported language."
	const diags = " Returns diagnostics-before-edit and diagnostics-after-edit (tree-sitter syntax errors; new ones marked), the new version and the journal event."
	const lsp = " Where a language server handles the file (gopls, pyright, typescript-language-server, ...), a form whose name changed has its references renamed across the workspace in the same event (propagated), the server's new errors are added to diagnostics-after-edit, and autoFix applies its preferred quick fixes."
	addTool(s, def{name: "replace_top_level_form", toolset: ToolsetForms, title: "Replace a top-level form",
		desc: "Replace the top-level form at a line with newForm (seed 002). With targetLine, that text is looked for within 2 lines of line and the form at the line found is replaced (actual-line-used); if it is not found: NO_MATCH \"Target line text not found\". " +
			"Lisp brackets are checked: an unbalanced newForm is refused with SYNTAX_ERROR and a balanced suggestion (parinfer indent mode) as candidate. An edit that introduces syntax errors is refused unless allowSyntaxErrors." + rich + diags + lsp,
		destructive: true},
		func(ctx context.Context, c *call, in *FormIn) (*FormResult, string, error) {
			return s.formEdit(ctx, c, in, "replace")
		})
	addTool(s, def{name: "insert_top_level_form", toolset: ToolsetForms, title: "Insert a top-level form",
		desc: "Insert newForm as a new top-level form before (insertMode before, the default) or after the top-level form at line, separated by blank lines; a line between forms inserts there, a line past the end appends. Comments directly above a form stay with it. targetLine and bracket checks as replace_top_level_form." + rich + diags + lsp},
		func(ctx context.Context, c *call, in *FormIn) (*FormResult, string, error) {
			return s.formEdit(ctx, c, in, "insert")
		})
	addTool(s, def{name: "insert_comment_at_line", toolset: ToolsetForms, title: "Insert a line comment",
		desc: "Insert a line comment before or after a line (seed 002), with the file's comment prefix (;; Clojure, // C-like, # Python/Ruby/shell, -- SQL/Lua, block comments for CSS/HTML). Each line of commentText becomes one comment line. Between top-level forms the comment is top level, set off from the code above by a blank line; inside a form it takes the indentation of the code there." + diags},
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
