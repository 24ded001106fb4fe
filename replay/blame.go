package replay

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/aymanbagabas/go-udiff/lcs"
	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/snapshot"
)

// Blame: for every line of a file as it was right after an event (the
// newest, by default), the event that wrote it — `journal blame`, the web
// view, and the git notes (package replay/gitai, through BlameContent). It
// reads the journal only: the file's events through the path index, their
// contents from the store. The rules are in doc.go, "Blame by content".

// MaxBlameBytes bounds the versions Blame reads: a larger one is refused.
const MaxBlameBytes = 8 << 20

// ErrBinary means a file holds binary data (a NUL byte): it has no lines to
// blame.
var ErrBinary = errors.New("binary file")

// BlameLine is one line of the file and the event that last changed it.
type BlameLine struct {
	Text []byte // the line, with its end (\n or \r\n) if it has one
	Seq  uint64 // 0: older than the journal's history of the file; Unjournaled
}

// Unjournaled is the Seq of a line changed on disk since the journal last
// saw the file (Blame.OnDisk): no event has recorded it yet.
const Unjournaled = ^uint64(0)

// Blame is a file's blame.
type Blame struct {
	Path    string // the journal's key of the file
	At      uint64 // the event the file is shown right after
	Content snapshot.ID
	Lines   []BlameLine
	// Events are the events Lines name, by number.
	Events map[uint64]*journal.Event
}

// blameStep is one version change of the file's history, oldest first.
type blameStep struct {
	ev     *journal.Event
	path   string      // the file's path in ev (its new one, for a move)
	before snapshot.ID // the version it changed (a moved file's old path's)
	after  snapshot.ID
}

// BlameTx blames the file key (a journal path key) as it was right after
// event at (0: the newest event), reading through tx. A file that did not
// exist then, or was never journaled, is ErrNotFound; one that was binary
// then (a NUL byte) is ErrBinary; a version over MaxBlameBytes is refused.
func BlameTx(tx *journal.Tx, key string, at uint64) (*Blame, error) {
	if at == 0 {
		at = tx.Last()
	}
	steps, err := blameHistory(tx, key, at, tx.Event)
	if err != nil {
		return nil, err
	}
	if steps[len(steps)-1].after.IsZero() {
		return nil, fmt.Errorf("%s did not exist after event %d (event %d deleted it): %w", key, at, steps[len(steps)-1].ev.Seq, journal.ErrNotFound)
	}
	r := newBlameReplay()
	if err := r.remember(tx, steps, key, at, tx.Event); err != nil {
		return nil, err
	}
	if err := r.run(tx, steps); err != nil {
		return nil, err
	}
	if r.binary {
		return nil, fmt.Errorf("%s after event %d: %w", key, at, ErrBinary)
	}
	if r.gone {
		by, _ := tx.Redacted(r.cur)
		return nil, fmt.Errorf("%s after event %d: its content was taken out of the journal by redact event %d: %w", key, at, by, journal.ErrRedacted)
	}
	return r.blame(key, at, r.cur, r.text, r.owners), nil
}

// BlameContent blames data, a version of the file key that the journal may
// or may not hold (a commit's blob): each line is owned by the event that
// wrote that content, by the rules of "Blame by content" (doc.go), and a
// line the journal cannot prove is owned by event 0. The histories of the
// paths also (a rename git reports: the old path) count as the file's. A
// file the journal never held is ErrNotFound; data with a NUL byte is
// ErrBinary; data over MaxBlameBytes is refused.
func BlameContent(tx *journal.Tx, key string, data []byte, also ...string) (*Blame, error) {
	return NewBlamer(tx).Content(key, data, also...)
}

// Blamer blames several files through one transaction, reading an event
// that many of their histories share (a checkout of a thousand files is
// one event) once.
type Blamer struct {
	tx     *journal.Tx
	shared map[uint64]*journal.Event // events of sharedFiles files or more, by number
}

// sharedFiles is the size from which a Blamer keeps an event it read: the
// events worth keeping are the large ones, and they are few.
const sharedFiles = 16

// NewBlamer returns a Blamer reading through tx; it is valid while tx is.
func NewBlamer(tx *journal.Tx) *Blamer { return &Blamer{tx: tx, shared: map[uint64]*journal.Event{}} }

func (bl *Blamer) event(seq uint64) (*journal.Event, error) {
	if e, ok := bl.shared[seq]; ok {
		return e, nil
	}
	e, err := bl.tx.Event(seq)
	if err == nil && len(e.Files) >= sharedFiles {
		bl.shared[seq] = e
	}
	return e, err
}

// Content is BlameContent through the Blamer's transaction.
func (bl *Blamer) Content(key string, data []byte, also ...string) (*Blame, error) {
	tx := bl.tx
	if len(data) > MaxBlameBytes {
		return nil, fmt.Errorf("%s: %d bytes, over the %d bytes blame reads", key, len(data), MaxBlameBytes)
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return nil, fmt.Errorf("%s: %w", key, ErrBinary)
	}
	at := tx.Last()
	r := newBlameReplay()
	found := false
	var base *blameReplay // the key's own newest state, the one data is diffed against
	// The old paths first: the file's own history, made by an outside
	// change that put the old path's content here (a move the journal saw
	// as a delete and a create), then reads it from the memory they left.
	paths := append(slices.Clone(also), key)
	own, ownErr := blameHistory(tx, key, at, bl.event) // read once: for besideCreates and the replay
	if ownErr == nil {
		extra, err := besideCreates(own, key, at, bl.event)
		if err != nil {
			return nil, err
		}
		paths = append(extra, paths...)
	} else if !errors.Is(ownErr, journal.ErrNotFound) {
		return nil, ownErr
	}
	for i, path := range paths {
		steps, err := own, ownErr
		if i != len(paths)-1 {
			steps, err = blameHistory(tx, path, at, bl.event)
		}
		if errors.Is(err, journal.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		found = true
		pr := newBlameReplay()
		pr.mem = r.mem // one memory across the paths
		if err := pr.run(tx, steps); err != nil {
			return nil, err
		}
		for seq, ev := range pr.events {
			r.events[seq] = ev
		}
		if usable := !pr.binary && (!pr.gone || pr.red != nil) && !pr.cur.IsZero(); usable && (i == len(paths)-1 || base == nil) {
			base = pr // the key's own newest state, else an old path's
		}
	}
	if !found {
		return nil, fmt.Errorf("%s has no journaled version: %w", key, journal.ErrNotFound)
	}
	id := snapshot.Sum(data)
	text := splitLines(string(data))
	var owners []uint64
	if runs, ok := r.mem.versions[id]; ok {
		owners = runs.expand(len(text))
	}
	if owners == nil {
		var bt, ct []string
		var bo []uint64
		ct = text
		if base != nil {
			bt, bo, ct = base.text, base.owners, base.compared(text)
		}
		owners = blameDiff(bo, bt, ct, Unjournaled)
		r.mem.restore(text, owners, Unjournaled)
		for i, o := range owners {
			if o == Unjournaled {
				owners[i] = 0 // new to the journal: nothing proves who wrote it
			}
		}
	}
	return r.blame(key, at, id, text, owners), nil
}

// blameReplay replays a file's history oldest first: the lines of the
// current version, their owners, and the memory of every version and line
// the history held.
type blameReplay struct {
	text   []string
	owners []uint64
	cur    snapshot.ID
	binary bool // the last version read is binary: it has no lines
	gone   bool // the last version was taken out by a redaction
	// red is the record of the current version when a redaction took it
	// out (redactlines.go): text is then its lines' placeholders.
	red    *redactedLines
	mem    *blameMemory
	events map[uint64]*journal.Event
	// seen, if set, is told every version the replay reaches, its lines
	// and their owners (a redaction records them, redactlines.go).
	seen func(id snapshot.ID, text []string, owners []uint64)
}

func newBlameReplay() *blameReplay {
	return &blameReplay{mem: newBlameMemory(), events: map[uint64]*journal.Event{}}
}

// blame returns the Blame of the replayed lines text (owners), with the
// events they name.
func (r *blameReplay) blame(key string, at uint64, id snapshot.ID, text []string, owners []uint64) *Blame {
	b := &Blame{Path: key, At: at, Content: id, Lines: make([]BlameLine, len(text)), Events: map[uint64]*journal.Event{}}
	for i, t := range text {
		b.Lines[i] = BlameLine{Text: []byte(t), Seq: owners[i]}
		if owners[i] != 0 {
			b.Events[owners[i]] = r.events[owners[i]]
		}
	}
	return b
}

// run replays steps. The versions are read on one goroutine, hashed whole
// (verified) on another, and split and diffed on this one: each of the
// three takes about a third of the time.
func (r *blameReplay) run(tx *journal.Tx, steps []blameStep) error {
	type version struct {
		data   []byte
		binary bool
		gone   bool // taken out by a redaction: its lines are not known
		err    error
	}
	vch, stop := make(chan version, 8), make(chan struct{})
	hch, bad := make(chan version, 8), make(chan error, 1)
	// The reader reads through tx: run returns (and its caller may end tx)
	// only once it has stopped.
	var reading sync.WaitGroup
	defer reading.Wait()
	defer close(stop)
	reading.Add(1)
	go func() { // the reader
		defer reading.Done()
		defer close(vch)
		defer close(hch)
		vs := snapshot.NewVersions(tx.Bolt())
		send := func(id snapshot.ID) bool {
			data, binary, err := blameBytes(vs, id)
			gone := false
			if err != nil && !id.IsZero() {
				if _, ok := tx.Redacted(id); ok {
					data, binary, err, gone = nil, false, nil, true
				}
			}
			select {
			case vch <- version{data, binary, gone, err}:
			case <-stop:
				return false
			}
			if err == nil && !id.IsZero() {
				select {
				case hch <- version{data: data, gone: gone}:
				case <-stop:
					return false
				}
			}
			return err == nil
		}
		for i, s := range steps {
			if (i == 0 || s.before != steps[i-1].after) && !send(s.before) {
				return
			}
			if !send(s.after) {
				return
			}
		}
	}()
	go func() { // the verifier: the same versions, in the same order
		var err error
		for i, s := range steps {
			ids := []snapshot.ID{s.after}
			if i == 0 || s.before != steps[i-1].after {
				ids = []snapshot.ID{s.before, s.after}
			}
			for _, id := range ids {
				if id.IsZero() {
					continue
				}
				v, ok := <-hch
				if !ok {
					bad <- err
					return
				}
				if err == nil && !v.gone && snapshot.Sum(v.data) != id {
					err = fmt.Errorf("version %s: content hash mismatch: %w", id.Short(), snapshot.ErrCorrupt)
				}
			}
		}
		bad <- err
	}()
	gap := false // the version before was redacted: what changed since is not known
	// redacted moves the replay to redacted version id: to its record's
	// placeholders and owners if the key reads one (a record with lines
	// it has no digest of is still a gap), else to a gap.
	var hist map[uint64]bool // the events of this history, read once a record needs them
	redacted := func(id snapshot.ID, path string) {
		rec := r.mem.redacted(tx, id, path)
		if rec != nil && !rec.own {
			// a record of the content alone (an earlier binary's) holds
			// the owners of the first file that had it: only where each
			// owner is an event of this file's history are they its
			if hist == nil {
				hist = map[uint64]bool{}
				for _, s := range steps {
					hist[s.ev.Seq] = true
				}
			}
			for _, l := range rec.lines {
				if l.owner != 0 && !hist[l.owner] {
					rec = nil // another file's owners: a gap, as without a record
					break
				}
			}
		}
		r.text, r.owners, r.cur, r.red, gap = nil, nil, id, rec, true
		if rec == nil {
			return
		}
		for i, l := range rec.lines { // an owner a gc dropped since proves nothing
			if _, ok := r.events[l.owner]; !ok && l.owner != 0 {
				if ev, err := tx.Event(l.owner); err == nil {
					r.events[l.owner] = ev
				} else {
					rec.lines[i].owner = 0
				}
			}
		}
		r.text, r.owners, gap = rec.placeholders(), rec.owners(), rec.partial()
		r.mem.rememberRedacted(id, rec)
	}
	next := func() ([]string, error) {
		v, ok := <-vch
		if !ok {
			return nil, errors.New("replay: blame: a version went missing")
		}
		if r.binary = v.binary; v.err != nil || r.binary {
			return nil, v.err
		}
		if v.gone {
			return nil, errGone
		}
		return splitLines(string(v.data)), nil
	}
	for i, s := range steps {
		r.events[s.ev.Seq] = s.ev
		if i == 0 || s.before != r.cur {
			// the first version, or one reached outside the file's history
			// (what changed in between has no event): no event wrote its
			// lines but those the memory proves
			before, err := next()
			switch {
			case errors.Is(err, errGone):
				redacted(s.before, s.path)
			case err != nil:
				return err
			default:
				r.step(before, s.before, 0, true)
			}
		}
		after, err := next()
		switch {
		case errors.Is(err, errGone):
			redacted(s.after, s.path)
		case err != nil:
			return err
		case gap:
			// after a redacted version, the lines no event can be said to
			// have written are owned by none (0), but those the memory
			// proves: a redaction hides who wrote a line, never names
			// another author for it
			if r.red == nil {
				r.text, r.owners = nil, nil
			}
			r.step(after, s.after, 0, true)
			gap = false
		default:
			r.step(after, s.after, s.ev.Seq, restores(s.ev))
		}
	}
	r.gone = gap || r.red != nil
	return <-bad
}

// errGone is a version a redaction took out of the store.
var errGone = errors.New("replay: blame: version redacted")

// step moves the replay to version id (its lines text), written by event
// seq: lines it shares with the current version keep their owners, the
// others are seq's — unless seq only put content back (restoring) and the
// memory proves who wrote it.
func (r *blameReplay) step(text []string, id snapshot.ID, seq uint64, restoring bool) {
	var owners []uint64
	if runs, ok := r.mem.versions[id]; ok && restoring && !id.IsZero() {
		owners = runs.expand(len(text))
	}
	fresh := owners == nil
	if fresh {
		owners = blameDiff(r.owners, r.text, r.compared(text), seq)
		if restoring {
			r.mem.restore(text, owners, seq)
		}
	}
	r.mem.remember(id, text, owners, seq, fresh)
	r.text, r.owners, r.cur, r.red = text, owners, id, nil
	if r.seen != nil {
		r.seen(id, text, owners)
	}
}

// compared returns text as it is compared with the current version: as it
// is, or, when that version was redacted (r.red), each line the version
// held as its placeholder — by its keyed digest.
func (r *blameReplay) compared(text []string) []string {
	if r.red == nil {
		return text
	}
	held := map[string]bool{}
	for _, p := range r.text {
		held[p] = true
	}
	out := make([]string, len(text))
	for i, t := range text {
		out[i] = t
		if p := "\x00r" + string(r.mem.digest(t)); held[p] {
			out[i] = p
		}
	}
	return out
}

// restores reports whether an event's changed lines may be content it put
// back rather than wrote: a change seen outside the tools (git checkout,
// stash, reset, a shell command — whoever ran it), a revert, undo, redo or
// restore. A tool's edit (an agent's call, a person's CLI edit) wrote what
// it changed: its lines are its own.
func restores(ev *journal.Event) bool {
	switch ev.Kind {
	case journal.KindObserve, journal.KindRevert, journal.KindUndo, journal.KindRedo, journal.KindRestore:
		return true
	}
	// edit_move_text writes no text of its own: the lines it moved are
	// their writers' (the source path's history is in the memory:
	// besideCreates)
	return ev.Kind == journal.KindApply && ev.Tool == toolMoveText
}

// blameMemory is what a file's history held: every version's owners (run
// length encoded) and, for every line text, who wrote it — one owner, or
// several (then the text alone proves nothing).
type blameMemory struct {
	versions map[snapshot.ID]ownerRuns
	lines    map[string]lineOwner
	runs     int // runs held in versions, bounded by maxMemoryRuns
	// digests is, by keyed digest, who wrote the lines of redacted
	// versions (redactlines.go); key computes them, read once (keyRead).
	digests map[string]lineOwner
	key     *lineKey
	keyRead bool
}

// maxMemoryRuns bounds the owners a blame remembers per version (about
// 16 bytes each); past it, versions are no longer remembered whole (lines
// still are).
const maxMemoryRuns = 1 << 20

type lineOwner struct {
	seq  uint64
	many bool
}

// ownerRuns is a version's owners, run-length encoded.
type ownerRuns []ownerRun

type ownerRun struct {
	seq uint64
	n   int
}

func (rs ownerRuns) expand(n int) []uint64 {
	out := make([]uint64, 0, n)
	for _, r := range rs {
		for k := 0; k < r.n; k++ {
			out = append(out, r.seq)
		}
	}
	if len(out) != n {
		return nil
	}
	return out
}

func newBlameMemory() *blameMemory {
	return &blameMemory{versions: map[snapshot.ID]ownerRuns{}, lines: map[string]lineOwner{}}
}

// remember records version id (text, owners); the lines seq wrote (all of
// them when fresh is false and the version was restored whole, none new)
// join the line memory.
func (m *blameMemory) remember(id snapshot.ID, text []string, owners []uint64, seq uint64, fresh bool) {
	if !id.IsZero() {
		m.version(id, owners)
	}
	if !fresh {
		return // a version restored whole: its lines are remembered already
	}
	add := func(k string, o uint64) { addOwner(m.lines, k, o) }
	for i, t := range text {
		o := owners[i]
		if o != seq && seq != 0 {
			continue // kept from before, or restored: remembered already
		}
		addOwner(m.lines, t, o)
		if !distinctive(t) {
			if i > 0 {
				add(pairAfter(text[i-1], t), o)
			}
			if i+1 < len(text) {
				add(pairBefore(t, text[i+1]), o)
			}
		}
	}
}

// restore gives the lines of text that seq wrote (owners[i] == seq) back
// to the one owner the memory holds for their exact text: a distinctive
// line by its own text; any other line (a brace, a blank line: every file
// has them) only where it stood beside the line next to it now, with that
// owner, and that neighbour is restored to the same owner.
func (m *blameMemory) restore(text []string, owners []uint64, seq uint64) {
	changed := make([]bool, len(text))
	for i := range text {
		changed[i] = owners[i] == seq
	}
	// A text (or trivial line beside its neighbour) the change kept is
	// still in the file: a changed copy of it is a new copy, not one put
	// back, and stays the change's (a second function with the same body).
	kept := map[string]bool{}
	for i, t := range text {
		if changed[i] {
			continue
		}
		kept[t] = true
		if i > 0 && !changed[i-1] {
			kept[pairAfter(text[i-1], t)] = true
		}
		if i+1 < len(text) && !changed[i+1] {
			kept[pairBefore(t, text[i+1])] = true
		}
	}
	for i, t := range text {
		if changed[i] && distinctive(t) && !kept[t] {
			if l, ok := m.line(t); ok && !l.many {
				owners[i] = l.seq
			}
		}
	}
	for i := range text { // a trivial line after its neighbour
		if changed[i] && owners[i] == seq && i > 0 && !distinctive(text[i]) {
			if l, ok := m.lines[pairAfter(text[i-1], text[i])]; ok && !kept[pairAfter(text[i-1], text[i])] && !l.many && owners[i-1] == l.seq && l.seq != seq {
				owners[i] = l.seq
			}
		}
	}
	for i := len(text) - 1; i >= 0; i-- { // a trivial line before its neighbour
		if changed[i] && owners[i] == seq && i+1 < len(text) && !distinctive(text[i]) {
			if l, ok := m.lines[pairBefore(text[i], text[i+1])]; ok && !kept[pairBefore(text[i], text[i+1])] && !l.many && owners[i+1] == l.seq && l.seq != seq {
				owners[i] = l.seq
			}
		}
	}
}

// version remembers the owners of version id, unless it is remembered or
// the memory is full (maxMemoryRuns).
func (m *blameMemory) version(id snapshot.ID, owners []uint64) {
	if _, ok := m.versions[id]; ok || m.runs >= maxMemoryRuns {
		return
	}
	var rs ownerRuns
	for _, o := range owners {
		if len(rs) > 0 && rs[len(rs)-1].seq == o {
			rs[len(rs)-1].n++
		} else {
			rs = append(rs, ownerRun{o, 1})
		}
	}
	m.versions[id] = rs
	m.runs += len(rs)
}

// addOwner records in mem that o wrote the line (or pair) k.
func addOwner(mem map[string]lineOwner, k string, o uint64) {
	if l, ok := mem[k]; !ok {
		mem[k] = lineOwner{seq: o}
	} else if l.seq != o && !l.many {
		mem[k] = lineOwner{seq: l.seq, many: true}
	}
}

// line returns who the memory holds wrote the text t: by its text, and by
// its digest if a redacted version held it; two different owners are
// many.
func (m *blameMemory) line(t string) (lineOwner, bool) {
	l, ok := m.lines[t]
	if len(m.digests) == 0 {
		return l, ok
	}
	d, dok := m.digests[m.digest(t)]
	switch {
	case !dok:
		return l, ok
	case !ok:
		return d, true
	case l.many || d.many || l.seq != d.seq:
		return lineOwner{seq: l.seq, many: true}, true
	}
	return l, true
}

// redacted returns the record of redacted version id of the file at path
// the journal's line key reads (redactedLinesOf), or nil.
func (m *blameMemory) redacted(tx *journal.Tx, id snapshot.ID, path string) *redactedLines {
	if !m.keyRead {
		m.key, _ = readLineKey(tx.Path(), false) // an unreadable key proves nothing
		m.keyRead = true
	}
	return redactedLinesOf(tx.Bolt(), m.key, id, path)
}

// digest is a line's keyed digest, as the memory keys it; only called
// once a record was read (m.key is set).
func (m *blameMemory) digest(t string) string {
	d := m.key.digest(t)
	return string(d[:])
}

// rememberRedacted records redacted version id by its record: its owners,
// and who wrote each line it has a digest of.
func (m *blameMemory) rememberRedacted(id snapshot.ID, rec *redactedLines) {
	m.version(id, rec.owners())
	if m.digests == nil {
		m.digests = map[string]lineOwner{}
	}
	for _, l := range rec.lines {
		if l.known {
			addOwner(m.digests, string(l.digest[:]), l.owner)
		}
	}
}

// pairAfter and pairBefore key the memory of a trivial line t by the line
// before it (prev) or after it (next): its owner as it stood there. Lines
// hold no NUL (a text with one is binary), so the keys never meet a line's.
func pairAfter(prev, t string) string  { return "\x00a" + prev + "\x00" + t }
func pairBefore(t, next string) string { return "\x00b" + t + "\x00" + next }

// distinctive reports whether a line's text alone can prove where it came
// from: at least three characters besides white space, two of them letters
// or digits. A brace, "end", a blank line are common to every file.
func distinctive(line string) bool {
	n, an := 0, 0
	for _, c := range line {
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			continue
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c > 0x7f:
			an++
		}
		n++
	}
	return n >= 3 && an >= 2
}

// OnDisk returns the blame of the file as it is on disk (data), from b, the
// blame of the journal's newest version of it: lines the file shares with
// that version keep their events, the others are Unjournaled — as git blame
// shows a working copy's lines "Not Committed Yet". data with a NUL byte is
// ErrBinary.
func (b *Blame) OnDisk(data []byte) (*Blame, error) {
	if bytes.IndexByte(data, 0) >= 0 {
		return nil, fmt.Errorf("%s on disk: %w", b.Path, ErrBinary)
	}
	a := make([]string, len(b.Lines))
	owners := make([]uint64, len(b.Lines))
	for i, l := range b.Lines {
		a[i], owners[i] = string(l.Text), l.Seq
	}
	text := splitLines(string(data))
	owners = blameDiff(owners, a, text, Unjournaled)
	d := &Blame{Path: b.Path, At: b.At, Content: snapshot.Sum(data), Lines: make([]BlameLine, len(text)), Events: map[uint64]*journal.Event{}}
	for i, t := range text {
		d.Lines[i] = BlameLine{Text: []byte(t), Seq: owners[i]}
		if e := b.Events[owners[i]]; e != nil {
			d.Events[owners[i]] = e
		}
	}
	return d, nil
}

// blameHistory returns the committed changes of the file key up to event
// at (read by event), oldest first: every life of it the journal holds (a file deleted and
// made again has its earlier lives too: their lines are what the memory
// proves), through moves to the old path's history. The last step may have
// deleted the file.
func blameHistory(tx *journal.Tx, key string, at uint64, event func(seq uint64) (*journal.Event, error)) ([]blameStep, error) {
	var steps []blameStep
	path, below := key, at+1
	for path != "" {
		next := ""
		err := tx.EachIndexedSeq("path", path, func(seq uint64) error {
			if seq >= below {
				return nil
			}
			ev, err := event(seq)
			if err != nil {
				return err
			}
			if ev.Status != journal.StatusCommitted {
				return nil
			}
			f, ok := ev.File(path)
			if !ok {
				return nil
			}
			s := blameStep{ev: ev, path: path, before: f.Before, after: f.After}
			if f.MovedFrom != "" && f.Before.IsZero() {
				if old, ok := ev.File(f.MovedFrom); ok {
					s.before = old.Before
					next, below = f.MovedFrom, ev.Seq
				}
			} else if f.Before.IsZero() && !f.After.IsZero() && ev.Kind == journal.KindObserve {
				q, d, err := movedHere(ev, path, f.After, below, event)
				if err != nil {
					return err
				}
				if q != "" {
					s.before = f.After // the old path's last version: the very content
					next, below = q, d
				} else if q, old := movedEdited(ev, path); q != "" {
					s.before = old // the old path's last version, edited on the way
					next, below = q, ev.Seq
				}
			}
			steps = append(steps, s)
			if next != "" {
				return journal.ErrStop // moved here
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		path = next
	}
	if len(steps) == 0 {
		return nil, fmt.Errorf("%s has no journaled version at event %d: %w", key, at, journal.ErrNotFound)
	}
	slices.Reverse(steps)
	return steps, nil
}

// remember fills r's memory with the histories of the paths besideCreates
// finds for steps (the file key's), before r replays steps.
func (r *blameReplay) remember(tx *journal.Tx, steps []blameStep, key string, at uint64, event func(uint64) (*journal.Event, error)) error {
	extra, err := besideCreates(steps, key, at, event)
	if err != nil {
		return err
	}
	for _, p := range extra {
		st, err := blameHistory(tx, p, at, event)
		if errors.Is(err, journal.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		pr := newBlameReplay()
		pr.mem = r.mem
		if err := pr.run(tx, st); err != nil {
			return err
		}
		for seq, ev := range pr.events {
			r.events[seq] = ev
		}
	}
	return nil
}

// toolMoveText is the MCP tool that moves text (ops.KindMove).
const toolMoveText = "edit_move_text"

// maxBeside bounds the paths besideCreates returns.
const maxBeside = 8

// besideCreates returns the paths outside changes deleted within movedNear
// events of an outside change that created the file (steps, its history),
// where no move explains the create: a move whose file changed on the way
// (a rebase applying a commit's edits through git's rename detection, a
// stash popped onto a renamed file) puts lines of the old path's history
// here, and the create's lines are read against their memory too — by
// exact text, one owner, as any restored line.
func besideCreates(steps []blameStep, key string, at uint64, event func(uint64) (*journal.Event, error)) ([]string, error) {
	var out []string
	for _, s := range steps {
		if s.ev.Kind == journal.KindApply && s.ev.Tool == toolMoveText {
			for _, g := range s.ev.Files { // the paths text was moved from
				if g.Path != key && !g.Before.IsZero() && !slices.Contains(out, g.Path) && len(out) < maxBeside {
					out = append(out, g.Path)
				}
			}
			continue
		}
		if s.ev.Kind != journal.KindObserve || !s.before.IsZero() || s.after.IsZero() {
			continue
		}
		for seq := s.ev.Seq - min(s.ev.Seq-1, movedNear); seq <= s.ev.Seq+movedNear && seq <= at; seq++ {
			e, err := event(seq)
			if errors.Is(err, journal.ErrNotFound) {
				continue
			}
			if err != nil {
				return nil, err
			}
			if e.Status != journal.StatusCommitted || e.Kind != journal.KindObserve {
				continue
			}
			for _, g := range e.Files {
				if g.Path != key && g.After.IsZero() && !g.Before.IsZero() && !slices.Contains(out, g.Path) && len(out) < maxBeside {
					out = append(out, g.Path)
				}
			}
		}
	}
	return out, nil
}

// movedEdited finds the path an outside change that created path moved it
// from while editing it on the way (`git mv a b && sed -i ... b` in one
// call): the event deleted exactly one path and created only this one. It
// returns that path and its last version; lines the two share keep their
// owners, as a tool's move with an edit.
func movedEdited(ev *journal.Event, path string) (q string, before snapshot.ID) {
	n := 0
	for _, g := range ev.Files {
		switch {
		case g.Path == path:
		case g.After.IsZero() && !g.Before.IsZero():
			q, before = g.Path, g.Before
			n++
		case g.Before.IsZero() && !g.After.IsZero():
			return "", snapshot.ID{} // another create: which came from where is not known
		}
	}
	if n != 1 {
		return "", snapshot.ID{}
	}
	return q, before
}

// movedNear is how many events before and after an outside create
// movedHere looks at for the delete of a move the journal saw as two
// changes (the watcher records what it sees in the order it settles).
const movedNear = 3

// movedHere finds the path an outside change that created path with
// content id moved it from: the one path whose delete, in the same event or
// one of the movedNear events before or after it (all below below), took
// away that very content — a move the journal recorded as a create and a
// delete. Exact content only: it returns "" when no path, or more than one,
// qualifies. d is the delete's event: the old path's history is the one
// before it.
func movedHere(ev *journal.Event, path string, id snapshot.ID, below uint64, event func(uint64) (*journal.Event, error)) (q string, d uint64, err error) {
	n := 0
	look := func(e *journal.Event) {
		for _, g := range e.Files {
			if g.Path != path && g.Before == id && g.After.IsZero() {
				q, d = g.Path, e.Seq
				n++
			}
		}
	}
	look(ev)
	for seq := ev.Seq - min(ev.Seq-1, movedNear); seq <= ev.Seq+movedNear && seq < below; seq++ {
		if seq == ev.Seq || seq == 0 {
			continue
		}
		e, err := event(seq)
		if errors.Is(err, journal.ErrNotFound) {
			continue
		}
		if err != nil {
			return "", 0, err
		}
		if e.Status == journal.StatusCommitted && e.Kind == journal.KindObserve {
			look(e)
		}
	}
	if n != 1 {
		return "", 0, nil
	}
	if d == ev.Seq {
		return q, ev.Seq, nil // the old path's history before this event
	}
	return q, d, nil
}

// blameDiff returns the owners of the lines b, given owners, those of the
// lines a: lines b shares with a keep their owner, the others are owned by
// seq.
func blameDiff(owners []uint64, a, b []string, seq uint64) []uint64 {
	if len(owners) != len(a) { // no blame of a yet: none of its lines has an owner
		owners = make([]uint64, len(a))
	}
	// Lines both share at their start and end keep their owners; the middle
	// is diffed.
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	out := make([]uint64, 0, len(b))
	out = append(out, owners[:pre]...)
	am, bm := a[pre:len(a)-suf], b[pre:len(b)-suf]
	i := 0 // next line of bm
	for _, d := range lcs.DiffLines(am, bm) {
		for ; i < d.ReplStart; i++ { // unchanged: the owner of the same line of am
			out = append(out, owners[pre+d.Start-(d.ReplStart-i)])
		}
		for ; i < d.ReplEnd; i++ {
			out = append(out, seq)
		}
	}
	for ; i < len(bm); i++ {
		out = append(out, owners[pre+len(am)-(len(bm)-i)])
	}
	return append(out, owners[len(a)-suf:]...)
}

// blameBytes returns a stored version (none for the zero ID), its chunks
// verified, not the whole (BlameTx hashes it beside), and whether it is
// binary (a NUL byte): a binary version has no lines, and the lines of the
// text version after it are all that version's event's.
func blameBytes(vs *snapshot.Versions, id snapshot.ID) ([]byte, bool, error) {
	if id.IsZero() {
		return nil, false, nil
	}
	n, err := vs.Size(id)
	if err != nil {
		return nil, false, fmt.Errorf("version %s: %w", id.Short(), err)
	}
	if n > MaxBlameBytes {
		return nil, false, fmt.Errorf("version %s is %d bytes, over the %d bytes blame reads", id.Short(), n, MaxBlameBytes)
	}
	data, err := vs.Assemble(id)
	if err != nil {
		return nil, false, fmt.Errorf("version %s: %w", id.Short(), err)
	}
	return data, bytes.IndexByte(data, 0) >= 0, nil
}
