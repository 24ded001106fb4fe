package replay

import (
	"errors"
	"fmt"
	"syscall"
)

// Sentinel errors.
var (
	// ErrInvalidPath means a path is malformed or names something that is not a regular file.
	ErrInvalidPath = errors.New("replay: invalid path")
	// ErrOutsideRoot means a path leads outside every workspace root (or into the journal).
	ErrOutsideRoot = errors.New("replay: outside root")
	// ErrNotFound means a file does not exist.
	ErrNotFound = errors.New("replay: file not found")
	// ErrExists means a file that must not exist does.
	ErrExists = errors.New("replay: file exists")
	// ErrPermission means the OS refused access.
	ErrPermission = errors.New("replay: permission denied")
	// ErrReadOnlyFile means a batch would change a file whose owner may not
	// write it (chmod a-w): people protect files from agents so, and the
	// atomic rename would replace it anyway (it needs only the directory's
	// permission). It wraps ErrPermission; Batch.WriteReadOnly lifts it.
	ErrReadOnlyFile = fmt.Errorf("%w: read-only file", ErrPermission)
	// ErrConflict means a file is not the version the caller expected.
	ErrConflict = errors.New("replay: edit conflict")
	// ErrRevertConflict means a revert's three-way merge overlaps later changes.
	ErrRevertConflict = errors.New("replay: revert conflict")
	// ErrNothing means there is nothing to undo, redo or revert.
	ErrNothing = errors.New("replay: nothing to do")
	// ErrBadEvent means an event cannot be used as asked (rolled back, pending, wrong kind).
	ErrBadEvent = errors.New("replay: unusable event")
	// ErrNoSpace means the disk is full.
	ErrNoSpace = errors.New("replay: no space left on device")
)

// PathError is a failure tied to one path, with a hint for the agent.
type PathError struct {
	Path  string
	Err   error // a sentinel
	Msg   string
	Hint  string
	cause error
}

// Error implements error.
func (e *PathError) Error() string {
	if e.Msg != "" {
		return fmt.Sprintf("%s: %s", e.Path, e.Msg)
	}
	return fmt.Sprintf("%s: %v", e.Path, e.Err)
}

// Unwrap returns the sentinel and the OS cause.
func (e *PathError) Unwrap() []error {
	if e.cause != nil {
		return []error{e.Err, e.cause}
	}
	return []error{e.Err}
}

// ConflictError is a refused revert: the lines where later changes overlap.
type ConflictError struct {
	Event   uint64
	Session string // the undo of this whole session met the conflict (UndoSession)
	Prompt  string // the undo of this prompt of the session met it (UndoPrompt)
	Path    string
	Lines   [][2]int // 1-based inclusive line ranges in the current file
	Msg     string
}

// Error implements error.
func (e *ConflictError) Error() string {
	if e.Prompt != "" {
		return fmt.Sprintf("undo of prompt %s (session %s): its event %d conflicts in %s: %s", e.Prompt, e.Session, e.Event, e.Path, e.Msg)
	}
	if e.Session != "" {
		return fmt.Sprintf("undo of session %s: its event %d conflicts in %s: %s", e.Session, e.Event, e.Path, e.Msg)
	}
	return fmt.Sprintf("revert of event %d conflicts in %s: %s", e.Event, e.Path, e.Msg)
}

// Unwrap returns ErrRevertConflict.
func (e *ConflictError) Unwrap() error { return ErrRevertConflict }

// classify adds ErrNoSpace to disk-full errors so callers can say so.
func classify(err error) error {
	if err != nil && errors.Is(err, syscall.ENOSPC) && !errors.Is(err, ErrNoSpace) {
		return fmt.Errorf("%w: %w", ErrNoSpace, err)
	}
	return err
}
