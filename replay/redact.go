package replay

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/audit"
	"github.com/journalfs/journal/snapshot"
)

// RedactSelect says what a redaction takes out of the journal (see
// journal.DB.Redact for what taking out means).
type RedactSelect struct {
	// Events: their arguments, and the contents they wrote (their files'
	// after states) unless ArgsOnly.
	Events   []uint64
	ArgsOnly bool
	// Paths (journal keys): every version of each file the journal holds,
	// and the arguments of every event that touched it.
	Paths []string
	// Pattern: every stored content, and every event's arguments, in
	// which it matches.
	Pattern *regexp.Regexp
	// Match, if set, is another test of a content or of arguments (a
	// secret detector): what it accepts is taken out too.
	Match func(b []byte) bool
	Why   string
	Actor journal.Actor
	// DryRun plans and reports, taking nothing out.
	DryRun bool
}

// RedactResult is what a redaction took out, or would (a dry run).
type RedactResult struct {
	journal.RedactReport
	// Plan is what was asked of the journal.
	Plan journal.RedactRequest
	// Heads are the paths whose last recorded state is among the contents
	// taken out: the workspace's file may still hold the value, which the
	// next change to it records again.
	Heads []string
	// Unreadable are contents that could not be read to look for the
	// pattern (damaged): left as they are.
	Unreadable []snapshot.ID
	// paths are the files whose histories hold the contents planned, in
	// the order the events first name them (redactedLinesFor blames them).
	paths []string
}

// Redact takes the values sel names out of the journal, once every batch
// is in the bbolt file (as GC), records a redact event, and rewrites the
// journal file and empties the write-ahead log so that the values are on
// no page of either. A content redacted is gone for good: a revert, undo
// or restore that needs it fails with journal.ErrRedacted, naming the
// redact event.
func (e *Engine) Redact(sel RedactSelect) (*RedactResult, error) {
	if len(sel.Events) == 0 && len(sel.Paths) == 0 && sel.Pattern == nil && sel.Match == nil {
		return nil, fmt.Errorf("redact: name events, paths, a pattern or secrets: %w", ErrNothing)
	}
	res := &RedactResult{}
	err := e.do(func(db *journal.DB) error {
		if err := e.flushLocked(db, true); err != nil {
			return err
		}
		if _, err := e.recover(db); err != nil {
			return err
		}
		if err := e.flushLocked(db, true); err != nil {
			return err
		}
		var lines map[string][]byte // the owners of the contents' lines (per file), without their text
		err := db.View(func(tx *journal.Tx) error {
			if err := planRedaction(tx, sel, res); err != nil || sel.DryRun {
				return err
			}
			var err error
			lines, err = redactedLinesFor(tx, res.paths, res.Plan.Contents, sel)
			return err
		})
		if err != nil {
			return err
		}
		if len(res.Plan.Events)+len(res.Plan.Contents) == 0 {
			return fmt.Errorf("redact: nothing the journal still holds matches: %w", ErrNothing)
		}
		if sel.DryRun {
			res.Events, res.Contents = res.Plan.Events, res.Plan.Contents
			return nil
		}
		if err := db.Update(func(tx *journal.Tx) error { return recordRedactedLines(tx, lines) }); err != nil {
			return err
		}
		rep, err := db.Redact(res.Plan)
		if rep != nil {
			res.RedactReport = *rep
		}
		if errors.Is(err, journal.ErrNothingToRedact) {
			return fmt.Errorf("redact: nothing the journal still holds matches: %w", ErrNothing)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// planRedaction fills res.Plan with what sel names that the journal still
// holds, and res.Heads.
func planRedaction(tx *journal.Tx, sel RedactSelect, res *RedactResult) error {
	events := map[uint64]bool{}
	contents := map[snapshot.ID]bool{}
	want := map[uint64]bool{}
	for _, seq := range sel.Events {
		want[seq] = true
		if _, err := tx.Event(seq); err != nil {
			if errors.Is(err, journal.ErrNotFound) {
				return fmt.Errorf("redact: event %d does not exist: %w", seq, ErrBadEvent)
			}
			return err
		}
	}
	matches := func(b []byte) bool {
		return sel.Pattern != nil && sel.Pattern.Match(b) || sel.Match != nil && sel.Match(b)
	}
	scan := sel.Pattern != nil || sel.Match != nil
	checked := map[snapshot.ID]bool{}
	consider := func(id snapshot.ID) {
		if id.IsZero() || checked[id] {
			return
		}
		checked[id] = true
		if _, gone := tx.Redacted(id); gone || !snapshot.Has(tx.Bolt(), id) {
			return
		}
		b, err := snapshot.Bytes(tx.Bolt(), id)
		if err != nil {
			res.Unreadable = append(res.Unreadable, id)
			return
		}
		if matches(b) {
			contents[id] = true
		}
	}
	err := tx.Each(0, false, func(ev *journal.Event) error {
		touches := slices.ContainsFunc(ev.Files, func(f journal.FileChange) bool {
			return audit.MatchPath(sel.Paths, f.Path)
		})
		if want[ev.Seq] || touches || scan && len(ev.Args) > 0 && argsMatch(ev.Args, matches) {
			if len(ev.Args) > 0 {
				events[ev.Seq] = true
			}
		}
		for _, f := range ev.Files {
			switch {
			case audit.MatchPath(sel.Paths, f.Path):
				contents[f.Before], contents[f.After] = true, true
			case want[ev.Seq] && !sel.ArgsOnly:
				contents[f.After] = true
			}
			if scan {
				consider(f.Before)
				consider(f.After)
			}
			held := !f.Before.IsZero() && contents[f.Before] || !f.After.IsZero() && contents[f.After]
			if held && !slices.Contains(res.paths, f.Path) {
				res.paths = append(res.paths, f.Path)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	delete(contents, snapshot.ID{})
	for id := range contents {
		if _, gone := tx.Redacted(id); gone || !snapshot.Has(tx.Bolt(), id) {
			delete(contents, id)
		}
	}
	p := &res.Plan
	*p = journal.RedactRequest{Paths: sel.Paths, Why: sel.Why, Actor: sel.Actor, Now: time.Now()}
	for seq := range events {
		p.Events = append(p.Events, seq)
	}
	slices.Sort(p.Events)
	for id := range contents {
		p.Contents = append(p.Contents, id)
	}
	slices.SortFunc(p.Contents, func(a, b snapshot.ID) int { return slices.Compare(a[:], b[:]) })
	return tx.Heads(func(path string, h journal.Head) error {
		if contents[h.ID] {
			res.Heads = append(res.Heads, path)
		}
		return nil
	})
}

// argsMatch reports whether match accepts a call's arguments: their JSON,
// or any string in it as the call sent it (unescaped).
func argsMatch(args json.RawMessage, match func([]byte) bool) bool {
	if match(args) {
		return true
	}
	var v any
	if json.Unmarshal(args, &v) != nil {
		return false
	}
	var walk func(v any) bool
	walk = func(v any) bool {
		switch x := v.(type) {
		case string:
			return match([]byte(x))
		case []any:
			return slices.ContainsFunc(x, walk)
		case map[string]any:
			for k, y := range x {
				if match([]byte(k)) || walk(y) {
					return true
				}
			}
		}
		return false
	}
	return walk(v)
}
