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
	AbsoluteFilePath string `json:"absolute_file_path"`
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
	AbsoluteFilePath string  `json:"absolute_file_path"`
	Pattern          string  `json:"pattern" jsonschema:"text in a line (RE2 with regex)"`
	MaxResults       *int    `json:"max_results,omitempty" jsonschema:"default 20"`
	ContextLines     *int    `json:"context_lines,omitempty" jsonschema:"default 2"`
	Fuzzy            *bool   `json:"fuzzy,omitempty" jsonschema:"default true"`
	Regex            bool    `json:"regex,omitempty"`
	Threshold        float64 `json:"threshold,omitempty" jsonschema:"fuzzy floor, default 0.8"`
	StartLine        int     `json:"start_line,omitempty" jsonschema:"paging: next_start_line"`
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
	AbsoluteFilePath string `json:"absolute_file_path"`
	Target           any    `json:"target,omitempty" jsonschema:"line number, symbol or text; tail: line count"`
	Mode             string `json:"mode,omitempty" jsonschema:"lines (default), semantic or tail"`
	MaxLines         int    `json:"max_lines,omitempty" jsonschema:"default 100"`
	Column           int    `json:"column,omitempty"` // byte offset in the line to read a long line on from (the "more" hint gives it)
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
	// Column: the byte offset in the line where the text starts (a long
	// line read on with column); LineBytes: that line's length.
	Column    int    `json:"column,omitempty"`
	LineBytes int    `json:"line_bytes,omitempty"`
	More      string `json:"more,omitempty"` // how to read on
	Note      string `json:"note,omitempty"`
}

// EditChange is one search/replace pair of a batch.
type EditChange struct {
	SearchText  string `json:"search_text" jsonschema:"copied from a read, with some context"`
	ReplaceText string `json:"replace_text"`
	Occurrence  int    `json:"occurrence,omitempty" jsonschema:"1-based, among several matches"`
	ReplaceAll  bool   `json:"replace_all,omitempty"`
	AllowRepeat bool   `json:"allow_repeat,omitempty" jsonschema:"apply even if already applied"`
	Substring   bool   `json:"substring,omitempty"`
}

// EditIn is edit_content's input.
type EditIn struct {
	AbsoluteFilePath string       `json:"absolute_file_path"`
	SearchText       *string      `json:"search_text,omitempty"`
	ReplaceText      *string      `json:"replace_text,omitempty"`
	Changes          []EditChange `json:"changes,omitempty" jsonschema:"{search_text, replace_text} each against the original"`
	Fuzzy            *bool        `json:"fuzzy,omitempty" jsonschema:"default true"`
	AllowRepeat      bool         `json:"allow_repeat,omitempty" jsonschema:"apply even if already applied"`
	Substring        bool         `json:"substring,omitempty" jsonschema:"also inside longer words and numbers"`
	Preview          *bool        `json:"preview,omitempty" jsonschema:"default true: diff only"`
	ExpectedVersion  string       `json:"expected_version,omitempty"`
	writeOpts
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
	// Applied: this call wrote the change (a journal event was recorded);
	// false for a preview (the default), a change found made already and
	// a replacement that left the file as it was. Success and ChangesMade
	// stay as seed 004 has them: the call worked, and how many changes it
	// made or, for a preview, would make.
	Applied bool   `json:"applied"`
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
		desc:     "A file of any size at a glance: lines, size, encoding, line endings, long lines, an outline (symbols, headings, keys) and search hints.",
		readOnly: true, idempotent: true},
		func(ctx context.Context, c *call, in *OverviewIn) (*OverviewOut, string, error) {
			return s.overview(c, in)
		})
	addTool(s, def{name: "search_content", toolset: ToolsetLargefile, title: "Search a file",
		desc:     "Find lines matching a pattern in a file of any size: exact, regex, or fuzzy (scored) when nothing matches exactly; with context and the enclosing symbol.",
		readOnly: true, idempotent: true},
		func(ctx context.Context, c *call, in *SearchIn) (*SearchOut, string, error) {
			return s.searchContent(c, in)
		})
	addTool(s, def{name: "read_content", toolset: ToolsetLargefile, title: "Read part of a file",
		desc:     "Numbered lines of a file of any size from a line, symbol or text; mode semantic: the enclosing function or class; tail: the last lines. Says how to read on.",
		readOnly: true, idempotent: true},
		func(ctx context.Context, c *call, in *ReadIn) (*ReadOut, string, error) {
			return s.readContent(c, in)
		})
	addTool(s, def{name: "edit_content", toolset: ToolsetLargefile, title: "Search/replace edit",
		desc:        "Search/replace in a file of any size, PREVIEW BY DEFAULT (diff only; preview=false writes): one (search_text, replace_text) or a batch (changes), all-or-nothing. Matching tolerates line endings and indentation, and with fuzzy (default) look-alike characters, spacing and copied line numbers; a near miss in a name or number is never applied. NO_MATCH gives the nearest candidates and maybe a retry; AMBIGUOUS_MATCH: set occurrence or replace_all.",
		destructive: true},
		func(ctx context.Context, c *call, in *EditIn) (*EditOut, string, error) {
			return s.editContent(ctx, c, in)
		})
}
