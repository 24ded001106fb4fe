package snapshot

import (
	"bytes"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// Unbase prepares the deletion of the chunks in dead (a redaction's: they
// must leave the file, not merely lose their names): every chunk reachable
// from live (the chunks kept contents list, and the bases their deltas are
// decoded against, transitively) that is itself a delta or splice against a
// dead chunk is rewritten as a chunk of its own, zstd alone, so that no kept
// chunk needs a dead one and garbage collection's MarkBases no longer keeps
// them. A dead chunk that a kept content lists is not dead: the caller
// leaves it out of dead. It returns how many chunks it rewrote.
func Unbase(tx *bolt.Tx, live, dead map[ID]bool) (int, error) {
	if len(dead) == 0 {
		return 0, nil
	}
	chunks, err := bucket(tx, BucketChunks)
	if err != nil {
		return 0, err
	}
	start := make([]ID, 0, len(live))
	for id := range live {
		if !dead[id] {
			start = append(start, id)
		}
	}
	n := 0
	err = walkBases(chunks, start, func(id ID, rec []byte, bases [][]ID) (bool, error) {
		for _, cs := range bases {
			for _, b := range cs {
				if dead[b] {
					n++
					// stored whole: its bases are no longer needed
					return false, rewriteWhole(chunks, id, rec)
				}
			}
		}
		return true, nil
	})
	return n, err
}

// rewriteWhole stores chunk id, whose record rec is a delta or splice, as
// a chunk of its own (its format byte, whole or not, kept).
func rewriteWhole(chunks *bolt.Bucket, id ID, rec []byte) error {
	data, err := decodeChunk(chunks, id, rec, nil)
	if err != nil {
		return fmt.Errorf("snapshot: rewrite chunk %s: %w", id.Short(), err)
	}
	data = bytes.Clone(data)
	out, _, _, _, err := encodeChunk(data, nil, 0, nil, nil)
	if err != nil {
		return fmt.Errorf("snapshot: rewrite chunk %s: %w", id.Short(), err)
	}
	out[0] = rec[0]
	if err := chunks.Put(id[:], out); err != nil {
		return fmt.Errorf("snapshot: rewrite chunk %s: %w", id.Short(), err)
	}
	return nil
}
