package mcp

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/journalfs/journal/ops"
	"github.com/journalfs/journal/replay"
	"github.com/journalfs/journal/snapshot"
)

// BatchOut is the result of every batch tool (seed 003's response shape, plus
// the journal event and the new version of each file).
type BatchOut struct {
	Status    string            `json:"status"` // "applied", "preview" or "already_applied"
	Applied   []ops.OpResult    `json:"applied_ops"`
	FailedOps []FailedOp        `json:"failed_ops"`
	Event     uint64            `json:"event,omitempty"`    // journal event id (revert_edit backup_id)
	Versions  map[string]string `json:"versions,omitempty"` // path → new version
	Diff      string            `json:"diff,omitempty"`     // unified diff, when asked
	Notes     []string          `json:"notes,omitempty"`    // line numbers rebased since the session's read

	// AlreadyApplied: the files already were as the call asks (its lines
	// held its content, or this exact request made their last change,
	// repeat.go); nothing was written and no journal event recorded.
	AlreadyApplied bool `json:"already_applied,omitempty"`
	// RepeatOf is the journal event this call repeats (already applied).
	RepeatOf uint64 `json:"repeat_of,omitempty"`
}

// version is the short form shown to agents; absent files have no version.
func version(id snapshot.ID) string {
	if id.IsZero() {
		return ""
	}
	return id.Short()
}

// matchesVersion accepts a full or short (≥ 8 hex digits) version.
func matchesVersion(want string, id snapshot.ID) bool {
	want = strings.ToLower(strings.TrimSpace(want))
	if want == "" || want == "absent" {
		return id.IsZero()
	}
	return len(want) >= 8 && strings.HasPrefix(id.String(), want)
}

// batchSpec is one batch tool call, ready to run.
type batchSpec struct {
	ops       []ops.Op
	lineBased bool              // refuse stale sessions (line numbers may have moved)
	expected  map[string]string // path → expected version
	diff      bool              // include a unified diff
	preview   bool              // compute, check, write nothing
	// repeatCheck: a line tool's call; a repeat of the files' last change
	// answers already_applied (repeat.go).
	repeatCheck bool
	// lineContent: undo the agent artefacts in line-range replacements'
	// content (lines_content.go).
	lineContent bool
}

// runBatch resolves paths, applies the ops to the files as they are under the
// journal's lock, and records one event.
func (s *Server) runBatch(ctx context.Context, c *call, spec batchSpec) (*BatchOut, error) {
	if s.opts.ReadOnly {
		return nil, ErrReadOnly
	}
	if spec.repeatCheck && !spec.preview {
		if out, ok := s.batchRepeat(c, spec); ok {
			return out, nil
		}
	}
	expected := map[string]string{}
	for p, v := range spec.expected {
		rp, err := s.eng.Resolve(p)
		if err != nil {
			return nil, err
		}
		expected[rp.Key] = v
	}
	var outcome *ops.Outcome
	var rb *rebaser
	rebased := map[string]bool{} // files whose line numbers rebase.go checked
	if spec.lineBased {
		rb = s.newRebaser(c, spec.ops, expected)
	}
	list := spec.ops
	loaded := map[string]*replay.File{}
	var contentNotes map[int][]string // artefacts undone in line tools' content, by op
	res, err := s.eng.Edit(ctx, func(r *replay.Reader) (*replay.Batch, error) {
		list = spec.ops
		for key := range rb.files() {
			f, err := r.Read(key)
			if err != nil || !f.Exists {
				continue
			}
			if v, ok := expected[key]; ok {
				// numbers of the expected version: it is the current
				// one, or they are mapped from it, or the load below
				// refuses the batch
				if matchesVersion(v, f.ID) {
					rebased[key] = true
					continue
				}
				if !rb.pinnedTo(list, key) {
					continue
				}
			}
			if list, err = rb.apply(list, key, f); err != nil {
				return nil, err
			}
			rebased[key] = true
		}
		load := func(key string) ([]byte, bool, error) {
			f, err := r.Read(key)
			if err != nil {
				return nil, false, err
			}
			if f.Exists && f.Data == nil {
				return nil, false, fmt.Errorf("%s is %d bytes: %w", f.Path.Rel, f.Size, ErrTooLarge)
			}
			if v, ok := expected[key]; ok && !matchesVersion(v, f.ID) && !rebased[key] {
				return nil, false, &replay.PathError{Path: f.Path.Rel, Err: replay.ErrConflict,
					Msg:  fmt.Sprintf("is version %s, not the expected %s", orAbsent(version(f.ID)), v),
					Hint: "read the file again and redo the edit against its current version"}
			}
			if spec.lineBased && f.Exists && !rebased[key] {
				if seen, stale := s.stale(c.session, key, f.ID); stale {
					return nil, false, &replay.PathError{Path: f.Path.Rel, Err: replay.ErrConflict,
						Msg:  fmt.Sprintf("changed since this session last saw it (version %s, now %s); line numbers may be stale", seen.Short(), f.ID.Short()),
						Hint: "read the file again and use the current line numbers"}
				}
			}
			loaded[key] = f
			return f.Data, f.Exists, nil
		}
		var paths []string
		for _, op := range list {
			paths = append(paths, ops.Paths(op)...)
		}
		r.Prefetch(paths) // read and hashed several at once; load finds them
		var err error
		if spec.lineContent {
			if list, contentNotes, err = lineContent(list, load); err != nil {
				return nil, err
			}
		}
		if outcome, err = ops.ApplyBatch(list, load); err != nil {
			return nil, err // op errors, or a load error passed through unchanged
		}
		for k := range outcome.Applied {
			outcome.Applied[k].Warnings = append(outcome.Applied[k].Warnings, contentNotes[outcome.Applied[k].Index]...)
		}
		b := c.batch(spec.preview)
		for _, key := range outcome.Paths() {
			fr := outcome.Files[key]
			cur := loaded[key].ID
			ch := replay.Change{Path: key, Expect: &cur}
			if fr.Deleted {
				ch.Delete = true
			} else {
				ch.Data = fr.New
				if ch.Data == nil {
					ch.Data = []byte{}
				}
			}
			b.Changes = append(b.Changes, ch)
		}
		return b, nil
	})
	if err != nil {
		return nil, err
	}
	if !spec.preview {
		s.synced(ctx, res)
	}
	out := &BatchOut{Status: "applied", Applied: outcome.Applied, FailedOps: []FailedOp{}, Event: res.Seq, Versions: map[string]string{}}
	if rb != nil {
		out.Notes = rb.notes
	}
	if spec.preview {
		out.Status = "preview"
	} else if spec.repeatCheck && (res == nil || res.Seq == 0) {
		out.Status, out.AlreadyApplied = statusAlready, true // the lines held the content
	}
	// the versions the engine hashed as it journaled them; a file the batch
	// left as it was is hashed here
	after := map[string]snapshot.ID{}
	if res != nil && !spec.preview {
		for i, f := range res.Files {
			after[res.Paths[i].Key] = f.After
		}
	}
	for _, key := range outcome.Paths() {
		fr := outcome.Files[key]
		id, ok := after[key]
		if !ok {
			id = snapshot.Sum(fr.New)
		}
		if fr.Deleted {
			id = snapshot.ID{}
		}
		if !spec.preview {
			s.wrote(c.session, key, id, true)
			out.Versions[key] = version(id)
		}
		if spec.diff || spec.preview {
			out.Diff += fr.Diff()
		}
	}
	return out, nil
}

func orAbsent(v string) string {
	if v == "" {
		return "(absent)"
	}
	return v
}

// batchText is the concise text for the model.
func batchText(out *BatchOut) string {
	var b strings.Builder
	if out.Status == "preview" {
		b.WriteString("PREVIEW — nothing was written.\n")
	} else if out.AlreadyApplied {
		fmt.Fprintf(&b, "ALREADY APPLIED — %d op(s): nothing was written and no journal event was recorded\n", len(out.Applied))
	} else if out.Event == 0 {
		fmt.Fprintf(&b, "applied %d op(s): the files already had that content, so nothing was written and no journal event was recorded\n", len(out.Applied))
	} else {
		fmt.Fprintf(&b, "applied %d op(s) as journal event %d\n", len(out.Applied), out.Event)
	}
	for _, n := range out.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	ver := func(path string) string {
		if v := out.Versions[path]; v != "" {
			return " (version " + v + ")"
		}
		return ""
	}
	for _, a := range out.Applied {
		if a.TargetPath != "" {
			// a move: its lines are the target's, and so is their version
			fmt.Fprintf(&b, "[%d] %s %s", a.Index, a.Kind, a.Path)
			if a.SourceLine > 0 {
				fmt.Fprintf(&b, " from line %d", a.SourceLine)
			}
			if a.TargetPath != a.Path {
				fmt.Fprintf(&b, "%s → %s", ver(a.Path), a.TargetPath)
			} else {
				b.WriteString(" →")
			}
			fmt.Fprintf(&b, " lines %d-%d%s", a.StartLine, a.EndLine, ver(a.TargetPath))
		} else {
			fmt.Fprintf(&b, "[%d] %s %s lines %d-%d%s", a.Index, a.Kind, a.Path, a.StartLine, a.EndLine, ver(a.Path))
		}
		b.WriteByte('\n')
		for _, w := range a.Warnings {
			fmt.Fprintf(&b, "  warning: %s\n", w)
		}
		for _, l := range a.Context {
			fmt.Fprintf(&b, "  %s\n", l)
		}
	}
	if out.Diff != "" {
		b.WriteString(out.Diff)
	}
	return b.String()
}

// resolveKey canonicalises one tool path (so two spellings of a file are one file).
func (s *Server) resolveKey(p *string) error {
	if *p == "" {
		return nil // ops reports the missing path with the op's index
	}
	rp, err := s.eng.Resolve(*p)
	if err != nil {
		return err
	}
	*p = rp.Key
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
