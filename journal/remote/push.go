package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/audit"
	"github.com/journalfs/journal/snapshot"
)

// segmentEvents is the most events one segment holds.
const segmentEvents = 10000

// uploaders is how many contents a push sends at once: on a real network
// each request waits a round trip (tens of milliseconds to a cloud
// region), so requests in flight, not CPU, bound a push.
const uploaders = 32

// PushReport says what a push did.
type PushReport struct {
	Workspace       string
	From, To        uint64 // the events pushed (0, 0: none: the remote was up to date)
	Head            uint64 // the newest event the remote holds after the push
	Rolled          int    // small segments rolled into one
	Segments        int
	Contents        int // contents sent
	ContentsThere   int // contents the remote had (this or another workspace's)
	Chunks          int // chunks sent
	ChunksThere     int
	Bytes           int64 // bytes sent
	MissingContents int   // contents events name that the journal no longer holds (gc, repair)
	Checkpoints     int   // signed checkpoints sent
	// Shred is, when the events pushed carry redactions and the remote is
	// encrypted, what destroying their keys did (nil: none to destroy).
	Shred *StoreShred
}

// PushOptions tune Push.
type PushOptions struct {
	// Progress, if set, is called as events are pushed (done of total).
	Progress func(done, total uint64)
	// SegmentEvents is the most events a segment holds (0: 10,000).
	SegmentEvents uint64
	// Repository, if set, is the git repository the workspace's files are
	// a checkout of: the push records it in the workspace's team index
	// (journal team blame finds the workspaces of one repository by it).
	Repository *Repository
}

// Push sends the store what it lacks of journal j: the contents its new
// events name, then those events as segments, moving the workspace's head
// after each segment with a conditional write. It resumes an interrupted
// push and is a no-op when the remote is up to date; it refuses (ErrConflict)
// when the remote's head is not an event of this journal (another writer)
// or moves while it pushes. The journal's checkpoints go last, those of
// trees whose events the remote now holds.
func Push(ctx context.Context, s *Store, j *journal.Journal, o PushOptions) (*PushReport, error) {
	var ws string
	err := j.View(func(tx *journal.Tx) error { ws = tx.Workspace(); return nil })
	if err == nil && ws == "" { // the first push: a write
		err = j.Do(func(db *journal.DB) error {
			return db.Update(func(tx *journal.Tx) (err error) { ws, err = tx.MakeWorkspace(); return })
		})
	}
	if err != nil {
		return nil, err
	}
	rep := &PushReport{Workspace: ws}
	head, etag, err := s.readHead(ctx, ws)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return nil, err
	}
	var from, upTo uint64
	var base snapshot.ID
	var baseSeq uint64
	err = j.View(func(tx *journal.Tx) error {
		baseSeq, base = tx.Base()
		upTo = tx.Last()
		for _, p := range tx.Pending() { // an apply in flight: push up to it
			if p <= upTo {
				upTo = p - 1
			}
		}
		if head == nil {
			from = baseSeq + 1
			return nil
		}
		from = head.Last + 1
		switch {
		case head.Last > upTo:
			return fail(ErrConflict, "remote %s: workspace %s has events up to %d there and this journal only to %d: another writer (a copy of this workspace?) pushed to it", s.r.Name, ws, head.Last, upTo)
		case head.Last != 0 && head.Last <= baseSeq:
			if head.Last == baseSeq && head.Hash == base {
				return nil
			}
			return fail(ErrConflict, "remote %s: events %d to %d were dropped by gc before they were pushed; the remote chain cannot continue", s.r.Name, head.Last+1, baseSeq)
		case head.Last != 0:
			e, err := tx.Event(head.Last)
			if err != nil {
				return err
			}
			if e.Hash != head.Hash {
				return fail(ErrConflict, "remote %s: workspace %s's event %d there is not this journal's: another writer pushed to it", s.r.Name, ws, head.Last)
			}
		}
		return nil
	})
	if err != nil {
		return rep, err
	}
	if head == nil {
		head = &Head{Version: 1, Workspace: ws, BaseSeq: baseSeq, BaseHash: base, Last: baseSeq, Hash: base}
	}
	rep.Head = head.Last
	if from > upTo {
		if err := updateIndex(ctx, s, j, ws, head, o.Repository); err != nil { // a remote pushed to by an older journal gets one
			return rep, err
		}
		rep.Checkpoints, err = pushCheckpoints(ctx, s, j, ws, rep.Head)
		return rep, err
	}
	if s.Encrypted() { // what was pushed before (or by a push that failed) and is redacted now
		if rep.Shred, err = shredPushed(ctx, s, j, ws, from, upTo); err != nil {
			return rep, err
		}
	}
	per := o.SegmentEvents
	if per == 0 {
		per = segmentEvents
	}
	p := &pusher{s: s, j: j, rep: rep, sent: map[snapshot.ID]bool{}, there: map[snapshot.ID]bool{}, keys: map[snapshot.ID]dataKey{}}
	enc := s.Encrypted()
	for first := from; first <= upTo; first += per {
		last := min(first+per-1, upTo)
		b, err := buildSegment(j, ws, first, last, enc)
		if err != nil {
			return rep, err
		}
		if o.Progress != nil { // within a segment, the contents sent so far
			seg, done, total := last-first+1, first-from, upTo-from+1
			p.onContent = func(k, n int) { o.Progress(done+uint64(k)*seg/uint64(n+1), total) }
		}
		if err := p.contents(ctx, b.ids); err != nil { // contents before the events that name them
			return rep, err
		}
		if err := p.putSegment(ctx, b); err != nil {
			return rep, err
		}
		rep.Bytes += int64(len(b.z))
		head.Segments = append(head.Segments, b.sg)
		head.Last, head.Hash, head.Updated = last, b.lastHash, time.Now().UTC()
		// the small segments continuous pushes leave are rolled into one
		// once there are rollAt of them: the head stays small
		var drop []Segment
		if k := smallTail(head.Segments, per); k >= rollAt {
			run := head.Segments[len(head.Segments)-k:]
			big, err := buildSegment(j, ws, run[0].First, run[k-1].Last, enc)
			if err != nil {
				return rep, err
			}
			if enc {
				if err := p.rollKeys(ctx, run, big); err != nil {
					return rep, err
				}
			}
			if err := p.putSegment(ctx, big); err != nil {
				return rep, err
			}
			drop = append(drop, run...)
			head.Segments = append(head.Segments[:len(head.Segments)-k], big.sg)
			rep.Rolled += k
		}
		hb, _ := json.MarshalIndent(head, "", " ")
		if etag, err = s.putHead(ctx, ws, hb, etag); err != nil {
			return rep, err
		}
		rep.Head = last
		for _, d := range drop { // no head names them now; one left behind is only garbage
			s.remove(ctx, d.Key)
			if enc { // nor their keys, which a shred would otherwise have to find
				s.keys.purge(ctx, keyFileKey(d.Key), true)
			}
		}
		if rep.From == 0 {
			rep.From = first
		}
		rep.To = last
		rep.Segments++
		if o.Progress != nil {
			o.Progress(last-from+1, upTo-from+1)
		}
	}
	if err := updateIndex(ctx, s, j, ws, head, o.Repository); err != nil { // after the head: it is checked against it
		return rep, err
	}
	rep.Checkpoints, err = pushCheckpoints(ctx, s, j, ws, rep.Head) // after the events they cover
	return rep, err
}

// rollAt is how many small segments (of fewer events than a segment holds)
// a head may end with before a push rolls them into one.
const rollAt = 32

// smallTail counts the segments at the end of segs that hold, together,
// at most per events.
func smallTail(segs []Segment, per uint64) int {
	k, n := 0, uint64(0)
	for k < len(segs) {
		sg := segs[len(segs)-1-k]
		if n += sg.Last - sg.First + 1; n > per {
			break
		}
		k++
	}
	return k
}

// builtSegment is a segment object made from the journal: its bytes, its
// entry in the head, the contents its events name, the last event's hash
// and, on an encrypted remote, its key file (the events' keys so far).
type builtSegment struct {
	z        []byte
	sg       Segment
	ids      []snapshot.ID
	lastHash snapshot.ID
	keys     *keyFile
}

// buildSegment makes the segment object of events first..last of j: its
// events' export lines, or with encrypt their sealed lines.
func buildSegment(j *journal.Journal, ws string, first, last uint64, encrypt bool) (*builtSegment, error) {
	var lines bytes.Buffer
	b := &builtSegment{}
	if encrypt {
		b.keys = newKeyFile()
	}
	err := j.View(func(tx *journal.Tx) error {
		return tx.Scan(first, false, func(e *journal.Event) error {
			if e.Seq > last {
				return journal.ErrStop
			}
			var l []byte
			var err error
			if encrypt {
				var k *dataKey
				_, redacted := tx.ArgsRedactedBy(e.Seq)
				if l, k, err = sealLine(e, redacted && !e.Salted()); k != nil {
					b.keys.events[e.Seq] = *k
				}
			} else {
				l, err = audit.ExportLine(e)
			}
			if err != nil {
				return err
			}
			lines.Write(l)
			b.ids = append(b.ids, contentIDs(e)...)
			b.lastHash = e.Hash
			return nil
		}, nil)
	})
	if err != nil && !errors.Is(err, journal.ErrStop) {
		return nil, err
	}
	b.z = zenc().EncodeAll(lines.Bytes(), nil)
	b.sg = Segment{Key: segmentKey(ws, first, last), First: first, Last: last, Sum: snapshot.Sum(b.z)}
	return b, nil
}

// putSegment writes a built segment: on an encrypted remote its key file
// first (the keys of its events and of every content they name that the
// push met), so that no segment is readable only by keys not written yet.
func (p *pusher) putSegment(ctx context.Context, b *builtSegment) error {
	if b.keys != nil {
		p.mu.Lock()
		for _, id := range b.ids {
			if k, ok := p.keys[id]; ok {
				b.keys.contents[id] = k
			}
		}
		p.mu.Unlock()
		if err := p.s.writeKeys(ctx, b.sg.Key, b.keys); err != nil {
			return err
		}
	}
	_, err := p.s.put(ctx, b.sg.Key, b.z, "", false)
	return err
}

// putHead writes a workspace's head: over the one with ETag etag, or as a
// new object when etag is "". It returns the new ETag.
func (s *Store) putHead(ctx context.Context, ws string, b []byte, etag string) (string, error) {
	etag, err := s.put(ctx, headKey(ws), b, etag, etag == "")
	if errors.Is(err, ErrConflict) {
		return "", fail(ErrConflict, "remote %s: workspace %s's head moved while this push ran: another writer is pushing to it; nothing of this push is lost (run push again once it is the only writer)", s.r.Name, ws)
	}
	return etag, err
}

// pusher sends contents, several objects at once.
type pusher struct {
	s      *Store
	j      *journal.Journal
	rep    *PushReport
	mu     sync.Mutex
	sent   map[snapshot.ID]bool // contents and chunks known to be there
	there  map[snapshot.ID]bool // contents found by listing (counted as there when met)
	listed bool
	keys   map[snapshot.ID]dataKey // on an encrypted remote, the key of each content met
	// onContent, if set, is told of each content done (k of n)
	onContent func(k, n int)
	doneN     int
}

// listAt is the number of contents a push checks from which it lists the
// remote's contents once instead of asking about each.
const listAt = 2000

// contents sends the contents ids that the remote lacks: their chunks
// first, then their manifests.
func (p *pusher) contents(ctx context.Context, ids []snapshot.ID) error {
	if len(ids) >= listAt && !p.listed {
		p.listed = true
		keys, err := p.s.list(ctx, "contents/")
		if err != nil {
			return err
		}
		for _, k := range keys {
			if id, err := snapshot.ParseID(strings.TrimPrefix(k, "contents/")); err == nil {
				p.mark(id)
				p.there[id] = true
			}
		}
	}
	uniq := distinct(ids)
	p.doneN = 0
	work := make(chan snapshot.ID)
	errc := make(chan error, uploaders)
	var wg sync.WaitGroup
	for range uploaders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for id := range work {
				if err := p.content(ctx, id); err != nil {
					errc <- err
					for range work {
					}
					return
				}
				if p.onContent != nil {
					p.mu.Lock()
					p.doneN++
					p.onContent(p.doneN, len(uniq))
					p.mu.Unlock()
				}
			}
		}()
	}
	var err error
feed:
	for _, id := range uniq {
		select {
		case work <- id:
		case err = <-errc:
			break feed
		}
	}
	close(work)
	wg.Wait()
	if err == nil {
		select {
		case err = <-errc:
		default:
		}
	}
	return err
}

func (p *pusher) known(id snapshot.ID) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sent[id]
}

func (p *pusher) mark(id snapshot.ID) {
	p.mu.Lock()
	p.sent[id] = true
	p.mu.Unlock()
}

func (p *pusher) count(f func(r *PushReport)) {
	p.mu.Lock()
	f(p.rep)
	p.mu.Unlock()
}

func (p *pusher) content(ctx context.Context, id snapshot.ID) error {
	if p.s.keys != nil {
		return p.sealedContent(ctx, id)
	}
	if p.known(id) {
		p.mu.Lock()
		if p.there[id] {
			p.rep.ContentsThere++
			delete(p.there, id)
		}
		p.mu.Unlock()
		return nil
	}
	size, chunks, err := p.local(id)
	if err != nil || chunks == nil {
		p.missing(chunks, err)
		return err
	}
	// a content of one chunk is that chunk (same bytes, same ID): it needs
	// no manifest, and one request sends it
	single := len(chunks) == 1 && chunks[0] == id
	if !single {
		there, err := p.s.exists(ctx, contentKey(id))
		if err != nil {
			return err
		}
		if there {
			p.mark(id)
			p.count(func(r *PushReport) { r.ContentsThere++ })
			return nil
		}
	}
	for _, c := range chunks {
		if p.known(c) {
			continue
		}
		var data []byte
		if err := p.j.View(func(tx *journal.Tx) (err error) { data, err = snapshot.ReadChunk(tx.Bolt(), c); return }); err != nil {
			return err
		}
		// one request: created, or there already (another workspace's, or
		// an interrupted push's); a store without conditional writes
		// overwrites it with the same bytes
		if err := p.putChunk(ctx, c, zenc().EncodeAll(data, nil), single); err != nil {
			return err
		}
		p.mark(c)
	}
	if single {
		return nil
	}
	m := manifest(size, chunks)
	if _, err := p.s.put(ctx, contentKey(id), m, "", false); err != nil {
		return err
	}
	p.mark(id)
	p.count(func(r *PushReport) { r.Contents++; r.Bytes += int64(len(m)) })
	return nil
}

// local returns content id's size and chunks in the journal; no chunks
// (nil) when the journal no longer holds it.
func (p *pusher) local(id snapshot.ID) (int64, []snapshot.ID, error) {
	var size int64
	chunks := []snapshot.ID{}
	err := p.j.View(func(tx *journal.Tx) error {
		var err error
		if size, err = snapshot.Size(tx.Bolt(), id); err != nil {
			return err
		}
		return snapshot.Refs(tx.Bolt(), id, func(b []byte, ref snapshot.ID) {
			if bytes.Equal(b, snapshot.BucketChunks) {
				chunks = append(chunks, ref)
			}
		})
	})
	if errors.Is(err, snapshot.ErrNotFound) {
		return 0, nil, nil
	}
	return size, chunks, err
}

// missing counts a content local found missing.
func (p *pusher) missing(chunks []snapshot.ID, err error) {
	if err == nil && chunks == nil {
		p.count(func(r *PushReport) { r.MissingContents++ })
	}
}

// putChunk sends chunk object c (z: its bytes as stored, sealed or not)
// unless it is there, and counts it; single: it is a whole content.
func (p *pusher) putChunk(ctx context.Context, c snapshot.ID, z []byte, single bool) error {
	_, err := p.s.put(ctx, chunkKey(c), z, "", true)
	switch {
	case errors.Is(err, ErrConflict) && single:
		p.count(func(r *PushReport) { r.ChunksThere++; r.ContentsThere++ })
	case errors.Is(err, ErrConflict):
		p.count(func(r *PushReport) { r.ChunksThere++ })
	case err != nil:
		return err
	case single:
		p.count(func(r *PushReport) { r.Chunks++; r.Contents++; r.Bytes += int64(len(z)) })
	default:
		p.count(func(r *PushReport) { r.Chunks++; r.Bytes += int64(len(z)) })
	}
	p.mark(c)
	return nil
}

// distinct is ids without repeats, in their order.
func distinct(ids []snapshot.ID) []snapshot.ID {
	seen := make(map[snapshot.ID]bool, len(ids))
	out := ids[:0:0]
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}
