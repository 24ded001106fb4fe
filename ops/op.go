package ops

// Op is one edit of a batch. The set of ops is closed (the interface has an
// unexported method); every op is a plain value whose JSON tags are the seed's
// parameter names, so a tool handler decodes arguments straight into it.
//
// Every line and column an op names refers to the file as it was before the
// batch (the ORIGINAL coordinates), however many other ops of the batch edit
// the same file.
type Op interface {
	// Kind returns the tool name the op belongs to, e.g. "file_insert_text".
	Kind() string
	plan(p *planner, index int) error
}

// Op kinds, as returned by Op.Kind and reported in OpResult.Kind.
const (
	KindCreate    = "file_create_new"
	KindReplace   = "file_replace"
	KindInsert    = "file_insert_text"
	KindCopyPaste = "file_copy_paste_text"
	KindMove      = "edit_move_text"
	KindEditFile  = "edit_file"
)

// Insert positions for InsertOp.At.
const (
	AtBOF        = "bof"
	AtEOF        = "eof"
	AtBeforeLine = "before_line"
	AtAfterLine  = "after_line"
)

// CreateOp creates a file that must not exist yet (seed 003 file_create_new).
// The content is written as given, UTF-8, without line ending conversion.
type CreateOp struct {
	Path    string `json:"path"`              // file to create
	Content string `json:"content,omitempty"` // initial content; default empty
}

// ReplaceOp replaces the whole content of an existing file (seed 003
// file_replace), or, when StartLine is set, one range of it.
//
// A range is line-only when both columns are nil: lines StartLine..EndLine
// (inclusive) are replaced by Content as whole lines (an empty Content deletes
// them). With a column set it is character-precise: from (StartLine,
// StartCol) up to but not including (EndLine, EndCol); a nil StartCol is the
// beginning of the line, a nil or -1 EndCol the end of the line text.
//
// TargetLineText, if set, is the expected text of StartLine (compared
// trimmed); it is searched within ±2 lines and the range shifted to where it
// is found (seed 002's target-line), with a warning.
//
// Content's line endings are converted to the file's dominant ending; the
// file keeps its encoding and BOM.
type ReplaceOp struct {
	Path           string `json:"path"`
	Content        string `json:"content"`
	StartLine      *int   `json:"start_line,omitempty"`
	StartCol       *int   `json:"start_col,omitempty"`
	EndLine        *int   `json:"end_line,omitempty"` // default StartLine
	EndCol         *int   `json:"end_col,omitempty"`
	TargetLineText string `json:"target_line_text,omitempty"`
}

// InsertOp inserts Content into an existing file without matching text
// (seed 003 file_insert_text).
//
// At is "bof", "eof", "before_line" or "after_line" (Line required for the
// last two). With Col nil the insert is line-only: Content is inserted as
// whole new lines (a line ending is added if it lacks one; a file without a
// final newline keeps lacking one). With Col set it is character-precise:
// Content is inserted verbatim at column Col of Line (0 = beginning, -1 = end
// of the line text, N = before rune N), for either before_line or after_line;
// for bof/eof, at the very start or end of the file.
type InsertOp struct {
	Path    string `json:"path"`
	Content string `json:"content"`
	At      string `json:"at"`
	Line    *int   `json:"line,omitempty"`
	Col     *int   `json:"col,omitempty"`
}

// CopyPasteOp copies a range of a source file to a position in a target file
// (seed 003 file_copy_paste_text). The source is never modified; the target
// must exist. Many ops may copy one source range to many targets, in many
// files, in one atomic batch ("stamp a decorator into 50 places").
//
// Line-only mode (all three columns nil): lines SourceStartLine..
// SourceEndLine are copied whole and inserted as new lines before
// TargetLine (-1 = after the last line). Character-precise mode (any column
// set): the text from (SourceStartLine, SourceStartCol or 0) up to but not
// including (SourceEndLine, SourceEndCol; nil or -1 = end of line) is inserted
// verbatim at (TargetLine, TargetCol or 0); TargetLine -1 is the last line and
// TargetCol -1 the end of the line.
type CopyPasteOp struct {
	SourcePath      string `json:"source_path"`
	SourceStartLine int    `json:"source_start_line"`
	SourceStartCol  *int   `json:"source_start_col,omitempty"`
	SourceEndLine   int    `json:"source_end_line"`
	SourceEndCol    *int   `json:"source_end_col,omitempty"`
	TargetPath      string `json:"target_path"`
	TargetLine      int    `json:"target_line"`
	TargetCol       *int   `json:"target_col,omitempty"`
}

// MoveOp moves a range of text within a file or to another file (seed 003
// edit_move_text). Coordinates and modes are those of CopyPasteOp; the range
// is also removed from the source. A missing target file is created (empty,
// UTF-8) and the result says target_created with a warning. A same-file
// target inside the moved range is refused with ErrOverlap.
type MoveOp CopyPasteOp

// Kind returns "file_create_new".
func (CreateOp) Kind() string { return KindCreate }

// Kind returns "file_replace".
func (ReplaceOp) Kind() string { return KindReplace }

// Kind returns "file_insert_text".
func (InsertOp) Kind() string { return KindInsert }

// Kind returns "file_copy_paste_text".
func (CopyPasteOp) Kind() string { return KindCopyPaste }

// Kind returns "edit_move_text".
func (MoveOp) Kind() string { return KindMove }

// Paths returns the files op reads or writes, as it names them (a caller
// may load them ahead of ApplyBatch, all at once).
func Paths(op Op) []string {
	switch o := op.(type) {
	case CreateOp:
		return []string{o.Path}
	case ReplaceOp:
		return []string{o.Path}
	case InsertOp:
		return []string{o.Path}
	case CopyPasteOp:
		return []string{o.SourcePath, o.TargetPath}
	case MoveOp:
		return []string{o.SourcePath, o.TargetPath}
	case EditFileOp:
		return []string{o.TargetFile}
	}
	return nil
}

// Int returns a pointer to v, for the optional fields of ops.
func Int(v int) *int { return &v }
