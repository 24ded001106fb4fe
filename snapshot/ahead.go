package snapshot

import (
	"sync"

	bolt "go.etcd.io/bbolt"
)

// Chunks compressed ahead. Compressing a large content's new chunks is most
// of what storing it costs, and a store runs in a write transaction, under
// the journal's lock, where every other writer waits. Precompress does that
// part before, outside any lock: the chunks of data, cut and hashed as
// PutDeltas cuts and hashes them, compressed alone as encodeChunk would
// compress them, kept by chunk ID until PutDeltas stores them (taking each
// out) or the cache's bound pushes the oldest out. The records are
// byte-for-byte what encodeChunk makes without them (TestPrecompress_*):
// only the time of the work moves.

// aheadMax bounds the compressed chunks kept, in bytes.
const aheadMax = 8 << 20

type aheadCache struct {
	mu    sync.Mutex
	recs  map[ID][]byte
	order []ID // in the order put; some already taken
	size  int
	used  int64 // records taken (tests)
}

var ahead = &aheadCache{recs: map[ID][]byte{}}

// Precompress compresses the new chunks of data, as a later PutDelta or
// PutDeltas of it would, ahead of that store (see above): those view's read
// transaction finds stored already (a one-line edit of a large file has
// one new chunk) are left. It holds no lock of the store's: view's
// transaction serves the lookups only, not the compression; a writer calls
// it before it takes the journal's lock to store data.
func Precompress(view func(func(*bolt.Tx) error) error, data []byte) error {
	g2 := gearPairs()
	type job struct {
		off, n int
		id     ID
		skip   bool
	}
	var jobs []job
	for off := 0; off < len(data); {
		n := cut(data[off:], g2)
		jobs = append(jobs, job{off: off, n: n})
		off += n
	}
	Parallel(len(jobs), func(i int) { j := &jobs[i]; j.id = Sum(data[j.off : j.off+j.n]) })
	if err := view(func(tx *bolt.Tx) error {
		chunks := tx.Bucket(BucketChunks)
		for i := range jobs {
			j := &jobs[i]
			j.skip = chunks == nil || chunks.Get(j.id[:]) != nil || ahead.has(j.id)
		}
		return nil
	}); err != nil {
		return err
	}
	Parallel(len(jobs), func(i int) {
		if j := &jobs[i]; !j.skip {
			ahead.put(j.id, compressAlone(data[j.off:j.off+j.n], nil))
		}
	})
	return nil
}

// compressAlone appends to dst the record of chunk compressed alone (zstd).
func compressAlone(chunk, dst []byte) []byte {
	return encoder.EncodeAll(chunk, append(dst, formatV1, codecZstd))
}

func (c *aheadCache) has(id ID) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.recs[id]
	return ok
}

func (c *aheadCache) put(id ID, rec []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.recs[id]; ok {
		return
	}
	c.recs[id] = rec
	c.order = append(c.order, id)
	c.size += len(rec)
	for c.size > aheadMax && len(c.order) > 0 {
		old := c.order[0]
		c.order = c.order[1:]
		if r, ok := c.recs[old]; ok {
			c.size -= len(r)
			delete(c.recs, old)
		}
	}
	if len(c.order) > 2*len(c.recs)+64 { // mostly taken: keep the order of those left
		kept := c.order[:0:0]
		for _, id := range c.order {
			if _, ok := c.recs[id]; ok {
				kept = append(kept, id)
			}
		}
		c.order = kept
	}
}

// take returns the record compressed ahead for chunk id and forgets it, or
// nil.
func (c *aheadCache) take(id ID) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	rec, ok := c.recs[id]
	if !ok {
		return nil
	}
	delete(c.recs, id)
	c.size -= len(rec)
	c.used++
	if len(c.recs) == 0 {
		c.order, c.size = nil, 0
	}
	return rec
}

// PrecompressUsed returns how many chunk records compressed ahead stores
// have taken since the process started: a writer's tests and benchmarks see
// with it that its stores found the work done.
func PrecompressUsed() int64 {
	ahead.mu.Lock()
	defer ahead.mu.Unlock()
	return ahead.used
}
