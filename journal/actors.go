package journal

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"sync"
)

// Actors. An event names who made it: seven strings (kind, client name and
// version, session, user, host, origin), the same for every event of a
// session, ~50 bytes in each compact record. Since format 9 a record names
// its actor by a number instead (recordV3), from the bucket "actors":
//
//	actors      id (8 bytes, big endian) → actor record
//
//	actor record: magic "JACT" (4) | id (8, big endian) | CRC-32C of the body (4) | body
//	body:         the seven strings, as a compact record writes them (record.go)
//
// An actor is added once, in the transaction of the first event that names
// it, and never changed or removed (gc keeps the bucket whole), so a number
// means one actor for the journal's life. Every event of a session needs
// its actor's record, so the record is kept twice: under its number, and
// under the number with the top bit set (a mirror reads never use). It
// repeats its number and starts with a magic, so that repair finds it in a
// damaged file's bytes (salvageActors) as it finds events: from the mirror
// when the record rotted, from older copies of the bucket's page in freed
// pages (records never change) when the page did. An event whose actor is
// lost with every copy is lost with it (a damaged event names it).
//
// The chain hash stays over the canonical JSON, which holds the actor's
// strings: the number is a storage detail, as the compact record is.

// bucketActors holds the actors (see above).
var bucketActors = []byte("actors")

var actorMagic = []byte("JACT")

// actorHeader is the length of an actor record before its body.
const actorHeader = 4 + 8 + 4

// encodeActor returns the actor record of a under number id.
func encodeActor(id uint64, a Actor) []byte {
	w := recWriter{b: make([]byte, actorHeader, actorHeader+64)}
	copy(w.b, actorMagic)
	binary.BigEndian.PutUint64(w.b[4:], id)
	for _, s := range []string{a.Kind, a.Name, a.Version, a.Session, a.User, a.Host, a.Origin} {
		w.str(s)
	}
	binary.BigEndian.PutUint32(w.b[12:], crc32.Checksum(w.b[actorHeader:], castagnoli))
	return w.b
}

// parseActor reads the actor record at the start of p (which may go on
// past it, in a damaged file's bytes) and returns its number, the actor
// and the record's length.
func parseActor(p []byte) (uint64, Actor, int, error) {
	var a Actor
	if len(p) < actorHeader || !bytes.Equal(p[:4], actorMagic) {
		return 0, a, 0, errors.New("not an actor record")
	}
	r := recReader{b: p, i: actorHeader}
	for _, s := range []*string{&a.Kind, &a.Name, &a.Version, &a.Session, &a.User, &a.Host, &a.Origin} {
		*s = r.str()
	}
	if r.err != nil {
		return 0, a, 0, r.err
	}
	if crc32.Checksum(p[actorHeader:r.i], castagnoli) != binary.BigEndian.Uint32(p[12:]) {
		return 0, a, 0, errors.New("actor record checksum mismatch")
	}
	return binary.BigEndian.Uint64(p[4:]), a, r.i, nil
}

// actorCache remembers, per journal, the actors its records name: by
// number, with the record they were parsed from (a number is checked
// against the bucket's record at each use, so a number cached from a
// transaction that rolled back is never trusted), and the number of each
// actor this process wrote or read.
type actorCache struct {
	mu   sync.Mutex
	byID map[uint64]cachedActor
	ids  map[Actor]uint64
}

type cachedActor struct {
	rec   []byte
	actor Actor
}

// actor returns the actor numbered id, as the transaction's actors bucket
// holds it. A damaged page on the way is an error (a DamageError), not a
// panic: the event whose record names the actor is then the one damaged
// (Tx.Scan goes on past it; repair looks for the actor in the file's
// bytes).
func (t *Tx) actor(id uint64) (a Actor, err error) {
	defer func() {
		if r := recover(); r != nil {
			if !storePanic(r) {
				panic(r)
			}
			a, err = Actor{}, fmt.Errorf("actor %d: %w", id, t.j.asDamage(r))
		}
	}()
	b := t.tx.Bucket(bucketActors)
	if b == nil {
		return Actor{}, fmt.Errorf("actor %d: no actors bucket", id)
	}
	rec := b.Get(u64(id))
	if rec == nil {
		return Actor{}, fmt.Errorf("actor %d: not stored", id)
	}
	c := &t.j.actors
	c.mu.Lock()
	defer c.mu.Unlock()
	if ca, ok := c.byID[id]; ok && bytes.Equal(ca.rec, rec) {
		return ca.actor, nil
	}
	n, a, l, err := parseActor(rec)
	if err == nil && (n != id || l != len(rec)) {
		err = errors.New("a damaged record")
	}
	if err != nil {
		return Actor{}, fmt.Errorf("actor %d: %v", id, err)
	}
	if c.byID == nil {
		c.byID, c.ids = map[uint64]cachedActor{}, map[Actor]uint64{}
	}
	c.byID[id] = cachedActor{rec: bytes.Clone(rec), actor: a}
	c.ids[a] = id
	return a, nil
}

// actorID returns the number of actor a, adding it to the actors bucket
// (created if the journal has none yet) when it is new. Write transactions
// only.
func (t *Tx) actorID(a Actor) (uint64, error) {
	b, err := t.tx.CreateBucketIfNotExists(bucketActors)
	if err != nil {
		return 0, fmt.Errorf("journal: actors: %w", err)
	}
	c := &t.j.actors
	c.mu.Lock()
	id, ok := c.ids[a]
	c.mu.Unlock()
	if ok {
		if got, err := t.actor(id); err == nil && got == a {
			return id, nil
		}
	}
	// written by another process, or before this one started
	found := uint64(0)
	b.ForEach(func(k, v []byte) error {
		if n, got, _, err := parseActor(v); err == nil && got == a && len(k) == 8 && binary.BigEndian.Uint64(k) == n {
			found = n
			return errStopScan
		}
		return nil
	})
	if found != 0 {
		if _, err := t.actor(found); err == nil {
			return found, nil
		}
	}
	// the number after the last: not the bucket's sequence, which a copy
	// of the bucket (gc, repair) need not carry; never one in use
	id = 1
	cur := b.Cursor()
	k, _ := cur.Seek(u64(mirrorBit)) // the first mirror: the last number is before it
	if k == nil {
		k, _ = cur.Last()
	} else {
		k, _ = cur.Prev()
	}
	if len(k) == 8 && binary.BigEndian.Uint64(k) < mirrorBit {
		id = binary.BigEndian.Uint64(k) + 1
	}
	if id >= mirrorBit || b.Get(u64(id)) != nil {
		return 0, fmt.Errorf("journal: actors: number %d in use: %w", id, ErrCorrupt)
	}
	rec := encodeActor(id, a)
	if err := b.Put(u64(id), rec); err != nil {
		return 0, fmt.Errorf("journal: actors: %w", err)
	}
	if err := b.Put(u64(id|mirrorBit), bytes.Clone(rec)); err != nil {
		return 0, fmt.Errorf("journal: actors: %w", err)
	}
	if _, err := t.actor(id); err != nil {
		return 0, err
	}
	return id, nil
}

var errStopScan = errors.New("stop")

// mirrorBit marks the key of an actor record's mirror (see above).
const mirrorBit = 1 << 63

// encode returns e's record as this transaction stores it: naming its
// actor by number (v3) where it can.
func (t *Tx) encode(e *Event) ([]byte, error) {
	var id uint64
	if t.tx.Writable() && e.Actor != (Actor{}) && e.Lost == nil {
		var err error
		if id, err = t.actorID(e.Actor); err != nil {
			return nil, err
		}
	}
	return encode(e, id)
}

// decode parses a stored record, resolving its actor in this transaction.
func (t *Tx) decode(rec []byte) (*Event, error) { return decode(rec, t.actor) }

// salvageActors finds the actor records in raw, a damaged file's bytes:
// every whole one, by number (a number found with two different actors is
// left out: neither can be trusted).
func salvageActors(raw []byte) map[uint64]Actor {
	out := map[uint64]Actor{}
	bad := map[uint64]bool{}
	for off := 0; ; {
		i := bytes.Index(raw[off:], actorMagic)
		if i < 0 {
			break
		}
		at := off + i
		off = at + 1
		id, a, _, err := parseActor(raw[at:])
		if err != nil || id == 0 {
			continue
		}
		if prev, ok := out[id]; ok && prev != a {
			bad[id] = true
		}
		out[id] = a
	}
	for id := range bad {
		delete(out, id)
	}
	return out
}
