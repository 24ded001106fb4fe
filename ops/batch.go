package ops

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Loader returns the original bytes of the file at path, with exists=false
// when it does not exist. ApplyBatch calls it at most once per path. A non-nil
// error aborts the batch and is returned unchanged. The bytes must not change
// afterwards: the planner reads them as the file's text without a copy.
type Loader func(path string) (data []byte, exists bool, err error)

// FileResult is the new state of one file a batch changed.
type FileResult struct {
	Path         string // as named by the ops
	Old          []byte // original bytes; nil if the file did not exist
	New          []byte // bytes to write; nil if Deleted. Read-only: it may be an op's content string's own memory
	Created      bool   // the file did not exist before the batch
	Deleted      bool   // the file is to be removed (no seed-003 op sets this today)
	LinesTotal   int    // lines in New
	BytesWritten int    // len(New)
}

// OpResult reports one applied op (seed 003 "applied_ops"). Lines are in the
// coordinates of the file AFTER the whole batch.
type OpResult struct {
	Index         int      `json:"index"`
	Kind          string   `json:"kind"`
	Path          string   `json:"filepath"`                  // file changed (move: the source)
	SourcePath    string   `json:"source_filepath,omitempty"` // copy: where the text came from
	TargetPath    string   `json:"target_filepath,omitempty"` // move: where the text went
	TargetCreated bool     `json:"target_created,omitempty"`  // move: the target was created
	StartLine     int      `json:"start_line"`                // first changed line (move: in the target)
	EndLine       int      `json:"end_line"`                  // last changed line
	Context       []string `json:"new_context"`               // "N: text" lines around the change
	SourceLine    int      `json:"source_line,omitempty"`     // move: line where the text was removed
	SourceContext []string `json:"source_context,omitempty"`  // move: context there
	ActualLine    int      `json:"actual_line,omitempty"`     // replace: line found by target_line_text
	BytesWritten  int      `json:"bytes_written,omitempty"`   // create/replace: size of the file
	LinesTotal    int      `json:"lines_total,omitempty"`     // create/replace: lines in the file
	Warnings      []string `json:"warnings,omitempty"`
}

// Outcome is what a batch would do: the new bytes of every file it changes
// and a report per op. Nothing has been written; the caller writes Files
// atomically.
type Outcome struct {
	Files   map[string]*FileResult
	Applied []OpResult // in op order
}

// Paths returns the paths of Files in the order the batch first touched them.
func (o *Outcome) Paths() []string {
	out := make([]string, 0, len(o.Files))
	for _, r := range o.Applied {
		for _, p := range []string{r.Path, r.TargetPath} {
			if _, ok := o.Files[p]; ok && p != "" && !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// Diff returns the unified diff of the file's change, labelled a/<path> and
// b/<path> ("/dev/null" for the side that does not exist).
func (r *FileResult) Diff() string {
	from, to := "a/"+r.Path, "b/"+r.Path
	if r.Old == nil {
		from = "/dev/null"
	}
	if r.Deleted {
		to = "/dev/null"
	}
	return Diff(from, to, r.Old, r.New)
}

// BatchError lists every op of a batch that failed (seed 003 "failed_ops").
// It unwraps to the first, so errors.Is and errors.As see that op's *Error
// and sentinel.
type BatchError struct {
	Failed []*Error // at least one, in op order
}

// Error names the first failing op and how many more failed.
func (e *BatchError) Error() string {
	first := e.Failed[0]
	s := fmt.Sprintf("op %d: %v", first.Index, first)
	if len(e.Failed) > 1 {
		s += fmt.Sprintf(" (and %d more failed ops)", len(e.Failed)-1)
	}
	return s
}

// Unwrap returns the first failure.
func (e *BatchError) Unwrap() error { return e.Failed[0] }

// ApplyBatch validates every op against the original files, then applies
// them, bottom to top per file, and returns the result. It is all or nothing:
// if any op is invalid, or two ops of one file overlap, it returns a
// *BatchError naming every failing op (each an *Error with its index) and no
// Outcome. Errors from load are returned as they are.
func ApplyBatch(ops []Op, load Loader) (*Outcome, error) {
	if len(ops) == 0 {
		return nil, &BatchError{Failed: []*Error{{Op: "batch", Index: -1, Err: ErrInvalidInput,
			Msg: "no ops given", Hint: "pass at least one op"}}}
	}
	p := &planner{load: load, files: map[string]*fileState{}, results: make([]OpResult, len(ops))}
	var failed []*Error
	for i, op := range ops {
		if op == nil {
			failed = append(failed, &Error{Op: "batch", Index: i, Err: ErrInvalidInput, Msg: "op is nil"})
			continue
		}
		p.results[i] = OpResult{Index: i, Kind: op.Kind()}
		if err := op.plan(p, i); err != nil {
			var e *Error
			if !errors.As(err, &e) {
				return nil, err // loader failure: not the agent's fault
			}
			failed = append(failed, stamp(e, op.Kind(), i))
		}
	}
	for _, path := range p.order {
		for _, e := range p.files[path].checkOverlaps(p) {
			failed = append(failed, e)
		}
	}
	if len(failed) > 0 {
		slices.SortStableFunc(failed, func(a, b *Error) int { return a.Index - b.Index })
		return nil, &BatchError{Failed: failed}
	}
	out := &Outcome{Files: map[string]*FileResult{}}
	for _, path := range p.order {
		if fs := p.files[path]; fs.mutated {
			out.Files[path] = fs.finish(p)
		}
	}
	out.Applied = p.results
	return out, nil
}

// stamp fills in the op identity of e, copying it if it came from elsewhere
// (Decode, Doc.Offset) so shared values are never mutated.
func stamp(e *Error, kind string, i int) *Error {
	c := *e
	c.Op, c.Index = kind, i
	return &c
}

// lines formats a 1-indexed line range for messages.
func lines(a, b int) string {
	if a == b {
		return "line " + strconv.Itoa(a)
	}
	return "lines " + strconv.Itoa(a) + "-" + strconv.Itoa(b)
}

// withPath sets the path of an op error.
func withPath(path string, err error) error {
	var e *Error
	if errors.As(err, &e) {
		c := *e
		c.Path = path
		return &c
	}
	return err
}

func requirePath(field, path string) error {
	if strings.TrimSpace(path) == "" {
		return &Error{Err: ErrInvalidInput, Msg: field + " is required", Hint: "name the file to edit"}
	}
	return nil
}
