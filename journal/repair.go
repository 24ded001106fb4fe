package journal

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/journalfs/journal/snapshot"
	bolt "go.etcd.io/bbolt"
)

// Repair salvages a damaged journal, as SQLite's .recover does: every event
// and content that can still be read is copied, as it is (records keep their
// hashes), into a new journal file; each run of events that cannot be read
// becomes one damaged event (KindDamaged, Event.Lost) that names the lost
// numbers and the hash links around them, so the chain verifies across the
// gap and an export shows it; contents no readable copy of which is left are
// named by a last damaged event and in the meta bucket (verify does not
// re-hash them). The indexes, heads and sessions are rebuilt from the events.
//
// Without apply nothing is written: the report says what a repair would
// keep and lose. With apply, under the journal's exclusive lock, the new
// journal is written beside the old one and synced, the damaged file (and
// its write-ahead log, whose batches are not carried over) is renamed to
// <journal>.damaged-<time> — never deleted — and the new one takes its
// place. A journal that cannot be opened at all (both meta pages damaged)
// cannot be salvaged here.

// RepairReport is what Repair found, and with apply did.
type RepairReport struct {
	Check        error       // the structural check's finding (nil: sound)
	Events       int         // events readable (and copied)
	Last         uint64      // the newest event number seen
	LostEvents   [][2]uint64 // runs of events that could not be read, oldest first
	Contents     int         // contents readable (and copied)
	Bytes        int64       // their bytes
	Salvaged     int         // of those, contents rebuilt from the file's bytes (snapshot.Salvage)
	LostContents []snapshot.ID
	Damaged      int    // damaged events written
	KeptAs       string // with apply: where the damaged journal now is
	// LogEvents are the events the write-ahead log holds past the last
	// event salvaged; LogCarried says they continue the salvaged chain, so
	// the log stays with the new journal and the next process rolls them
	// forward (otherwise it is set aside with the damaged file, and they are
	// lost to the new journal). LogErr is a log that could not be read.
	LogEvents  int
	LogCarried bool
	LogErr     error
	Log        bool // a write-ahead log was set aside with the damaged journal
	// MetaRebuilt: both meta pages were damaged; the file was read through
	// a copy with them made again (readable.go).
	MetaRebuilt bool
	// Carried are the other packages' buckets (Repair's carry) copied as
	// they are; NotCarried those that could not be read whole, and why.
	Carried    []string
	NotCarried map[string]string
	// logFirst and logLast are the log's first event and last number.
	logFirst *Event
	logLast  uint64
	// path is the file read, raw its bytes once salvage needs them.
	path string
	raw  []byte
}

// Sound reports whether nothing was found damaged.
func (r *RepairReport) Sound() bool {
	return r.Check == nil && len(r.LostEvents) == 0 && len(r.LostContents) == 0 && r.LogErr == nil && (r.LogEvents == 0 || r.LogCarried)
}

// repairBatch bounds the content bytes copied per write transaction.
const repairBatch = 64 << 20

// Repair salvages the journal (see above); actor is who runs it, recorded in
// the damaged events. carry names buckets other packages keep in the
// journal file (replay's redacted-line owners): each is copied key for
// key as it is, or, where it cannot be read whole, left out and named in
// the report — the records it held then prove nothing, as if never made.
func (j *Journal) Repair(apply bool, actor Actor, carry ...[]byte) (*RepairReport, error) {
	_, unlock, err := j.lock(true)
	if err != nil {
		return nil, err
	}
	defer unlock()
	rep := &RepairReport{}
	fd := j.findings()
	rep.Check = fd.err
	from, done, err := j.readable(fd) // j, or a copy bbolt can read round the damage
	if err != nil {
		return rep, err
	}
	defer done()
	rep.MetaRebuilt = fd.metas
	rep.path = from.path
	var events []*Event
	var base uint64
	var baseHash snapshot.ID
	var dst *Journal
	tmp := fmt.Sprintf("%s.repair-%d", j.path, os.Getpid())
	if apply {
		os.Remove(tmp)
		if dst, err = Open(tmp, Options{Create: true, Timeout: j.timeout}); err != nil {
			return nil, err
		}
		// once renamed into place, there is no tmp to remove; what opening
		// it made beside it (its lock files, its check stamp) goes either way
		defer func() {
			dst.Close()
			for _, p := range []string{tmp, tmp + ".lock", tmp + ".lock.queue", tmp + stampSuffix, tmp + ".wal"} {
				os.Remove(p)
			}
		}()
	}
	err = from.protect(func() error {
		db, err := from.openFormat(true, false)
		if err != nil {
			return err
		}
		defer db.Close()
		return db.View(func(btx *bolt.Tx) error {
			tx := &Tx{tx: btx, j: from}
			base, baseHash = tx.safeBase()
			if err := tx.Scan(0, false, func(e *Event) error {
				events = append(events, e)
				return nil
			}, func(first, last uint64, _ error) error {
				rep.LostEvents = append(rep.LostEvents, [2]uint64{min(first, last), max(first, last)})
				return nil
			}); err != nil {
				return err
			}
			rep.logGap(j, events)
			events = rep.findLost(events, baseHash, tx.actor)
			for _, e := range events {
				rep.Last = max(rep.Last, e.Seq)
			}
			for _, r := range rep.LostEvents {
				rep.Last = max(rep.Last, r[1])
			}
			// a carried log's batches need the contents their records
			// do not hold: copied with the rest, or named lost
			carried := rep.readLog(j, events)
			need := events
			skip := map[snapshot.ID]bool{}
			for _, r := range carried {
				need = append(need[:len(need):len(need)], r.Events...)
				for _, c := range r.Contents {
					skip[c.ID] = true
				}
			}
			return rep.copyContents(tx, need, skip, dst)
		})
	})
	if err != nil {
		return rep, err
	}
	rep.Events = len(events)
	carried := rep.readCarried(from, carry)
	if !apply {
		return rep, nil
	}
	if err := rep.writeEvents(dst, events, base, baseHash, actor); err != nil {
		return rep, err
	}
	if err := writeCarried(dst, carried); err != nil {
		return rep, err
	}
	return rep, j.swap(tmp, rep)
}

// carriedBucket is one of Repair's carried buckets: its name and pairs.
type carriedBucket struct {
	name string
	kv   [][2][]byte
}

// readCarried reads each bucket of carry in from whole, each in its own
// protected read, so that damage in one leaves it out (named in the
// report) and costs nothing else.
func (rep *RepairReport) readCarried(from *Journal, carry [][]byte) []carriedBucket {
	var out []carriedBucket
	for _, name := range carry {
		b := carriedBucket{name: string(name)}
		err := from.protect(func() error {
			db, err := from.openFormat(true, false)
			if err != nil {
				return err
			}
			defer db.Close()
			return db.View(func(btx *bolt.Tx) error {
				bk := btx.Bucket(name)
				if bk == nil {
					return errNoBucket
				}
				return bk.ForEach(func(k, v []byte) error {
					b.kv = append(b.kv, [2][]byte{bytes.Clone(k), bytes.Clone(v)})
					return nil
				})
			})
		})
		switch {
		case errors.Is(err, errNoBucket):
		case err != nil:
			if rep.NotCarried == nil {
				rep.NotCarried = map[string]string{}
			}
			rep.NotCarried[b.name] = err.Error()
		default:
			out = append(out, b)
			rep.Carried = append(rep.Carried, b.name)
		}
	}
	return out
}

// errNoBucket: a carried bucket the journal does not have.
var errNoBucket = errors.New("journal: no such bucket")

// writeCarried writes the carried buckets into the new journal.
func writeCarried(dst *Journal, carried []carriedBucket) error {
	if len(carried) == 0 {
		return nil
	}
	return dst.Do(func(db *DB) error {
		return db.Update(func(t *Tx) error {
			for _, b := range carried {
				bk, err := t.tx.CreateBucketIfNotExists([]byte(b.name))
				if err != nil {
					return fmt.Errorf("journal: repair: carry %s: %w", b.name, err)
				}
				for _, p := range b.kv {
					if err := bk.Put(p[0], p[1]); err != nil {
						return fmt.Errorf("journal: repair: carry %s: %w", b.name, err)
					}
				}
			}
			return nil
		})
	})
}

// rawFindMax bounds the journal files whose bytes repair searches (findLost,
// salvage).
const rawFindMax = 1 << 30

// findLost looks for the records of lost events in the file's bytes, as
// SQLite's .recover does in free and orphaned pages: a damaged page header
// hides records that are whole. A record is a key (the event number, 8
// bytes) followed by its value (version, CRC-32C, JSON); one is taken when
// its checksum holds, it says its number, its hash is right and it links to
// the event before it — and the event after the run links to the last one
// taken. Older copies of a record (a pending version in a freed page) fail
// those links. It returns the events, sorted, with the ones found, and
// shrinks rep.LostEvents to what is still lost.
func (rep *RepairReport) findLost(events []*Event, baseHash snapshot.ID, actors actorResolver) []*Event {
	if len(rep.LostEvents) == 0 {
		return events
	}
	raw := rep.rawBytes()
	if len(raw) == 0 {
		return events
	}
	// a record's actor: from the readable actors bucket, else from the
	// actor records found in the file's bytes (actors.go)
	var salvaged map[uint64]Actor
	resolve := func(id uint64) (Actor, error) {
		if a, err := actors(id); err == nil {
			return a, nil
		}
		if salvaged == nil {
			salvaged = salvageActors(raw)
		}
		if a, ok := salvaged[id]; ok {
			return a, nil
		}
		return Actor{}, fmt.Errorf("actor %d: lost", id)
	}
	bySeq := map[uint64]*Event{}
	for _, e := range events {
		bySeq[e.Seq] = e
	}
	var still [][2]uint64
	var packed map[uint64][][]byte // records found in event blocks (pack.go)
	for _, r := range rep.LostEvents {
		prev := baseHash
		if before, ok := bySeq[r[0]-1]; ok {
			prev = before.NextLink()
		}
		var found []*Event
		for seq := r[0]; seq <= r[1]; seq++ {
			e := rawRecord(raw, seq, prev, resolve)
			if e == nil {
				if packed == nil {
					packed = rawBlockRecords(raw, rep.LostEvents)
				}
				e = linkedRecord(packed[seq], seq, prev, resolve)
			}
			if e == nil {
				break
			}
			found = append(found, e)
			prev = e.Hash
		}
		// the event after the run must link to the last one found
		if after, ok := rep.after(bySeq, r[1]); ok && len(found) == int(r[1]-r[0]+1) && after.Prev != prev {
			found = nil
		}
		for _, e := range found {
			bySeq[e.Seq] = e
			events = append(events, e)
		}
		if n := uint64(len(found)); r[0]+n <= r[1] {
			still = append(still, [2]uint64{r[0] + n, r[1]})
		}
	}
	rep.LostEvents = still
	slices.SortFunc(events, func(a, b *Event) int { return cmp.Compare(a.Seq, b.Seq) })
	return events
}

// rawRecord finds in raw a whole, sealed record of event seq that links to
// prev: after the key (the event number), a JSON record (v1) or a compact
// one (v2, or v3 whose actor actors resolves), which ends where its fields
// end.
func rawRecord(raw []byte, seq uint64, prev snapshot.ID, actors actorResolver) *Event {
	key := u64(seq)
	for off := 0; ; {
		i := bytes.Index(raw[off:], key)
		if i < 0 {
			return nil
		}
		at := off + i + 8 // the value
		off += i + 1
		if at+5 >= len(raw) {
			return nil
		}
		var e *Event
		switch raw[at] {
		case recordV1:
			dec := json.NewDecoder(bytes.NewReader(raw[at+5:]))
			var body json.RawMessage
			if dec.Decode(&body) != nil {
				continue
			}
			e, _ = Decode(raw[at : at+5+int(dec.InputOffset())])
		case recordV2, recordV3, recordV5, recordV6:
			e, _, _ = decodeCompact(raw[at:], actors)
		}
		if e == nil || e.Seq != seq || e.Prev != prev || e.Status == StatusPending || ComputeHash(e) != e.Hash {
			continue
		}
		return e
	}
}

// linkedRecord returns the event of the first of recs (copies of a record
// of event seq found in blocks) that is sealed and links to prev.
func linkedRecord(recs [][]byte, seq uint64, prev snapshot.ID, actors actorResolver) *Event {
	for _, rec := range recs {
		e, err := decode(rec, actors)
		if err == nil && e.Seq == seq && e.Prev == prev && e.Status != StatusPending && ComputeHash(e) == e.Hash {
			return e
		}
	}
	return nil
}

// rawBlockRecords finds the event blocks (pack.go) in raw, a damaged file's
// bytes, that hold events of the runs lost: every whole one (a block's value
// is contiguous in the file: bbolt writes a large value on consecutive
// pages), by its zstd frame's magic number, the header before it and its
// checksum. It returns their records by event number (a record can be
// found in several blocks: an older copy in a freed page).
func rawBlockRecords(raw []byte, lost [][2]uint64) map[uint64][][]byte {
	out := map[uint64][][]byte{}
	magic := []byte{0x28, 0xb5, 0x2f, 0xfd}
	for off := 0; ; {
		i := bytes.Index(raw[off:], magic)
		if i < 0 {
			return out
		}
		at := off + i
		off = at + 1
		// the header: byte 4, the checksum and four uvarints (5 + 4..40
		// bytes) end where the frame begins
		for start := max(0, at-45); start <= at-9; start++ {
			h, ok := parseBlockHeader(raw[start:at])
			if !ok || start+h.size != at || uint64(len(raw)-at) < h.frameLen {
				continue
			}
			wanted := false
			for _, r := range lost {
				wanted = wanted || (h.first <= r[1] && h.last() >= r[0])
			}
			if !wanted {
				break
			}
			blk, err := decodeEventBlock(h.last(), raw[start:at+int(h.frameLen)])
			if err != nil {
				continue
			}
			for i, rec := range blk.recs {
				out[blk.first+uint64(i)] = append(out[blk.first+uint64(i)], rec)
			}
			break
		}
	}
}

// logGap reads the write-ahead log past the events salvaged so far: when
// its first event is numbered beyond the newest one known (damage hid the
// last transactions, e.g. a damaged newer meta page made bbolt read the
// older one), the events between are a lost run findLost looks for, linked
// to the log's first event.
func (rep *RepairReport) logGap(j *Journal, events []*Event) {
	var last uint64
	for _, e := range events {
		last = max(last, e.Seq)
	}
	for _, r := range rep.LostEvents {
		last = max(last, r[1])
	}
	recs, err := (&DB{j: j}).LogRead(last)
	if err != nil || len(recs) == 0 {
		return
	}
	first := recs[0].Events[0]
	if first.Seq > last+1 {
		rep.LostEvents = append(rep.LostEvents, [2]uint64{last + 1, first.Seq - 1})
		rep.logFirst = first
	}
}

// after returns the event after seq: salvaged, or the log's first.
func (rep *RepairReport) after(bySeq map[uint64]*Event, seq uint64) (*Event, bool) {
	if e, ok := bySeq[seq+1]; ok {
		return e, true
	}
	if rep.logFirst != nil && rep.logFirst.Seq == seq+1 {
		return rep.logFirst, true
	}
	return nil, false
}

// readLog finds the write-ahead log's events past the salvaged ones and
// whether they continue the salvaged chain: they follow the newest event,
// read or lost, and link to it (a lost run before them is linked to their
// first: see logGap). It returns the log's records when they are carried.
func (rep *RepairReport) readLog(j *Journal, events []*Event) (carried []*LogRecord) {
	recs, err := (&DB{j: j}).LogRead(rep.Last)
	if err != nil {
		rep.LogErr = err
		return nil
	}
	defer func() {
		if rep.LogCarried {
			carried = recs
		}
	}()
	for _, r := range recs {
		rep.LogEvents += len(r.Events)
	}
	if len(recs) == 0 {
		return nil
	}
	first := recs[0].Events[0]
	last := recs[len(recs)-1]
	rep.logFirst, rep.logLast = first, last.Events[len(last.Events)-1].Seq
	if first.Seq != rep.Last+1 {
		return nil
	}
	if n := len(rep.LostEvents); n > 0 && rep.LostEvents[n-1][1] == rep.Last {
		rep.LogCarried = true // the damaged event for the run links to first
		return nil
	}
	if len(events) > 0 {
		newest := events[len(events)-1]
		rep.LogCarried = newest.Seq == rep.Last && first.Prev == newest.NextLink()
	}
	return nil
}

// safeBase is Base, or 0 and the zero hash (a journal gc never ran on)
// when the meta bucket cannot be read.
func (t *Tx) safeBase() (seq uint64, hash snapshot.ID) {
	defer func() {
		if r := recover(); r != nil {
			if !storePanic(r) {
				panic(r)
			}
			seq, hash = 0, snapshot.ID{}
		}
	}()
	return t.Base()
}

// copyContents reads every content the events name from tx and, with dst,
// writes it there; unreadable ones are recorded as lost.
func (rep *RepairReport) copyContents(tx *Tx, events []*Event, skip map[snapshot.ID]bool, dst *Journal) error {
	seen := maps.Clone(skip)
	var batch [][]byte
	size := 0
	flush := func() error {
		if dst == nil || len(batch) == 0 {
			return nil
		}
		err := dst.Do(func(db *DB) error {
			return db.Update(func(t *Tx) error {
				for _, b := range batch {
					if _, err := snapshot.PutTx(t.Bolt(), b); err != nil {
						return err
					}
				}
				return nil
			})
		})
		batch, size = nil, 0
		return err
	}
	for _, e := range events {
		for _, f := range e.Files {
			for _, id := range []snapshot.ID{f.Before, f.After} {
				if id.IsZero() || seen[id] {
					continue
				}
				seen[id] = true
				data, err := tx.content(id)
				if err != nil {
					if data, err = rep.salvage(tx, id); err != nil {
						rep.LostContents = append(rep.LostContents, id)
						continue
					}
					rep.Salvaged++
				}
				rep.Contents++
				rep.Bytes += int64(len(data))
				if dst != nil {
					batch, size = append(batch, data), size+len(data)
					if size >= repairBatch {
						if err := flush(); err != nil {
							return err
						}
					}
				}
			}
		}
	}
	return flush()
}

// rawBytes returns the bytes of the file read (none above rawFindMax),
// read once.
func (rep *RepairReport) rawBytes() []byte {
	if rep.raw == nil {
		if fi, err := os.Stat(rep.path); err == nil && fi.Size() <= rawFindMax {
			rep.raw, _ = os.ReadFile(rep.path)
		}
		if rep.raw == nil {
			rep.raw = []byte{}
		}
	}
	return rep.raw
}

// salvage rebuilds a content the store cannot give from the file's bytes
// (snapshot.Salvage), with the chunks the store still has.
func (rep *RepairReport) salvage(tx *Tx, id snapshot.ID) ([]byte, error) {
	return snapshot.Salvage(rep.rawBytes(), id, func(c snapshot.ID) (b []byte, ok bool) {
		defer func() {
			if r := recover(); r != nil {
				if !storePanic(r) {
					panic(r)
				}
				b, ok = nil, false
			}
		}()
		b, err := snapshot.ReadChunk(tx.tx, c)
		return b, err == nil
	})
}

// content reads content id whole and checks its hash; a damaged page on the
// way is an error, not a panic.
func (t *Tx) content(id snapshot.ID) (data []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			if !storePanic(r) {
				panic(r)
			}
			data, err = nil, t.j.asDamage(r)
		}
	}()
	data, err = snapshot.Bytes(t.tx, id)
	if err == nil && snapshot.Sum(data) != id {
		err = fmt.Errorf("journal: content %s: hash mismatch: %w", id.Short(), ErrCorrupt)
	}
	return data, err
}

// writeEvents writes the salvaged events to dst in order, a damaged event
// for each lost run and one for lost contents, and the journal's base.
func (rep *RepairReport) writeEvents(dst *Journal, events []*Event, base uint64, baseHash snapshot.ID, actor Actor) error {
	now := time.Now().UTC()
	bySeq := map[uint64]*Event{}
	for _, e := range events {
		bySeq[e.Seq] = e
	}
	damaged := func(seq uint64, prev snapshot.ID, lost *Lost) *Event {
		e := &Event{Seq: seq, Time: now, Kind: KindDamaged, Actor: actor, Tool: "repair", Status: StatusCommitted, Lost: lost, Prev: prev}
		e.Hash = ComputeHash(e)
		rep.Damaged++
		return e
	}
	var out []*Event
	prev := baseHash // the link of the last event written
	next := base + 1
	runs := rep.LostEvents
	for next <= rep.Last {
		if len(runs) > 0 && runs[0][0] == next {
			r := runs[0]
			runs = runs[1:]
			lost := &Lost{First: r[0], Last: r[1], Why: "not readable from the damaged journal"}
			if after, ok := rep.after(bySeq, r[1]); ok {
				lost.NextPrev = after.Prev
			}
			g := damaged(r[1], prev, lost)
			out = append(out, g)
			prev, next = g.NextLink(), r[1]+1
			continue
		}
		e, ok := bySeq[next]
		if !ok {
			return fmt.Errorf("journal: repair: event %d neither read nor known lost", next)
		}
		out = append(out, e)
		if e.Status != StatusPending {
			prev = e.NextLink()
		}
		next++
	}
	if rep.LogEvents > 0 && !rep.LogCarried && rep.logFirst != nil {
		// the log's batches, set aside with the damaged file, are named
		g := damaged(rep.logLast, prev, &Lost{First: max(rep.logFirst.Seq, next), Last: rep.logLast,
			Why: "held by the write-ahead log, which does not continue the salvaged chain (set aside with the damaged journal)"})
		out = append(out, g)
		prev, next = g.NextLink(), rep.logLast+1
	}
	if len(rep.LostContents) > 0 && !rep.LogCarried {
		// (with the log carried its batches come first: RecordLostContents
		// appends this after the next process rolled them forward)
		g := damaged(next, prev, &Lost{Contents: rep.LostContents, Why: lostContentsWhy})
		out = append(out, g)
	}
	return dst.Do(func(db *DB) error {
		return db.Update(func(t *Tx) error {
			m := t.tx.Bucket(bucketMeta)
			if base != 0 {
				if err := m.Put(metaBaseSeq, u64(base)); err != nil {
					return err
				}
				if err := m.Put(metaBaseHash, baseHash[:]); err != nil {
					return err
				}
			}
			if len(rep.LostContents) > 0 {
				var v []byte
				for _, id := range rep.LostContents {
					v = append(v, id[:]...)
				}
				if err := m.Put(metaLostContents, v); err != nil {
					return err
				}
			}
			if rep.Damaged > 0 {
				if err := t.MarkFormat(FormatRepaired); err != nil {
					return err
				}
			}
			for _, e := range out {
				if err := t.restore(e); err != nil {
					return err
				}
			}
			return nil
		})
	})
}

// AppendLost records events first..last, which the write-ahead log held in
// damaged records, as lost: one damaged event numbered last (see Lost),
// linked to event first-1, which must be the newest.
func (t *Tx) AppendLost(first, last uint64, why string, actor Actor) (*Event, error) {
	newest := t.Last()
	if newest != first-1 || last < first {
		return nil, fmt.Errorf("journal: lost events %d-%d do not follow event %d: %w", first, last, newest, ErrState)
	}
	base, prev := t.Base()
	if newest > base {
		e, err := t.Event(newest)
		if err != nil {
			return nil, err
		}
		prev = e.NextLink()
	}
	g := &Event{Seq: last, Time: time.Now().UTC(), Kind: KindDamaged, Actor: actor, Tool: "recover", Status: StatusCommitted,
		Lost: &Lost{First: first, Last: last, Why: why}, Prev: prev}
	g.Hash = ComputeHash(g)
	if err := t.MarkFormat(FormatRepaired); err != nil {
		return nil, err
	}
	return g, t.restore(g)
}

// lostContentsWhy is the reason a damaged event for lost contents gives.
const lostContentsWhy = "contents not readable from the damaged journal"

// RecordLostContents appends the damaged event naming contents a repair
// lost, once the write-ahead log it carried was rolled forward
// (RepairReport.LogCarried).
func (j *Journal) RecordLostContents(ids []snapshot.ID, actor Actor) error {
	return j.Do(func(db *DB) error {
		return db.Update(func(t *Tx) error {
			if err := t.MarkFormat(FormatRepaired); err != nil {
				return err
			}
			return t.Append(&Event{Time: time.Now().UTC(), Kind: KindDamaged, Actor: actor, Tool: "repair",
				Status: StatusCommitted, Lost: &Lost{Contents: ids, Why: lostContentsWhy}})
		})
	})
}

// restore stores e as it is (number, links and hash kept) with its index
// entries, session, pending mark, heads, revert link and (a redact event)
// what it took out, as Append, seal and the redaction would have left them.
func (t *Tx) restore(e *Event) error {
	for _, f := range e.Files {
		if err := putIndex(t.tx.Bucket(bucketByPath), f.Path, e.Seq); err != nil {
			return fmt.Errorf("journal: restore %d: %w", e.Seq, err)
		}
	}
	if s := e.Actor.Session; s != "" {
		if err := putIndex(t.tx.Bucket(bucketBySession), s, e.Seq); err != nil {
			return fmt.Errorf("journal: restore %d: %w", e.Seq, err)
		}
		if err := t.touchSession(e); err != nil {
			return err
		}
	}
	if e.Status == StatusPending {
		if err := t.tx.Bucket(bucketPending).Put(u64(e.Seq), nil); err != nil {
			return fmt.Errorf("journal: restore %d: %w", e.Seq, err)
		}
	}
	if err := t.committed(e); err != nil {
		return err
	}
	if err := t.indexRedaction(e); err != nil {
		return err
	}
	return t.put(e)
}

// swap puts the repaired journal tmp in place of the damaged one, which is
// kept beside it (with its write-ahead log), and syncs the directory.
func (j *Journal) swap(tmp string, rep *RepairReport) error {
	stamp := time.Now().UTC().Format("20060102T150405Z")
	rep.KeptAs = j.path + ".damaged-" + stamp
	if err := os.Rename(j.path, rep.KeptAs); err != nil {
		return fmt.Errorf("journal: repair: keep the damaged journal: %w", err)
	}
	wal := j.path + ".wal"
	if _, err := os.Stat(wal); err == nil {
		if err := j.Close(); err != nil { // its open handle, if this process wrote it
			return fmt.Errorf("journal: repair: %w", err)
		}
		if rep.LogCarried {
			// the log goes on the new journal's chain: it stays, and a copy
			// is kept with the damaged file
			if err := copySynced(wal, rep.KeptAs+".wal"); err != nil {
				return fmt.Errorf("journal: repair: keep a copy of the write-ahead log: %w", err)
			}
		} else {
			if err := os.Rename(wal, rep.KeptAs+".wal"); err != nil {
				return fmt.Errorf("journal: repair: keep the write-ahead log: %w", err)
			}
			rep.Log = true
		}
	}
	if err := os.Rename(tmp, j.path); err != nil {
		return fmt.Errorf("journal: repair: put the new journal in place (the damaged one is %s): %w", rep.KeptAs, err)
	}
	if err := syncDir(filepath.Dir(j.path)); err != nil {
		return err
	}
	j.seen.Store("")
	return j.ClearDamaged()
}

// copySynced copies the file src to dst and syncs dst.
func copySynced(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
