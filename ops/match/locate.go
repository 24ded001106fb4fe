package match

import (
	"io"
	"sort"
	"strings"

	"github.com/journalfs/journal/ops"
)

// Edit is one resolved replacement: where a change matched in the ORIGINAL
// content (with its post-edit position) and the text that replaces it,
// already adapted to the file's line endings and indentation.
type Edit struct {
	Applied
	Replacement string `json:"replacement"`
}

// Locate resolves a batch like Apply but does not build the new content: it
// returns the edits in content order, so a caller can stream the result
// with Splice (files too large to hold twice). A change that is applied
// already (see resolve) yields an edit with AlreadyApplied set whose
// replacement is the file's own text. Errors name the failing change; a
// change whose search text only another change's replacement holds is
// refused with a hint to split the batch; overlaps are refused.
func Locate(content string, changes []Change) ([]Edit, error) {
	if len(changes) == 0 {
		return nil, &ops.Error{Op: "match", Index: -1, Err: ops.ErrInvalidInput,
			Msg: "no changes given", Hint: "give at least one search/replace pair"}
	}
	changes = withTyped(content, changes)
	var li *lineIndex
	var edits []Edit
	for i, c := range changes {
		if li == nil {
			li = indexLines(content)
		}
		es, err := resolve(content, li, c, i)
		if err != nil {
			if j := dependsOn(err, content, changes, i); j >= 0 && j < i {
				if seq, ok := inOrder(content, changes, j, i); ok {
					return seq, nil
				}
			}
			return nil, withIndex(dependent(err, content, changes, i), i)
		}
		edits = append(edits, es...)
	}
	edits, err := insideMade(content, li, changes, edits)
	if err != nil {
		return nil, err
	}
	if err := Restyle(edits, changes); err != nil {
		return nil, err
	}
	sort.SliceStable(edits, func(a, b int) bool { return edits[a].Match.Start < edits[b].Match.Start })
	for k := 1; k < len(edits); k++ {
		if edits[k].Match.Start < edits[k-1].Match.End {
			return nil, overlapError(&edits[k-1].Applied, &edits[k].Applied)
		}
	}
	prev, lines, delta := 0, 0, 0
	for k := range edits {
		e := &edits[k]
		lines += strings.Count(content[prev:e.Match.Start], "\n")
		e.NewStart = e.Match.Start + delta
		e.NewEnd = e.NewStart + len(e.Replacement)
		e.NewLine, e.NewEndLine = lines+1, lines+1
		if r := e.Replacement; r != "" {
			e.NewEndLine += strings.Count(r[:len(r)-1], "\n")
		}
		lines += strings.Count(e.Replacement, "\n")
		delta += len(e.Replacement) - (e.Match.End - e.Match.Start)
		prev = e.Match.End
	}
	return edits, nil
}

// Splice writes src (size bytes) with edits (from Locate, in content order)
// applied to w, copying the unchanged parts in bounded chunks.
func Splice(w io.Writer, src io.ReaderAt, size int64, edits []Edit) error {
	var off int64
	for _, e := range edits {
		if _, err := io.Copy(w, io.NewSectionReader(src, off, int64(e.Match.Start)-off)); err != nil {
			return err
		}
		if _, err := io.WriteString(w, e.Replacement); err != nil {
			return err
		}
		off = int64(e.Match.End)
	}
	_, err := io.Copy(w, io.NewSectionReader(src, off, size-off))
	return err
}
