package journal

import (
	"errors"
	"fmt"

	"github.com/journalfs/journal/snapshot"
)

// VerifyReport is what Verify found.
type VerifyReport struct {
	Events   int         // events checked
	Head     snapshot.ID // hash of the newest sealed event
	Contents int         // contents re-hashed (with VerifyContents)
	Bytes    int64       // content bytes re-hashed
	Pending  []uint64    // events not yet sealed
}

// Verify recomputes the hash chain from the first event (after gc, from the
// stored hash of the first retained event's predecessor): every record's
// checksum, every event's hash, every prev link, and sequence numbers without
// gaps. The first bad record is named in the error (wrapping ErrCorrupt). With
// contents set, every content an event names is re-read and re-hashed too.
// progress, if not nil, is called after each event.
func (t *Tx) Verify(contents bool, progress func(seq uint64)) (*VerifyReport, error) {
	r := &VerifyReport{}
	seen := map[snapshot.ID]bool{}
	base, prev := t.Base() // after gc, the chain starts at the first retained event
	want := base + 1
	c := t.tx.Bucket(bucketEvents).Cursor()
	lost := t.lostContents()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		seq := keySeq(k)
		e, err := Decode(v)
		if err != nil {
			return r, fmt.Errorf("journal: verify: event %d: %w", seq, err)
		}
		if e.Seq != seq {
			return r, fmt.Errorf("journal: verify: event %d: record says %d: %w", seq, e.Seq, ErrCorrupt)
		}
		if seq != want && !e.Spans(want) {
			return r, fmt.Errorf("journal: verify: event %d missing (next is %d): %w", want, seq, ErrCorrupt)
		}
		if e.Prev != prev {
			return r, fmt.Errorf("journal: verify: event %d: prev %s does not match event %d's hash %s: %w",
				seq, e.Prev.Short(), seq-1, prev.Short(), ErrCorrupt)
		}
		if e.Status == StatusPending {
			r.Pending = append(r.Pending, seq)
			if !e.Hash.IsZero() {
				return r, fmt.Errorf("journal: verify: event %d: pending but hashed: %w", seq, ErrCorrupt)
			}
		} else if h := ComputeHash(e); h != e.Hash {
			return r, fmt.Errorf("journal: verify: event %d: hash %s, recomputed %s: %w", seq, e.Hash.Short(), h.Short(), ErrCorrupt)
		} else {
			r.Head = e.Hash
		}
		if contents {
			for _, f := range e.Files {
				for _, id := range []snapshot.ID{f.Before, f.After} {
					if id.IsZero() || seen[id] || lost[id] {
						continue
					}
					seen[id] = true
					n, err := snapshot.Verify(t.tx, id)
					if errors.Is(err, snapshot.ErrNotFound) {
						// an event names it: lost, not never stored
						return r, fmt.Errorf("journal: verify: event %d: %s: %w: %w", seq, f.Path, err, ErrCorrupt)
					}
					if err != nil {
						return r, fmt.Errorf("journal: verify: event %d: %s: %w", seq, f.Path, err)
					}
					r.Contents++
					r.Bytes += n
				}
			}
		}
		prev = e.NextLink()
		want = seq + 1
		// re-hashing contents reads chunks all over the file (their keys
		// are hashes): release sooner
		every := releaseEvery
		if contents {
			every = releaseContents
		}
		if r.Events++; r.Events%every == 0 {
			t.release()
		}
		if progress != nil {
			progress(seq)
		}
	}
	if t.damage != nil {
		return r, fmt.Errorf("journal: verify: every event reads and links, but %w", t.damage)
	}
	return r, nil
}

// metaLostContents lists, as concatenated IDs, the contents repair could not
// salvage (the damaged events name them too): verify does not re-hash them.
var metaLostContents = []byte("lost_contents")

// lostContents returns the contents repair recorded as lost.
func (t *Tx) lostContents() map[snapshot.ID]bool {
	v := t.tx.Bucket(bucketMeta).Get(metaLostContents)
	out := map[snapshot.ID]bool{}
	for len(v) >= len(snapshot.ID{}) {
		var id snapshot.ID
		copy(id[:], v)
		out[id] = true
		v = v[len(id):]
	}
	return out
}
