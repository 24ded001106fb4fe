package mcp

import (
	"context"

	"github.com/journalfs/journal/ops"
)

// Inputs of the seed 003 tools. Every tool takes a batch ("ops") that is
// applied all-or-nothing; coordinates refer to the ORIGINAL files.
type (
	// CreateIn is file_create_new's input.
	CreateIn struct {
		Ops              []ops.CreateOp    `json:"ops" jsonschema:"files to create: {path, content}; fails if any exists"`
		ExpectedVersions map[string]string `json:"expected_versions,omitempty" jsonschema:"optional path → version each file must have; for ops by line numbers, the version the numbers count from (lines moved since are edited where they are now, lines changed since are refused)"`
		Diff             bool              `json:"diff,omitempty" jsonschema:"include a unified diff in the result"`
	}
	// ReplaceIn is file_replace's input.
	ReplaceIn struct {
		Ops              []ops.ReplaceOp   `json:"ops" jsonschema:"whole-file replacements {path, content}, or line ranges {path, content, start_line, end_line, start_col?, end_col?, target_line_text?}"`
		ExpectedVersions map[string]string `json:"expected_versions,omitempty" jsonschema:"optional path → version each file must have; for ops by line numbers, the version the numbers count from (lines moved since are edited where they are now, lines changed since are refused)"`
		Diff             bool              `json:"diff,omitempty" jsonschema:"include a unified diff in the result"`
	}
	// InsertIn is file_insert_text's input.
	InsertIn struct {
		Ops              []ops.InsertOp    `json:"ops" jsonschema:"insertions {path, content, at: bof|eof|before_line|after_line, line?, col? (null/0 = start of line, -1 = end, N = char N)}"`
		ExpectedVersions map[string]string `json:"expected_versions,omitempty" jsonschema:"optional path → version each file must have; for ops by line numbers, the version the numbers count from (lines moved since are edited where they are now, lines changed since are refused)"`
		Diff             bool              `json:"diff,omitempty" jsonschema:"include a unified diff in the result"`
	}
	// CopyPasteIn is file_copy_paste_text's input.
	CopyPasteIn struct {
		Ops              []ops.CopyPasteOp `json:"ops" jsonschema:"copies {source_path, source_start_line, source_end_line, source_start_col?, source_end_col?, target_path, target_line (-1 = EOF), target_col?}"`
		ExpectedVersions map[string]string `json:"expected_versions,omitempty" jsonschema:"optional path → version each file must have; for ops by line numbers, the version the numbers count from (lines moved since are edited where they are now, lines changed since are refused)"`
		Diff             bool              `json:"diff,omitempty" jsonschema:"include a unified diff in the result"`
	}
	// MoveIn is edit_move_text's input.
	MoveIn struct {
		Ops              []ops.MoveOp      `json:"ops" jsonschema:"moves {source_path, source_start_line, source_end_line, source_*_col?, target_path, target_line, target_col?}; a missing target file is created"`
		ExpectedVersions map[string]string `json:"expected_versions,omitempty" jsonschema:"optional path → version each file must have; for ops by line numbers, the version the numbers count from (lines moved since are edited where they are now, lines changed since are refused)"`
		Diff             bool              `json:"diff,omitempty" jsonschema:"include a unified diff in the result"`
	}
)

func init() { registrars = append(registrars, (*Server).registerMutate) }

func (s *Server) registerMutate() {
	addTool(s, def{name: "file_create_new", toolset: ToolsetMutate, title: "Create files",
		desc:        "Create one or more new files atomically (parent directories are made). Fails, creating nothing, if any file already exists. Returns the first lines of each file with numbers, bytes_written and the journal event.",
		destructive: false},
		func(ctx context.Context, c *call, in *CreateIn) (*BatchOut, string, error) {
			list, err := resolveOps(s, in.Ops, func(o *ops.CreateOp) []*string { return []*string{&o.Path} })
			if err != nil {
				return nil, "", err
			}
			return s.batch(ctx, c, batchSpec{ops: list, expected: in.ExpectedVersions, diff: in.Diff})
		})
	addTool(s, def{name: "file_replace", toolset: ToolsetMutate, title: "Replace file contents",
		desc:        "Replace whole files, or line ranges of files, atomically. Fails, changing nothing, if any file is missing. Whole-file results show the first 2 and last 2 lines, lines_total and bytes_written; range results show the changed region ±2 lines.",
		destructive: true},
		func(ctx context.Context, c *call, in *ReplaceIn) (*BatchOut, string, error) {
			list, err := resolveOps(s, in.Ops, func(o *ops.ReplaceOp) []*string { return []*string{&o.Path} })
			if err != nil {
				return nil, "", err
			}
			lineBased := false
			for _, o := range in.Ops {
				lineBased = lineBased || o.StartLine != nil
			}
			return s.batch(ctx, c, batchSpec{ops: list, lineBased: lineBased, expected: in.ExpectedVersions, diff: in.Diff})
		})
	addTool(s, def{name: "file_insert_text", toolset: ToolsetMutate, title: "Insert text",
		desc:        "Insert text at bof, eof, before_line or after_line N, optionally at a column (null/0 = start of line, -1 = end of line, N = character N), without string matching. All line numbers of a batch refer to the original files; ops are applied bottom-to-top. Returns the inserted region ±2 lines in post-edit numbering.",
		destructive: false},
		func(ctx context.Context, c *call, in *InsertIn) (*BatchOut, string, error) {
			list, err := resolveOps(s, in.Ops, func(o *ops.InsertOp) []*string { return []*string{&o.Path} })
			if err != nil {
				return nil, "", err
			}
			lineBased := false // bof/eof inserts do not depend on line numbers
			for _, o := range in.Ops {
				lineBased = lineBased || o.Line != nil
			}
			return s.batch(ctx, c, batchSpec{ops: list, lineBased: lineBased, expected: in.ExpectedVersions, diff: in.Diff})
		})
	addTool(s, def{name: "file_copy_paste_text", toolset: ToolsetMutate, title: "Copy and paste text",
		desc:        "Copy line ranges (or character-precise ranges) from source files and insert them at target locations, many targets in one atomic call (e.g. stamp a decorator into 50 places). Sources are never modified; targets must exist.",
		destructive: false},
		func(ctx context.Context, c *call, in *CopyPasteIn) (*BatchOut, string, error) {
			list, err := resolveOps(s, in.Ops, func(o *ops.CopyPasteOp) []*string { return []*string{&o.SourcePath, &o.TargetPath} })
			if err != nil {
				return nil, "", err
			}
			return s.batch(ctx, c, batchSpec{ops: list, lineBased: true, expected: in.ExpectedVersions, diff: in.Diff})
		})
	addTool(s, def{name: "edit_move_text", toolset: ToolsetMutate, title: "Move text",
		desc:        "Move a line or line/column range within a file or to another file, atomically. A missing target file is created (target_created: true, with a warning).",
		destructive: true},
		func(ctx context.Context, c *call, in *MoveIn) (*BatchOut, string, error) {
			list, err := resolveOps(s, in.Ops, func(o *ops.MoveOp) []*string { return []*string{&o.SourcePath, &o.TargetPath} })
			if err != nil {
				return nil, "", err
			}
			return s.batch(ctx, c, batchSpec{ops: list, lineBased: true, expected: in.ExpectedVersions, diff: in.Diff})
		})
}

// resolveOps canonicalises the path fields of each op (paths returns
// pointers to them) and returns the ops as a batch.
func resolveOps[T ops.Op](s *Server, in []T, paths func(*T) []*string) ([]ops.Op, error) {
	list := make([]ops.Op, len(in))
	for i := range in {
		for _, p := range paths(&in[i]) {
			if err := s.resolveKey(p); err != nil {
				return nil, err
			}
		}
		list[i] = in[i]
	}
	return list, nil
}

// batch runs a batch and renders it.
func (s *Server) batch(ctx context.Context, c *call, spec batchSpec) (*BatchOut, string, error) {
	if len(spec.ops) == 0 {
		return nil, "", invalid("pass at least one op in \"ops\"", "ops is empty")
	}
	out, err := s.runBatch(ctx, c, spec)
	if err != nil {
		return nil, "", err
	}
	return out, batchText(out), nil
}
