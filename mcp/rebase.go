package mcp

import (
	"bytes"
	"fmt"
	"strings"
	"sync"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/ops"
	"github.com/journalfs/journal/ops/merge"
	"github.com/journalfs/journal/replay"
	"github.com/journalfs/journal/snapshot"
)

// Stale line numbers. An agent's line numbers come from its last READ of a
// file (a tool that showed numbered lines), not from its writes: after its
// own edit shifted lines, or another party's, the numbers it sends still
// count from that read. The server keeps, per session and file, the version
// of the last read and whether the session wrote the file since; a
// line-based request against a file that changed since the read is mapped
// through a line diff of the read version (from the snapshot store) and the
// current content:
//
//   - the targeted lines are unchanged and did not move: applied as sent;
//   - unchanged but moved, and only others wrote the file since the read:
//     applied where they are now, and the result says so;
//   - unchanged but moved, and the session wrote the file itself since (so
//     it may be using the numbers its own edit's result showed): EDIT_CONFLICT
//     with both readings, a retry that targets the lines it read, and how to
//     pin the current numbering instead (expected_version) — even when both
//     readings hold the same text, since they are two places;
//   - changed since the read by the session's own write (its reply showed
//     the session those lines): the numbers count from that write, mapped
//     to now if others wrote since, and the result says so;
//   - changed (or deleted) since the read otherwise: EDIT_CONFLICT with the
//     lines as read and as they are now, no retry (what was meant is
//     unknown).
//
// A call's expected_version that is not the current version says which
// version its numbers count from, whatever the session read or wrote: it
// replaces the read (found in the read cache or among the versions the
// path's last events wrote or saw) and is never ambiguous. When every op on
// the file targets it by position the lines are mapped as above; otherwise,
// or when the version is unknown, the call is refused as before.

// fileView is what one session knows of one file's line numbers.
type fileView struct {
	read  snapshot.ID // version of the last read that showed line numbers
	cur   snapshot.ID // version it last saw (read or wrote)
	wrote bool        // the session wrote the file since that read
	// shown is the version the session's last write whose reply showed it
	// the lines it wrote (an edit's context) left: lines that changed since
	// the read count from it. An undo's or a revert's reply shows none.
	shown snapshot.ID
}

// viewOf returns a copy of the session's view of a file (zero if none).
func (s *Server) viewOf(session, key string) fileView {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v := s.seen[session][key]; v != nil {
		return *v
	}
	return fileView{}
}

// rebaseLimit bounds the read versions fetched to map line numbers.
const rebaseLimit = 16 << 20

// readCache keeps the contents sessions read, by version, for rebasing: a
// file read but never journaled has its version in no snapshot. Files over
// readCacheFile bytes are not kept; the oldest go past readCacheTotal.
type readCache struct {
	mu    sync.Mutex
	data  map[snapshot.ID][]byte
	order []snapshot.ID
	size  int
}

const (
	readCacheFile  = 4 << 20
	readCacheTotal = 64 << 20
)

// remember keeps a read content (copied).
func (rc *readCache) remember(id snapshot.ID, data []byte) {
	if len(data) > readCacheFile || id.IsZero() {
		return
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.data == nil {
		rc.data = map[snapshot.ID][]byte{}
	}
	if _, ok := rc.data[id]; ok {
		return
	}
	rc.data[id] = bytes.Clone(data)
	rc.order = append(rc.order, id)
	rc.size += len(data)
	for rc.size > readCacheTotal && len(rc.order) > 1 {
		old := rc.order[0]
		rc.order = rc.order[1:]
		rc.size -= len(rc.data[old])
		delete(rc.data, old)
	}
}

// find returns the kept content whose version is want (a version string,
// possibly short).
func (rc *readCache) find(want string) (snapshot.ID, []byte, bool) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for id, d := range rc.data {
		if matchesVersion(want, id) {
			return id, d, true
		}
	}
	return snapshot.ID{}, nil, false
}

// versionHistory bounds the events of a path searched for an
// expected_version's content.
const versionHistory = 1000

// versionContent returns the content of file key at version want (an
// expected_version): from the read cache, else from the journal (the
// versions the path's last events wrote or saw).
func (s *Server) versionContent(key, want string) (snapshot.ID, []byte, bool) {
	if id, data, ok := s.reads.find(want); ok {
		return id, data, true
	}
	var found snapshot.ID
	n := 0
	_ = s.eng.Journal().View(func(tx *journal.Tx) error {
		return tx.EachIndexed("path", key, func(e *journal.Event) error {
			if f, ok := e.File(key); ok {
				for _, id := range []snapshot.ID{f.After, f.Before} {
					if !id.IsZero() && matchesVersion(want, id) {
						found = id
						return journal.ErrStop
					}
				}
			}
			if n++; n >= versionHistory {
				return journal.ErrStop
			}
			return nil
		})
	})
	if found.IsZero() {
		return snapshot.ID{}, nil, false
	}
	data, ok, err := s.eng.Content(found, rebaseLimit)
	if err != nil || !ok {
		return snapshot.ID{}, nil, false
	}
	return found, data, true
}

func (rc *readCache) get(id snapshot.ID) ([]byte, bool) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	d, ok := rc.data[id]
	return d, ok
}

// lineMap maps 1-based lines of base to cur: 0 for a line changed or
// deleted since. Lines past the end map past the end.
type lineMap struct {
	to          []int
	nBase, nCur int
}

func newLineMap(base, cur []byte) *lineMap {
	bl, cl := splitLinesKeep(base), splitLinesKeep(cur)
	m := &lineMap{to: make([]int, len(bl)+1), nBase: len(bl), nCur: len(cl)}
	prevA, prevB := 0, 0
	for _, h := range append(merge.DiffStrings(bl, cl), merge.Hunk{A0: len(bl), A1: len(bl), B0: len(cl), B1: len(cl)}) {
		for k := 0; prevA+k < h.A0; k++ {
			m.to[prevA+k+1] = prevB + k + 1
		}
		prevA, prevB = h.A1, h.B1
	}
	return m
}

// splitLinesKeep splits text into lines, keeping terminators (so a line
// whose ending changed counts as changed).
func splitLinesKeep(b []byte) []string {
	var out []string
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			out = append(out, string(b))
			break
		}
		out = append(out, string(b[:i+1]))
		b = b[i+1:]
	}
	return out
}

// span maps lines [a,b] of base: the range now, or ok=false when any line
// of it changed or it no longer is contiguous. The line past the end (an
// append position) maps past the end.
func (m *lineMap) span(a, b int) (int, int, bool) {
	if a == m.nBase+1 && b <= a {
		return m.nCur + 1, m.nCur + 1, true
	}
	if a < 1 || b > m.nBase || b < a {
		return 0, 0, false
	}
	x := m.to[a]
	if x == 0 {
		return 0, 0, false
	}
	for n := a + 1; n <= b; n++ {
		if m.to[n] != x+(n-a) {
			return 0, 0, false
		}
	}
	return x, x + (b - a), true
}

// lineRange is a line-based op's target in one file, as a setter for the
// rebased numbers.
type lineRange struct {
	op         int
	path       string
	start, end int
	set        func(start, end int) ops.Op
	argStart   string // argument names for the retry
	argEnd     string
	// target, when the call says what its lines hold (target_line_text,
	// targetLine, an edit_file block that keeps the range's first or last
	// line), reports whether lines [a,b] of data hold it.
	target func(data []byte, a, b int) bool
}

// lineRanges lists the line targets of the ops the rebase handles.
func lineRanges(list []ops.Op) []lineRange {
	var out []lineRange
	for i, o := range list {
		switch op := o.(type) {
		case ops.ReplaceOp:
			if op.StartLine == nil {
				continue
			}
			end := *op.StartLine
			if op.EndLine != nil {
				end = *op.EndLine
			}
			out = append(out, lineRange{op: i, path: op.Path, start: *op.StartLine, end: end, argStart: "start_line", argEnd: "end_line",
				set: func(a, b int) ops.Op {
					op.StartLine = ops.Int(a)
					if op.EndLine != nil {
						op.EndLine = ops.Int(b)
					}
					return op
				}, target: lineHolds(op.TargetLineText)})
		case ops.InsertOp:
			if op.Line == nil || (op.At != ops.AtBeforeLine && op.At != ops.AtAfterLine) {
				continue
			}
			out = append(out, lineRange{op: i, path: op.Path, start: *op.Line, end: *op.Line, argStart: "line",
				set: func(a, _ int) ops.Op { op.Line = ops.Int(a); return op }})
		case ops.CopyPasteOp:
			out = append(out, copyRanges(i, op.SourcePath, op.TargetPath, op.SourceStartLine, op.SourceEndLine, op.TargetLine,
				func(a, b int) ops.Op { op.SourceStartLine, op.SourceEndLine = a, b; return op },
				func(a int) ops.Op { op.TargetLine = a; return op })...)
		case ops.MoveOp:
			out = append(out, copyRanges(i, op.SourcePath, op.TargetPath, op.SourceStartLine, op.SourceEndLine, op.TargetLine,
				func(a, b int) ops.Op { op.SourceStartLine, op.SourceEndLine = a, b; return op },
				func(a int) ops.Op { op.TargetLine = a; return op })...)
		case ops.EditFileOp:
			if op.StartLine == nil {
				continue
			}
			end := *op.StartLine
			if op.EndLine != nil {
				end = *op.EndLine
			}
			var target func([]byte, int, int) bool
			if op.Type() == ops.EditReplace && op.CodeBlock != nil {
				target = blockKeeps(*op.CodeBlock)
			}
			out = append(out, lineRange{op: -1, path: op.TargetFile, start: *op.StartLine, end: end, argStart: "start_line", argEnd: "end_line",
				set: func(a, b int) ops.Op {
					op.StartLine = ops.Int(a)
					if op.EndLine != nil {
						op.EndLine = ops.Int(b)
					}
					return op
				}, target: target})
		}
	}
	return out
}

// copyRanges returns the source range and the target line of a copy or
// move op (one op, so the setters share it); a target of -1 (the end of the
// file) does not depend on numbers.
func copyRanges(i int, src, dst string, start, end, target int, setSrc func(a, b int) ops.Op, setDst func(a int) ops.Op) []lineRange {
	out := []lineRange{{op: i, path: src, start: start, end: end, argStart: "source_start_line", argEnd: "source_end_line", set: setSrc}}
	if target > 0 {
		out = append(out, lineRange{op: i, path: dst, start: target, end: target, argStart: "target_line",
			set: func(a, _ int) ops.Op { return setDst(a) }})
	}
	return out
}

// rebaser holds the read versions of the files of one line-based request,
// fetched before the batch takes the journal's lock.
type rebaser struct {
	s        *Server
	c        *call
	views    map[string]fileView
	base     map[string][]byte
	expected map[string]string // file key → the call's expected_version
	pinned   map[string]bool   // the base is the expected version's content
	notes    []string
	ranges   []lineRange
	last     map[string]lastWrite // file key → its newest event, for files the session wrote since its read
	// written: file key → the content the session's own last write whose
	// reply showed its lines left (fileView.shown), for files it wrote
	// since its read
	written map[string][]byte
	applied bool // applyInPlace ran
}

// newRebaser fetches the read version of every file a line-based op of list
// targets, when the session's read is older than the last version it saw
// or when it wrote the file since.
// expected maps file keys to the call's expected versions: a file's line
// numbers then count from that version, whatever the session read.
func (s *Server) newRebaser(c *call, list []ops.Op, expected map[string]string) *rebaser {
	rb := &rebaser{s: s, c: c, views: map[string]fileView{}, base: map[string][]byte{}, ranges: lineRanges(list), expected: expected}
	rb.fetch()
	return rb
}

// fetch gets the read version of every file of the ranges.
func (rb *rebaser) fetch() {
	for _, r := range rb.ranges {
		rp, err := rb.s.eng.Resolve(r.path)
		if err != nil {
			continue
		}
		if _, ok := rb.views[rp.Key]; ok {
			continue
		}
		if want, ok := rb.expected[rp.Key]; ok {
			// Numbers as of the expected version: nobody's, not ambiguous.
			rb.views[rp.Key] = fileView{}
			if id, data, ok := rb.s.versionContent(rp.Key, want); ok {
				rb.views[rp.Key] = fileView{read: id, cur: id}
				rb.base[rp.Key] = data
				if rb.pinned == nil {
					rb.pinned = map[string]bool{}
				}
				rb.pinned[rp.Key] = true
			}
			continue
		}
		v := rb.s.viewOf(rb.c.session, rp.Key)
		rb.views[rp.Key] = v
		if v.read.IsZero() {
			continue
		}
		if v.wrote {
			if rb.last == nil {
				rb.last = map[string]lastWrite{}
			}
			rb.last[rp.Key] = rb.s.lastWriteOf(rp.Key)
		}
		if data, ok := rb.s.reads.get(v.read); ok {
			rb.base[rp.Key] = data
		} else if data, ok, err := rb.s.eng.Content(v.read, rebaseLimit); err == nil && ok {
			rb.base[rp.Key] = data
		}
		if v.wrote && !v.shown.IsZero() && v.shown != v.read {
			if data, ok, err := rb.s.eng.Content(v.shown, rebaseLimit); err == nil && ok {
				if rb.written == nil {
					rb.written = map[string][]byte{}
				}
				rb.written[rp.Key] = data
			}
		}
	}
}

// lineRebaser is a rebaser for a tool that targets one line range of one
// file by numbers in its own input (forms, comments, file_edit's lines):
// start and end (nil when the tool has one line) are rewritten in place.
func (s *Server) lineRebaser(c *call, path, expected string, start, end *int, argStart, argEnd string, target func([]byte, int, int) bool) *rebaser {
	e := *start
	if end != nil {
		e = *end
	}
	r := lineRange{op: -1, path: path, start: *start, end: e, argStart: argStart, argEnd: argEnd,
		set: func(a, b int) ops.Op {
			*start = a
			if end != nil {
				*end = b
			}
			return nil
		}, target: target}
	rb := &rebaser{s: s, c: c, views: map[string]fileView{}, base: map[string][]byte{}, ranges: []lineRange{r}}
	if expected != "" {
		if rp, err := s.eng.Resolve(path); err == nil {
			rb.expected = map[string]string{rp.Key: expected}
		}
	}
	rb.fetch()
	return rb
}

// applyInPlace runs apply for a lineRebaser once (editText may check twice).
func (rb *rebaser) applyInPlace(key string, f *replay.File) (handled bool, err error) {
	if _, ok := rb.base[key]; !ok {
		return false, nil
	}
	if rb.applied {
		return true, nil
	}
	if _, err := rb.apply([]ops.Op{nil}, key, f); err != nil {
		return true, err
	}
	rb.applied = true
	return true, nil
}

// pinnedTo reports whether file key's numbers can be rebased from the
// call's expected version: its content was found, and every op of list
// that touches key does so by line numbers (or at its start or end).
func (rb *rebaser) pinnedTo(list []ops.Op, key string) bool {
	if rb == nil || !rb.pinned[key] {
		return false
	}
	is := func(p string) bool {
		rp, err := rb.s.eng.Resolve(p)
		return err == nil && rp.Key == key
	}
	for _, o := range list {
		switch op := o.(type) {
		case ops.ReplaceOp:
			if is(op.Path) && op.StartLine == nil {
				return false
			}
		case ops.InsertOp: // bof, eof or a line: all placed by position
		case ops.CopyPasteOp, ops.MoveOp:
		case ops.EditFileOp:
			if is(op.TargetFile) && op.StartLine == nil {
				return false
			}
		case nil: // a lineRebaser's tool: its one range
		default:
			return false
		}
	}
	return true
}

// files lists the files whose read versions were fetched (none for a nil
// rebaser).
func (rb *rebaser) files() map[string][]byte {
	if rb == nil {
		return nil
	}
	return rb.base
}

// apply maps the line targets of list on file key (current content f) from
// the session's read version to now. It returns the ops to run, or an
// EDIT_CONFLICT.
func (rb *rebaser) apply(list []ops.Op, key string, f *replay.File) ([]ops.Op, error) {
	v := rb.views[key]
	base, ok := rb.base[key]
	if !ok || v.read == f.ID || f.Data == nil {
		return list, nil
	}
	m := newLineMap(base, f.Data)
	out := append([]ops.Op(nil), list...)
	var amb []movedRange
	for _, r := range rb.ranges {
		rp, err := rb.s.eng.Resolve(r.path)
		if err != nil || rp.Key != key || r.start < 1 || r.end < r.start || r.start > m.nBase+1 {
			continue // not this file, or numbers the tool refuses or clamps as they are
		}
		a, b, ok := m.span(r.start, r.end)
		if !ok {
			// changed since the read: by the session's own write, whose
			// reply showed it those lines, they count from that write
			if a, b, ok = rb.ownWrite(key, r, f); !ok {
				return nil, rb.changed(r, key, base, f)
			}
			rb.set(out, r, a, b)
			continue
		}
		if a == r.start {
			continue
		}
		if v.wrote {
			// Even the same text under both numberings is two places,
			// unless the call says what its lines hold and only one
			// reading holds it.
			switch rb.settle(r, a, b, f.Data) {
			case readingRead:
				rb.set(out, r, a, b)
				rb.notes = append(rb.notes, fmt.Sprintf("%s: lines moved %+d since your read (%s): your read's %s, now %s, is the only place holding the text you named; applied there",
					key, a-r.start, rb.movedBy(key, f.ID), linesText(r.start, r.end, false), linesText(a, b, false)))
			case readingNow:
				rb.notes = append(rb.notes, fmt.Sprintf("%s: your numbers count from now (version %s): %s as numbered now holds the text you named, your read's (now %s) does not; applied as sent",
					key, f.ID.Short(), linesText(r.start, r.end, false), linesText(a, b, false)))
			default:
				amb = append(amb, movedRange{r, a, b})
			}
			continue
		}
		rb.set(out, r, a, b)
		rb.notes = append(rb.notes, fmt.Sprintf("%s: lines %s moved %+d since your read (version %s): applied at %s, where they are now",
			key, rangeText(r.start, r.end), a-r.start, v.read.Short(), rangeText(a, b)))
	}
	if len(amb) > 0 {
		return nil, rb.ambiguous(amb, key, f)
	}
	return out, nil
}

// ownWrite maps target r from the content the session's own last write
// left (its reply showed the session those lines) to the current content
// f: the numbers of lines that changed since the session's read, by its
// own edit, count from that edit. ok is false when the session did not
// write the file since its read, or when the lines changed since its write.
func (rb *rebaser) ownWrite(key string, r lineRange, f *replay.File) (int, int, bool) {
	w, ok := rb.written[key]
	if !ok {
		return 0, 0, false
	}
	a, b, ok := newLineMap(w, f.Data).span(r.start, r.end)
	if !ok {
		return 0, 0, false
	}
	v := rb.views[key]
	note := fmt.Sprintf("%s: %s changed since your read by your own edit (version %s), whose result showed them: your numbers count from that edit", key, linesText(r.start, r.end, false), v.shown.Short())
	if a != r.start {
		note += fmt.Sprintf("; they moved %+d since (version %s): applied at %s", a-r.start, f.ID.Short(), rangeText(a, b))
	}
	rb.notes = append(rb.notes, note)
	return a, b, true
}

// set rewrites the numbers of r's op in out to [a,b].
func (rb *rebaser) set(out []ops.Op, r lineRange, a, b int) {
	idx := r.op
	if idx < 0 {
		idx = 0
	}
	out[idx] = r.set(a, b)
}

// The readings a target's text settles.
const (
	readingNone = iota // no text, or it holds under both or neither
	readingRead        // only the lines of the read (now [a,b])
	readingNow         // only the lines as numbered now
)

// settle says which reading of r's numbers the text the call named holds:
// its lines as read (now at [a,b]) or as numbered now.
func (rb *rebaser) settle(r lineRange, a, b int, cur []byte) int {
	if r.target == nil {
		return readingNone
	}
	atRead, atNow := r.target(cur, a, b), r.target(cur, r.start, r.end)
	switch {
	case atRead && !atNow:
		return readingRead
	case atNow && !atRead:
		return readingNow
	}
	return readingNone
}

// lineHolds is the target of a call naming the text of its first line
// (compared without surrounding whitespace); nil for no text.
func lineHolds(text string) func([]byte, int, int) bool {
	want := strings.TrimSpace(text)
	if want == "" {
		return nil
	}
	return func(data []byte, a, _ int) bool {
		ls := splitLinesKeep(data)
		return a >= 1 && a <= len(ls) && strings.TrimSpace(ls[a-1]) == want
	}
}

// blockKeeps is the target of an edit_file replace whose code block keeps
// the first or the last line of the range it replaces (a function rewritten
// under its own signature): lines [a,b] hold it when the block's first
// non-blank line is line a or its last is line b. A block of one line
// names nothing (it is the new text of the line).
func blockKeeps(block string) func([]byte, int, int) bool {
	var bl []string
	for _, l := range strings.Split(block, "\n") {
		if t := strings.TrimSpace(l); t != "" {
			bl = append(bl, t)
		}
	}
	if len(bl) < 2 {
		return nil
	}
	first, last := bl[0], bl[len(bl)-1]
	return func(data []byte, a, b int) bool {
		ls := splitLinesKeep(data)
		at := func(n int) string {
			if n < 1 || n > len(ls) {
				return "\x00"
			}
			return strings.TrimSpace(ls[n-1])
		}
		return (at(a) == first && first != "") || (b > a && at(b) == last)
	}
}

// lastWrite is the newest journal event on a file and the version it left.
type lastWrite struct {
	seq   uint64
	after snapshot.ID
}

// lastWriteOf returns the newest event that changed file key (zero when
// none is found). It reads the journal, so it runs before the batch takes
// the journal's lock.
func (s *Server) lastWriteOf(key string) lastWrite {
	e, after, err := s.eng.LastChange(key)
	if err != nil || e == nil || after.IsZero() {
		return lastWrite{}
	}
	return lastWrite{seq: e.Seq, after: after}
}

// movedBy names what moved the lines of file key to version cur: the event
// that wrote it, or the version when that event is not the one seen.
func (rb *rebaser) movedBy(key string, cur snapshot.ID) string {
	if lw := rb.last[key]; lw.seq > 0 && lw.after == cur {
		return fmt.Sprintf("event %d", lw.seq)
	}
	return "version " + cur.Short()
}

// movedRange is a line target and where its lines as read are now.
type movedRange struct {
	r    lineRange
	a, b int
}

// linesText is "line 3" or "lines 3-5", capitalised when upper.
func linesText(a, b int, upper bool) string {
	w := "line "
	if a != b {
		w = "lines "
	}
	if upper {
		w = strings.ToUpper(w[:1]) + w[1:]
	}
	return w + rangeText(a, b)
}

func rangeText(a, b int) string {
	if a == b {
		return fmt.Sprint(a)
	}
	return fmt.Sprintf("%d-%d", a, b)
}

// excerpt returns lines [a,b] of data, numbered.
func excerpt(data []byte, a, b int) string {
	ls := splitLinesKeep(data)
	var sb strings.Builder
	for n := max(1, a); n <= min(b, len(ls)); n++ {
		fmt.Fprintf(&sb, "%d: %s\n", n, strings.TrimRight(ls[n-1], "\r\n"))
	}
	return sb.String()
}

func (rb *rebaser) changed(r lineRange, key string, base []byte, f *replay.File) error {
	v := rb.views[key]
	near := max(1, r.start-2)
	return &replay.PathError{Path: key, Err: replay.ErrConflict,
		Msg: fmt.Sprintf("lines %s changed since your read (version %s, now %s). As you read them:\n%sNow, around there:\n%s",
			rangeText(r.start, r.end), v.read.Short(), f.ID.Short(), excerpt(base, r.start, r.end), excerpt(f.Data, near, r.end+2)),
		Hint: "read the file again and redo the edit against its current lines"}
}

func (rb *rebaser) ambiguous(amb []movedRange, key string, f *replay.File) error {
	v := rb.views[key]
	var msg, moves strings.Builder
	fmt.Fprintf(&msg, "your line numbers are ambiguous: you wrote this file after your last read (version %s), so they may count from your read or from now (%s).", v.read.Short(), f.ID.Short())
	for i, m := range amb {
		fmt.Fprintf(&msg, " %s of your read, now %s:\n%s%s as numbered now:\n%s",
			linesText(m.r.start, m.r.end, true), linesText(m.a, m.b, false), excerpt(f.Data, m.a, m.b), linesText(m.r.start, m.r.end, true), excerpt(f.Data, m.r.start, m.r.end))
		if i > 0 {
			moves.WriteString(", ")
		}
		fmt.Fprintf(&moves, "%s of your read are %s now", rangeText(m.r.start, m.r.end), rangeText(m.a, m.b))
	}
	err := &replay.PathError{Path: key, Err: replay.ErrConflict, Msg: msg.String(),
		Hint: fmt.Sprintf("retry targets the lines you read (where they are now): send it if that is what you meant; if you meant the lines as numbered now, send your call again with %s; or read the file again", pinArg(amb[0].r, f.ID))}
	args, ok := rb.retryArgs(amb, f.ID)
	if !ok {
		return err
	}
	return withRetry(err, args, fmt.Sprintf("lines %s; expected_version pins the current version", moves.String()))
}

// pinArg says how to pin the current version in the call of r.
func pinArg(r lineRange, cur snapshot.ID) string {
	if r.op >= 0 {
		return fmt.Sprintf("expected_versions {%q: %q}", r.path, cur.Short())
	}
	return fmt.Sprintf("expected_version %q", cur.Short())
}

// retryArgs returns the call's arguments with the moved lines corrected
// and the file's current version expected.
func (rb *rebaser) retryArgs(amb []movedRange, cur snapshot.ID) (map[string]any, bool) {
	args, ok := rb.c.inputArgs()
	if !ok {
		return nil, false
	}
	for _, m := range amb {
		target := args
		if m.r.op >= 0 {
			list, ok := args["ops"].([]any)
			if !ok || m.r.op >= len(list) {
				return nil, false
			}
			if target, ok = list[m.r.op].(map[string]any); !ok {
				return nil, false
			}
			ev, _ := args["expected_versions"].(map[string]any)
			if ev == nil {
				ev = map[string]any{}
			}
			ev[m.r.path] = cur.Short()
			args["expected_versions"] = ev
		} else {
			args["expected_version"] = cur.Short()
		}
		target[m.r.argStart] = m.a
		if m.r.argEnd != "" {
			if _, ok := target[m.r.argEnd]; ok {
				target[m.r.argEnd] = m.b
			}
		}
	}
	return args, true
}
