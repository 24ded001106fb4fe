package gitai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay"
	"github.com/journalfs/journal/replay/watch"
	"github.com/journalfs/journal/snapshot"
)

// Journal is the journal's side of computing notes.
type Journal struct {
	// View runs fn in one read transaction of the journal.
	View func(fn func(tx *journal.Tx) error) error
	// Key maps a path of the repository (relative to its top, slashes) to
	// the journal's key for the file; ok is false for a file outside the
	// journal's workspace.
	Key func(path string) (key string, ok bool)
	// Flush, if set, makes the journal record now what it has not yet of
	// the files keys (a running watcher's pending changes, or the files as
	// they are): what it records so is an outside change, untracked.
	Flush func(ctx context.Context, keys []string) error
}

// commitDiffs reads commits (those gone, as a pending commit pruned
// since, are left out) and diffs them as a note sees them (diffCommits).
func (r *Repo) commitDiffs(ctx context.Context, commits []string) (*catFile, []commitInfo, map[string]*commitDiff, error) {
	cf, err := r.cat()
	if err != nil {
		return nil, nil, nil, err
	}
	infos := make([]commitInfo, 0, len(commits))
	for _, c := range commits {
		typ, data, err := cf.read(c)
		if errors.Is(err, errMissing) {
			continue // gone (a pending commit pruned since): nothing to note
		}
		if err != nil {
			return nil, nil, nil, err
		}
		if typ != "commit" {
			return nil, nil, nil, fmt.Errorf("gitai: %s is a %s, not a commit", c, typ)
		}
		infos = append(infos, parseCommit(c, data))
	}
	diffs, err := r.diffCommits(ctx, infos)
	if err != nil {
		return nil, nil, nil, err
	}
	return cf, infos, diffs, nil
}

// NotePaths are the paths (relative to the repository's top, slashes)
// whose journal histories the notes of commits read: each file a commit
// adds lines to, and the path git says it was renamed from. Compute with a
// journal holding these files' contents alone computes the same notes.
func NotePaths(ctx context.Context, r *Repo, commits []string) ([]string, error) {
	_, _, diffs, err := r.commitDiffs(ctx, commits)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []string
	for _, d := range diffs {
		for _, f := range d.Files {
			for _, p := range []string{f.Path, f.OldPath} {
				if p != "" && !seen[p] {
					seen[p] = true
					out = append(out, p)
				}
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

// nullID is base_commit_sha of a root commit, which has no parent.
const nullID = "0000000000000000000000000000000000000000"

// Compute computes the note of each commit (full object names), from the
// commit's blobs and the journal's history. A line is attributed only on
// evidence (see doc.go): any doubt leaves it untracked, and an error of the
// journal fails the whole computation rather than write a partial note.
func Compute(ctx context.Context, r *Repo, j Journal, commits []string) (map[string]*Note, error) {
	notes, _, err := compute(ctx, r, j, commits, false)
	return notes, err
}

// Evidence is what proves one commit's note: per file the commit adds
// lines to, every line it adds and, for each line the note attributes, the
// journal event whose content proves its author.
type Evidence struct {
	Files []FileEvidence
}

// FileEvidence is one file's part of Evidence.
type FileEvidence struct {
	Path   string
	Added  []int          // the commit's line numbers the file adds (1-based, ascending)
	Events map[int]uint64 // line → the event that wrote it, for the lines the note attributes
}

// ComputeEvidence is Compute of one commit, with the evidence of its note:
// every added line of every file (those outside the journal's workspace
// too, all untracked) and the event behind each attributed line. The note
// is the one Compute gives.
func ComputeEvidence(ctx context.Context, r *Repo, j Journal, commit string) (*Note, *Evidence, error) {
	notes, ev, err := compute(ctx, r, j, []string{commit}, true)
	if err != nil {
		return nil, nil, err
	}
	if notes[commit] == nil {
		return nil, nil, fmt.Errorf("gitai: %s: no such commit", commit)
	}
	return notes[commit], ev[commit], nil
}

// compute is Compute, with each commit's Evidence when withEvidence.
func compute(ctx context.Context, r *Repo, j Journal, commits []string, withEvidence bool) (map[string]*Note, map[string]*Evidence, error) {
	cf, infos, diffs, err := r.commitDiffs(ctx, commits)
	if err != nil {
		return nil, nil, err
	}
	// The blobs are read before the journal's transaction, so that it is
	// held only for the blames.
	type blob struct {
		f    fileDiff
		key  string
		also []string // the key of the path it was renamed from
		data []byte
	}
	blobs := map[string][]blob{}
	for _, c := range infos {
		d := diffs[c.ID]
		if d == nil {
			continue
		}
		for _, f := range d.Files {
			key, ok := j.Key(f.Path)
			if !ok {
				continue
			}
			_, data, err := cf.read(f.Blob)
			if err != nil {
				return nil, nil, err
			}
			var also []string
			if f.OldPath != "" {
				if k, ok := j.Key(f.OldPath); ok && k != key {
					also = append(also, k)
				}
			}
			blobs[c.ID] = append(blobs[c.ID], blob{f, key, also, data})
		}
	}
	if j.Flush != nil {
		var keys []string
		for _, bs := range blobs {
			for _, b := range bs {
				keys = append(keys, b.key)
			}
		}
		if len(keys) > 0 {
			if err := j.Flush(ctx, keys); err != nil {
				return nil, nil, fmt.Errorf("recording what the journal has not yet: %w", err)
			}
		}
	}
	notes := make(map[string]*Note, len(infos))
	evidence := map[string]*Evidence{}
	err = j.View(func(tx *journal.Tx) error {
		at := newAttributor(tx)
		for _, c := range infos {
			n := &Note{Meta: Meta{BaseCommitSHA: nullID}}
			switch {
			case len(c.Parents) > 1:
				n.Meta.BaseCommitSHA = c.ID // the standard's § 2.2: a merge's own
			case len(c.Parents) > 0:
				n.Meta.BaseCommitSHA = c.Parents[0]
			}
			var ev *Evidence
			lineEvents := map[string]map[int]uint64{}
			if withEvidence {
				ev = &Evidence{}
				if d := diffs[c.ID]; d != nil {
					for _, f := range d.Files {
						ev.Files = append(ev.Files, FileEvidence{Path: f.Path, Added: f.Added, Events: map[int]uint64{}})
						lineEvents[f.Path] = ev.Files[len(ev.Files)-1].Events
					}
				}
				evidence[c.ID] = ev
			}
			for _, b := range blobs[c.ID] {
				if err := ctx.Err(); err != nil {
					return err
				}
				fn, err := at.file(b.key, b.also, b.f, b.data, c.Committer, n, lineEvents[b.f.Path])
				if err != nil {
					return err
				}
				if fn != nil {
					n.Files = append(n.Files, *fn)
				}
			}
			notes[c.ID] = n
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return notes, evidence, nil
}

// attributor attributes the lines of blobs within one transaction.
type attributor struct {
	blame *replay.Blamer // one per transaction: an event many files share is read once
}

func newAttributor(tx *journal.Tx) *attributor { return &attributor{blame: replay.NewBlamer(tx)} }

// file attributes the lines commit adds to one file, adding the records its
// keys name to n's metadata; nil when it proves none. events, if not nil,
// gets the event behind each line attributed.
func (a *attributor) file(key string, also []string, f fileDiff, data []byte, committer string, n *Note, events map[int]uint64) (*FileNote, error) {
	if bytes.IndexByte(data, 0) >= 0 {
		return nil, nil // binary: no lines
	}
	b, err := a.blameContent(key, data, also...)
	if err != nil || b == nil {
		if err != nil && !errors.Is(err, journal.ErrNotFound) && !errors.Is(err, replay.ErrBinary) && !errors.Is(err, errTooLarge) {
			if errors.Is(err, snapshot.ErrCorrupt) {
				return nil, nil // a content that cannot be read proves nothing
			}
			return nil, err
		}
		return nil, nil
	}
	keys := map[string][]int{}
	for _, ln := range f.Added {
		if ln < 1 || ln > len(b.Lines) {
			continue
		}
		seq := b.Lines[ln-1].Seq
		if seq == 0 || seq == replay.Unjournaled {
			continue
		}
		e := b.Events[seq]
		if e == nil {
			continue
		}
		k := attestation(e, committer, &n.Meta)
		if k != "" {
			keys[k] = append(keys[k], ln)
			if events != nil {
				events[ln] = seq
			}
		}
	}
	if len(keys) == 0 {
		return nil, nil
	}
	fn := &FileNote{Path: f.Path}
	for k, ls := range keys {
		fn.Entries = append(fn.Entries, Entry{Key: k, Lines: ls})
	}
	return fn, nil
}

// errTooLarge means a blob is over what blame reads.
var errTooLarge = errors.New("gitai: file too large to blame")

// blameContent blames data, the content of file key in a commit (also: the
// keys it was renamed from, as git reports): each line's event is the one
// that wrote that exact content (replay.BlameContent), 0 where the journal
// cannot prove it.
func (a *attributor) blameContent(key string, data []byte, also ...string) (*replay.Blame, error) {
	if len(data) > replay.MaxBlameBytes {
		return nil, errTooLarge
	}
	return a.blame.Content(key, data, also...)
}

// attestation is the key of the lines event e wrote, adding its record to
// m; "" for an event that proves no author (outside changes, the
// watcher's, reverts and restores, which put back what someone else wrote).
func attestation(e *journal.Event, committer string, m *Meta) string {
	switch e.Actor.Kind {
	case "mcp", "agent":
		if e.Actor.Name == "" || e.Actor.Session == "" {
			return ""
		}
		switch {
		case e.Kind == journal.KindApply:
		case e.Kind == journal.KindObserve && !isWatchTool(e.Tool):
		default:
			return ""
		}
		tool := agentTool(e.Actor.Name)
		s := SessionKey(tool, e.Actor.Session)
		if m.Sessions == nil {
			m.Sessions = map[string]Session{}
		}
		rec, ok := m.Sessions[s]
		if !ok {
			rec = Session{AgentID: AgentID{Tool: tool, ID: e.Actor.Session}}
		}
		if rec.AgentID.Model == "" {
			rec.AgentID.Model = modelOf(e)
		}
		trace := TraceKey(callID(e))
		if p := replay.CallPrompt(e); p != "" {
			// the prompt's id (its text stays in the journal, where redact
			// reaches it): per call under "prompt:<trace>", since one session
			// record serves every prompt of the session, and the session's
			// first under "prompt"
			if rec.CustomAttributes == nil {
				rec.CustomAttributes = map[string]string{}
			}
			rec.CustomAttributes["prompt:"+trace] = p
			if rec.CustomAttributes["prompt"] == "" {
				rec.CustomAttributes["prompt"] = p
			}
		}
		m.Sessions[s] = rec
		return s + "::" + trace
	case "cli":
		if e.Kind != journal.KindApply || committer == "" {
			return ""
		}
		h := HumanKey(committer)
		if m.Humans == nil {
			m.Humans = map[string]Human{}
		}
		m.Humans[h] = Human{Author: committer}
		return h
	}
	return ""
}

// callID names the tool call of event e for its trace key: its chain hash,
// which no other event anywhere has and which neither a gc nor a redaction
// changes. A reader finds the event by computing TraceKey of the session's
// events.
func callID(e *journal.Event) string { return "event:" + e.Hash.String() }

// CallTraceKey is the trace key the notes give event e's lines.
func CallTraceKey(e *journal.Event) string { return TraceKey(callID(e)) }

// isWatchTool reports whether tool is one of the watcher's: changes by an
// author nobody named.
func isWatchTool(tool string) bool {
	return tool == "" || tool == journal.ToolWatch || strings.HasPrefix(tool, "watch.")
}

// agentTool is the standard's tool name for an agent (an MCP client's or a
// hook's name), lower case.
func agentTool(name string) string { return strings.ToLower(strings.TrimSpace(name)) }

// modelOf is the model of the agent that made event e, where its hook said
// it: a hook's call records it in the event's arguments, under "call"
// (watch.About), and so does an MCP client's event its hook saw (the call
// matched to the agent's session); other MCP events name none, redacted
// arguments none either. The prompt the call served (About.Prompt) goes in the
// session record's custom_attributes["prompt:<trace>"] and, the session's
// first, ["prompt"] (attestation), where the readers look for it.
func modelOf(e *journal.Event) string {
	if e.Actor.Kind != "agent" && e.Actor.Kind != "mcp" || len(e.Args) == 0 {
		return ""
	}
	var a struct {
		Call *watch.About `json:"call"`
	}
	if json.Unmarshal(e.Args, &a) != nil || a.Call == nil {
		return ""
	}
	return a.Call.Model
}
