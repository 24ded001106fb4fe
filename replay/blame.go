package replay

import (
	"bytes"
	"errors"
	"fmt"
	"sync"

	"github.com/aymanbagabas/go-udiff/lcs"
	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/snapshot"
)

// Blame: for every line of a file as it was right after an event (the
// newest, by default), the event that last changed it — `journal blame`,
// and later the web view. It reads the journal only: the file's events
// through the path index, their contents from the store.
//
// The file's versions are replayed oldest first: the version an event left
// is diffed, line by line, against the one before it (lcs over the lines
// between the texts' common first and last lines), and the lines the event
// inserted or replaced are its; the others keep theirs. So a revert, an undo
// or a restore owns the lines it put back, as a commit that reverts does in
// git; a line changed outside any tool is owned by the observe event that
// recorded the change; a move (MovedFrom) carries the lines over from the old
// path's history; a file deleted and made again starts afresh. Only committed
// events count. Lines older than what the journal holds — a file that
// existed before it was first journaled, or history a gc dropped — are
// owned by event 0.

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
	steps, err := blameHistory(tx, key, at)
	if err != nil {
		return nil, err
	}
	b := &Blame{Path: key, At: at, Events: map[uint64]*journal.Event{}}
	// The versions are read on one goroutine, hashed whole (verified) on
	// another, and split and diffed on this one: each of the three takes
	// about a third of the time.
	type version struct {
		data   []byte
		binary bool
		err    error
	}
	vch, stop := make(chan version, 8), make(chan struct{})
	hch, bad := make(chan version, 8), make(chan error, 1)
	// The reader reads through tx: BlameTx returns (and its caller may end
	// tx) only once it has stopped.
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
			select {
			case vch <- version{data, binary, err}:
			case <-stop:
				return false
			}
			if err == nil && !id.IsZero() {
				select {
				case hch <- version{data: data}:
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
				if err == nil && snapshot.Sum(v.data) != id {
					err = fmt.Errorf("version %s: content hash mismatch: %w", id.Short(), snapshot.ErrCorrupt)
				}
			}
		}
		bad <- err
	}()
	binary := false // the last version read is binary: it has no lines
	next := func() ([]string, error) {
		v, ok := <-vch
		if !ok {
			return nil, errors.New("replay: blame: a version went missing")
		}
		if binary = v.binary; v.err != nil || binary {
			return nil, v.err
		}
		return splitLines(string(v.data)), nil
	}
	var owners []uint64 // the owner of each line of cur
	var text []string   // the lines of cur
	var cur snapshot.ID
	for i, s := range steps {
		if i == 0 || s.before != cur {
			// the first version, or one reached outside the file's history
			// (what changed in between has no event): its lines are owned
			// by no event
			before, err := next()
			if err != nil {
				return nil, err
			}
			owners, text = blameDiff(owners, text, before, 0), before
		}
		after, err := next()
		if err != nil {
			return nil, err
		}
		owners, text, cur = blameDiff(owners, text, after, s.ev.Seq), after, s.after
	}
	if err := <-bad; err != nil {
		return nil, err
	}
	if binary {
		return nil, fmt.Errorf("%s after event %d: %w", key, at, ErrBinary)
	}
	b.Content = cur
	b.Lines = make([]BlameLine, len(text))
	for i, t := range text {
		b.Lines[i] = BlameLine{Text: []byte(t), Seq: owners[i]}
	}
	bySeq := make(map[uint64]*journal.Event, len(steps))
	for _, s := range steps {
		bySeq[s.ev.Seq] = s.ev
	}
	for _, l := range b.Lines {
		if l.Seq != 0 {
			b.Events[l.Seq] = bySeq[l.Seq]
		}
	}
	return b, nil
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

// blameHistory returns the committed changes that made the file key what it
// was after event at, oldest first: back to the event that made it (or to
// the oldest the journal holds), through moves to the old path's history.
func blameHistory(tx *journal.Tx, key string, at uint64) ([]blameStep, error) {
	var steps []blameStep
	path, below := key, at+1
	for path != "" {
		next := ""
		err := tx.EachIndexed("path", path, func(ev *journal.Event) error {
			if ev.Seq >= below || ev.Status != journal.StatusCommitted {
				return nil
			}
			f, ok := ev.File(path)
			if !ok {
				return nil
			}
			if len(steps) == 0 && f.After.IsZero() {
				return fmt.Errorf("%s did not exist after event %d (event %d deleted it): %w", key, at, ev.Seq, journal.ErrNotFound)
			}
			s := blameStep{ev: ev, before: f.Before, after: f.After}
			if f.MovedFrom != "" && f.Before.IsZero() {
				if old, ok := ev.File(f.MovedFrom); ok {
					s.before = old.Before
					next, below = f.MovedFrom, ev.Seq
				}
			}
			steps = append(steps, s)
			if s.before.IsZero() || next != "" {
				return journal.ErrStop // made here, or moved here
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
	for i, j := 0, len(steps)-1; i < j; i, j = i+1, j-1 {
		steps[i], steps[j] = steps[j], steps[i]
	}
	return steps, nil
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
