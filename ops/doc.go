// Package ops holds the pure edit operations of journal: it turns the
// original bytes of files plus edit values into new bytes. It does no disk
// I/O and imports no other project package; the replay engine loads files,
// calls ops, and writes the result atomically.
//
// # Text model
//
// Decode turns file bytes into a Doc: encoding (UTF-8, UTF-16 LE/BE by BOM or
// by NUL pattern, Latin-1 for bytes that are not UTF-8), BOM, and text with
// every line ending kept as it was (LF, CRLF, lone CR; mixed files stay
// mixed). Binary files (NUL bytes in the first 8 KiB not explained by UTF-16)
// are refused with ErrBinary. Doc.Encode returns exactly the decoded bytes
// when nothing changed. Lines an op inserts take the file's dominant ending;
// a missing final newline stays missing.
//
// # Coordinates
//
// Lines are 1-indexed. Columns are 0-indexed and count runes (code points) of
// the line's text, excluding its ending; column -1 means the end of the line.
// Ranges with columns are half-open: the end column is not included. Every
// coordinate of a batch refers to the ORIGINAL file, before any op of the
// batch; results report lines AFTER the batch.
//
// # Batches
//
// ApplyBatch plans every op against the original files (validation:
// existence, bounds, encodings), refuses ops whose ranges in one file overlap
// (ErrOverlap), and only then applies the edits of each file bottom to top.
// It is all or nothing: any failure returns a *BatchError listing every
// failing op as an *Error, and no Outcome. The ops are seed 003's
// file_create_new (CreateOp), file_replace (ReplaceOp), file_insert_text
// (InsertOp), file_copy_paste_text (CopyPasteOp) and edit_move_text (MoveOp),
// and seed 001's edit_file (EditFileOp, also as EditFile over one file's
// bytes).
//
// # Elision markers
//
// New text for existing text (a whole file, a line range, a search text's
// match, a symbol, a form) may hold lines like "// ... existing code ..."
// that stand for lines the agent left out. [ExpandMarkers] (elide.go; which
// lines are markers: marker.go) is the one protocol every tool runs before
// it writes: a marker is replaced by the old lines it stands for, found
// exactly by the lines right next to it (elide_sure.go: a line next to a
// marker that could be read two ways — added or an edit — is no anchor),
// or the edit is refused (ErrInvalidInput) — a marker is never written
// where the old text did not have it. The ops
// of this package run it on file_replace's whole files and line ranges and
// edit_file's replacements; ops/match on every search/replace; the MCP
// layer on symbols and forms.
//
// # Errors
//
// Every failure is an *Error wrapping exactly one sentinel of errors.go, so
// the MCP layer maps it to an error code with errors.Is in one place.
//
// # Glossary
//
//   - line mode: an op with no columns works on whole lines, endings included.
//   - char mode: an op with a column works on exact rune positions.
//   - context: the changed region ±ContextLines lines, each "N: text".
package ops
