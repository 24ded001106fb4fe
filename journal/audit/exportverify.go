package audit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/snapshot"
)

// ExportReport is what VerifyExport found.
type ExportReport struct {
	Events   int         // event lines checked
	First    uint64      // first event number
	Last     uint64      // last event number
	Head     snapshot.ID // the head line's hash
	Base     snapshot.ID // the first event's predecessor
	Filtered bool        // the export was filtered: completeness cannot be proven
	Anchored uint64      // the event whose hash matched the anchor (0: no anchor given)
	Bytes    int64       // bytes read
	// Workspace is the head's; Checkpoints are the head's and those given,
	// opened, smallest tree first (signatures checked when
	// ExportCheck.Keys were given).
	Workspace   string
	Checkpoints []*Checkpoint
	// Tree is what the check of the checkpoints found (nil: the export
	// has none and none were given, or it is filtered).
	Tree *TreeReport
	// Leaves are the chain hashes of the export's events by leaf (zero for
	// a number no event holds): a reference for a later export.
	Leaves []snapshot.ID
	// TreeBase is the event before the tree's first leaf.
	TreeBase uint64
	// Redacted are the events whose arguments a redact event took out of
	// the journal; Withheld those whose arguments the export left out
	// (detected secrets; export --reveal includes them). Their digests
	// still verify.
	Redacted, Withheld []uint64
	// Redactions are the export's redact events.
	Redactions []uint64
	// Unsalted are the events written before salting whose arguments a
	// redact event took out: their hash could not be recomputed, their
	// links were checked.
	Unsalted []uint64
}

// ExportCheck says what CheckExport checks beyond the chain.
type ExportCheck struct {
	// Anchor, when not zero, must be some event's hash (or the head's).
	Anchor snapshot.ID
	// Progress, if not nil, is called with the bytes read so far.
	Progress func(bytes int64)
	// CheckOptions: the keys, earlier checkpoints and reference the
	// export's own checkpoints and events are checked against.
	CheckOptions
}

// ErrAnchor means the anchored hash is not in the export or journal: its tail
// was truncated, or it is not the journal the anchor was taken from.
var ErrAnchor = errors.New("journal: anchor not found")

// VerifyExport checks a jsonl export on its own, without the database: every
// line must be exactly what ExportLine derives from its hashed "event" JSON,
// blake3 of that JSON must be the line's hash, each event's prev must be the
// previous line's hash and the numbers must follow without gaps (unless the
// head line says the export is filtered), and the head line must close it.
// With a non-zero anchor, some event's hash (or the head) must equal it. The
// first bad line is named in the error, which wraps ErrCorrupt or ErrAnchor.
func VerifyExport(r io.Reader, anchor snapshot.ID, progress func(bytes int64)) (*ExportReport, error) {
	return CheckExport(r, ExportCheck{Anchor: anchor, Progress: progress})
}

// CheckExport is VerifyExport, then the check of the head's checkpoints
// and those o gives against the Merkle tree recomputed from the events
// (TreeCheck; signatures with o.Keys), and against o.Reference: the first
// event where the export parts from them is named, wrapping ErrRewritten,
// ErrCheckpoint or ErrTree. A filtered export's checkpoints cannot be
// recomputed: they are opened (and their signatures checked) only.
func CheckExport(r io.Reader, o ExportCheck) (*ExportReport, error) {
	anchor, progress := o.Anchor, o.Progress
	rep := &ExportReport{}
	var prev *ExportRecord
	var firstPrev snapshot.ID
	var gap error // a break in numbering or linking, fatal unless the export is filtered
	var head *ExportHead
	named := map[uint64]bool{} // events a redact event names
	line := 0
	bad := func(format string, a ...any) error {
		return fmt.Errorf("journal: export line %d: %s: %w", line, fmt.Sprintf(format, a...), journal.ErrCorrupt)
	}
	lines, stop := checkLines(r)
	defer stop()
	for c := range lines {
		line = c.line
		rep.Bytes += c.size
		if c.readErr != nil {
			return rep, fmt.Errorf("journal: export line %d: %w", line, c.readErr)
		}
		if head != nil {
			return rep, bad("data after the head line")
		}
		if c.err != nil {
			return rep, c.err
		}
		if c.head != nil {
			head = c.head
			continue
		}
		e := c.e
		if c.unsalted {
			rep.Unsalted = append(rep.Unsalted, e.Seq)
		}
		if e.ArgsDigest != nil {
			switch {
			case len(e.Args) > 0:
			case e.Withheld == WithheldSecret:
				rep.Withheld = append(rep.Withheld, e.Seq)
			default:
				rep.Redacted = append(rep.Redacted, e.Seq)
			}
		}
		if e.Kind == journal.KindRedact {
			rep.Redactions = append(rep.Redactions, e.Seq)
			for _, n := range e.RedactedEvents() {
				named[n] = true
			}
		}
		rec := &ExportRecord{Seq: e.Seq, Hash: e.Hash, next: e.NextLink()}
		switch {
		case prev == nil:
			firstPrev, rep.First = e.Prev, e.Seq
			if e.Lost != nil && e.Lost.First != 0 && e.Spans(e.Lost.First) {
				rep.First = e.Lost.First // a damaged event first: the chain starts at its span
			}
		case e.Seq <= prev.Seq:
			return rep, bad("event %d follows event %d (out of order)", e.Seq, prev.Seq)
		case (e.Seq == prev.Seq+1 || e.Spans(prev.Seq+1)) && e.Prev != prev.next:
			return rep, bad("event %d: prev %s is not the hash %s event %d links on", e.Seq, e.Prev.Short(), prev.next.Short(), prev.Seq)
		case gap == nil && e.Seq != prev.Seq+1 && !e.Spans(prev.Seq+1):
			gap = bad("event %d follows event %d (%d missing)", e.Seq, prev.Seq, e.Seq-prev.Seq-1)
		}
		if anchor == e.Hash {
			rep.Anchored = e.Seq
		}
		for uint64(len(rep.Leaves)) < e.Seq-rep.First { // numbers a damaged event spans
			rep.Leaves = append(rep.Leaves, snapshot.ID{})
		}
		rep.Leaves = append(rep.Leaves, e.Hash)
		prev = rec
		rep.Events++
		rep.Last = e.Seq
		if progress != nil {
			progress(rep.Bytes)
		}
	}
	line++
	switch {
	case head == nil:
		return rep, bad("no head line: the export was truncated")
	case head.Version != ExportVersion && head.Version != ExportVersionChain:
		return rep, bad("head line: format version %d unknown", head.Version)
	case head.Events != rep.Events || head.First != rep.First || head.Last != rep.Last:
		return rep, bad("head line says %d events (%d..%d), the export has %d (%d..%d)",
			head.Events, head.First, head.Last, rep.Events, rep.First, rep.Last)
	case prev != nil && head.Base != firstPrev:
		return rep, bad("head line: base %s is not the first event's prev %s", head.Base.Short(), firstPrev.Short())
	case prev != nil && head.BaseSeq != rep.First-1:
		return rep, bad("head line: base event %d, but the first event is %d", head.BaseSeq, rep.First)
	case gap != nil && !head.Filtered:
		return rep, gap
	case !head.Filtered && prev != nil && head.Head != prev.Hash:
		return rep, bad("head line: head %s is not the last event's hash %s", head.Head.Short(), prev.Hash.Short())
	}
	rep.Head, rep.Base, rep.Filtered = head.Head, head.Base, head.Filtered
	if !rep.Filtered {
		for _, n := range append(slices.Clone(rep.Redacted), rep.Unsalted...) {
			if !named[n] {
				return rep, fmt.Errorf("journal: export: event %d: arguments missing, and no redact event names it: %w", n, journal.ErrCorrupt)
			}
		}
	}
	if err := rep.checkTree(head, o.CheckOptions); err != nil {
		return rep, err
	}
	if !anchor.IsZero() && rep.Anchored == 0 {
		if prev == nil || anchor != firstPrev {
			return rep, fmt.Errorf("journal: anchor %s is not in the export (its tail was truncated, or it comes from another journal): %w",
				anchor.Short(), ErrAnchor)
		}
		rep.Anchored = head.BaseSeq
	}
	return rep, nil
}

// checkedLine is one line of an export checked on its own (checkLine).
type checkedLine struct {
	line     int   // its number, from 1
	size     int64 // its bytes
	readErr  error // reading it failed
	err      error // it is bad on its own (ErrCorrupt, naming the line)
	head     *ExportHead
	e        *journal.Event // an event line's event, its Hash set, its arguments disclosed
	unsalted bool           // an event written before salting whose arguments were redacted (splitUnsalted)
}

// checkLine checks one line of an export on its own: a head line decodes
// and is canonical; an event line holds an event whose blake3 is the line's
// hash (or an unsalted one's, splitUnsalted), its arguments matching their
// digest (disclose), and is exactly what ExportLine derives from it, of a
// sealed event.
// What relates a line to the others (order, links, the head) is the
// caller's.
func checkLine(b []byte, line int) checkedLine {
	c := checkedLine{line: line, size: int64(len(b))}
	bad := func(format string, a ...any) checkedLine {
		c.err = fmt.Errorf("journal: export line %d: %s: %w", line, fmt.Sprintf(format, a...), journal.ErrCorrupt)
		return c
	}
	if b[len(b)-1] != '\n' {
		return bad("torn line (the file was truncated)")
	}
	if bytes.HasPrefix(b, []byte(`{"type":"head"`)) {
		c.head = new(ExportHead)
		if err := json.Unmarshal(b, c.head); err != nil {
			return bad("head line does not decode: %v", err)
		}
		want, _ := json.Marshal(c.head)
		if !bytes.Equal(append(want, '\n'), b) {
			return bad("head line is not in canonical form")
		}
		return c
	}
	if !bytes.HasPrefix(b, []byte(`{"type":"event",`)) {
		return bad("not an event or head record")
	}
	hash, raw, ok := splitLine(b)
	if !ok {
		if hash, raw, c.unsalted = splitUnsalted(b); !c.unsalted {
			return bad("%s: no event whose blake3 is the line's hash", lineEvent(b))
		}
	}
	e, err := decodeEvent(raw)
	if err != nil {
		return bad("%s: hashed JSON does not decode: %v", lineEvent(b), err)
	}
	e.Hash = hash
	if c.unsalted {
		if e.ArgsDigest != nil || len(e.Args) > 0 {
			return bad("event %d: its blake3 is not the line's hash", e.Seq)
		}
		e.Withheld = WithheldUnsalted
	}
	if e.ArgsDigest != nil {
		if err := disclose(e, b); err != nil {
			return bad("%v", err)
		}
	}
	want, err := exportLine(e, raw)
	if err != nil || !bytes.Equal(want, b) {
		return bad("event %d: fields do not match the hashed event", e.Seq)
	}
	if e.Status == journal.StatusPending || e.Seq == 0 {
		return bad("event %d: not a sealed event", e.Seq)
	}
	c.e = e
	return c
}

// strictEvent decodes an event's JSON with json v2, refusing what encoding/json
// would read leniently: members not named exactly as the Event's fields
// (encoding/json matches them ignoring case), duplicate members (it takes
// the last), invalid UTF-8 (it replaces it).
var strictEvent = jsonv2.JoinOptions(jsonv2.RejectUnknownMembers(true))

// decodeEvent decodes an event's hashed JSON as encoding/json does.
// JSON v2 (github.com/go-json-experiment/json) decodes it in about half
// the time, and what it accepts under strictEvent it reads as
// encoding/json does (FuzzDecodeEvent holds it to that); anything else (an
// older binary's lenient JSON, a crafted one) is decoded by encoding/json,
// as before, so a line's verdict does not change.
func decodeEvent(raw []byte) (*journal.Event, error) {
	e := new(journal.Event)
	if jsonv2.Unmarshal(raw, e, strictEvent) == nil {
		return e, nil
	}
	e = new(journal.Event)
	if err := json.Unmarshal(raw, e); err != nil {
		return nil, err
	}
	return e, nil
}

// checkBatch is how many lines a worker of checkLines checks at a time.
const checkBatch = 128

// lineBatch is a run of lines, checked by one worker.
type lineBatch struct {
	lines   [][]byte
	first   int   // the number of lines[0]
	readErr error // after the lines, reading failed
	out     []checkedLine
	done    chan struct{} // closed once out is filled
}

// checkLines reads r's lines and checks each on its own (checkLine) on
// every core, in batches, yielding them in order: decoding and re-encoding
// an event line is most of an export's check, and lines do not depend on
// each other for it. stop ends the reading and the workers (the caller
// stopped early) and waits for them.
func checkLines(r io.Reader) (lines func(yield func(checkedLine) bool), stop func()) {
	workers := max(1, runtime.GOMAXPROCS(0))
	work := make(chan *lineBatch, workers)
	ordered := make(chan *lineBatch, 2*workers)
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1 + workers)
	go func() { // the reader
		defer wg.Done()
		defer close(ordered)
		defer close(work)
		br := bufio.NewReaderSize(r, 64<<10)
		n := 0
		for eof := false; !eof; {
			bt := &lineBatch{first: n + 1, done: make(chan struct{})}
			for len(bt.lines) < checkBatch {
				b, err := br.ReadBytes('\n')
				if len(b) == 0 && err == io.EOF {
					eof = true
					break
				}
				n++
				bt.lines = append(bt.lines, b)
				if err != nil && err != io.EOF {
					bt.readErr, eof = err, true
					break
				}
			}
			select { // ordered first: a batch is waited for only once a worker can have it
			case ordered <- bt:
			case <-quit:
				return
			}
			select {
			case work <- bt:
			case <-quit:
				return
			}
		}
	}()
	for range workers {
		go func() {
			defer wg.Done()
			for bt := range work {
				bt.out = make([]checkedLine, len(bt.lines))
				for i, b := range bt.lines {
					if i == len(bt.lines)-1 && bt.readErr != nil {
						bt.out[i] = checkedLine{line: bt.first + i, size: int64(len(b)), readErr: bt.readErr}
						continue
					}
					bt.out[i] = checkLine(b, bt.first+i)
				}
				close(bt.done)
			}
		}()
	}
	var once sync.Once
	stop = func() {
		once.Do(func() {
			close(quit)
			for range ordered { // unblock the reader
			}
			wg.Wait()
		})
	}
	lines = func(yield func(checkedLine) bool) {
		for bt := range ordered {
			<-bt.done
			for _, c := range bt.out {
				if !yield(c) {
					return
				}
			}
		}
	}
	return lines, stop
}

var eventMarker = []byte(`,"event":{`)

// splitLine finds, in an event line, the hashed event JSON: it follows
// `"hash":"<hex>"` and blake3 of it is that hash. Text inside args cannot
// fake this, and the caller re-derives the whole line from it anyway.
func splitLine(b []byte) (snapshot.ID, []byte, bool) {
	const pre = `"hash":"`
	for off := 0; ; {
		i := bytes.Index(b[off:], eventMarker)
		if i < 0 {
			return snapshot.ID{}, nil, false
		}
		i += off
		if i >= len(pre)+65 && string(b[i-len(pre)-65:i-65]) == pre && b[i-1] == '"' {
			if id, err := snapshot.ParseID(string(b[i-65 : i-1])); err == nil && len(b) >= i+len(eventMarker)+2 {
				raw := b[i+len(eventMarker)-1 : len(b)-2]
				if snapshot.Sum(raw) == id {
					return id, raw, true
				}
			}
		}
		off = i + 1
	}
}

// splitUnsalted is splitLine for the line of an event written before
// salting whose arguments were redacted (WithheldUnsalted): its hash is no
// longer blake3 of its event, which is then the JSON after the line's last
// `,"event":` (the line is re-derived from it, so a false split fails).
func splitUnsalted(b []byte) (snapshot.ID, []byte, bool) {
	if !bytes.Contains(b, []byte(`"args_withheld":"`+WithheldUnsalted+`"`)) {
		return snapshot.ID{}, nil, false
	}
	const pre = `"hash":"`
	i := bytes.LastIndex(b, eventMarker)
	if i < len(pre)+65 || string(b[i-len(pre)-65:i-65]) != pre || b[i-1] != '"' || len(b) < i+len(eventMarker)+2 {
		return snapshot.ID{}, nil, false
	}
	id, err := snapshot.ParseID(string(b[i-65 : i-1]))
	if err != nil {
		return snapshot.ID{}, nil, false
	}
	return id, b[i+len(eventMarker)-1 : len(b)-2], true
}

// lineEvent names the event a line claims to be, for error messages.
func lineEvent(b []byte) string {
	var hdr struct {
		Seq uint64 `json:"seq"`
	}
	if i := bytes.Index(b, []byte(`,"time"`)); i > 0 {
		if json.Unmarshal(append(b[:i:i], '}'), &hdr) == nil {
			return fmt.Sprintf("event %d", hdr.Seq)
		}
	}
	return "event ?"
}

// checkTree opens the head's checkpoints and, unless the export is
// filtered, checks them and o's against the tree of its events.
func (rep *ExportReport) checkTree(head *ExportHead, o CheckOptions) error {
	rep.Workspace, rep.TreeBase = head.Workspace, head.TreeBase
	if head.Version == ExportVersionChain {
		if head.Workspace != "" || head.TreeBase != 0 || len(head.Checkpoints) > 0 || len(head.TreeSeed) > 0 {
			return fmt.Errorf("journal: export head line: version 1 carries no checkpoints: %w", journal.ErrCorrupt)
		}
		// no tree yet: the one its journal will make starts after its base
		rep.TreeBase = head.BaseSeq
	}
	if len(head.Checkpoints) == 0 && len(o.Checkpoints) == 0 && o.Reference == nil && o.Keys == nil {
		return nil
	}
	for i, n := range head.Checkpoints {
		c, err := OpenCheckpoint([]byte(n), nil)
		if err != nil {
			return fmt.Errorf("journal: export head line: checkpoint %d: %w", i+1, err)
		}
		rep.Checkpoints = append(rep.Checkpoints, c)
	}
	if rep.Filtered {
		cps, err := Reopen(rep.Checkpoints, o.Keys, o.Quorum, "the export's")
		rep.Checkpoints = cps
		return err
	}
	tc, all, err := o.NewCheck(rep.TreeBase, head.Workspace, rep.Checkpoints, "the export's")
	if err != nil {
		return err
	}
	rep.Checkpoints = all
	if head.BaseSeq > rep.TreeBase && rep.Events > 0 { // gc dropped leaves: start from their compact range
		if err := tc.Seed(int64(head.BaseSeq-rep.TreeBase), head.TreeSeed, nil); err != nil {
			return err
		}
	}
	if rep.Events > 0 {
		for i, h := range rep.Leaves {
			seq := rep.First + uint64(i)
			if err := tc.Add(seq, seq, h); err != nil {
				return err
			}
		}
	}
	if err := tc.Finish(); err != nil {
		return err
	}
	rep.Tree = tc.report(all, o.Keys != nil)
	return nil
}
