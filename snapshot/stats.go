package snapshot

import (
	"encoding/binary"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// Running totals. `journal status` reports the store's size and dedup
// ratio; walking every record for it costs time and memory that grow with
// the journal. A journal created by this version keeps the totals in the
// bucket "store_stats" (key "v1": contents, logical bytes, chunks, stored
// bytes, four big-endian uint64s), updated in the transaction of every new
// record — chunk, list or manifest; a record already stored changes
// nothing — and recounted whole by gc (Recount), which deletes records and
// walks them anyway. A journal from before has no such bucket: ReadStats
// walks it, as it always did, until a gc creates the counters.

// BucketStats holds the running totals.
var BucketStats = []byte("store_stats")

var statsKey = []byte("v1")

// readCounters returns the running totals, if the journal keeps them.
func readCounters(tx *bolt.Tx) (Stats, bool) {
	b := tx.Bucket(BucketStats)
	if b == nil {
		return Stats{}, false
	}
	v := b.Get(statsKey)
	if len(v) != 32 {
		return Stats{}, false
	}
	be := binary.BigEndian
	return Stats{Contents: int(be.Uint64(v)), LogicalBytes: int64(be.Uint64(v[8:])), Chunks: int(be.Uint64(v[16:])), StoredBytes: int64(be.Uint64(v[24:]))}, true
}

// putCounters stores s as the running totals in b.
func putCounters(b *bolt.Bucket, s Stats) error {
	v := make([]byte, 32)
	be := binary.BigEndian
	be.PutUint64(v, uint64(s.Contents))
	be.PutUint64(v[8:], uint64(s.LogicalBytes))
	be.PutUint64(v[16:], uint64(s.Chunks))
	be.PutUint64(v[24:], uint64(s.StoredBytes))
	if err := b.Put(statsKey, v); err != nil {
		return fmt.Errorf("snapshot: store totals: %w", err)
	}
	return nil
}

// count adds d to the running totals of tx's journal, if it keeps them.
func count(tx *bolt.Tx, d Stats) error {
	s, ok := readCounters(tx)
	if !ok {
		return nil
	}
	s.Contents += d.Contents
	s.LogicalBytes += d.LogicalBytes
	s.Chunks += d.Chunks
	s.StoredBytes += d.StoredBytes
	return putCounters(tx.Bucket(BucketStats), s)
}

// Recount walks the store and writes its totals, creating the counters in a
// journal from before them (gc calls it after deleting records).
func Recount(tx *bolt.Tx) error {
	s, err := walkStats(tx)
	if err != nil {
		return err
	}
	b, err := tx.CreateBucketIfNotExists(BucketStats)
	if err != nil {
		return fmt.Errorf("snapshot: store totals: %w", err)
	}
	return putCounters(b, s)
}
