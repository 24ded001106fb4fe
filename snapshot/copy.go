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
//
// Records are copied as they are, not decoded or re-encoded, and damage is
// copied too, never made worse: a record that does not parse is copied
// whole without following it, and a record that is missing is skipped, so
// that verify names in the copy what it named in the source. The error is
// ErrNotFound when the content itself is not stored, else a write's.
//
// each, if not nil, is called after every record copied: the records of a
// content's delta chains lie all over the source file, so a caller that
// bounds its resident memory checks it there (the first copy of a chain
// 128 deep reads 128 pages — and the kernel maps ~110 KiB of page cache
// around each).
func CopyContent(src, dst *bolt.Tx, id ID, each func()) (int64, error) {
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
	n := &copied{each: each}
	if rec == nil {
		if c := sc[0].Get(id[:]); len(c) == 0 || c[0] != chunkWhole {
			return 0, fmt.Errorf("snapshot: copy content %s: %w", id.Short(), ErrNotFound)
		}
		// one chunk, without a manifest (store.go: finish); dst may hold it
		// already as a part of another content
		if err := copyChunk(sc[0], dc[0], id, readDepth, n); err != nil {
			return n.bytes, fmt.Errorf("snapshot: copy content %s: %w", id.Short(), err)
		}
		err := markWhole(dc[0], id)
		return n.bytes, err
	}
	if m, ok := parseManifest(rec); ok && len(rec) == manifestLen(m) {
		err = m.parts(func(l ID) ([]ID, error) {
			lrec := sc[1].Get(l[:])
			if lrec == nil || dc[1].Get(l[:]) != nil {
				return nil, nil // missing, or copied with everything it names
			}
			// a list that does not read is copied as it is
			if ids, err := readList(sc[1], l); err == nil {
				if err := copyChunks(sc[0], dc[0], ids, n); err != nil {
					return nil, err
				}
			}
			return nil, put(dc[1], l, lrec, n)
		}, func(ids []ID) error {
			return copyChunks(sc[0], dc[0], ids, n) // inline chunks (a list's were copied above)
		})
		if err != nil {
			return n.bytes, fmt.Errorf("snapshot: copy content %s: %w", id.Short(), err)
		}
	}
	err = put(dc[2], id, rec, n)
	return n.bytes, err
}

// copied counts the bytes a copy wrote, and calls each after every record.
type copied struct {
	bytes int64
	each  func()
}

// copyChunks copies chunks ids (and their bases) unless dst has them.
func copyChunks(src, dst *bolt.Bucket, ids []ID, n *copied) error {
	for _, c := range ids {
		if err := copyChunk(src, dst, c, readDepth, n); err != nil {
			return err
		}
	}
	return nil
}

// copyChunk copies chunk id, and the bases it is a delta against (at most
// limit deep), unless dst has it; a missing chunk is skipped, a delta record
// that does not parse is copied without its bases.
func copyChunk(src, dst *bolt.Bucket, id ID, limit int, n *copied) error {
	if dst.Get(id[:]) != nil {
		return nil
	}
	rec := src.Get(id[:])
	if rec == nil {
		return nil
	}
	if recordDepth(rec) > 0 {
		if depth, refs, _, ok := parseDelta(rec); ok && depth <= limit {
			for _, cands := range resolveBases(src, refs, false) {
				for _, b := range cands {
					if err := copyChunk(src, dst, b, depth-1, n); err != nil {
						return err
					}
				}
			}
		}
	}
	return put(dst, id, rec, n)
}

// put stores a copy of rec (bbolt keeps the slice it is given until the
// transaction commits, and rec is in the source's mapping, whose pages the
// caller lets go of as it goes) under id.
func put(b *bolt.Bucket, id ID, rec []byte, n *copied) error {
	if err := b.Put(bytes.Clone(id[:]), bytes.Clone(rec)); err != nil {
		return fmt.Errorf("snapshot: copy %s: %w", id.Short(), err)
	}
	n.bytes += int64(len(rec))
	if n.each != nil {
		n.each()
	}
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
