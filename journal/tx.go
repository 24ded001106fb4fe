package journal

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/journalfs/journal/snapshot"
	bolt "go.etcd.io/bbolt"
)

// Tx is a journal transaction: read-only inside View, writable inside Update.
type Tx struct {
	tx *bolt.Tx
	j  *Journal // records damage Scan sees around (nil: not recorded)
	// damage is what the structural check found before this read (View),
	// nil when it found nothing.
	damage *DamageError
	// blk is the event block last decoded (pack.go), stored under key
	// blkLast with a value of blkSize bytes.
	blk     *eventBlock
	blkLast uint64
	blkSize int
	// budget is the mapped-page budget of release (0: mappedBudget).
	budget int64
}

// Damage returns the damage the structural check found in the journal file
// before this read transaction began, or nil. A read can succeed on a
// damaged file (it did not meet the damage, or read around it through a
// readable copy): a command that vouches for the whole journal — log,
// verify — reports it.
func (t *Tx) Damage() *DamageError { return t.damage }

// Bolt returns the underlying bbolt transaction (for snapshot.PutTx/Get).
func (t *Tx) Bolt() *bolt.Tx { return t.tx }

// Path returns the journal file t reads, "" when it is not known (a copy
// being written).
func (t *Tx) Path() string {
	if t.j == nil {
		return ""
	}
	return t.j.path
}

func u64(n uint64) []byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], n)
	return b[:]
}

func indexKey(prefix string, seq uint64) []byte {
	k := make([]byte, 0, len(prefix)+9)
	k = append(k, prefix...)
	k = append(k, 0)
	return append(k, u64(seq)...)
}

// Last returns the sequence number of the newest event (0 if none).
func (t *Tx) Last() uint64 {
	k, _ := t.tx.Bucket(bucketEvents).Cursor().Last()
	if k == nil {
		return 0
	}
	return keySeq(k)
}

// keySeq is the event number of a key of the events or pending bucket; a
// key of another length is damage (a panic protect turns into a
// DamageError, as it does bbolt's).
func keySeq(k []byte) uint64 {
	if len(k) != 8 {
		panic(&DamageError{What: fmt.Sprintf("a key of %d bytes where an event number (8) belongs", len(k))})
	}
	return binary.BigEndian.Uint64(k)
}

// Event returns event seq.
func (t *Tx) Event(seq uint64) (*Event, error) {
	rec, err := t.record(seq)
	if err != nil {
		return nil, fmt.Errorf("journal: event %d: %w", seq, err)
	}
	e, err := t.decode(rec)
	if err != nil {
		return nil, fmt.Errorf("journal: event %d: %w", seq, err)
	}
	if e.Seq != seq {
		return nil, fmt.Errorf("journal: event %d: record says %d: %w", seq, e.Seq, ErrCorrupt)
	}
	return e, nil
}

func (t *Tx) put(e *Event) error {
	rec, err := t.encode(e)
	if err != nil {
		return err
	}
	// every event this version writes may be compact, salted, may name
	// contents with inline manifests and whose chunks may be splices
	// (snapshot): format 12; a prompt event needs 13
	v := byte(FormatSalted)
	if e.Kind == KindPrompt {
		v = FormatPrompts
	}
	if err := t.MarkFormat(v); err != nil {
		return err
	}
	b := t.tx.Bucket(bucketEvents)
	b.FillPercent = appendFill
	if err := b.Put(u64(e.Seq), rec); err != nil {
		return fmt.Errorf("journal: put event %d: %w", e.Seq, err)
	}
	return t.maybePack(e.Seq)
}

// appendFill is how full bbolt fills the pages of the events bucket, whose
// keys (event numbers) only ever grow: bbolt's default, half, suits keys
// that arrive in any order; appended keys never come back to a page, so its
// free half would stay empty for ever. The indexes use it only for an entry
// past their last key (putIndex): their keys (path or session, then
// number) mostly arrive interleaved, and full pages split on every insert
// into the middle, leaving them far emptier than the default's half. A
// runtime setting: journals written before
// it read and grow as they are.
const appendFill = 1.0

// Append adds e as the newest event, filling Seq and Prev. An event appended
// as StatusPending must later be sealed with Seal; any other status is sealed
// at once. Contents named by e.Files must already be stored (snapshot.PutTx).
func (t *Tx) Append(e *Event) error {
	last := t.Last()
	e.Prev = snapshot.ID{}
	if last > 0 {
		prev, err := t.Event(last)
		if errors.Is(err, ErrNotFound) {
			// the cursor's last key has no record: a damaged page
			return fmt.Errorf("journal: append: %w: %w", err, ErrCorrupt)
		}
		if err != nil {
			return fmt.Errorf("journal: append: %w", err)
		}
		if prev.Status == StatusPending {
			return fmt.Errorf("journal: append after pending event %d: %w", last, ErrState)
		}
		e.Prev = prev.Hash
	}
	e.Seq = last + 1
	e.Hash = snapshot.ID{}
	if err := e.salt(); err != nil {
		return err
	}
	if e.Status == "" {
		e.Status = StatusPending
	}
	if err := t.index(e); err != nil {
		return err
	}
	if e.Status == StatusPending {
		if err := t.tx.Bucket(bucketPending).Put(u64(e.Seq), nil); err != nil {
			return fmt.Errorf("journal: append %d: %w", e.Seq, err)
		}
		return t.put(e)
	}
	return t.seal(e)
}

// index adds e to the by-path and by-session indexes and its session's
// record.
func (t *Tx) index(e *Event) error {
	for _, f := range e.Files {
		if err := putIndex(t.tx.Bucket(bucketByPath), f.Path, e.Seq); err != nil {
			return fmt.Errorf("journal: append %d: index %s: %w", e.Seq, f.Path, err)
		}
	}
	if s := e.Actor.Session; s != "" {
		if err := putIndex(t.tx.Bucket(bucketBySession), s, e.Seq); err != nil {
			return fmt.Errorf("journal: append %d: index session: %w", e.Seq, err)
		}
		if err := t.touchSession(e); err != nil {
			return err
		}
	}
	return nil
}

// Seal finishes a pending event: its status becomes st (committed or
// rolled_back), its hash is computed, and — if committed — the heads of its
// files move and a revert's target is linked to it.
func (t *Tx) Seal(seq uint64, st Status, reason string) (*Event, error) {
	e, err := t.Event(seq)
	if err != nil {
		return nil, err
	}
	if e.Status != StatusPending {
		return nil, fmt.Errorf("journal: seal %d: status is %s: %w", seq, e.Status, ErrState)
	}
	e.Status, e.Error = st, reason
	if err := t.tx.Bucket(bucketPending).Delete(u64(seq)); err != nil {
		return nil, fmt.Errorf("journal: seal %d: %w", seq, err)
	}
	return e, t.seal(e)
}

func (t *Tx) seal(e *Event) error {
	e.Hash = ComputeHash(e)
	if err := t.committed(e); err != nil {
		return err
	}
	return t.put(e)
}

// committed records what a committed event leaves: the heads of its files
// and, for a revert, the link from the event it took back.
func (t *Tx) committed(e *Event) error {
	if e.Status != StatusCommitted {
		return nil
	}
	for _, f := range e.Files {
		if err := t.SetHead(f.Path, Head{ID: f.After, Mode: f.AfterMode, Seq: e.Seq}); err != nil {
			return err
		}
	}
	for _, seq := range e.Targets() {
		if err := t.tx.Bucket(bucketLinks).Put(u64(seq), u64(e.Seq)); err != nil {
			return fmt.Errorf("journal: link %d→%d: %w", seq, e.Seq, err)
		}
	}
	return nil
}

// Pending returns the sequence numbers of events still pending (crashed applies).
func (t *Tx) Pending() []uint64 {
	var out []uint64
	t.tx.Bucket(bucketPending).ForEach(func(k, _ []byte) error {
		out = append(out, keySeq(k))
		return nil
	})
	return out
}

// IsPending reports whether event seq is pending.
func (t *Tx) IsPending(seq uint64) bool {
	key := u64(seq)
	k, _ := t.tx.Bucket(bucketPending).Cursor().Seek(key) // values are empty: Get cannot tell
	return bytes.Equal(k, key)
}

// RevertedBy returns the event that reverted seq, or 0.
func (t *Tx) RevertedBy(seq uint64) uint64 {
	v := t.tx.Bucket(bucketLinks).Get(u64(seq))
	if v == nil {
		return 0
	}
	return keySeq(v)
}

// Head is the journal's last known state of a path.
type Head struct {
	ID   snapshot.ID // zero: the file does not exist
	Mode uint32
	Seq  uint64 // the event that set it
}

// Head returns the head of path; ok is false if the journal never saw it.
func (t *Tx) Head(path string) (h Head, ok bool) {
	return decodeHead(t.tx.Bucket(bucketHeads).Get([]byte(path)))
}

// decodeHead reads a head's record: its ID, mode and sequence number.
func decodeHead(v []byte) (h Head, ok bool) {
	if len(v) != 44 {
		return h, false
	}
	copy(h.ID[:], v)
	h.Mode = binary.BigEndian.Uint32(v[32:])
	h.Seq = binary.BigEndian.Uint64(v[36:])
	return h, true
}

// SetHead records the state of path.
func (t *Tx) SetHead(path string, h Head) error {
	v := make([]byte, 44)
	copy(v, h.ID[:])
	binary.BigEndian.PutUint32(v[32:], h.Mode)
	binary.BigEndian.PutUint64(v[36:], h.Seq)
	if err := t.tx.Bucket(bucketHeads).Put([]byte(path), v); err != nil {
		return fmt.Errorf("journal: head %s: %w", path, err)
	}
	return nil
}

// Heads calls fn for every path the journal knows, in path order.
func (t *Tx) Heads(fn func(path string, h Head) error) error {
	return t.tx.Bucket(bucketHeads).ForEach(func(k, v []byte) error {
		h, _ := decodeHead(v) // the record at hand, not looked up again
		return fn(string(k), h)
	})
}

// Session summarises one session.
type Session struct {
	ID    string `json:"id"`
	Actor Actor  `json:"actor"`
	First uint64 `json:"first"`
	Last  uint64 `json:"last"`
	Count int    `json:"count"`
}

func (t *Tx) touchSession(e *Event) error {
	b := t.tx.Bucket(bucketSessions)
	var s Session
	if v := b.Get([]byte(e.Actor.Session)); v != nil {
		_ = json.Unmarshal(v, &s)
	} else {
		s = Session{ID: e.Actor.Session, Actor: e.Actor, First: e.Seq}
	}
	s.Last, s.Count = e.Seq, s.Count+1
	v, _ := json.Marshal(&s)
	return b.Put([]byte(e.Actor.Session), v)
}

// Session returns the record of session id (its actor, first and last
// events, and how many it made), and whether there is one.
func (t *Tx) Session(id string) (Session, bool) {
	var s Session
	v := t.tx.Bucket(bucketSessions).Get([]byte(id))
	if v == nil || json.Unmarshal(v, &s) != nil {
		return s, false
	}
	return s, true
}

// Sessions calls fn for every session.
func (t *Tx) Sessions(fn func(Session) error) error {
	return t.tx.Bucket(bucketSessions).ForEach(func(_, v []byte) error {
		var s Session
		if err := json.Unmarshal(v, &s); err != nil {
			return fmt.Errorf("journal: session record: %v: %w", err, ErrCorrupt)
		}
		return fn(s)
	})
}

// Stage records temporary files for recovery to remove: those an apply is
// about to create, in case the process dies before the apply's intent is
// appended, and those a recovery could not reach (staged in the transaction
// that seals their event), until a later recovery removes them.
func (t *Tx) Stage(paths []string) error {
	b := t.tx.Bucket(bucketStaging)
	for _, p := range paths {
		if err := b.Put([]byte(p), nil); err != nil {
			return fmt.Errorf("journal: stage %s: %w", p, err)
		}
	}
	return nil
}

// Unstage forgets staged temporary files.
func (t *Tx) Unstage(paths []string) error {
	b := t.tx.Bucket(bucketStaging)
	for _, p := range paths {
		if err := b.Delete([]byte(p)); err != nil {
			return fmt.Errorf("journal: unstage %s: %w", p, err)
		}
	}
	return nil
}

// Staged returns all staged temporary file paths.
func (t *Tx) Staged() []string {
	var out []string
	t.tx.Bucket(bucketStaging).ForEach(func(k, _ []byte) error {
		out = append(out, string(k))
		return nil
	})
	return out
}

// Each calls fn for events from seq `from` onwards (0 = the oldest), or
// backwards from `from` (0 = the newest) when backward is set, until fn
// returns ErrStop or another error. A record that does not decode ends it
// with an error naming the event (wrapping ErrCorrupt); a damaged page, with
// bbolt's panic (which Journal's protect turns into a DamageError).
func (t *Tx) Each(from uint64, backward bool, fn func(*Event) error) error {
	return t.scan(from, backward, fn, nil)
}

// Scan is Each that sees around damage, for the commands that show history
// (journal log): a record that does not decode, or events bbolt cannot
// reach (a damaged page of the events bucket), are passed to damaged — one
// call per run of consecutive events, first..last in the scan's order —
// and the scan goes on with the next readable event. Past a damaged page it
// reads event by event (a lookup each). damaged may return ErrStop or an
// error to end the scan.
func (t *Tx) Scan(from uint64, backward bool, fn func(*Event) error, damaged func(first, last uint64, err error) error) error {
	return t.scan(from, backward, fn, damaged)
}

// scanStopped carries fn's error (or ErrStop) out of the cursor pass.
type scanStopped struct{ err error }

func (t *Tx) scan(from uint64, backward bool, fn func(*Event) error, damaged func(first, last uint64, err error) error) error {
	var done uint64 // the last seq the cursor pass handed on
	err := func() (err error) {
		if damaged != nil {
			defer func() {
				if r := recover(); r != nil {
					if !storePanic(r) {
						panic(r)
					}
					err = t.j.asDamage(r)
				}
			}()
		}
		ec := t.eventCursor()
		var n int
		for it := ec.seek(from, backward); it.seq != 0 || it.err != nil; it = ec.next(backward) {
			var err error
			seq := it.seq
			if it.err != nil {
				if damaged == nil {
					return it.err
				}
				first, last := it.lo, it.hi // in the scan's order
				if backward {
					first, last = last, first
				}
				seq = last
				err = damaged(first, last, it.err)
			} else if e, derr := t.decode(it.rec); derr != nil && damaged == nil {
				return fmt.Errorf("journal: event %d: %w", seq, derr)
			} else if derr != nil {
				err = damaged(seq, seq, derr)
			} else {
				err = fn(e)
			}
			if err != nil {
				return scanStopped{err}
			}
			done = seq
			if n++; n%releaseEvery == 0 {
				t.release()
			}
		}
		return nil
	}()
	var d *DamageError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &d) && damaged != nil:
		t.j.noteDamage(d)
		return t.probe(from, backward, done, d, fn, damaged)
	}
	var st scanStopped
	if errors.As(err, &st) {
		if st.err == ErrStop {
			return nil
		}
		return st.err
	}
	return err
}

func (s scanStopped) Error() string { return s.err.Error() }

// probeMax bounds a run of unreadable events probe goes through.
const probeMax = 1 << 20

// probe goes on from a scan that met a damaged page after handing on event
// done (0: none), looking events up one by one.
func (t *Tx) probe(from uint64, backward bool, done uint64, cause *DamageError, fn func(*Event) error, damaged func(first, last uint64, err error) error) error {
	base, _ := t.safeBase()
	next := func(s uint64) uint64 {
		if backward {
			return s - 1
		}
		return s + 1
	}
	var start uint64
	switch {
	case done != 0:
		start = next(done)
	case !backward:
		start = max(from, base+1)
	default:
		start = t.lastKnown()
		if from != 0 {
			start = min(from, start)
		}
	}
	top := t.lastKnown()
	var runFirst, runLast uint64
	var runLen int
	var runErr error
	flush := func() error {
		if runFirst == 0 {
			return nil
		}
		err := damaged(runFirst, runLast, runErr)
		runFirst = 0
		return err
	}
	stop := func(err error) error {
		if err == ErrStop {
			return nil
		}
		return err
	}
	for s := start; s > base && (backward || s <= top || top == 0); s = next(s) {
		e, err := t.lookup(s)
		if errors.Is(err, ErrNotFound) && !backward {
			break // past the newest event
		}
		if err != nil {
			if runFirst == 0 {
				runFirst, runLen, runErr = s, 0, err
				if !errors.Is(err, ErrDamaged) && !errors.Is(err, ErrCorrupt) {
					runErr = fmt.Errorf("%w (%v)", err, cause.What)
				}
			}
			runLast = s
			if runLen++; runLen > probeMax {
				break
			}
			continue
		}
		if err := flush(); err != nil {
			return stop(err)
		}
		if err := fn(e); err != nil {
			return stop(err)
		}
	}
	return stop(flush())
}

// lastKnown returns the newest event the sessions and heads buckets name
// (every event updates its session's), read apart from the events bucket;
// without them, the first number from the base up that no event has,
// allowing runs of up to probeGap unreadable events.
func (t *Tx) lastKnown() (top uint64) {
	func() {
		defer func() {
			if r := recover(); r != nil && !storePanic(r) {
				panic(r)
			}
		}()
		_ = t.Sessions(func(s Session) error {
			top = max(top, s.Last)
			return nil
		})
	}()
	func() {
		defer func() {
			if r := recover(); r != nil && !storePanic(r) {
				panic(r)
			}
		}()
		_ = t.Heads(func(_ string, h Head) error {
			top = max(top, h.Seq)
			return nil
		})
	}()
	base, _ := t.safeBase()
	// a damaged record can name any number: no more events than records
	// of 32 bytes fit in the file (packed, a block's take ~140 each)
	if most := base + uint64(t.tx.Size()/32); top > most {
		top = most
	}
	if top != 0 {
		return top
	}
	top = base
	for miss := 0; miss < probeGap; top++ {
		_, err := t.lookup(top + 1)
		if errors.Is(err, ErrNotFound) {
			break
		}
		if err != nil {
			miss++
		} else {
			miss = 0
		}
	}
	return top
}

// probeGap bounds a run of unreadable events lastKnown looks past.
const probeGap = 4096

// lookup reads event seq, turning a damaged page on the way into a
// DamageError (ErrNotFound: no such event).
func (t *Tx) lookup(seq uint64) (e *Event, err error) {
	defer func() {
		if r := recover(); r != nil {
			if !storePanic(r) {
				panic(r)
			}
			e, err = nil, t.j.asDamage(r)
		}
	}()
	return t.Event(seq)
}

// ErrStop ends an iteration early without error.
var ErrStop = fmt.Errorf("journal: stop")

// EachIndexed iterates the events of one path (index "path") or one session
// (index "session") newest first, until fn returns ErrStop.
func (t *Tx) EachIndexed(index, key string, fn func(*Event) error) error {
	return t.EachIndexedSeq(index, key, func(seq uint64) error {
		e, err := t.Event(seq)
		if err != nil {
			return err
		}
		return fn(e)
	})
}

// EachIndexedSeq is EachIndexed giving the events' numbers without reading
// the events: for a caller that reads each event once across several keys.
func (t *Tx) EachIndexedSeq(index, key string, fn func(seq uint64) error) error {
	b := t.tx.Bucket(bucketByPath)
	if index == "session" {
		b = t.tx.Bucket(bucketBySession)
	}
	return eachIndexed(b, key, fn)
}

// Live reports whether event seq's effect stands: it was not reverted, or the
// event that reverted it is itself not live (a redo, or a revert of a revert).
func (t *Tx) Live(seq uint64) bool {
	for depth := 0; depth < 1<<16; depth++ {
		by := t.RevertedBy(seq)
		if by == 0 {
			return depth%2 == 0
		}
		seq = by
	}
	return true
}

// FindHash returns the event whose hash is id, searching from the newest.
func (t *Tx) FindHash(id snapshot.ID) (uint64, bool) {
	var seq uint64
	t.Each(0, true, func(e *Event) error {
		if e.Hash == id {
			seq = e.Seq
			return ErrStop
		}
		return nil
	})
	if seq == 0 {
		if bs, b := t.Base(); b == id && !id.IsZero() {
			return bs, true
		}
	}
	return seq, seq != 0
}
