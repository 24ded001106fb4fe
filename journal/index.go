package journal

import (
	"bytes"
	"encoding/binary"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// Index blocks. The by_path and by_session indexes list, per path or
// session, the events that touch it. An entry is a key "name 0x00 seq" (8
// bytes, big endian) whose value holds the events after seq in the same
// block: uvarints, each the difference from the event before (≥ 1). A key
// with an empty value, as every journal before format 8 wrote, is a block of
// one event. Appending an event extends the name's last block (~2 bytes)
// until its value reaches indexBlockMax, then starts a block with a key of
// its own: ~3 bytes per event instead of a key and bbolt's 16-byte leaf
// header each (36 and 49 bytes per event in the by_path and by_session of a
// one-line-edit workload, and bbolt's pages of interleaved keys half full:
// 68 and 49 bytes allocated). Blocks of one name never overlap: every event
// in a block is before the next block's key.

// indexBlockMax bounds a block's value: an append reads and rewrites it.
const indexBlockMax = 256

// decodeBlock returns the events of the block with key number first and
// value v, oldest first. A value that does not decode (damage) ends the
// block where it stops decoding.
func decodeBlock(first uint64, v []byte, dst []uint64) []uint64 {
	dst = append(dst, first)
	for len(v) > 0 {
		d, n := binary.Uvarint(v)
		if n <= 0 || d == 0 || first+d < first {
			break
		}
		first += d
		dst = append(dst, first)
		v = v[n:]
	}
	return dst
}

// encodeBlock returns the value of a block holding seqs (ascending; the
// first is the key's).
func encodeBlock(seqs []uint64) []byte {
	var v []byte
	for i := 1; i < len(seqs); i++ {
		v = binary.AppendUvarint(v, seqs[i]-seqs[i-1])
	}
	return v
}

// putIndex adds event seq to the index entries of name in b: it extends the
// block holding the events just before seq (the usual append: name's last
// block), or starts a block. An entry past the bucket's last key (one
// session's events, one file edited again and again) is an append: the
// bucket's pages are then filled whole (appendFill), which halved what
// by_session took on disk for a server's single session; an entry into the
// middle keeps bbolt's default split, which suits keys that arrive
// interleaved. bbolt applies the fill when the transaction commits, so the
// last entry of a transaction decides for its bucket.
func putIndex(b *bolt.Bucket, name string, seq uint64) error {
	key := indexKey(name, seq)
	prefix := key[:len(key)-8]
	k, v := seekBefore(b.Cursor(), key)
	if bytes.Equal(k, key) {
		return nil // there already
	}
	var seqs []uint64
	if k != nil && len(k) == len(key) && bytes.HasPrefix(k, prefix) {
		seqs = decodeBlock(binary.BigEndian.Uint64(k[len(prefix):]), v, nil)
	}
	switch {
	case len(seqs) == 0: // the first of name's events, or before its first block
	case seqs[len(seqs)-1] == seq:
		return nil
	case seqs[len(seqs)-1] < seq && len(v)+binary.MaxVarintLen64 <= indexBlockMax:
		v = binary.AppendUvarint(bytes.Clone(v), seq-seqs[len(seqs)-1])
		return putIndexEntry(b, bytes.Clone(k), v)
	case seqs[len(seqs)-1] > seq: // into the middle of a block (repair restores in any order)
		i := 0
		for seqs[i] < seq {
			i++
		}
		if seqs[i] == seq {
			return nil
		}
		seqs = append(seqs[:i], append([]uint64{seq}, seqs[i:]...)...)
		// split it in two: both halves stay below the next block's key
		h := len(seqs) / 2
		if err := putIndexEntry(b, bytes.Clone(k), encodeBlock(seqs[:h])); err != nil {
			return err
		}
		return putIndexEntry(b, indexKey(name, seqs[h]), encodeBlock(seqs[h:]))
	}
	return putIndexEntry(b, key, nil)
}

// seekBefore positions c at key, if the bucket holds it, else at the last
// key before it, and returns that entry (none: nil).
func seekBefore(c *bolt.Cursor, key []byte) (k, v []byte) {
	k, v = c.Seek(key)
	switch {
	case k == nil: // past the bucket's last key
		return c.Last()
	case !bytes.Equal(k, key):
		return c.Prev()
	}
	return k, v
}

func putIndexEntry(b *bolt.Bucket, k, v []byte) error {
	b.FillPercent = bolt.DefaultFillPercent
	if last, _ := b.Cursor().Last(); last == nil || bytes.Compare(k, last) >= 0 {
		b.FillPercent = appendFill
	}
	if err := b.Put(k, v); err != nil {
		return fmt.Errorf("index %q: %w", k[:len(k)-9], err)
	}
	return nil
}

// eachIndexed calls fn with the events of name in b, newest first, until
// fn returns ErrStop.
func eachIndexed(b *bolt.Bucket, name string, fn func(seq uint64) error) error {
	end := indexKey(name, ^uint64(0))
	prefix := end[:len(end)-8]
	c := b.Cursor()
	k, v := seekBefore(c, end)
	var seqs []uint64
	for ; k != nil && bytes.HasPrefix(k, prefix) && len(k) == len(end); k, v = c.Prev() {
		seqs = decodeBlock(binary.BigEndian.Uint64(k[len(prefix):]), v, seqs[:0])
		for i := len(seqs) - 1; i >= 0; i-- {
			if err := fn(seqs[i]); err != nil {
				if err == ErrStop {
					return nil
				}
				return err
			}
		}
	}
	return nil
}

// trimBlock returns the entry of the block (k, v) without its events
// before from: the same, one keyed by its first event from from on, or
// none (ok false).
func trimBlock(k, v []byte, from uint64) (nk, nv []byte, ok bool) {
	if len(k) < 9 {
		return k, v, true // not an index key: kept as it is
	}
	first := binary.BigEndian.Uint64(k[len(k)-8:])
	if first >= from {
		return k, v, true
	}
	if len(v) == 0 {
		return nil, nil, false
	}
	seqs := decodeBlock(first, v, nil)
	i := 0
	for i < len(seqs) && seqs[i] < from {
		i++
	}
	if i == len(seqs) {
		return nil, nil, false
	}
	nk = binary.BigEndian.AppendUint64(bytes.Clone(k[:len(k)-8]), seqs[i])
	return nk, encodeBlock(seqs[i:]), true
}

// dropIndexBelow deletes the events before from from name's entries in b.
func dropIndexBelow(b *bolt.Bucket, name string, from uint64) error {
	start := indexKey(name, 0)
	prefix := start[:len(start)-8]
	var dels, puts [][2][]byte
	c := b.Cursor()
	for k, v := c.Seek(start); k != nil && bytes.HasPrefix(k, prefix) && len(k) == len(start); k, v = c.Next() {
		if binary.BigEndian.Uint64(k[len(prefix):]) >= from {
			break
		}
		dels = append(dels, [2][]byte{bytes.Clone(k)})
		if nk, nv, ok := trimBlock(k, v, from); ok {
			puts = append(puts, [2][]byte{nk, nv})
		}
	}
	for _, d := range dels {
		if err := b.Delete(d[0]); err != nil {
			return fmt.Errorf("index %q: %w", name, err)
		}
	}
	for _, p := range puts {
		if err := b.Put(p[0], p[1]); err != nil {
			return fmt.Errorf("index %q: %w", name, err)
		}
	}
	return nil
}
