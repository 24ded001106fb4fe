package mcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/journalfs/journal/ops"
	"github.com/journalfs/journal/ops/match"
	"github.com/journalfs/journal/ops/syntax"
	"github.com/journalfs/journal/replay"
)

// editChanges turns edit_content's input into match changes.
func editChanges(in *EditIn) ([]match.Change, error) {
	single := in.SearchText != nil || in.ReplaceText != nil
	switch {
	case single && len(in.Changes) > 0:
		return nil, invalid("give search_text/replace_text for one edit, or changes for several — not both", "both search_text and changes given")
	case single && (in.SearchText == nil || in.ReplaceText == nil):
		return nil, invalid("a single edit needs both search_text and replace_text (replace_text may be empty)", "search_text or replace_text missing")
	case !single && len(in.Changes) == 0:
		return nil, invalid("give search_text and replace_text, or changes=[{search_text, replace_text}, ...]", "no edit given")
	}
	fuzzy := in.Fuzzy == nil || *in.Fuzzy
	if single {
		return []match.Change{{Search: *in.SearchText, Replace: *in.ReplaceText, Options: match.Options{Fuzzy: fuzzy, AllowRepeat: in.AllowRepeat, Substring: in.Substring, Path: in.AbsoluteFilePath}}}, nil
	}
	out := make([]match.Change, len(in.Changes))
	for i, c := range in.Changes {
		out[i] = match.Change{Search: c.SearchText, Replace: c.ReplaceText,
			Options: match.Options{Fuzzy: fuzzy, Occurrence: c.Occurrence, ReplaceAll: c.ReplaceAll, AllowRepeat: c.AllowRepeat || in.AllowRepeat, Substring: c.Substring || in.Substring, Path: in.AbsoluteFilePath}}
	}
	return out, nil
}

func (s *Server) editContent(ctx context.Context, c *call, in *EditIn) (*EditOut, string, error) {
	changes, err := editChanges(in)
	if err != nil {
		return nil, "", err
	}
	preview := in.Preview == nil || *in.Preview
	if !preview && s.opts.ReadOnly {
		return nil, "", ErrReadOnly
	}
	var (
		v     *replay.View
		edits []match.Edit
		out   *EditOut
		sp    *suspect // a refused change whose replacement stands in the file
	)
	defer func() {
		if v != nil {
			v.Close()
		}
	}()
	plan := func(r *replay.Reader) (*replay.Batch, error) {
		var err error
		if v != nil {
			v.Close()
		}
		if v, err = planView(r, in.AbsoluteFilePath); err != nil {
			return nil, err
		}
		t, err := openText(v)
		if err != nil {
			return nil, err
		}
		if in.ExpectedVersion != "" && !matchesVersion(in.ExpectedVersion, v.ID) {
			return nil, &replay.PathError{Path: v.Path.Rel, Err: replay.ErrConflict,
				Msg:  fmt.Sprintf("is version %s, not the expected %s", version(v.ID), in.ExpectedVersion),
				Hint: "read the file again and redo the edit against its current version"}
		}
		if in.ExpectedVersion == "" {
			if err := s.staleChange(c.session, v, v.Data, changes); err != nil {
				return nil, err
			}
		}
		if edits, err = t.locate(changes); err != nil {
			sp = suspectOf(err, v, changes)
			return nil, err
		}
		if err := t.representable(edits); err != nil {
			return nil, err
		}
		if out, err = t.describe(edits); err != nil {
			return nil, err
		}
		if err := t.layoutKept(edits, changes); err != nil {
			return nil, err
		}
		ch := replay.Change{Path: v.Path.Key, Expect: &v.ID}
		if v.Strategy == replay.StrategyMemory {
			ch.Data = t.edited(edits)
		} else {
			ch.Source = func(w io.Writer) error {
				w = c.progress.writer(w, t.size, "new content")
				if _, err := w.Write(utf8BOM[:t.pre]); err != nil {
					return err
				}
				return match.Splice(w, t.body, t.size, edits)
			}
		}
		b := c.batch(preview)
		b.Changes = []replay.Change{ch}
		return b, nil
	}
	res, err := s.eng.Edit(ctx, plan)
	// a change refused, its replacement in the file: applied already if
	// the journal holds the event that made it (largefile_made.go); each
	// change of a batch at most once
	for err != nil && sp != nil {
		at := s.madeAt(v.Path.Key, changes[sp.change], sp)
		if at == 0 {
			break
		}
		changes[sp.change].MadeAt, sp = at, nil
		res, err = s.eng.Edit(ctx, plan)
	}
	if err != nil {
		return nil, "", retryEdit(in, detach(err))
	}
	out.PreviousVersion, out.Version, out.Access = version(v.ID), version(v.ID), string(v.Strategy)
	noops := 0
	for _, ch := range out.Changes {
		if ch.AlreadyApplied {
			noops++
		}
	}
	out.AlreadyApplied = noops == len(out.Changes)
	if out.AlreadyApplied {
		out.Status = "already_applied"
		out.Preview = ""
	} else if preview {
		out.Status = "preview"
	} else {
		out.Status, out.Event = "applied", res.Seq
		out.Applied = res.Seq != 0
		s.synced(ctx, res)
		if len(res.Files) == 1 { // none when the replacement left the file as it was
			out.Version = version(res.Files[0].After)
			s.wrote(c.session, v.Path.Key, res.Files[0].After, true)
		}
	}
	var b strings.Builder
	if out.AlreadyApplied {
		fmt.Fprintf(&b, "ALREADY APPLIED — nothing was written and no journal event was recorded: %s (version %s) already has the change", v.Path.Key, out.Version)
		if len(out.Changes) > 1 {
			fmt.Fprintf(&b, "s (all %d)", len(out.Changes))
		}
		b.WriteString("; pass allow_repeat=true to apply it again on purpose\n")
	} else if preview {
		fmt.Fprintf(&b, "PREVIEW ONLY — nothing was written. %d change(s) would be made to %s (version %s); call again with preview=false to apply.\n",
			out.ChangesMade, v.Path.Key, out.Version)
	} else if out.Event == 0 {
		fmt.Fprintf(&b, "%d change(s) matched in %s but left it as it was (version %s): nothing was written and no journal event was recorded\n",
			out.ChangesMade, v.Path.Key, out.Version)
	} else {
		fmt.Fprintf(&b, "applied %d change(s) to %s as journal event %d (version %s → %s; revert_edit backup_id=%d takes it back)\n",
			out.ChangesMade, v.Path.Key, out.Event, out.PreviousVersion, out.Version, out.Event)
	}
	for _, ch := range out.Changes {
		switch {
		case ch.AlreadyApplied:
			fmt.Fprintf(&b, "[%d] already applied at line %d: skipped\n", ch.Index, ch.LineNumber)
		case ch.Level == string(match.LevelExact):
			fmt.Fprintf(&b, "[%d] exact match at line %d\n", ch.Index, ch.LineNumber)
		default:
			fmt.Fprintf(&b, "[%d] %s match at line %d: only the lines you changed were written, in the file's style\n", ch.Index, ch.Level, ch.LineNumber)
		}
		if ch.Note != "" {
			fmt.Fprintf(&b, "    note: %s\n", ch.Note)
		}
	}
	switch {
	case out.AlreadyApplied:
	case preview:
		b.WriteString(out.Preview)
	default:
		b.WriteString(strings.Join(out.Context, "\n") + "\n")
	}
	return out, b.String(), nil
}

// layoutLimit bounds the files layoutKept parses twice.
const layoutLimit = 4 << 20

// layoutKept refuses an edit that leaves a file whose layout is syntax
// (Python, YAML, Makefiles: syntax.LayoutParses) unparsable when it parsed
// before, if any replacement was not written as sent (its indentation was
// translated or placed by the matcher): a translation must never break such
// a file, whatever the readings of the agent's indentation said. An edit
// written byte for byte as sent is the agent's own text and is not judged
// here. The candidates give each translated change's file text and what the
// agent sent, for a call that writes its own indentation.
func (t *ltext) layoutKept(edits []match.Edit, changes []match.Change) error {
	name := t.v.Path.Key
	var moved []match.Edit
	for _, e := range edits {
		if !e.AlreadyApplied && translated(e, changes[e.Change].Replace) {
			moved = append(moved, e)
		}
	}
	if len(moved) == 0 || t.size > layoutLimit {
		return nil
	}
	before := t.data
	if before == nil {
		before = make([]byte, t.size)
		if _, err := t.body.ReadAt(before, 0); err != nil && !errors.Is(err, io.EOF) {
			return err
		}
	}
	var out bytes.Buffer
	if err := match.Splice(&out, bytes.NewReader(before), t.size, edits); err != nil {
		return err
	}
	after := out.Bytes()
	if ok, known := syntax.LayoutParses(name, after); !known || ok {
		return nil
	}
	if ok, _ := syntax.LayoutParses(name, before); !ok {
		return nil
	}
	var cands []ops.Candidate
	for _, e := range moved {
		cands = append(cands, ops.Candidate{Line: e.Match.Line, EndLine: e.Match.EndLine, Similarity: 1,
			Text: e.Match.Matched, SearchText: e.Match.Matched, ReplaceText: changes[e.Change].Replace})
	}
	return &ops.Error{Op: "layout_check", Index: moved[0].Change, Path: name, Err: ops.ErrSyntax,
		Msg: fmt.Sprintf("the search text matched at line %d with another indentation than the file's, and the replacement translated into the file's indentation would leave %s unparsable (it parses now), so nothing was written",
			moved[0].Match.Line, name),
		Hint:       "send the search text exactly as the file has it (candidate search_text) with the replacement indented as it must stand in the file",
		Candidates: cands}
}

// translated reports an edit that wrote a line the agent did not send as
// it is: a line of the replacement that is neither the file's own (kept)
// nor one of the agent's lines byte for byte (its indentation translated).
// A change that only deletes or keeps lines translates nothing.
func translated(e match.Edit, replace string) bool {
	old, sent := map[string]int{}, map[string]bool{}
	for _, l := range strings.Split(toLF(e.Match.Matched), "\n") {
		old[l]++
	}
	for _, l := range strings.Split(toLF(replace), "\n") {
		sent[l] = true
	}
	for _, l := range strings.Split(toLF(e.Replacement), "\n") {
		switch {
		case old[l] > 0:
			old[l]--
		case strings.TrimSpace(l) == "" || sent[l]:
		default:
			return true
		}
	}
	return false
}

func toLF(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }

// retryEdit completes a corrected search/replace pair the matcher offers
// (ops.Error.Retry) into edit_content arguments: the caller's own, with the
// failing change's search and replace texts corrected.
func retryEdit(in *EditIn, err error) error {
	var oe *ops.Error
	if !errors.As(err, &oe) || oe.Retry == nil {
		return err
	}
	s, _ := oe.Retry["search_text"].(string)
	r, _ := oe.Retry["replace_text"].(string)
	oe.Retry = nil
	args := map[string]any{"absolute_file_path": in.AbsoluteFilePath}
	if in.Fuzzy != nil {
		args["fuzzy"] = *in.Fuzzy
	}
	if in.Preview != nil {
		args["preview"] = *in.Preview
	}
	if in.ExpectedVersion != "" {
		args["expected_version"] = in.ExpectedVersion
	}
	if in.AllowReadOnly {
		args["allow_read_only"] = true
	}
	if in.SearchText != nil {
		args["search_text"], args["replace_text"] = s, r
		return withRetry(err, args, "search_text is the file's exact text; replace_text carries your change onto it")
	}
	if oe.Index < 0 || oe.Index >= len(in.Changes) {
		return err
	}
	cs := make([]EditChange, len(in.Changes))
	copy(cs, in.Changes)
	cs[oe.Index].SearchText, cs[oe.Index].ReplaceText = s, r
	args["changes"] = cs
	return withRetry(err, args, fmt.Sprintf("change %d: search_text is the file's exact text; replace_text carries your change onto it", oe.Index))
}

// planView opens the file an edit is planned against, as the batch reads it
// under the lock. A file the engine holds in memory is viewed from that read
// (Reader.View would open it a second time); larger files are mapped or
// streamed by Reader.View, with the version the batch hashed.
func planView(r *replay.Reader, path string) (*replay.View, error) {
	f, err := r.Read(path)
	if err != nil {
		return nil, err
	}
	if f.Exists && f.Data != nil {
		return &replay.View{Path: f.Path, ID: f.ID, Mode: f.Mode, Size: f.Size, Strategy: replay.StrategyMemory, Data: f.Data}, nil
	}
	return r.View(path, mmapLimit)
}

// exactFirstMin: in-memory texts at least this large are first scanned for
// exact matches only (see locate).
const exactFirstMin = 1 << 20

// locate resolves the changes against the text: the full cascade of
// match.Locate for files in memory; for mapped and streamed files, whose
// whole-file whitespace and fuzzy passes (and nearest-candidate search on a
// miss) would take seconds, the bounded scan of streamLocate. An in-memory
// text of a MiB or more is scanned for exact matches first: when every change
// resolves there, that is match.Locate's answer without its line index of
// the whole text; anything else (a miss, an
// ambiguity, an overlap, more than scanLimit occurrences) goes through
// match.Locate, which gives the canonical match or error.
func (t *ltext) locate(changes []match.Change) ([]match.Edit, error) {
	if t.v.Strategy != replay.StrategyMemory {
		return t.streamLocate(changes, false)
	}
	if len(t.data) >= exactFirstMin && !mayRepeat(changes) {
		if edits, err := t.streamLocate(changes, true); err == nil {
			return edits, nil
		}
	}
	content := unsafe.String(unsafe.SliceData(t.data), len(t.data)) // read-only, never mutated
	edits, err := match.Locate(content, changes)
	if err != nil {
		return nil, err
	}
	for i := range edits {
		edits[i].Match.Matched = strings.Clone(edits[i].Match.Matched)
	}
	return edits, nil
}

// mayRepeat reports a change whose replacement holds its search text (an
// insertion next to an anchor): whether it is applied already is decided by
// match.Locate, which the exact-only fast path would skip.
func mayRepeat(changes []match.Change) bool {
	for _, c := range changes {
		if !c.AllowRepeat && strings.Contains(c.Replace, c.Search) {
			return true
		}
	}
	return false
}

// representable refuses replacements the file's encoding cannot hold.
func (t *ltext) representable(edits []match.Edit) error {
	if t.enc != ops.Latin1 {
		return nil
	}
	for _, e := range edits {
		for _, r := range e.Replacement {
			if r > 0xFF || (t.v.Strategy != replay.StrategyMemory && r >= utf8.RuneSelf) {
				return invalid(fmt.Sprintf("this file is Latin-1: use only characters it can hold (ASCII in files of %s or more)", mib(streamThreshold)),
					"change %d: %q cannot be written in a Latin-1 file", e.Change, r)
			}
		}
	}
	return nil
}

// maxCandidates bounds the candidates of one error (an ambiguous search in a
// large file can match a million times).
const maxCandidates = 20

// detach copies the strings of an error's candidates, which may point into a
// mapping that is about to be released, and keeps the first maxCandidates.
func detach(err error) error {
	var oe *ops.Error
	if !errors.As(err, &oe) {
		return err
	}
	if n := len(oe.Candidates); n > maxCandidates {
		oe.Candidates = oe.Candidates[:maxCandidates]
		oe.Hint += fmt.Sprintf(" (%d candidates; the first %d are listed)", n, maxCandidates)
	}
	for i := range oe.Candidates {
		oe.Candidates[i].Text = strings.Clone(oe.Candidates[i].Text)
		oe.Candidates[i].Diff = strings.Clone(oe.Candidates[i].Diff)
	}
	oe.Msg = strings.Clone(oe.Msg)
	return err
}
