package ops

import (
	"errors"
	"fmt"
)

// Sentinel errors. Every error an op returns wraps exactly one of these, so the
// MCP layer can map it to an error code with errors.Is in one place.
var (
	// ErrInvalidInput means the arguments are malformed (bad line numbers, empty search text, ...).
	ErrInvalidInput = errors.New("ops: invalid input")
	// ErrFileNotFound means an op names a file that does not exist.
	ErrFileNotFound = errors.New("ops: file not found")
	// ErrFileExists means an op would create a file that already exists.
	ErrFileExists = errors.New("ops: file exists")
	// ErrNoMatch means search text or context lines were not found.
	ErrNoMatch = errors.New("ops: no match")
	// ErrAmbiguousMatch means search text matched more than once and the call did not say which.
	ErrAmbiguousMatch = errors.New("ops: ambiguous match")
	// ErrOverlap means two ops of one batch touch overlapping ranges of the same file.
	ErrOverlap = errors.New("ops: overlapping edits")
	// ErrBinary means a text op was asked to edit a binary file.
	ErrBinary = errors.New("ops: binary file")
	// ErrConflict means a three-way merge found overlapping changes.
	ErrConflict = errors.New("ops: conflicting changes")
	// ErrSyntax means an edit would introduce syntax errors.
	ErrSyntax = errors.New("ops: syntax error")
)

// Candidate is a near miss offered to the agent when a match fails or is ambiguous.
type Candidate struct {
	Line       int     `json:"line"`                 // 1-based first line of the candidate
	EndLine    int     `json:"end_line,omitempty"`   // 1-based last line, if more than one
	Similarity float64 `json:"similarity,omitempty"` // 0..1
	Text       string  `json:"text,omitempty"`       // the candidate text (possibly shortened)
	Diff       string  `json:"diff,omitempty"`       // short diff search→candidate
	// SearchText and ReplaceText, when set, are a corrected search/replace
	// pair for this candidate: SearchText is the file's exact text there and
	// ReplaceText the caller's change carried onto it (lines the caller did
	// not change keep the file's bytes). Re-sent as they are, they apply.
	SearchText  string `json:"search_text,omitempty"`
	ReplaceText string `json:"replace_text,omitempty"`
}

// Error is an op failure with identity: which op, which file, why, and what the
// agent can do about it. Err is always one of the sentinels above (possibly wrapped).
type Error struct {
	Op         string      // op name, e.g. "file_replace"
	Index      int         // index of the op in its batch, -1 if not applicable
	Path       string      // file the op addressed, if any
	Err        error       // a sentinel, possibly wrapped
	Msg        string      // human/agent readable detail
	Hint       string      // what to do next
	Candidates []Candidate // near misses, ambiguous positions, conflict regions
	// Retry, when set, is the corrected request that applies what the caller
	// meant: arguments of the same tool, ready to send as they are.
	Retry map[string]any
}

// Error returns "op path: message".
func (e *Error) Error() string {
	s := e.Op
	if e.Path != "" {
		s += " " + e.Path
	}
	if e.Msg != "" {
		return fmt.Sprintf("%s: %s", s, e.Msg)
	}
	return fmt.Sprintf("%s: %v", s, e.Err)
}

// Unwrap returns the sentinel.
func (e *Error) Unwrap() error { return e.Err }
