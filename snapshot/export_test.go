package snapshot

import (
	"errors"
	"io"

	bolt "go.etcd.io/bbolt"
)

// Cut returns the lengths of the chunks data is cut into in memory (PutTx).
func Cut(data []byte) []int {
	var n []int
	g2 := gearPairs()
	for len(data) > 0 {
		k := cut(data, g2)
		n = append(n, k)
		data = data[k:]
	}
	return n
}

// StreamCut returns the lengths of the chunks the streaming chunker
// (PutStream) cuts r into.
func StreamCut(r io.Reader) ([]int, error) {
	var n []int
	c := newChunker(r)
	for {
		ch, err := c.next()
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n = append(n, len(ch))
	}
}

// WalkStats is walkStats: the totals a walk of the store counts.
var WalkStats = walkStats

// CacheChunk puts data in the chain cache as chunk id's verified bytes in
// tx, as a chunk whose ID collides with another's would be after a read.
func CacheChunk(tx *bolt.Tx, id ID, data []byte) { chains.put(keyOf(tx, id), data) }

// DeltaTries returns how many deltas PutDeltas and PutDelta have tried.
func DeltaTries() int64 { return deltaTries.Load() }
