package snapshot

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"

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
	// chunkWhole is byte 0 of the record of a chunk that is also a whole
	// content, which then has no manifest (format 8, finish).
	chunkWhole = 3
	codecRaw   = 0
	codecZstd  = 1

	minChunk = 2 << 10
	avgChunk = 8 << 10
	maxChunk = 64 << 10

	listSplit = 64 // a chunk ID with binary.BigEndian.Uint16(id[:2]) < listSplit ends a list (1/1024)
	listMax   = 4096
)

var (
	// encoder compresses chunks alone; addAll calls it from several
	// goroutines, and EncodeAll holds one of its encoder states per call
	// (each ~1.5 MiB of tables), so it gets one per core, up to four.
	encoder, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(min(runtime.GOMAXPROCS(0), 4)))
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

// Has reports whether the content id is stored: it has a manifest, or it
// is one chunk (finish). The zero ID (no content) is never stored.
func Has(tx *bolt.Tx, id ID) bool {
	if b := tx.Bucket(BucketContents); b != nil && b.Get(id[:]) != nil {
		return true
	}
	b := tx.Bucket(BucketChunks)
	if b == nil {
		return false
	}
	rec := b.Get(id[:])
	return len(rec) > 0 && rec[0] == chunkWhole
}

// isChunk reports whether b, byte 0 of a record, is that of a chunk record.
func isChunk(b byte) bool { return b == formatV1 || b == chunkWhole }

// markWhole marks the stored chunk id as a whole content (chunkWhole), if
// it is not yet: a chunk first stored as a part of a larger content may
// later be a content of its own.
func markWhole(chunks *bolt.Bucket, id ID) error {
	rec := chunks.Get(id[:])
	if len(rec) == 0 || rec[0] != formatV1 {
		return nil // marked already, or damaged: a read reports it
	}
	rec = bytes.Clone(rec)
	rec[0] = chunkWhole
	if err := chunks.Put(id[:], rec); err != nil {
		return fmt.Errorf("snapshot: put chunk %s: %w", id.Short(), err)
	}
	return nil
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
		rec, delta, err := w.encode(data)
		if err != nil {
			return id, fmt.Errorf("snapshot: chunk %s: %w", id.Short(), err)
		}
		var st Stats
		if err := w.putNew(id, rec, delta, &st); err != nil {
			return id, err
		}
		if err := count(w.tx, st); err != nil {
			return id, err
		}
	}
	return id, w.addStored(id, len(data))
}

// putNew stores the record of a new chunk, notes it in the writer's totals
// and adds it to st, which the caller counts (count) in the transaction.
func (w *writer) putNew(id ID, rec []byte, delta bool, st *Stats) error {
	if err := w.chunks.Put(id[:], rec); err != nil {
		return fmt.Errorf("snapshot: put chunk %s: %w", id.Short(), err)
	}
	w.newBytes += int64(len(rec))
	st.Chunks++
	st.StoredBytes += int64(len(rec))
	if delta {
		w.deltas++
	}
	return nil
}

// encode returns the record of a new chunk, and whether it is a delta: a
// delta against the base chunks its bytes replace when that is smallest,
// else zstd, else raw (encodeChunk). The record is encoded into scratch and
// returned in a buffer of its exact size: bbolt holds every value until the
// transaction commits, and a transaction is bounded by the bytes it stores,
// so a record must not hold more memory than it stores.
func (w *writer) encode(data []byte) (rec []byte, delta bool, err error) {
	var bases []baseChunk
	depth := 0
	if w.delta != nil {
		bases, depth, _ = deltaBases(w.chunks, w.delta.bases(w.size, w.size+int64(len(data))))
	}
	rec, delta, _, w.scratch, err = encodeChunk(data, bases, depth, w.scratch, nil)
	return rec, delta, err
}

// encodeChunk is encode without the writer: bases (with the chain depth a
// delta against them would have) may be empty. It uses scratch as its work
// buffer and returns it, grown, for the next call; paid says whether a delta
// was tried and came out at most half the chunk compressed alone (addAll
// stops trying when they do not: a content whose every line changed gains a
// third at best, for a dictionary set up per chunk).
//
// The chunk is compressed alone first. A delta is tried only when that
// leaves more than a sixteenth of the chunk: setting up a dictionary costs
// zstd a pass over it and its 256 KiB match table per chunk, and a
// chunk that compresses that well alone (generated or repetitive text)
// gains little from one.
//
// plain, if not nil, is the chunk compressed alone already (Precompress):
// what EncodeAll would give, taken instead.
func encodeChunk(data []byte, bases []baseChunk, depth int, scratch, plain []byte) (rec []byte, delta, paid bool, _ []byte, err error) {
	if len(bases) > 0 {
		var ok bool
		if scratch, ok = encodeSplice(data, bases, depth, scratch[:0]); ok && len(scratch) < len(data) {
			return bytes.Clone(scratch), true, true, scratch, nil
		}
	}
	if plain != nil {
		scratch = append(scratch[:0], plain...)
	} else {
		scratch = compressAlone(data, scratch[:0])
	}
	pl := len(scratch)
	if len(bases) > 0 && depth <= maxDepth && pl > len(data)/16 {
		if scratch, err = encodeDelta(data, bases, depth, scratch); err != nil {
			return nil, false, false, scratch, err
		}
		if d := scratch[pl:]; len(d) <= pl && len(d) <= 2+len(data) {
			return bytes.Clone(d), true, len(d) <= pl/2, scratch, nil
		}
	}
	if pl-2 >= len(data) {
		return append(append(make([]byte, 0, 2+len(data)), formatV1, codecRaw), data...), false, false, scratch, nil
	}
	return bytes.Clone(scratch[:pl]), false, false, scratch, nil
}

// chunkJob is one chunk of a content being stored by PutDeltas.
type chunkJob struct {
	off, n int
	id     ID
	new    bool
	cands  []baseChunk // base chunks its bytes replace (the content's previous version)
	bases  []baseChunk // those of cands that are stored
	depth  int
	rec    []byte
	delta  bool
	err    error
}

// putItem is one content being stored by PutDeltas, with its own writer.
type putItem struct {
	at          int  // its index in PutDeltas' contents
	id          ID   // the content's
	whole       bool // its one chunk, the content itself, put whole (no manifest, no markWhole)
	w           *writer
	data        []byte
	jobs        []chunkJob
	tried, paid atomic.Int32 // delta trials in this content while none had paid, and those that paid
}

// putAll stores the contents of items, each as its writer's chunks: it does
// what addChunk does for each chunk, but the work of every content at once,
// on every core — each content cut, every chunk hashed, each content's base
// chunks found, every new chunk encoded — with the transaction used from
// this goroutine only: the lookups, then the records put, content by
// content and in order (so a chunk that two contents share is stored once).
// Compressing new chunks is most of the time a large write takes, and a
// batch of many files gave each file's sequential parts (cutting, the base's
// chunks) a core to itself while the other idled.
//
// The store's totals are added to total, for one update of them per batch.
func putAll(items []*putItem, total *Stats) error {
	g2 := gearPairs()
	Parallel(len(items), func(i int) {
		it := items[i]
		for off := 0; off < len(it.data); {
			n := cut(it.data[off:], g2)
			it.jobs = append(it.jobs, chunkJob{off: off, n: n})
			off += n
		}
	})
	type ref struct {
		it *putItem
		j  *chunkJob
	}
	var all []ref
	for _, it := range items {
		for k := range it.jobs {
			all = append(all, ref{it, &it.jobs[k]})
		}
	}
	Parallel(len(all), func(i int) { j := all[i].j; j.id = Sum(all[i].it.data[j.off : j.off+j.n]) })
	seen := make(map[ID]bool, len(all))
	var todo []ref
	for _, r := range all {
		if seen[r.j.id] || r.it.w.chunks.Get(r.j.id[:]) != nil {
			continue
		}
		seen[r.j.id], r.j.new = true, true
		todo = append(todo, r)
	}
	// the base chunks each new chunk replaces: found (and hashed) per
	// content, several contents at once; then looked up
	Parallel(len(items), func(i int) {
		it := items[i]
		if it.w.delta == nil {
			return
		}
		for k := range it.jobs {
			if j := &it.jobs[k]; j.new { // a new writer's chunks: its offsets are the content's
				j.cands = it.w.delta.bases(int64(j.off), int64(j.off+j.n))
			}
		}
	})
	for _, r := range todo {
		if len(r.j.cands) > 0 {
			r.j.bases, r.j.depth, _ = deltaBases(r.it.w.chunks, r.j.cands)
		}
	}
	// Deltas stop being tried in a content once deltaTrials of them have
	// not paid and none has: every line of it changed (a rewrite, a
	// reformat), and each try costs as much as compressing the chunk; once
	// batchTrials tries across the contents have not paid and none has,
	// after one try: a batch rewriting many files (generated code, a
	// formatter's run) paid deltaTrials failed tries per file — 80 in 20
	// files, ~7 % of the batch's time — while a file edited in a few lines
	// among them still gets its delta (its first try pays).
	var tried, paid atomic.Int32 // across the contents
	Parallel(len(todo), func(k int) {
		it, j := todo[k].it, todo[k].j
		bases := j.bases
		if len(bases) > 0 {
			limit := int32(deltaTrials)
			if tried.Load() >= batchTrials && paid.Load() == 0 {
				limit = 1
			}
			if it.paid.Load() == 0 && !reserve(&it.tried, limit) {
				bases = nil
			}
		}
		buf := scratchPool.Get().(*[]byte)
		var gain bool
		j.rec, j.delta, gain, *buf, j.err = encodeChunk(it.data[j.off:j.off+j.n], bases, j.depth, *buf, ahead.take(j.id))
		scratchPool.Put(buf)
		if len(bases) > 0 {
			deltaTries.Add(1)
			tried.Add(1)
			if gain {
				it.paid.Add(1)
				paid.Add(1)
			}
		}
	})
	for _, it := range items {
		for k := range it.jobs {
			j := &it.jobs[k]
			if j.new {
				if j.err != nil {
					return fmt.Errorf("snapshot: chunk %s: %w", j.id.Short(), j.err)
				}
				if len(it.jobs) == 1 && j.id == it.id && len(j.rec) > 0 && j.rec[0] == formatV1 {
					// the content's one chunk: stored marked whole at once
					// (finish would mark it so)
					j.rec[0], it.whole = chunkWhole, true
				}
				if err := it.w.putNew(j.id, j.rec, j.delta, total); err != nil {
					return err
				}
			}
			if err := it.w.addStored(j.id, j.n); err != nil {
				return err
			}
		}
	}
	return nil
}

// deltaTrials is how many deltas putAll tries in a content before it
// gives up on them if none paid.
const deltaTrials = 4

// reserve adds one to c unless it has reached limit, and reports whether it
// did: two workers on chunks of one content cannot both take its last try.
func reserve(c *atomic.Int32, limit int32) bool {
	for {
		v := c.Load()
		if v >= limit {
			return false
		}
		if c.CompareAndSwap(v, v+1) {
			return true
		}
	}
}

// deltaTries counts the deltas putAll tried (tests).
var deltaTries atomic.Int64

// batchTrials is how many deltas putAll tries across its contents, none
// paying, before it tries only one more in each content.
const batchTrials = 2 * deltaTrials

// scratchPool holds the work buffers of encodeChunk calls made by putAll.
var scratchPool = sync.Pool{New: func() any { return new([]byte) }}

// Parallel calls fn(0) … fn(n-1) on up to GOMAXPROCS goroutines and
// returns when all have returned.
func Parallel(n int, fn func(i int)) { ParallelN(n, runtime.GOMAXPROCS(0), fn) }

// ParallelN is Parallel on up to workers goroutines (work that waits on
// the network rather than a core wants more than GOMAXPROCS).
func ParallelN(n, workers int, fn func(i int)) {
	workers = min(n, workers)
	if workers <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				fn(i)
			}
		})
	}
	wg.Wait()
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
// of a small file (~100 bytes with its key). A content of one chunk (a file
// under ~8 KiB, or up to 64 KiB as the cuts fall), whose chunk's ID is the
// content's own, gets no manifest at all (format 8): readManifest finds the
// chunk instead, which saves ~90 bytes per version of a small file (its key,
// its size and its chunk's ID) — half of what a one-line edit of one stored.
func (w *writer) finish(tx *bolt.Tx, id ID) error {
	contents, err := bucket(tx, BucketContents)
	if err != nil {
		return err
	}
	if contents.Get(id[:]) != nil {
		return nil
	}
	if len(w.listIDs) == 0 && len(w.pending) == 1 && w.pending[0] == id {
		// one chunk, whose ID is the content's: no manifest (format 8)
		if err := markWhole(w.chunks, id); err != nil {
			return err
		}
		return count(tx, Stats{Contents: 1, LogicalBytes: w.size})
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
	d, err := PutDeltas(tx, []Content{{ID: id, Data: data, Base: base}})
	if err != nil {
		return false, err
	}
	return d[0], nil
}

// Content is a content for PutDeltas: its ID (Sum of Data), its bytes, and
// the bytes of the stored content it probably shares most of them with, if
// any (PutDelta's base).
type Content struct {
	ID         ID
	Data, Base []byte
}

// PutDeltas stores contents as PutDelta stores each, in order, but does the
// work of all of them at once (putAll): a batch of many files is stored in
// about the time its bytes take on every core, not file after file. A base
// must be stored before the call, not be one of contents (its chunks are
// looked up before any is put). It reports, for each content, whether any
// of its chunks was stored as a delta.
func PutDeltas(tx *bolt.Tx, contents []Content) ([]bool, error) {
	deltas := make([]bool, len(contents))
	var items []*putItem
	dup := map[ID]bool{}
	for i, c := range contents {
		if dup[c.ID] || Has(tx, c.ID) {
			continue
		}
		dup[c.ID] = true
		w, err := newWriter(tx)
		if err != nil {
			return nil, err
		}
		if len(c.Base) > 0 {
			w.delta = newMemBase(c.Base, c.Data)
		}
		items = append(items, &putItem{at: i, id: c.ID, w: w, data: c.Data})
	}
	var total Stats
	if err := putAll(items, &total); err != nil {
		return nil, err
	}
	for _, it := range items {
		deltas[it.at] = it.w.deltas > 0
		if w := it.w; it.whole && len(w.listIDs) == 0 && len(w.pending) == 1 && w.pending[0] == it.id {
			// new (Has said so above), its chunk put whole: what finish
			// would find and write, without its lookups
			total.Contents++
			total.LogicalBytes += w.size
			continue
		}
		if err := it.w.finish(tx, it.id); err != nil {
			return nil, err
		}
	}
	if total != (Stats{}) {
		if err := count(tx, total); err != nil {
			return nil, err
		}
	}
	return deltas, nil
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
