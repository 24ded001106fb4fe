package ops

import "strings"

// Edit types of EditFileOp.EditType.
const (
	EditInsert  = "insert"
	EditReplace = "replace"
	EditDelete  = "delete"
)

// EditFileOp is seed 001's ai_code_editing.edit_file: a line-based insert,
// replace or delete in one existing file.
//
// EditType defaults to "replace" when StartLine or EndLine is given, else
// "insert". Insert puts CodeBlock as whole lines before StartLine (1..N+1;
// default: after the last line). Replace swaps lines StartLine..EndLine
// (EndLine defaults to StartLine) for CodeBlock. Delete removes those lines
// and takes no CodeBlock. This package does not generate code:
// EditInstruction is required (the seed says so) but only recorded, and
// CodeBlock is required for insert and replace.
//
// Seed 001's error codes map onto sentinels: FILE_NOT_FOUND is
// ErrFileNotFound, INVALID_INPUT is ErrInvalidInput. EDIT_CONFLICT and
// PERMISSION_DENIED belong to the caller, which knows versions and disks.
type EditFileOp struct {
	TargetFile      string  `json:"target_file"`
	EditInstruction string  `json:"edit_instruction"`
	StartLine       *int    `json:"start_line,omitempty"`
	EndLine         *int    `json:"end_line,omitempty"`
	CodeBlock       *string `json:"code_block,omitempty"`
	EditType        string  `json:"edit_type,omitempty"`
}

// Kind returns "edit_file".
func (EditFileOp) Kind() string { return KindEditFile }

// Type returns the edit type after defaults.
func (op EditFileOp) Type() string {
	switch {
	case op.EditType != "":
		return op.EditType
	case op.StartLine != nil || op.EndLine != nil:
		return EditReplace
	}
	return EditInsert
}

func (op EditFileOp) plan(p *planner, i int) error {
	p.results[i].Path = op.TargetFile
	if err := requirePath("target_file", op.TargetFile); err != nil {
		return err
	}
	if err := op.check(); err != nil {
		return withPath(op.TargetFile, err)
	}
	fs, err := p.target(i, op.TargetFile, false)
	if err != nil {
		return err
	}
	e, err := op.edit(p, fs.doc, i)
	if err != nil {
		return withPath(op.TargetFile, err)
	}
	e.op = i
	return fs.add(e)
}

// check validates the arguments that do not depend on the file.
func (op EditFileOp) check() error {
	if strings.TrimSpace(op.EditInstruction) == "" {
		return &Error{Err: ErrInvalidInput, Msg: "edit_instruction is required",
			Hint: "describe the edit in a few words; it is recorded with the change"}
	}
	t := op.Type()
	switch t {
	case EditInsert, EditReplace:
		if op.CodeBlock == nil {
			return &Error{Err: ErrInvalidInput, Msg: "code_block is required for edit_type=" + t,
				Hint: "this server does not generate code from edit_instruction; pass the code in code_block"}
		}
	case EditDelete:
		if op.CodeBlock != nil && *op.CodeBlock != "" {
			return &Error{Err: ErrInvalidInput, Msg: "edit_type=delete takes no code_block",
				Hint: "use edit_type=replace to put code in place of the lines"}
		}
	default:
		return invalid("edit_type %q is not one of insert, replace, delete", t)
	}
	if t != EditInsert && op.StartLine == nil {
		return &Error{Err: ErrInvalidInput, Msg: "start_line is required for edit_type=" + t,
			Hint: "give the 1-indexed first line (and end_line for more than one)"}
	}
	if t == EditInsert && op.EndLine != nil {
		return invalid("end_line is not used by edit_type=insert")
	}
	return nil
}

func (op EditFileOp) edit(p *planner, d *Doc, i int) (edit, error) {
	eol := d.DominantEOL()
	n := d.LineCount()
	if op.Type() == EditInsert {
		line := n + 1
		if op.StartLine != nil {
			line = *op.StartLine
		}
		if line < 1 || line > n+1 {
			return edit{}, &Error{Err: ErrInvalidInput,
				Msg:  sprintf("start_line %d is out of range: the file has %d lines", line, n),
				Hint: sprintf("insert goes before start_line: use 1..%d (%d appends)", n+1, n+1)}
		}
		return lineInsert(d, line, normalizeEOL(*op.CodeBlock, eol), eol), nil
	}
	code := ""
	if op.CodeBlock != nil {
		code = *op.CodeBlock
	}
	r := ReplaceOp{Path: op.TargetFile, Content: code, StartLine: op.StartLine, EndLine: op.EndLine}
	if n == 0 {
		return edit{}, &Error{Err: ErrInvalidInput, Msg: "the file is empty: there are no lines to " + op.Type(),
			Hint: "use edit_type=insert"}
	}
	return r.edit(p, d, i)
}

// EditResult is the outcome of EditFile (seed 001's output, minus status).
type EditResult struct {
	New       []byte   // the file's new bytes
	Diff      string   // unified diff old → new, labelled a/<file> and b/<file>
	Message   string   // e.g. "replaced lines 3-5 with 2 lines"
	StartLine int      // first changed line, post-edit
	EndLine   int      // last changed line, post-edit
	Context   []string // changed region ±2 lines, numbered
}

// EditFile applies op to original, the current bytes of op.TargetFile (which
// the caller has checked exists), and returns the new bytes with a diff.
func EditFile(op EditFileOp, original []byte) (*EditResult, error) {
	out, err := ApplyBatch([]Op{op}, func(string) ([]byte, bool, error) { return original, true, nil })
	if err != nil {
		return nil, err
	}
	f := out.Files[op.TargetFile]
	r := out.Applied[0]
	res := &EditResult{New: f.New, StartLine: r.StartLine, EndLine: r.EndLine, Context: r.Context,
		Diff: Diff("a/"+op.TargetFile, "b/"+op.TargetFile, original, f.New)}
	switch op.Type() {
	case EditInsert:
		res.Message = sprintf("inserted %s", lines(r.StartLine, r.EndLine))
	case EditReplace:
		res.Message = sprintf("replaced; new text at %s", lines(r.StartLine, r.EndLine))
	default:
		res.Message = sprintf("deleted; the file now has %d lines", f.LinesTotal)
	}
	return res, nil
}
