package snapshot

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"
	bolt "go.etcd.io/bbolt"
)

// manifest is a decoded contents record.
type manifest struct {
	size   int64
	lists  []ID // version 1: the content's lists of chunks
	chunks []ID // version 2 (inline): its chunks
	inline bool
}

// parts calls fn with each run of the content's chunk IDs, in order: the
// chunks of each of its lists (read with list), or its inline chunks.
func (m manifest) parts(list func(ID) ([]ID, error), fn func(ids []ID) error) error {
	if m.inline {
		return fn(m.chunks)
	}
	for _, l := range m.lists {
		ids, err := list(l)
		if err != nil {
			return err
		}
		if err := fn(ids); err != nil {
			return err
		}
	}
	return nil
}

func readManifest(tx *bolt.Tx, id ID) (manifest, error) {
	var m manifest
	b, err := bucket(tx, BucketContents)
	if err != nil {
		return m, err
	}
	rec := b.Get(id[:])
	if rec == nil {
		return singleManifest(tx, id)
	}
	m, ok := parseManifest(rec)
	if !ok || len(rec) != manifestLen(m) {
		return m, fmt.Errorf("snapshot: content %s: a damaged manifest: %w", id.Short(), ErrCorrupt)
	}
	return m, nil
}

// singleManifest is the manifest of a content stored as one chunk, which
// has no contents record (store.go): the chunk whose ID is the content's.
func singleManifest(tx *bolt.Tx, id ID) (manifest, error) {
	chunks, err := bucket(tx, BucketChunks)
	if err != nil {
		return manifest{}, err
	}
	rec := chunks.Get(id[:])
	if len(rec) > 0 && !isChunk(rec[0]) {
		return manifest{}, fmt.Errorf("snapshot: content %s: its chunk: unknown format: %w", id.Short(), ErrCorrupt)
	}
	if len(rec) == 0 || rec[0] != chunkWhole {
		return manifest{}, fmt.Errorf("snapshot: content %s: %w", id.Short(), ErrNotFound)
	}
	size, err := wholeSize(chunks, id, rec)
	if err != nil {
		return manifest{}, fmt.Errorf("snapshot: content %s: %w", id.Short(), err)
	}
	return manifest{size: size, chunks: []ID{id}, inline: true}, nil
}

// wholeSize is the size of the chunk id, whose record is rec: as the
// record says (chunkSize), else decoded.
func wholeSize(chunks *bolt.Bucket, id ID, rec []byte) (int64, error) {
	if size, ok := chunkSize(rec); ok {
		return size, nil
	}
	b, err := readChunk(chunks, id, nil)
	return int64(len(b)), err
}

// chunkSize is the size of the chunk a record holds, read from the record
// without decoding it where the record says (raw bytes, a splice's
// lengths, a zstd frame's content size); a read of the chunk checks it.
func chunkSize(rec []byte) (int64, bool) {
	if len(rec) < 2 || !isChunk(rec[0]) {
		return 0, false
	}
	var frame []byte
	switch rec[1] {
	case codecRaw:
		return int64(len(rec) - 2), true
	case codecZstd:
		frame = rec[2:]
	case codecDelta, codecSplice:
		_, _, p, ok := parseDelta(rec)
		if !ok {
			return 0, false
		}
		if rec[1] == codecDelta {
			frame = p
			break
		}
		pre, suf, mid, _, ok := spliceLengths(p)
		if n := pre + suf + mid; ok && n <= maxChunk {
			return int64(n), true
		}
		return 0, false
	default:
		return 0, false
	}
	var h zstd.Header
	if h.Decode(frame) != nil || !h.HasFCS || h.FrameContentSize > maxChunk {
		return 0, false
	}
	return int64(h.FrameContentSize), true
}

func readList(lists *bolt.Bucket, id ID) ([]ID, error) {
	rec := lists.Get(id[:])
	if rec == nil {
		return nil, fmt.Errorf("snapshot: list %s: %w", id.Short(), ErrNotFound)
	}
	if Sum(rec) != id || rec[0] != formatV1 {
		return nil, fmt.Errorf("snapshot: list %s: hash mismatch: %w", id.Short(), ErrCorrupt)
	}
	p := rec[1:]
	count, n := binary.Uvarint(p)
	if n <= 0 || uint64(len(p)-n) != 32*count {
		return nil, fmt.Errorf("snapshot: list %s: bad count: %w", id.Short(), ErrCorrupt)
	}
	p = p[n:]
	out := make([]ID, count)
	for i := range out {
		copy(out[i][:], p[32*i:])
	}
	return out, nil
}

// readChunk returns the verified bytes of one chunk, appended to dst.
func readChunk(chunks *bolt.Bucket, id ID, dst []byte) ([]byte, error) {
	return decodeChunk(chunks, id, chunks.Get(id[:]), dst)
}

// decodeChunk is readChunk of the chunk record rec (nil: not stored).
func decodeChunk(chunks *bolt.Bucket, id ID, rec, dst []byte) ([]byte, error) {
	if rec == nil {
		return nil, fmt.Errorf("snapshot: chunk %s: %w", id.Short(), ErrNotFound)
	}
	if len(rec) < 2 || !isChunk(rec[0]) {
		return nil, fmt.Errorf("snapshot: chunk %s: unknown format: %w", id.Short(), ErrCorrupt)
	}
	var out []byte
	switch rec[1] {
	case codecRaw:
		out = append(dst, rec[2:]...)
	case codecZstd:
		var err error
		if out, err = decoder.DecodeAll(rec[2:], dst); err != nil {
			return nil, fmt.Errorf("snapshot: chunk %s: %v: %w", id.Short(), err, ErrCorrupt)
		}
	case codecDelta, codecSplice:
		b, err := chainChunk(chunks, id, rec, readDepth)
		if err != nil {
			return nil, err
		}
		return append(dst, b...), nil // verified
	default:
		return nil, fmt.Errorf("snapshot: chunk %s: unknown codec %d: %w", id.Short(), rec[1], ErrCorrupt)
	}
	if Sum(out[len(dst):]) != id {
		return nil, fmt.Errorf("snapshot: chunk %s: hash mismatch: %w", id.Short(), ErrCorrupt)
	}
	return out, nil
}

// readChunkShared is readChunk into a new slice, but returns a delta or
// splice chunk's bytes as the chain cache holds them, without a copy: the
// caller may not change them.
func readChunkShared(chunks *bolt.Bucket, id ID) ([]byte, error) {
	rec := chunks.Get(id[:])
	if recordDepth(rec) > 0 {
		return chainChunk(chunks, id, rec, readDepth)
	}
	return decodeChunk(chunks, id, rec, nil)
}

// chainChunk returns the verified bytes of the delta chunk id, whose record
// is rec, and whose depth may be at most limit. The bytes are shared with
// the cache: nobody may change them.
func chainChunk(chunks *bolt.Bucket, id ID, rec []byte, limit int) ([]byte, error) {
	k := keyOf(chunks.Tx(), id)
	if b, ok := chains.get(k); ok {
		return b, nil
	}
	depth, refs, frame, ok := parseDelta(rec)
	if !ok || depth > limit {
		return nil, fmt.Errorf("snapshot: chunk %s: a damaged delta record: %w", id.Short(), ErrCorrupt)
	}
	var (
		dict, out []byte
		err       error
	)
	try := func(bases []ID) bool {
		dict, out = dict[:0], nil
		for _, b := range bases {
			bb, berr := baseBytes(chunks, b, depth-1)
			if berr != nil {
				err = fmt.Errorf("snapshot: chunk %s: its base: %w", id.Short(), berr)
				return false
			}
			dict = append(dict, bb...)
		}
		if out, err = decodeChain(rec[1], frame, dict); err != nil {
			err = fmt.Errorf("snapshot: chunk %s: %v: %w", id.Short(), err, ErrCorrupt)
			return false
		}
		if Sum(out) != id {
			err = fmt.Errorf("snapshot: chunk %s: hash mismatch: %w", id.Short(), ErrCorrupt)
			return false
		}
		return true
	}
	// the first candidates, then (a collision, or damage) every one
	cands := resolveBases(chunks, refs, true)
	if !eachCombination(cands, try) && (!shortRefs(refs) || !eachCombination(resolveBases(chunks, refs, false), try)) {
		for i, c := range cands {
			if err == nil && len(c) == 0 { // a short reference that names no stored chunk
				err = fmt.Errorf("snapshot: chunk %s: its base %x…: %w", id.Short(), refs[i].id[:refs[i].n], ErrNotFound)
			}
		}
		return nil, err
	}
	chains.put(k, out)
	return out, nil
}

// baseBytes returns the verified bytes of the base chunk id, whose depth may
// be at most limit, through the cache.
func baseBytes(chunks *bolt.Bucket, id ID, limit int) ([]byte, error) {
	if b, ok := chains.get(keyOf(chunks.Tx(), id)); ok {
		return b, nil // decoded and verified already, its depth then checked
	}
	rec := chunks.Get(id[:])
	if recordDepth(rec) > 0 {
		return chainChunk(chunks, id, rec, limit)
	}
	b, err := decodeChunk(chunks, id, rec, nil)
	if err != nil {
		return nil, err
	}
	chains.put(keyOf(chunks.Tx(), id), b)
	return b, nil
}

// Size returns the size in bytes of a stored content.
func Size(tx *bolt.Tx, id ID) (int64, error) {
	m, err := readManifest(tx, id)
	return m.size, err
}

// Get writes the content id to w, verifying every chunk and the whole content's
// hash. On ErrCorrupt, w may have received part of the content: write to a
// temporary file and discard it on error.
func Get(tx *bolt.Tx, id ID, w io.Writer) error {
	m, err := readManifest(tx, id)
	if err != nil {
		return err
	}
	lists, err := bucket(tx, BucketLists)
	if err != nil {
		return err
	}
	chunks, err := bucket(tx, BucketChunks)
	if err != nil {
		return err
	}
	h := NewHasher()
	var buf []byte
	var total int64
	err = m.parts(func(l ID) ([]ID, error) { return readList(lists, l) }, func(ids []ID) error {
		for _, c := range ids {
			if buf, err = readChunk(chunks, c, buf[:0]); err != nil {
				return err
			}
			h.Write(buf)
			total += int64(len(buf))
			if _, err := w.Write(buf); err != nil {
				return fmt.Errorf("write: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("snapshot: content %s: %w", id.Short(), err)
	}
	if total != m.size || h.ID() != id {
		return fmt.Errorf("snapshot: content %s: content hash mismatch: %w", id.Short(), ErrCorrupt)
	}
	return nil
}

// Bytes returns a stored content in memory, in one allocation of its size
// (a growing buffer would hold up to twice it at its last growth). Use Get
// for contents that may be large.
func Bytes(tx *bolt.Tx, id ID) ([]byte, error) {
	n, err := Size(tx, id)
	if err != nil {
		return nil, fmt.Errorf("snapshot: content %s: %w", id.Short(), err)
	}
	b := bytes.NewBuffer(make([]byte, 0, n))
	if err := Get(tx, id, b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Chunks returns the IDs of the chunks of the stored content id, in order,
// and its size. A chunk's bytes never change under its ID, so the chunks
// read one by one (AppendChunk), in as many transactions as the caller
// likes, are the content, as long as they are still stored (a gc or a
// redaction between two reads may drop them: ErrNotFound). Each chunk is
// verified as it is read; the caller verifies the whole (Sum) if it needs
// to.
func Chunks(tx *bolt.Tx, id ID) ([]ID, int64, error) {
	m, err := readManifest(tx, id)
	if err != nil {
		return nil, 0, fmt.Errorf("snapshot: content %s: %w", id.Short(), err)
	}
	lists, err := bucket(tx, BucketLists)
	if err != nil {
		return nil, 0, err
	}
	var out []ID
	err = m.parts(func(l ID) ([]ID, error) { return readList(lists, l) }, func(ids []ID) error {
		out = append(out, ids...)
		return nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("snapshot: content %s: %w", id.Short(), err)
	}
	return out, m.size, nil
}

// AppendChunk appends the verified bytes of the stored chunk id to dst.
func AppendChunk(tx *bolt.Tx, id ID, dst []byte) ([]byte, error) {
	b, err := bucket(tx, BucketChunks)
	if err != nil {
		return nil, err
	}
	return readChunk(b, id, dst)
}

// Versions reads the successive versions of a file, each of which shares
// most of its chunks with the one before: a chunk read (and verified) for
// one version serves the next without being read again. It keeps the chunks
// of the last content read only.
type Versions struct {
	tx   *bolt.Tx
	last map[ID][]byte
	// m is the manifest Size read last (of content mID), which Bytes of the
	// same content reads again otherwise
	m   manifest
	mID ID
	// held is the bytes of the chunks in last
	held int64
	// at is tx's key in the cache of decoded chunks (without a chunk)
	at cacheKey
}

// NewVersions returns a Versions reading through tx.
func NewVersions(tx *bolt.Tx) *Versions {
	return &Versions{tx: tx, last: map[ID][]byte{}, at: keyOf(tx, ID{})}
}

// Renew makes v read through tx from now on: a later transaction on the
// same store, for a reader that walks a long history in passes, each in a
// transaction of its own (the secret scan, which commits what it found
// between them). The last version's chunks stay — a chunk's bytes never
// change under its ID, and each was verified as it was read — and are
// cached for tx instead of the transaction before, as the bases the file's
// next version's deltas are decoded against: that version then costs its
// own new chunks, not their whole chains again (the cache is a
// transaction's).
func (v *Versions) Renew(tx *bolt.Tx) {
	if v.tx == tx {
		return
	}
	old := v.at // the transaction before may be closed: its key, as it was
	v.tx, v.at, v.mID = tx, keyOf(tx, ID{}), ID{}
	moved := old.db != v.at.db || old.txid != v.at.txid
	for c, b := range v.last {
		if moved {
			chains.drop(cacheKey{db: old.db, txid: old.txid, id: c}) // moved, not copied: it would keep a replaced chunk alive
		}
		chains.touch(keyOf(tx, c), b)
	}
}

// Held returns the bytes v keeps: the last version's chunks.
func (v *Versions) Held() int64 { return v.held }

// Size returns the size of the stored content id.
func (v *Versions) Size(id ID) (int64, error) {
	m, err := readManifest(v.tx, id)
	if err == nil {
		v.m, v.mID = m, id
	}
	return m.size, err
}

// Bytes returns the stored content id, verified whole, as Bytes does. A
// content of one chunk, whose ID is its chunk's, is verified by its chunk's
// check (every chunk read is checked against its ID): it is not hashed a
// second time, which halves what verify hashes of a journal of small
// files.
func (v *Versions) Bytes(id ID) ([]byte, error) {
	b, whole, err := v.assemble(id)
	if err == nil && !whole && Sum(b) != id {
		err = fmt.Errorf("snapshot: content %s: content hash mismatch: %w", id.Short(), ErrCorrupt)
	}
	return b, err
}

// Assemble returns the stored content id with every chunk verified but not
// the whole: the caller checks Sum(b) == id before it trusts b (on another
// goroutine, say: hashing the whole is most of the cost of reading a
// version whose chunks were read before).
func (v *Versions) Assemble(id ID) ([]byte, error) {
	b, _, err := v.assemble(id)
	return b, err
}

// assemble is Assemble, and reports whether the content is one chunk whose
// ID is the content's (then its bytes are verified: the chunk was).
func (v *Versions) assemble(id ID) ([]byte, bool, error) {
	m, err := v.m, error(nil)
	if v.mID != id || id.IsZero() {
		if m, err = readManifest(v.tx, id); err != nil {
			return nil, false, err
		}
	}
	lists, err := bucket(v.tx, BucketLists)
	if err != nil {
		return nil, false, err
	}
	chunks, err := bucket(v.tx, BucketChunks)
	if err != nil {
		return nil, false, err
	}
	out := make([]byte, 0, m.size)
	next := make(map[ID][]byte, len(v.last))
	held := int64(0)
	err = m.parts(func(l ID) ([]ID, error) { return readList(lists, l) }, func(ids []ID) error {
		for _, c := range ids {
			b, ok := next[c]
			if !ok {
				if b, ok = v.last[c]; !ok {
					if b, err = readChunkShared(chunks, c); err != nil { // read only, kept in v.last
						return err
					}
				} else {
					chains.touch(keyOf(v.tx, c), b) // the base of c's next version
				}
				next[c] = b
				held += int64(len(b))
			}
			out = append(out, b...)
		}
		return nil
	})
	if err != nil {
		return nil, false, fmt.Errorf("snapshot: content %s: %w", id.Short(), err)
	}
	if int64(len(out)) != m.size {
		return nil, false, fmt.Errorf("snapshot: content %s: content size mismatch: %w", id.Short(), ErrCorrupt)
	}
	// a chunk the last version held and this one does not is no base of
	// the file's next version: the cache lets go of it rather than of a
	// base another file's reader needs (verify's workers, the secret scan)
	for c := range v.last {
		if _, ok := next[c]; !ok {
			chains.drop(keyOf(v.tx, c))
		}
	}
	v.last, v.held = next, held
	return out, m.inline && len(m.chunks) == 1 && m.chunks[0] == id, nil
}

// Verify re-reads and re-hashes a content, discarding the bytes.
func Verify(tx *bolt.Tx, id ID) (int64, error) {
	var n countWriter
	err := Get(tx, id, &n)
	return int64(n), err
}

type countWriter int64

// Write implements io.Writer.
func (c *countWriter) Write(p []byte) (int, error) { *c += countWriter(len(p)); return len(p), nil }

// Refs calls fn for every list and chunk ID a content references (for garbage collection).
func Refs(tx *bolt.Tx, id ID, fn func(bucket []byte, ref ID)) error {
	m, err := readManifest(tx, id)
	if err != nil {
		return err
	}
	lists, err := bucket(tx, BucketLists)
	if err != nil {
		return err
	}
	return m.parts(func(l ID) ([]ID, error) {
		fn(BucketLists, l)
		return readList(lists, l)
	}, func(ids []ID) error {
		for _, c := range ids {
			fn(BucketChunks, c)
		}
		return nil
	})
}

// Stats summarises the store for `journal status`.
type Stats struct {
	Contents     int   // number of contents
	LogicalBytes int64 // sum of content sizes
	Chunks       int   // number of distinct chunks
	StoredBytes  int64 // bytes of chunk, list and manifest records
}

// DedupRatio is logical bytes per stored byte (> 1 means savings).
func (s Stats) DedupRatio() float64 {
	if s.StoredBytes == 0 {
		return 1
	}
	return float64(s.LogicalBytes) / float64(s.StoredBytes)
}

// ReadStats returns the store's totals: the running counters (stats.go)
// when the journal keeps them, else a walk of the store's buckets.
func ReadStats(tx *bolt.Tx) (Stats, error) {
	if s, ok := readCounters(tx); ok {
		return s, nil
	}
	return walkStats(tx)
}

// walkStats counts the store's records.
func walkStats(tx *bolt.Tx) (Stats, error) {
	var s Stats
	for _, name := range [][]byte{BucketContents, BucketLists, BucketChunks} {
		b, err := bucket(tx, name)
		if err != nil {
			return s, err
		}
		err = b.ForEach(func(k, v []byte) error {
			s.StoredBytes += int64(len(v))
			switch string(name) {
			case string(BucketContents):
				s.Contents++
				if len(v) > 1 {
					sz, _ := binary.Uvarint(v[1:])
					s.LogicalBytes += int64(sz)
				}
			case string(BucketChunks):
				s.Chunks++
				if len(v) > 0 && v[0] == chunkWhole { // a content without a manifest
					s.Contents++
					var id ID
					copy(id[:], k)
					sz, err := wholeSize(b, id, v)
					if err != nil {
						return nil // verify reports it
					}
					s.LogicalBytes += sz
				}
			}
			return nil
		})
		if err != nil {
			return s, err
		}
	}
	return s, nil
}

// EachChunk calls fn with every stored chunk's ID and its verified bytes
// (deltas and splices decoded), in key order: what a check that a value
// is nowhere in the store walks. The bytes are valid during the call only.
func EachChunk(tx *bolt.Tx, fn func(id ID, data []byte) error) error {
	chunks, err := bucket(tx, BucketChunks)
	if err != nil {
		return err
	}
	return chunks.ForEach(func(k, v []byte) error {
		id := ID(k)
		data, err := decodeChunk(chunks, id, v, nil)
		if err != nil {
			return err
		}
		return fn(id, data)
	})
}
