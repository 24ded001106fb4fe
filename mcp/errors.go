package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/ops"
	"github.com/journalfs/journal/replay"
	"github.com/journalfs/journal/snapshot"
)

// Error codes returned to agents in the `code` field of an isError result.
const (
	CodeFileNotFound     = "FILE_NOT_FOUND"
	CodeFileExists       = "FILE_EXISTS"
	CodePermissionDenied = "PERMISSION_DENIED"
	CodeOutsideRoot      = "OUTSIDE_ROOT"
	CodeInvalidInput     = "INVALID_INPUT"
	CodeNoMatch          = "NO_MATCH"
	CodeAmbiguousMatch   = "AMBIGUOUS_MATCH"
	CodeEditConflict     = "EDIT_CONFLICT"
	CodeRevertConflict   = "REVERT_CONFLICT"
	CodeSyntaxError      = "SYNTAX_ERROR"
	CodeBinaryFile       = "BINARY_FILE"
	CodeTooLarge         = "TOO_LARGE"
	CodeNothingToDo      = "NOTHING_TO_DO"
	CodeNoSpace          = "NO_SPACE"
	CodeBusy             = "BUSY"
	CodeReadOnly         = "READ_ONLY"
	CodeIOError          = "IO_ERROR"
	CodeNoLanguageServer = "NO_LANGUAGE_SERVER"
	CodeJournalDamaged   = "JOURNAL_DAMAGED"
	CodeJournalTooNew    = "JOURNAL_TOO_NEW"
	CodeRedacted         = "REDACTED"
	CodeCancelled        = "CANCELLED"
	// CodeOutcomeUnknown: the serve process that ran a relayed call ended
	// before it answered (share.go).
	CodeOutcomeUnknown = "OUTCOME_UNKNOWN"
)

// Sentinels of this package.
var (
	// ErrTooLarge means a file is too large for the tool that was asked.
	ErrTooLarge = errors.New("mcp: file too large for this tool")
	// ErrReadOnly means the server runs with --read-only.
	ErrReadOnly = errors.New("mcp: server is read-only")
	// ErrInvalidInput means the tool's arguments do not decode or validate.
	ErrInvalidInput = errors.New("mcp: invalid input")
)

// ToolError is the structured body of every isError result.
type ToolError struct {
	Code       string          `json:"code"`
	Message    string          `json:"message"`
	Hint       string          `json:"hint,omitempty"`
	Candidates []ops.Candidate `json:"candidates,omitempty"`
	Lines      [][2]int        `json:"lines,omitempty"` // REVERT_CONFLICT: overlapping line ranges
	// Retry is a ready-to-send corrected call: the same tool with arguments
	// that apply what the caller meant (a refusal that is a next step).
	Retry *RetryCall `json:"retry,omitempty"`
	// Batch tools (seed 003) also say which ops failed.
	Status    string     `json:"status,omitempty"`
	Applied   []any      `json:"applied_ops,omitempty"`
	FailedOps []FailedOp `json:"failed_ops,omitempty"`
}

// RetryCall is a corrected call an error offers: send Arguments to Tool as
// they are.
type RetryCall struct {
	Tool      string         `json:"tool"`
	Arguments map[string]any `json:"arguments"`
	Note      string         `json:"note,omitempty"` // what was corrected
}

// FailedOp names one failing op of a batch (seed 003's shape).
type FailedOp struct {
	Index    int    `json:"index"`
	Filepath string `json:"filepath,omitempty"`
	Reason   string `json:"reason"`
	Code     string `json:"code"`
}

// codes maps sentinels to codes and default hints. Order matters: the first match wins.
var codes = []struct {
	err  error
	code string
	hint string
}{
	{ErrReadOnly, CodeReadOnly, "this server was started with --read-only"},
	{ErrTooLarge, CodeTooLarge, "use the large-file tools (read_content, search_content, edit_content), which stream"},
	{ErrInvalidInput, CodeInvalidInput, "check the tool's input schema"},
	{ErrNoLanguageServer, CodeNoLanguageServer, "install the language server (gopls, pyright, typescript-language-server) on the server's PATH, or edit with file_edit, whose impact scope lists the mentions"},
	{replay.ErrOutsideRoot, CodeOutsideRoot, "use a path inside a workspace root (journal_status lists the roots)"},
	{replay.ErrInvalidPath, CodeInvalidInput, "give the path of a regular file inside the workspace"},
	{replay.ErrNotFound, CodeFileNotFound, "check the path; to create a file use file_create_new"},
	{ops.ErrFileNotFound, CodeFileNotFound, "check the path; to create a file use file_create_new"},
	{replay.ErrExists, CodeFileExists, "to overwrite an existing file use file_replace"},
	{ops.ErrFileExists, CodeFileExists, "to overwrite an existing file use file_replace"},
	{replay.ErrReadOnlyFile, CodePermissionDenied, "a person made this file read-only to keep it from being changed: leave it, or ask them to make it writable; allow_read_only: true writes it anyway, if they said you may"},
	{replay.ErrPermission, CodePermissionDenied, "the server's user may not write there"},
	{fs.ErrPermission, CodePermissionDenied, "the server's user may not write there; nothing was changed"},
	{replay.ErrConflict, CodeEditConflict, "read the file again and redo the edit against its current version"},
	{replay.ErrRevertConflict, CodeRevertConflict, "edit the conflicting lines by hand, or revert with force to restore the old content exactly"},
	{ops.ErrConflict, CodeRevertConflict, "resolve the overlapping lines by hand"},
	{replay.ErrNothing, CodeNothingToDo, "journal_log shows what can be reverted"},
	{replay.ErrBadEvent, CodeInvalidInput, "journal_log lists event ids and their status"},
	{replay.ErrNoSpace, CodeNoSpace, "free disk space and retry; nothing was changed"},
	{journal.ErrBusy, CodeBusy, "a process holds the journal's lock and has made no progress for seconds (a hung journal serve or command?): retry once it is stopped"},
	{errCancelled, CodeCancelled, "the client cancelled the call before its commit point: nothing was changed"},
	{journal.ErrRedacted, CodeRedacted, "a content this needs was redacted (the message names the redact event): nothing was changed; revert or restore only the files whose contents remain, or edit the file by hand"},
	{journal.ErrDamaged, CodeJournalDamaged, journal.DamageHint},
	{journal.ErrFormat, CodeJournalTooNew, journal.FormatHint},
	{journal.ErrCorrupt, CodeJournalDamaged, "a journal record is damaged; nothing was changed — `journal verify` names the first damaged record"},
	{snapshot.ErrCorrupt, CodeJournalDamaged, "a stored content is damaged; nothing was changed — `journal verify` names the event that needs it"},
	{syscall.EIO, CodeIOError, "the disk reported an I/O error; nothing was changed — tell the user, the disk may be failing"},
	{syscall.EXDEV, CodeIOError, "a rename crossed file systems (a mount inside the workspace?); nothing was changed"},
	{syscall.EROFS, CodeIOError, "the file system is read-only; nothing was changed"},
	{syscall.EDQUOT, CodeNoSpace, "the disk quota is exhausted; nothing was changed"},
	{ops.ErrNoMatch, CodeNoMatch, "read the file again; copy the text exactly, or use the candidates"},
	{ops.ErrAmbiguousMatch, CodeAmbiguousMatch, "add surrounding lines to make the search text unique, or say which occurrence"},
	{ops.ErrOverlap, CodeInvalidInput, "ops of one batch must not touch overlapping ranges of a file"},
	{ops.ErrBinary, CodeBinaryFile, "text tools do not edit binary files"},
	{ops.ErrSyntax, CodeSyntaxError, "fix the syntax, or pass allowSyntaxErrors"},
	{ops.ErrInvalidInput, CodeInvalidInput, "check line numbers and parameters against the file"},
}

// classify returns the code and default hint of err, ok=false for internal faults.
func classify(err error) (code, hint string, ok bool) {
	for _, c := range codes {
		if errors.Is(err, c.err) {
			return c.code, c.hint, true
		}
	}
	return "", "", false
}

// toolError turns an error into an isError tool result. Errors an agent can
// act on become {code, message, hint}; anything else is an internal fault and
// is returned as a protocol error. This is the ONE place errors are mapped.
func toolError(tool string, c *call, err error) (*mcpgo.CallToolResult, error) {
	code, hint, ok := classify(err)
	if !ok {
		return nil, fmt.Errorf("internal error: %w", err)
	}
	te := ToolError{Code: code, Message: err.Error(), Hint: hint}
	var oe *ops.Error
	if errors.As(err, &oe) {
		te.Message = oe.Error()
		if oe.Hint != "" {
			te.Hint = oe.Hint
		}
		te.Candidates = oe.Candidates
		if oe.Retry != nil {
			if full, ok := overlay(c, oe.Retry); ok {
				te.Retry = &RetryCall{Tool: tool, Arguments: full}
			}
		}
	}
	var rt *retryable
	if errors.As(err, &rt) {
		te.Retry = &RetryCall{Tool: tool, Arguments: rt.args, Note: rt.note}
	}
	var pe *replay.PathError
	if errors.As(err, &pe) && pe.Hint != "" {
		te.Hint = pe.Hint
	}
	var h *hinted
	if errors.As(err, &h) && h.hint != "" {
		te.Hint = h.hint
	}
	var ce *replay.ConflictError
	if errors.As(err, &ce) {
		te.Lines = ce.Lines
	}
	var be *ops.BatchError
	if errors.As(err, &be) {
		te.Status = "failed"
		te.Applied = []any{}
		for _, f := range be.Failed {
			c, _, _ := classify(f)
			te.FailedOps = append(te.FailedOps, FailedOp{Index: f.Index, Filepath: f.Path, Reason: f.Error(), Code: c})
		}
	}
	return errorResult(te), nil
}

// errorResult renders an error for the model (a short explanation) and for
// programs (the ToolError as JSON on the last line). It carries no structured
// content: clients validate structuredContent against the tool's output
// schema, which describes successful results.
func errorResult(te ToolError) *mcpgo.CallToolResult {
	text := te.Code + ": " + te.Message
	if te.Hint != "" {
		text += "\nhint: " + te.Hint
	}
	if len(te.Candidates) > maxErrorCandidates {
		te.Hint += fmt.Sprintf(" (%d candidates; the first %d are listed)", len(te.Candidates), maxErrorCandidates)
		te.Candidates = te.Candidates[:maxErrorCandidates]
	}
	for _, c := range te.Candidates {
		text += fmt.Sprintf("\ncandidate at line %d", c.Line)
		if c.Similarity > 0 {
			text += fmt.Sprintf(" (similarity %.2f)", c.Similarity)
		}
		if c.Text != "" {
			text += ": " + c.Text
		}
	}
	body, _ := json.Marshal(te)
	return mcpgo.NewToolResultError(text + "\n" + string(body))
}

// maxErrorCandidates bounds the candidates listed in one error.
const maxErrorCandidates = 20

// ParseToolError extracts the ToolError from an isError result's text.
func ParseToolError(text string) (ToolError, bool) {
	var te ToolError
	i := strings.LastIndex(text, "\n{")
	if i < 0 {
		return te, false
	}
	return te, json.Unmarshal([]byte(text[i+1:]), &te) == nil
}

// invalid builds an INVALID_INPUT error with a hint.
func invalid(hint, format string, a ...any) error {
	return &hinted{err: fmt.Errorf("%w: "+format, append([]any{ErrInvalidInput}, a...)...), hint: hint}
}

// overlay returns the call's arguments with the corrected ones of an
// ops.Error's Retry put over them (a symbol path offered as "target" goes
// to "symbol" for the tools that name it so).
func overlay(c *call, fix map[string]any) (map[string]any, bool) {
	if c == nil {
		return nil, false
	}
	m, ok := c.inputArgs()
	if !ok {
		return nil, false
	}
	for k, v := range fix {
		if _, has := m[k]; !has && k == "target" {
			if _, sym := m["symbol"]; sym {
				k = "symbol"
			}
		}
		m[k] = v
	}
	return m, true
}

// retryable carries a corrected call through toolError: the arguments that,
// sent to the same tool, apply what the caller meant.
type retryable struct {
	err  error
	args map[string]any
	note string
}

// withRetry attaches a corrected call to err.
func withRetry(err error, args map[string]any, note string) error {
	return &retryable{err: err, args: args, note: note}
}

// Error implements error.
func (r *retryable) Error() string { return r.err.Error() }

// Unwrap returns the wrapped error.
func (r *retryable) Unwrap() error { return r.err }

// hinted carries a specific hint through toolError.
type hinted struct {
	err  error
	hint string
}

// Error implements error.
func (h *hinted) Error() string { return h.err.Error() }

// Unwrap returns the wrapped error.
func (h *hinted) Unwrap() error { return h.err }
