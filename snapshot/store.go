package snapshot

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"
	bolt "go.etcd.io/bbolt"
)

// Sentinel errors.
var (
	// ErrNotFound means no content, list or chunk is stored under an ID.
	ErrNotFound = errors.New("snapshot: not found")
	// ErrCorrupt means stored data does not decode or does not hash to its ID.
	ErrCorrupt = errors.New("snapshot: corrupt")
)

// Bucket names, exported so the journal can create them and report sizes.
var (
	BucketChunks   = []byte("chunks")
	BucketLists    = []byte("lists")
	BucketContents = []byte("contents")
)

const (
	formatV1       = 1
	manifestInline = 2 // a contents record naming its chunks, not lists
	codecRaw       = 0
	codecZstd      = 1

	minChunk = 2 << 10
	avgChunk = 8 << 10
	maxChunk = 64 << 10

	listSplit = 64 // a chunk ID with binary.BigEndian.Uint16(id[:2]) < listSplit ends a list (1/1024)
	listMax   = 4096
)

var (
	encoder, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1))
	decoder, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0))
)

// CreateBuckets creates the buckets the store uses, with zero running
// totals (stats.go); call it once in a write transaction.
func CreateBuckets(tx *bolt.Tx) error {
	for _, b := range [][]byte{BucketChunks, BucketLists, BucketContents} {
		if _, err := tx.CreateBucketIfNotExists(b); err != nil {
			return fmt.Errorf("snapshot: create bucket %s: %w", b, err)
		}
	}
	if tx.Bucket(BucketStats) == nil {
		return Recount(tx)
	}
	return nil
}

func bucket(tx *bolt.Tx, name []byte) (*bolt.Bucket, error) {
	b := tx.Bucket(name)
	if b == nil {
		return nil, fmt.Errorf("snapshot: bucket %s missing: %w", name, ErrNotFound)
	}
	return b, nil
}

// Has reports whether the content id is stored. The zero ID (no content) is never stored.
func Has(tx *bolt.Tx, id ID) bool {
	b := tx.Bucket(BucketContents)
	return b != nil && b.Get(id[:]) != nil
}

// writer accumulates one content's chunks and lists into a bucket set.
type writer struct {
	tx            *bolt.Tx
	chunks, lists *bolt.Bucket
	pending       []ID // chunk IDs of the list being built
	listIDs       []ID
	size          int64
	newBytes      int64       // compressed bytes written (new chunks and lists)
	layout        *[]Chunk    // if set, every chunk is appended to it
	scratch       []byte      // a chunk record being encoded
	delta         deltaSource // if set, new chunks may be stored as deltas (delta.go)
	deltas        int         // chunks stored as deltas
}

func newWriter(tx *bolt.Tx) (*writer, error) {
	w := &writer{tx: tx}
	var err error
	if w.chunks, err = bucket(tx, BucketChunks); err != nil {
		return nil, err
	}
	if w.lists, err = bucket(tx, BucketLists); err != nil {
		return nil, err
	}
	return w, nil
}

// rebind points the writer at a new transaction's buckets (PutStream spans several).
func (w *writer) rebind(tx *bolt.Tx) error {
	n, err := newWriter(tx)
	if err != nil {
		return err
	}
	w.tx, w.chunks, w.lists = tx, n.chunks, n.lists
	return nil
}

func (w *writer) addChunk(data []byte) (ID, error) {
	id := Sum(data)
	if w.chunks.Get(id[:]) == nil {
		rec, err := w.encode(data)
		if err != nil {
			return id, fmt.Errorf("snapshot: chunk %s: %w", id.Short(), err)
		}
		if err := w.chunks.Put(id[:], rec); err != nil {
			return id, fmt.Errorf("snapshot: put chunk %s: %w", id.Short(), err)
		}
		w.newBytes += int64(len(rec))
		if err := count(w.tx, Stats{Chunks: 1, StoredBytes: int64(len(rec))}); err != nil {
			return id, err
		}
	}
	return id, w.addStored(id, len(data))
}

// encode returns the record of a new chunk: a delta against the base chunks
// its bytes replace when that is smallest, else zstd, else raw. The record
// is encoded into scratch and returned in a buffer of its exact size: bbolt
// holds every value until the transaction commits, and a transaction is
// bounded by the bytes it stores, so a record must not hold more memory than
// it stores.
func (w *writer) encode(data []byte) ([]byte, error) {
	w.scratch = w.scratch[:0]
	if w.delta != nil {
		if bases, depth, ok := deltaBases(w.chunks, w.delta.bases(w.size, w.size+int64(len(data)))); ok {
			var err error
			if w.scratch, err = encodeDelta(data, bases, depth, w.scratch); err != nil {
				return nil, err
			}
			// A delta much smaller than the chunk wins outright; else the
			// chunk compressed alone may be smaller still.
			if len(w.scratch) <= len(data)/16 {
				w.deltas++
				return bytes.Clone(w.scratch), nil
			}
		}
	}
	delta := len(w.scratch)
	w.scratch = encoder.EncodeAll(data, append(w.scratch, formatV1, codecZstd))
	plain := w.scratch[delta:]
	switch {
	case delta > 0 && delta <= len(plain) && delta <= 2+len(data):
		w.deltas++
		return bytes.Clone(w.scratch[:delta]), nil
	case len(plain)-2 >= len(data):
		return append(append(make([]byte, 0, 2+len(data)), formatV1, codecRaw), data...), nil
	default:
		return bytes.Clone(plain), nil
	}
}

// addStored appends a chunk that is stored already.
func (w *writer) addStored(id ID, n int) error {
	w.size += int64(n)
	if w.layout != nil {
		*w.layout = append(*w.layout, Chunk{ID: id, Len: uint32(n)})
	}
	w.pending = append(w.pending, id)
	if binary.BigEndian.Uint16(id[:2]) < listSplit || len(w.pending) >= listMax {
		return w.flushList()
	}
	return nil
}

func (w *writer) flushList() error {
	if len(w.pending) == 0 {
		return nil
	}
	rec := make([]byte, 1, 1+binary.MaxVarintLen64+32*len(w.pending))
	rec[0] = formatV1
	rec = binary.AppendUvarint(rec, uint64(len(w.pending)))
	for _, c := range w.pending {
		rec = append(rec, c[:]...)
	}
	id := Sum(rec)
	if w.lists.Get(id[:]) == nil {
		if err := w.lists.Put(id[:], rec); err != nil {
			return fmt.Errorf("snapshot: put list %s: %w", id.Short(), err)
		}
		w.newBytes += int64(len(rec))
		if err := count(w.tx, Stats{StoredBytes: int64(len(rec))}); err != nil {
			return err
		}
	}
	w.listIDs = append(w.listIDs, id)
	w.pending = w.pending[:0]
	return nil
}

// finish writes the content's manifest: inline (version 2: its chunk IDs)
// when all its chunks are in the list being built — most contents, a list
// being cut about every 1,024 chunks — else the last list and a manifest of
// its lists (version 1). An inline manifest saves a list record per version
// of a small file (~100 bytes with its key).
func (w *writer) finish(tx *bolt.Tx, id ID) error {
	contents, err := bucket(tx, BucketContents)
	if err != nil {
		return err
	}
	if contents.Get(id[:]) != nil {
		return nil
	}
	version, ids := byte(manifestInline), w.pending
	if len(w.listIDs) > 0 {
		if err := w.flushList(); err != nil {
			return err
		}
		version, ids = formatV1, w.listIDs
	}
	rec := make([]byte, 1, 1+2*binary.MaxVarintLen64+32*len(ids))
	rec[0] = version
	rec = binary.AppendUvarint(rec, uint64(w.size))
	rec = binary.AppendUvarint(rec, uint64(len(ids)))
	for _, l := range ids {
		rec = append(rec, l[:]...)
	}
	if err := contents.Put(id[:], rec); err != nil {
		return fmt.Errorf("snapshot: put content %s: %w", id.Short(), err)
	}
	w.newBytes += int64(len(rec))
	return count(tx, Stats{Contents: 1, LogicalBytes: w.size, StoredBytes: int64(len(rec))})
}

// PutTx stores data inside the write transaction tx and returns its ID.
// Storing a content that is already stored costs one lookup.
func PutTx(tx *bolt.Tx, data []byte) (ID, error) {
	return PutKnown(tx, Sum(data), data)
}

// PutKnown is PutTx for a caller that has already hashed data: id must be
// Sum(data) (reads verify it, so a wrong id is caught, never served).
func PutKnown(tx *bolt.Tx, id ID, data []byte) (ID, error) {
	_, err := PutDelta(tx, id, data, nil)
	return id, err
}

// PutDelta is PutKnown for a content that probably shares most of its bytes
// with base, a stored content's bytes (the file's previous version): a new
// chunk is stored as a delta against the base chunks it replaces where that
// is smaller (delta.go). It reports whether any chunk was, for the journal
// to mark its format.
func PutDelta(tx *bolt.Tx, id ID, data, base []byte) (deltas bool, err error) {
	if Has(tx, id) {
		return false, nil
	}
	w, err := newWriter(tx)
	if err != nil {
		return false, err
	}
	if len(base) > 0 {
		w.delta = newMemBase(base, data)
	}
	g2 := gearPairs()
	for len(data) > 0 {
		n := cut(data, g2)
		if _, err := w.addChunk(data[:n]); err != nil {
			return false, err
		}
		data = data[n:]
	}
	return w.deltas > 0, w.finish(tx, id)
}

// UpdateFunc runs fn in a write transaction and commits it, as (*bolt.DB).Update does.
type UpdateFunc func(fn func(tx *bolt.Tx) error) error

// PutStream stores everything read from r and returns its ID and size. A
// transaction is committed whenever about txBytes of new data (compressed
// chunks and lists) have been written in it (0 means 4 MiB), so neither memory
// nor one transaction grows with the content's size; content that is already
// stored costs lookups only, so an edit of a large stored content usually
// commits once.
func PutStream(update UpdateFunc, r io.Reader, txBytes int64) (ID, int64, error) {
	st, err := PutStreamWith(update, r, StreamOptions{TxBytes: txBytes})
	return st.ID, st.Size, err
}
