package lsp

import (
	"encoding/json"
	"fmt"
	"sort"

	"go.lsp.dev/protocol"
)

// wireEdit is a WorkspaceEdit as servers send it: documentChanges may mix
// TextDocumentEdits with resource operations, which protocol.WorkspaceEdit
// cannot represent.
type wireEdit struct {
	Changes         map[string][]protocol.TextEdit `json:"changes"`
	DocumentChanges []json.RawMessage              `json:"documentChanges"`
}

// fileEdits converts a WorkspaceEdit to byte-offset edits per file, using the
// content the server saw (the open document, else the disk). Resource
// operations (create, rename, delete) are refused with ErrUnsupported.
func (e *entry) fileEdits(raw json.RawMessage, enc encoding) ([]FileEdit, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var we wireEdit
	if err := json.Unmarshal(raw, &we); err != nil {
		return nil, fmt.Errorf("workspace edit: %w", err)
	}
	byPath := map[string][]protocol.TextEdit{}
	if len(we.DocumentChanges) > 0 {
		for _, dc := range we.DocumentChanges {
			var op struct {
				Kind         string `json:"kind"`
				URI          string `json:"uri"`
				OldURI       string `json:"oldUri"`
				TextDocument struct {
					URI string `json:"uri"`
				} `json:"textDocument"`
				Edits []protocol.TextEdit `json:"edits"`
			}
			if err := json.Unmarshal(dc, &op); err != nil {
				return nil, fmt.Errorf("workspace edit: %w", err)
			}
			if op.Kind != "" {
				target := op.URI
				if target == "" {
					target = op.OldURI
				}
				return nil, fmt.Errorf("%w: workspace edit with a %s of %s (resource operations are not applied)", ErrUnsupported, op.Kind, target)
			}
			path, err := uriPath(op.TextDocument.URI)
			if err != nil {
				return nil, err
			}
			byPath[path] = append(byPath[path], op.Edits...)
		}
	} else {
		for u, edits := range we.Changes {
			path, err := uriPath(u)
			if err != nil {
				return nil, err
			}
			byPath[path] = append(byPath[path], edits...)
		}
	}
	out := make([]FileEdit, 0, len(byPath))
	for path, edits := range byPath {
		t := newText(e.content(path))
		fe := FileEdit{Path: path}
		for _, ed := range edits {
			start, end, err := t.lspRange(ed.Range, enc)
			if err != nil {
				return nil, fmt.Errorf("workspace edit of %s: %w", path, err)
			}
			fe.Edits = append(fe.Edits, TextEdit{Start: start, End: end, NewText: ed.NewText})
		}
		sort.SliceStable(fe.Edits, func(i, j int) bool { return fe.Edits[i].Start < fe.Edits[j].Start })
		for i := 1; i < len(fe.Edits); i++ {
			if fe.Edits[i].Start < fe.Edits[i-1].End {
				return nil, fmt.Errorf("workspace edit of %s: edits [%d,%d) and [%d,%d) overlap", path,
					fe.Edits[i-1].Start, fe.Edits[i-1].End, fe.Edits[i].Start, fe.Edits[i].End)
			}
		}
		if len(fe.Edits) > 0 {
			out = append(out, fe)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// mergeFileEdits joins edits of several workspace edits, per file.
func mergeFileEdits(lists ...[]FileEdit) []FileEdit {
	byPath := map[string][]TextEdit{}
	for _, l := range lists {
		for _, fe := range l {
			byPath[fe.Path] = append(byPath[fe.Path], fe.Edits...)
		}
	}
	out := make([]FileEdit, 0, len(byPath))
	for p, edits := range byPath {
		sort.SliceStable(edits, func(i, j int) bool { return edits[i].Start < edits[j].Start })
		out = append(out, FileEdit{Path: p, Edits: edits})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}
