package snapshot

import (
	"bytes"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// CopyContent copies content id — its manifest, lists and chunks, and the
// bases of its delta chunks — from the store in src to the store in dst,
// skipping every record dst has already, and returns the bytes of the
// records it copied. It is how the journal's gc keeps what it keeps: it
// copies what the kept history references into a fresh file, so the copy
// itself is the set of what is live, and nothing needs marking in memory.
// The records are copied as they are (not re-encoded); a chunk whose bases
// are missing in src is copied anyway (verify names it, as it would have).
func CopyContent(src, dst *bolt.Tx, id ID) (int64, error) {
	sc, err := buckets(src)
	if err != nil {
		return 0, err
	}
	dc, err := buckets(dst)
	if err != nil {
		return 0, err
	}
	if dc[2].Get(id[:]) != nil {
		return 0, nil
	}
	rec := sc[2].Get(id[:])
	if rec == nil {
		return 0, fmt.Errorf("snapshot: copy content %s: %w", id.Short(), ErrNotFound)
	}
	m, ok := parseManifest(rec)
	if !ok || len(rec) != manifestLen(m) {
		return 0, fmt.Errorf("snapshot: copy content %s: a damaged manifest: %w", id.Short(), ErrCorrupt)
	}
	var n int64
	err = m.parts(func(l ID) ([]ID, error) {
		if dc[1].Get(l[:]) != nil {
			return nil, nil // copied with everything it names
		}
		ids, err := readList(sc[1], l)
		if err != nil {
			return nil, err
		}
		for _, c := range ids {
			k, err := copyChunk(sc[0], dc[0], c, maxDepth)
			n += k
			if err != nil {
				return nil, err
			}
		}
		return nil, put(dc[1], l, sc[1].Get(l[:]), &n)
	}, func(ids []ID) error {
		for _, c := range ids { // inline chunks (a list's were copied above)
			k, err := copyChunk(sc[0], dc[0], c, maxDepth)
			n += k
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return n, fmt.Errorf("snapshot: copy content %s: %w", id.Short(), err)
	}
	return n, put(dc[2], id, rec, &n)
}

// copyChunk copies chunk id, and the bases it is a delta against (at most
// limit deep), unless dst has it.
func copyChunk(src, dst *bolt.Bucket, id ID, limit int) (int64, error) {
	if dst.Get(id[:]) != nil {
		return 0, nil
	}
	rec := src.Get(id[:])
	if rec == nil {
		return 0, fmt.Errorf("snapshot: chunk %s: %w", id.Short(), ErrNotFound)
	}
	var n int64
	if recordDepth(rec) > 0 {
		depth, bases, _, ok := parseDelta(rec)
		if !ok || depth > limit {
			return 0, fmt.Errorf("snapshot: chunk %s: a damaged delta record: %w", id.Short(), ErrCorrupt)
		}
		for _, b := range bases {
			k, err := copyChunk(src, dst, b, depth-1)
			n += k
			if err != nil {
				return n, err
			}
		}
	}
	return n, put(dst, id, rec, &n)
}

// put stores a copy of rec (bbolt keeps the slice it is given until the
// transaction commits, and rec is in the source's mapping, whose pages the
// caller lets go of as it goes) under id.
func put(b *bolt.Bucket, id ID, rec []byte, n *int64) error {
	if err := b.Put(bytes.Clone(id[:]), bytes.Clone(rec)); err != nil {
		return fmt.Errorf("snapshot: copy %s: %w", id.Short(), err)
	}
	*n += int64(len(rec))
	return nil
}

// buckets returns a store's chunks, lists and contents buckets.
func buckets(tx *bolt.Tx) ([3]*bolt.Bucket, error) {
	var out [3]*bolt.Bucket
	for i, name := range [][]byte{BucketChunks, BucketLists, BucketContents} {
		b, err := bucket(tx, name)
		if err != nil {
			return out, err
		}
		out[i] = b
	}
	return out, nil
}
