package mcp

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/ops"
)

// A repeated line-tool call. A line tool (file_replace,
// ai_code_editing.edit_file, file_edit) addresses lines by number, so a
// request sent twice — a client's retry after a lost reply, an agent that
// did not see its first call land — finds its range holding the lines its
// first sending wrote and, when the content has more lines than the range,
// writes them again. Such a call answers already_applied, writing nothing
// and recording no event, on evidence only: the newest change of every
// file it names is one journal event made by this very request (the same
// tool and the same arguments, as journaled), and every file is still the
// version that event left. A repeat after anyone changed the file since is
// not this case: the line-number rules of rebase.go judge it. No time
// window counts as evidence. To apply the same lines again on purpose, a
// caller sends the call with the file's current version as its expected
// version: its numbers then count from now, and the request is another.
// (An allow_repeat option, as edit_content has, was left out: the line
// tools' schemas are held to the preset budgets, TestToolBudget.)

// statusAlready is the status of a call found made already.
const statusAlready = "already_applied"

// repeatNote is what a result says of a call found made already.
const repeatNote = "this exact request made the file's last change, and the file is still that change's result: nothing was written and no journal event was recorded; to apply it again on purpose, send it with the file's current version as expected version (its line numbers then count from now)"

// repeated reports whether call c repeats the newest change of every file
// of keys (see above), returning that event and each file's current
// version. It reads the journal and the files, so it runs before the
// call's own edit takes the journal's lock; an edit that lands between is
// no harm, since nothing is written on the answer.
func (s *Server) repeated(c *call, keys []string) (uint64, map[string]string, bool) {
	if len(keys) == 0 || len(c.args) == 0 {
		return 0, nil, false
	}
	var want any // the call's arguments, decoded once a change of the same tool is found
	seq, versions := uint64(0), map[string]string{}
	for _, key := range keys {
		e, after, err := s.eng.LastChange(key)
		if err != nil || e == nil || e.Status != journal.StatusCommitted || e.Tool != c.tool || (seq != 0 && e.Seq != seq) {
			return 0, nil, false
		}
		if want == nil && json.Unmarshal(c.args, &want) != nil {
			return 0, nil, false
		}
		var got any
		if json.Unmarshal(e.Args, &got) != nil || !reflect.DeepEqual(got, want) {
			return 0, nil, false
		}
		f, err := s.eng.Read(key)
		if err != nil || !f.Exists || f.ID != after {
			return 0, nil, false
		}
		seq, versions[key] = e.Seq, version(f.ID)
	}
	return seq, versions, true
}

// batchRepeat answers a batch line tool's call found made already
// (repeated): every op listed, nothing written.
func (s *Server) batchRepeat(c *call, spec batchSpec) (*BatchOut, bool) {
	var keys []string
	seen := map[string]bool{}
	for _, op := range spec.ops {
		for _, p := range ops.Paths(op) {
			if !seen[p] {
				seen[p] = true
				keys = append(keys, p)
			}
		}
	}
	seq, versions, ok := s.repeated(c, keys)
	if !ok {
		return nil, false
	}
	out := &BatchOut{Status: statusAlready, AlreadyApplied: true, RepeatOf: seq, FailedOps: []FailedOp{}, Versions: versions,
		Notes: []string{fmt.Sprintf("already applied by journal event %d: %s", seq, repeatNote)}}
	for i, op := range spec.ops {
		out.Applied = append(out.Applied, ops.OpResult{Index: i, Kind: op.Kind(), Path: ops.Paths(op)[0]})
	}
	return out, true
}

// fileEditRepeat answers file_edit's call by lines found made already
// (repeated). A symbol's or the whole file's edit sent again finds the
// code in place and changes nothing (Unchanged) without this.
func (s *Server) fileEditRepeat(c *call, in *FileEditIn) (*FileEditResult, bool) {
	if in.DryRun || s.opts.ReadOnly || in.Target != "" || in.StartLine == nil {
		return nil, false
	}
	rp, err := s.eng.Resolve(in.File)
	if err != nil {
		return nil, false
	}
	seq, versions, ok := s.repeated(c, []string{rp.Key})
	if !ok {
		return nil, false
	}
	return &FileEditResult{Success: true, File: rp.Key, Target: in.Target, DetectedIntents: []DetectedIntent{},
		Propagated: []Propagation{}, AutoFixed: []AutoFix{}, RemainingErrors: []Diagnostic{},
		Version: versions[rp.Key], Unchanged: true, AlreadyApplied: true,
		Summary: fmt.Sprintf("already applied by journal event %d: %s", seq, repeatNote)}, true
}
