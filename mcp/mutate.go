package mcp

import (
	"context"

	"github.com/journalfs/journal/ops"
)

// Inputs of the batch tools. Every tool takes a batch ("ops") that is
// applied all-or-nothing; coordinates refer to the ORIGINAL files.
type (
	// batchOpts are the options every batch tool takes.
	batchOpts struct {
		ExpectedVersions map[string]string `json:"expected_versions,omitempty" jsonschema:"path → version from your read"`
		Diff             bool              `json:"diff,omitempty"`
	}
	// CreateIn is file_create_new's input.
	CreateIn struct {
		Ops []ops.CreateOp `json:"ops"`
		batchOpts
	}
	// ReplaceIn is file_replace's input.
	ReplaceIn struct {
		Ops []ops.ReplaceOp `json:"ops" jsonschema:"whole file without start_line; else lines start_line..end_line (start_col/end_col: characters; target_line_text: start_line's text, looked for nearby)"`
		batchOpts
		writeOpts
	}
	// InsertIn is file_insert_text's input.
	InsertIn struct {
		Ops []ops.InsertOp `json:"ops" jsonschema:"at: bof|eof|before_line|after_line; col: 0 start, -1 end, N before char N"`
		batchOpts
		writeOpts
	}
	// CopyPasteIn is file_copy_paste_text's input.
	CopyPasteIn struct {
		Ops []ops.CopyPasteOp `json:"ops" jsonschema:"target_line -1: the end; columns make it character-precise"`
		batchOpts
		writeOpts
	}
	// MoveIn is edit_move_text's input.
	MoveIn struct {
		Ops []ops.MoveOp `json:"ops" jsonschema:"as file_copy_paste_text; a missing target is created"`
		batchOpts
		writeOpts
	}
)

func init() { registrars = append(registrars, (*Server).registerMutate) }

func (s *Server) registerMutate() {
	addTool(s, def{name: "file_create_new", toolset: ToolsetMutate, title: "Create files",
		desc:        "Create new files atomically (parent directories are made); fails, creating nothing, if any exists.",
		destructive: false},
		func(ctx context.Context, c *call, in *CreateIn) (*BatchOut, string, error) {
			list, err := resolveOps(s, in.Ops, func(o *ops.CreateOp) []*string { return []*string{&o.Path} })
			if err != nil {
				return nil, "", err
			}
			return s.batch(ctx, c, batchSpec{ops: list, expected: in.ExpectedVersions, diff: in.Diff})
		})
	addTool(s, def{name: "file_replace", toolset: ToolsetMutate, title: "Replace file contents",
		desc:        "Replace whole files or line ranges atomically; fails, changing nothing, if a file is missing. Empty content deletes the range.",
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
			return s.batch(ctx, c, batchSpec{ops: list, lineBased: lineBased, expected: in.ExpectedVersions, diff: in.Diff, repeatCheck: true, lineContent: true})
		})
	addTool(s, def{name: "file_insert_text", toolset: ToolsetMutate, title: "Insert text",
		desc:        "Insert text at the start or end of files, or before or after a line, without matching text, atomically.",
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
		desc:        "Copy line or character ranges from files to many target positions in one atomic call. Sources are not modified; targets must exist.",
		destructive: false},
		func(ctx context.Context, c *call, in *CopyPasteIn) (*BatchOut, string, error) {
			list, err := resolveOps(s, in.Ops, func(o *ops.CopyPasteOp) []*string { return []*string{&o.SourcePath, &o.TargetPath} })
			if err != nil {
				return nil, "", err
			}
			return s.batch(ctx, c, batchSpec{ops: list, lineBased: true, expected: in.ExpectedVersions, diff: in.Diff})
		})
	addTool(s, def{name: "edit_move_text", toolset: ToolsetMutate, title: "Move text",
		desc:        "Move a line or character range within a file or to another file, atomically.",
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
