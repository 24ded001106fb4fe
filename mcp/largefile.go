package mcp

import (
	"context"

	"github.com/journalfs/journal/ops/match"
)

// The large-file toolset (seed 004): get_overview, search_content,
// read_content and edit_content, at any file size. Files under the engine's
// stream threshold (16 MiB) are read into memory and decoded (UTF-8, UTF-16,
// Latin-1, BOMs); up to the mmap limit (64 MiB) they are memory-mapped;
// larger files are streamed (replay.DefaultStreamThreshold and
// DefaultMmapLimit say why those sizes: the server's memory stays under
// 128 MiB whatever the file). Line indexes and
// outlines are cached by content hash. revert_edit (history toolset) takes
// back an edit_content event like any other.

// OverviewIn is get_overview's input.
type OverviewIn struct {
	AbsoluteFilePath string `json:"absolute_file_path" jsonschema:"the file (absolute inside a workspace root, or relative to the first root)"`
}

// OverviewOut is get_overview's result (seed 004's FileOverview, plus the version).
type OverviewOut struct {
	FilePath      string        `json:"file_path"`
	Version       string        `json:"version"`
	LineCount     int           `json:"line_count"`
	FileSize      int64         `json:"file_size"`
	Encoding      string        `json:"encoding"`
	BOM           bool          `json:"bom"`
	LineEndings   string        `json:"line_endings"` // lf, crlf, mixed or none
	FinalNewline  bool          `json:"final_newline"`
	HasLongLines  bool          `json:"has_long_lines"` // a line over 1000 bytes (search results cut them)
	LongLines     int           `json:"long_lines"`
	MaxLineLength int           `json:"max_line_length"`
	Access        string        `json:"access"` // memory, mmap or stream
	Language      string        `json:"language,omitempty"`
	Outline       []OutlineItem `json:"outline"` // flattened tree: depth and path carry the nesting
	Summary       []string      `json:"summary,omitempty"`
	SearchHints   []string      `json:"search_hints"`
	Note          string        `json:"note,omitempty"`
}

// SearchIn is search_content's input.
type SearchIn struct {
	AbsoluteFilePath string  `json:"absolute_file_path" jsonschema:"the file to search"`
	Pattern          string  `json:"pattern" jsonschema:"text to find within a line (a Go regular expression with regex=true)"`
	MaxResults       *int    `json:"max_results,omitempty" jsonschema:"at most this many results (default 20)"`
	ContextLines     *int    `json:"context_lines,omitempty" jsonschema:"lines of context before and after each result (default 2)"`
	Fuzzy            *bool   `json:"fuzzy,omitempty" jsonschema:"when the pattern is not found exactly, return similar lines with similarity scores (default true)"`
	Regex            bool    `json:"regex,omitempty" jsonschema:"treat pattern as a regular expression (RE2)"`
	Threshold        float64 `json:"threshold,omitempty" jsonschema:"fuzzy similarity floor in (0,1] (default 0.8)"`
	StartLine        int     `json:"start_line,omitempty" jsonschema:"search from this line on (paging: the next_start_line of the previous result)"`
}

// SearchResult is one hit (seed 004's SearchResult).
type SearchResult struct {
	LineNumber      int          `json:"line_number"`
	Match           string       `json:"match"` // the line, cut around the match when over 1000 bytes
	ContextBefore   []string     `json:"context_before"`
	ContextAfter    []string     `json:"context_after"`
	SemanticContext string       `json:"semantic_context,omitempty"` // e.g. "method UserService.findById"
	SimilarityScore float64      `json:"similarity_score"`
	Truncated       bool         `json:"truncated"`
	Column          int          `json:"column,omitempty"` // byte offset of match within the line when truncated
	Submatches      []match.Span `json:"submatches"`
}

// SearchOut is search_content's result.
type SearchOut struct {
	FilePath      string         `json:"file_path"`
	Version       string         `json:"version"`
	Mode          string         `json:"mode"` // exact, regex or fuzzy
	Results       []SearchResult `json:"results"`
	More          bool           `json:"more"`
	NextStartLine int            `json:"next_start_line,omitempty"`
	Note          string         `json:"note,omitempty"`
}

// ReadIn is read_content's input.
type ReadIn struct {
	AbsoluteFilePath string `json:"absolute_file_path" jsonschema:"the file to read"`
	Target           any    `json:"target,omitempty" jsonschema:"lines/semantic: a line number, a symbol name (e.g. UserService.findById) or a text pattern (its first occurrence); tail: how many lines (default 100)"`
	Mode             string `json:"mode,omitempty" jsonschema:"lines (default): max_lines lines from the target; semantic: the whole function/class/block around the target; tail: the last N lines without reading the whole file"`
	MaxLines         int    `json:"max_lines,omitempty" jsonschema:"lines mode: how many lines (default 100); results are also capped in bytes and say how to read on"`
}

// ReadOut is read_content's result. The lines themselves are in the text content.
type ReadOut struct {
	FilePath   string       `json:"file_path"`
	Version    string       `json:"version"`
	Mode       string       `json:"mode"`
	StartLine  int          `json:"start_line"`
	EndLine    int          `json:"end_line"`
	TotalLines int          `json:"total_lines,omitempty"` // absent when unknown (tail of a streamed file)
	Symbol     *OutlineItem `json:"symbol,omitempty"`
	More       string       `json:"more,omitempty"` // how to read on
	Note       string       `json:"note,omitempty"`
}

// EditChange is one search/replace pair of a batch.
type EditChange struct {
	SearchText  string `json:"search_text" jsonschema:"the text to find (copy it from a read, with a few lines of context)"`
	ReplaceText string `json:"replace_text" jsonschema:"the text to put in its place"`
	Occurrence  int    `json:"occurrence,omitempty" jsonschema:"1-based: which match to replace when the search text matches several times"`
	ReplaceAll  bool   `json:"replace_all,omitempty" jsonschema:"replace every match"`
	AllowRepeat bool   `json:"allow_repeat,omitempty" jsonschema:"apply even if the change looks applied already (to insert the same lines again on purpose)"`
}

// EditIn is edit_content's input.
type EditIn struct {
	AbsoluteFilePath string       `json:"absolute_file_path" jsonschema:"the file to edit"`
	SearchText       *string      `json:"search_text,omitempty" jsonschema:"single edit: the text to find"`
	ReplaceText      *string      `json:"replace_text,omitempty" jsonschema:"single edit: the text to put in its place"`
	Changes          []EditChange `json:"changes,omitempty" jsonschema:"batch: several {search_text, replace_text} applied all-or-nothing against the original file"`
	Fuzzy            *bool        `json:"fuzzy,omitempty" jsonschema:"default true: also match text that differs only in look-alike characters (curly quotes, dashes, no-break spaces), Unicode normalisation, spacing and blank lines, and recognise copied line-number prefixes, double escapes and cut markers; a near miss that differs in names or numbers is never applied"`
	AllowRepeat      bool         `json:"allow_repeat,omitempty" jsonschema:"single edit: apply even if the change looks applied already (to insert the same lines again on purpose)"`
	Preview          *bool        `json:"preview,omitempty" jsonschema:"default true: return the diff and change nothing; pass false to apply"`
	ExpectedVersion  string       `json:"expected_version,omitempty" jsonschema:"the version you read; refused with EDIT_CONFLICT if the file changed"`
}

// EditChangeResult says where and how one change matched.
type EditChangeResult struct {
	Index      int     `json:"index"`
	Level      string  `json:"level"` // exact, line_endings, whitespace or normalized
	Similarity float64 `json:"similarity"`
	LineNumber int     `json:"line_number"` // original lines
	EndLine    int     `json:"end_line"`
	NewLine    int     `json:"new_line"` // post-edit lines of the replacement
	NewEndLine int     `json:"new_end_line"`
	Matched    string  `json:"matched_text,omitempty"` // the file text a non-exact match replaced
	// AlreadyApplied: the change was found made already (a retry); nothing
	// was written for it.
	AlreadyApplied bool   `json:"already_applied,omitempty"`
	Note           string `json:"note,omitempty"` // agent artefacts recognised and removed
}

// EditOut is edit_content's result (seed 004's EditResult, plus the journal event and versions).
type EditOut struct {
	Success bool   `json:"success"`
	Status  string `json:"status"` // preview, applied or already_applied
	// AlreadyApplied: every change was found made already; nothing was
	// written and no journal event recorded.
	AlreadyApplied  bool               `json:"already_applied,omitempty"`
	Preview         string             `json:"preview"`
	ChangesMade     int                `json:"changes_made"`
	LineNumber      int                `json:"line_number"`
	SimilarityUsed  float64            `json:"similarity_used"`
	Changes         []EditChangeResult `json:"changes"`
	Context         []string           `json:"context,omitempty"` // changed region ±2 lines, post-edit numbering
	Event           uint64             `json:"event,omitempty"`   // journal event (revert_edit backup_id)
	Version         string             `json:"version"`           // the file's version after (or, for a preview, still)
	PreviousVersion string             `json:"previous_version"`
	Access          string             `json:"access"`
}

func init() { registrars = append(registrars, (*Server).registerLargefile) }

func (s *Server) registerLargefile() {
	addTool(s, def{name: "get_overview", toolset: ToolsetLargefile, title: "File overview",
		desc:     "Overview of a file of any size: line count, size, encoding, BOM, line endings, long lines (>1000 bytes), a hierarchical outline (tree-sitter; Markdown headings; JSON/YAML keys) or a line summary, and search hints. Gives the version for expected_version.",
		readOnly: true, idempotent: true},
		func(ctx context.Context, c *call, in *OverviewIn) (*OverviewOut, string, error) {
			return s.overview(c, in)
		})
	addTool(s, def{name: "search_content", toolset: ToolsetLargefile, title: "Search a file",
		desc:     "Find lines matching a pattern (exact; regex opt-in; fuzzy with similarity scores when nothing matches exactly, in files up to 64 MiB), with context lines, the enclosing symbol as semantic_context, submatches, and long lines cut around the match. Paged with start_line.",
		readOnly: true, idempotent: true},
		func(ctx context.Context, c *call, in *SearchIn) (*SearchOut, string, error) {
			return s.searchContent(c, in)
		})
	addTool(s, def{name: "read_content", toolset: ToolsetLargefile, title: "Read part of a file",
		desc:     "Read lines of a file of any size: mode=lines from a line number, symbol or pattern; mode=semantic the whole function/class around it; mode=tail the last N lines without reading the file. Lines are numbered; long results are paged and say how to read on.",
		readOnly: true, idempotent: true},
		func(ctx context.Context, c *call, in *ReadIn) (*ReadOut, string, error) {
			return s.readContent(c, in)
		})
	addTool(s, def{name: "edit_content", toolset: ToolsetLargefile, title: "Search/replace edit",
		desc:        "Replace text by search/replace blocks, one (search_text, replace_text) or a batch (changes), all-or-nothing, at any file size. Matching: exact, then line endings, then whitespace/indentation, then (fuzzy=true, the default) look-alike characters, Unicode normalisation, spacing and blank lines, then copied line-number prefixes, double escapes and cut markers (only on a unique match). When the match is not exact, only the lines you changed are written, in the file's indentation style and line endings; the lines you left alone keep the file's bytes. A change found applied already (a retry) succeeds with already_applied and writes nothing (allow_repeat to apply it again). A near miss is never applied: NO_MATCH lists the nearest candidates and, when the file differs only in how names are written on lines you kept, a ready-to-send retry. PREVIEW BY DEFAULT: preview=true returns the diff and writes nothing; pass preview=false to apply. Errors: NO_MATCH (nearest candidates, retry), AMBIGUOUS_MATCH (candidates; give occurrence or replace_all), EDIT_CONFLICT, BINARY_FILE.",
		destructive: true},
		func(ctx context.Context, c *call, in *EditIn) (*EditOut, string, error) {
			return s.editContent(ctx, c, in)
		})
}
