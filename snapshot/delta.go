package snapshot

import (
	"bytes"
	"container/list"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"sync"

	"github.com/klauspost/compress/zstd"
	bolt "go.etcd.io/bbolt"
)

// Deltas. A one-line edit of a file stores a new chunk of about 8 KiB that
// differs from the chunk it replaces by one line; compressed on its own it
// costs ~1.5 KB, as a delta ~100 bytes. When the caller names the content's
// previous version (the base), a new chunk is compressed with the base
// chunks its bytes came from as a zstd raw dictionary, as `zstd
// --patch-from` does, and kept that way when it is smaller:
//
//	byte 0     format version (1)
//	byte 1     codec: 2 = zstd delta
//	byte 2     depth: 1 + the largest depth of its bases (a full chunk has 0)
//	byte 3     number of bases n (1..maxBases), | refShort (0x80) when
//	           they are named short (format 11: below)
//	n × 32     the base chunks' IDs, or n × 8: their first 8 bytes
//	bytes ..   one zstd frame, compressed with the bases' bytes, in order,
//	           as a raw dictionary (ID 1)
//
// A read decodes the bases first (each verified by its hash, so a damaged
// base is named), then the delta. The depth bounds that work: a zstd delta
// is made only against bases of depth below maxDepth, so a read never
// decodes more than maxDepth+1 frames; a splice, which reads back without
// zstd, against bases of depth below maxSpliceDepth; a chunk whose bases
// are deeper is stored whole, starting a new chain; and a base's depth must
// be less than its delta's, so damaged records cannot make a read loop.
// Splices chain deeper than deltas because a whole chunk every maxDepth
// edits of a file would cost as much as all the splices between. Decoded chunks
// of chains are kept in a small cache (chunkCache): a walk of the contents in
// the order they were written (verify) decodes each chunk once.
//
// The encoder runs at zstd's fastest level: with a dictionary, a level's
// tables are rebuilt for every chunk, which costs several times as much at
// the default level, for deltas only slightly smaller.
//
// Splices. Most new chunks of an agent's edits differ from their base by a
// few lines in one place: the common prefix and suffix of the chunk and its
// bases cover all but a short middle. Such a chunk is stored as a splice —
// the same header with codec 3, then the lengths of the prefix and the
// suffix (taken from the start and the end of the bases' bytes, in order)
// and of the middle (uvarints), and the middle's bytes as they are — when the middle is at most
// spliceMax bytes. Finding it costs two comparisons of the chunk with its
// bases, where zstd costs a dictionary's tables and a compression without
// one per chunk; it reads back with two copies, where a zstd delta rebuilds
// its tables again; and a one-line edit's splice is about as small as its
// zstd delta (the header, the base's ID, the line). A splice is a delta in every other way: depth, bases, gc.
//
// Garbage collection keeps every base of a kept chunk (MarkBases). A journal
// holding deltas is marked format 4 by the journal, so an older binary, whose
// gc would delete bases, refuses it; one holding splices, format 6.

const (
	codecDelta  = 2
	codecSplice = 3
	// spliceMax bounds the middle of a splice (see above).
	spliceMax = 256
	// maxDepth bounds a chain holding zstd deltas (see above): a zstd
	// delta's depth is at most maxDepth.
	maxDepth = 32
	// maxSpliceDepth bounds a chain of splices: a splice reads back with
	// two copies and a hash, ~4 µs for 8 KiB, where a zstd delta rebuilds a
	// dictionary's tables, so splices chain further (see above).
	maxSpliceDepth = 128
	// readDepth is the deepest chain a read follows: the largest depth a
	// record can hold. Journals of format 6 and before hold chains of at
	// most maxDepth.
	readDepth = 255
	// maxBases bounds the base chunks a delta is compressed against.
	maxBases = 3
	dictID   = 1
	// deltaWindow is the delta encoders' window: a power of two at least
	// (maxBases+1)*maxChunk.
	deltaWindow = 256 << 10
)

var (
	// deltaEncoders keeps the delta encoders between uses, one per core at
	// most. Not a sync.Pool: a pool is emptied at every GC, and a large
	// write (whose allocations bring GCs on) then made a new encoder for
	// most of its deltas.
	deltaEncoders = make(chan *deltaEncoder, runtime.GOMAXPROCS(0))
	deltaDecoders = sync.Pool{New: func() any {
		d, _ := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxChunk))
		return d
	}}
)

// baseChunk is a stored chunk a new chunk may be a delta against.
type baseChunk struct {
	id   ID
	data []byte
}

// deltaSource picks the base chunks for a new chunk: those holding the base
// bytes that the new content's bytes [a, b) replace.
type deltaSource interface {
	bases(a, b int64) []baseChunk
}

// deltaEncoder is a delta encoder and the buffer its dictionary is copied
// into: the encoder keeps a reference to its dictionary until its next use,
// which must not keep the caller's content (a base chunk is a slice of a
// whole file) alive.
type deltaEncoder struct {
	enc  *zstd.Encoder
	dict []byte
}

// encodeDelta appends the delta record of data against bases to dst.
func encodeDelta(data []byte, bases []baseChunk, depth int, dst []byte) ([]byte, error) {
	var e *deltaEncoder
	select {
	case e = <-deltaEncoders:
	default:
		// no CRC: the chunk's blake3 hash is checked. The window covers
		// the dictionary (maxBases chunks) and the chunk: the default
		// (8 MiB) made each encoder allocate that much history.
		enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1),
			zstd.WithEncoderCRC(false), zstd.WithWindowSize(deltaWindow), zstd.WithEncoderDictRaw(dictID, []byte{0}))
		if err != nil {
			return nil, fmt.Errorf("snapshot: delta encoder: %w", err)
		}
		e = &deltaEncoder{enc: enc}
	}
	defer func() {
		select {
		case deltaEncoders <- e:
		default:
		}
	}()
	e.dict = e.dict[:0]
	for _, b := range bases {
		e.dict = append(e.dict, b.data...)
	}
	// A new dictionary rebuilds the encoder's tables, ~0.1 ms per chunk;
	// the encoder keeps it (e.dict) until its next use.
	if err := e.enc.ResetWithOptions(nil, zstd.WithEncoderDictRaw(dictID, e.dict)); err != nil {
		return nil, fmt.Errorf("snapshot: delta encoder: %w", err)
	}
	dst = appendBases(append(dst, formatV1, codecDelta, byte(depth)), bases)
	return e.enc.EncodeAll(data, dst), nil
}

// encodeSplice appends the splice record of data against bases to dst, or
// reports false when their common prefix and suffix leave a middle longer
// than spliceMax.
func encodeSplice(data []byte, bases []baseChunk, depth int, dst []byte) ([]byte, bool) {
	dict := bases[0].data
	if len(bases) > 1 {
		dict = nil
		for _, b := range bases {
			dict = append(dict, b.data...)
		}
	}
	pre := CommonPrefix(dict, data)
	suf := CommonSuffix(dict[pre:], data[pre:])
	mid := data[pre : len(data)-suf]
	if len(mid) > spliceMax {
		return dst, false
	}
	dst = appendBases(append(dst, formatV1, codecSplice, byte(depth)), bases)
	dst = binary.AppendUvarint(dst, uint64(pre))
	dst = binary.AppendUvarint(dst, uint64(suf))
	dst = binary.AppendUvarint(dst, uint64(len(mid)))
	return append(dst, mid...), true
}

// decodeSplice decodes a splice's payload (after its bases) against dict,
// its bases' bytes in order. Bytes after the middle are damage, unless
// trailing (salvage reads records whose end it does not know).
func decodeSplice(p, dict []byte, trailing bool) ([]byte, error) {
	pre, suf, m, p, ok := spliceLengths(p)
	if !ok {
		return nil, errors.New("a damaged splice")
	}
	if pre > uint64(len(dict)) || suf > uint64(len(dict))-pre || m > uint64(len(p)) || (!trailing && m != uint64(len(p))) || pre+suf+m > maxChunk {
		return nil, errors.New("a damaged splice")
	}
	mid := p[:m]
	out := make([]byte, 0, int(pre+m+suf))
	out = append(out, dict[:pre]...)
	out = append(out, mid...)
	return append(out, dict[uint64(len(dict))-suf:]...), nil
}

// spliceLengths reads the lengths at the start of a splice's payload (after
// its bases): of the prefix, the suffix and the middle, and returns the
// bytes after them.
func spliceLengths(p []byte) (pre, suf, mid uint64, rest []byte, ok bool) {
	var v [3]uint64
	for i := range v {
		x, n := binary.Uvarint(p)
		if n <= 0 {
			return 0, 0, 0, nil, false
		}
		v[i], p = x, p[n:]
	}
	return v[0], v[1], v[2], p, true
}

// decodeChain decodes the payload of a delta or splice record (codec)
// against dict, its bases' bytes in order.
func decodeChain(codec byte, p, dict []byte) ([]byte, error) {
	if codec == codecSplice {
		return decodeSplice(p, dict, false)
	}
	return decodeDelta(p, dict, nil)
}

// parseDelta splits a delta or splice record: its depth, its bases and
// what follows them.
func parseDelta(rec []byte) (depth int, bases []baseRef, frame []byte, ok bool) {
	if len(rec) < 4 || (rec[1] != codecDelta && rec[1] != codecSplice) {
		return 0, nil, nil, false
	}
	depth, n, width := int(rec[2]), int(rec[3]&^refShort), len(ID{})
	if rec[3]&refShort != 0 {
		width = refLen
	}
	if depth < 1 || depth > readDepth || n < 1 || n > maxBases || len(rec) < 4+width*n {
		return 0, nil, nil, false
	}
	bases = make([]baseRef, n)
	for i := range bases {
		bases[i].n = copy(bases[i].id[:], rec[4+width*i:4+width*(i+1)])
	}
	return depth, bases, rec[4+width*n:], true
}

// Base references. Since format 11 a delta names each base by the first
// refLen (8) bytes of its ID, flagged by refShort in its count of bases.
// Dropping the other 24 bytes of a one-line edit's ~90-byte splice took
// the chunks bucket's pages from 220 to 184 bytes per edit (100,000
// one-line edits through MCP, BENCHMARKS.md "Storage"). A short
// reference names every stored chunk whose ID begins with it — one, but
// for a collision of 64-bit prefixes, which chance makes about once in
// 400,000 journals of 10^7 chunks, and which takes ~2^32 hashes to forge.
// Every reader treats those chunks as candidates: a read seeks the first
// (about the pages a Get of the base would read) and, when the delta does not
// decode against it into bytes hashing to the chunk's ID — which it checks
// for every chunk anyway — tries every candidate; gc keeps and copies
// them all; salvage tries each ID that begins with the prefix in the raw
// bytes. So a collision costs a read a decode, never a wrong byte.
// Records written before name whole IDs and read as they are.
const (
	refShort = 0x80
	refLen   = 8
	// maxTries bounds the combinations of candidates a read of one delta
	// tries (a product over its bases).
	maxTries = 64
)

// baseRef names a delta's base: its first n bytes (refLen or all 32).
type baseRef struct {
	id ID
	n  int
}

// appendBases appends the count of bases and their short references.
func appendBases(dst []byte, bases []baseChunk) []byte {
	dst = append(dst, byte(len(bases))|refShort)
	for _, b := range bases {
		dst = append(dst, b.id[:refLen]...)
	}
	return dst
}

// candidates returns the IDs r may name: its ID when whole (stored or
// not: the read says), else each stored chunk's ID beginning with it.
func (r baseRef) candidates(chunks *bolt.Bucket) []ID {
	if r.n == len(ID{}) {
		return []ID{r.id}
	}
	var out []ID
	c := chunks.Cursor()
	for k, _ := c.Seek(r.id[:r.n]); k != nil && bytes.HasPrefix(k, r.id[:r.n]); k, _ = c.Next() {
		if len(k) == len(ID{}) {
			out = append(out, ID(k))
		}
	}
	return out
}

// first returns the first ID r may name: its ID when whole, else the
// first stored chunk's ID beginning with it. Unlike candidates it reads no
// page past that chunk's (a cursor's Next may step into the next leaf): a
// read of a healthy store, where first is the base, reads the pages a Get
// of the base's ID would (and the leaf before, when the base is the first
// key of its own), and a damaged page after them stays unread.
func (r baseRef) first(chunks *bolt.Bucket) (ID, bool) {
	if r.n == len(ID{}) {
		return r.id, true
	}
	k, _ := chunks.Cursor().Seek(r.id[:r.n])
	if len(k) != len(ID{}) || !bytes.HasPrefix(k, r.id[:r.n]) {
		return ID{}, false
	}
	return ID(k), true
}

// resolveBases returns each base's candidates in chunks, or with firstOnly
// its first candidate alone (first).
func resolveBases(chunks *bolt.Bucket, refs []baseRef, firstOnly bool) [][]ID {
	out := make([][]ID, len(refs))
	for i, r := range refs {
		if !firstOnly {
			out[i] = r.candidates(chunks)
		} else if id, ok := r.first(chunks); ok {
			out[i] = []ID{id}
		}
	}
	return out
}

// shortRefs reports whether any of refs is short.
func shortRefs(refs []baseRef) bool {
	for _, r := range refs {
		if r.n != len(ID{}) {
			return true
		}
	}
	return false
}

// eachCombination calls try with one candidate of each base, in order,
// until it returns true, for at most maxTries combinations; it reports
// whether try did.
func eachCombination(cands [][]ID, try func(ids []ID) bool) bool {
	ids := make([]ID, len(cands))
	at := make([]int, len(cands))
	for range maxTries {
		for i, c := range cands {
			if len(c) == 0 {
				return false
			}
			ids[i] = c[at[i]]
		}
		if try(ids) {
			return true
		}
		i := len(at) - 1
		for ; i >= 0; i-- {
			if at[i]++; at[i] < len(cands[i]) {
				break
			}
			at[i] = 0
		}
		if i < 0 {
			return false
		}
	}
	return false
}

// recordDepth is the chain depth of a stored chunk record (0: whole).
func recordDepth(rec []byte) int {
	if len(rec) >= 3 && (rec[1] == codecDelta || rec[1] == codecSplice) {
		return int(rec[2])
	}
	return 0
}

// decodeDelta decodes a delta frame against dict, appending to dst.
func decodeDelta(frame, dict, dst []byte) ([]byte, error) {
	d := deltaDecoders.Get().(*zstd.Decoder)
	defer deltaDecoders.Put(d)
	if err := d.ResetWithOptions(nil, zstd.WithDecoderDictDelete(), zstd.WithDecoderDictRaw(dictID, dict)); err != nil {
		return nil, err
	}
	out, err := d.DecodeAll(frame, dst)
	if rerr := d.ResetWithOptions(nil, zstd.WithDecoderDictDelete()); err == nil {
		err = rerr
	}
	return out, err
}

// deltaBases returns the bases of a delta chunk record that are stored, and
// the depth of a delta against them; ok is false when none can serve (not
// stored, or a chain at its longest).
func deltaBases(chunks *bolt.Bucket, cands []baseChunk) (bases []baseChunk, depth int, ok bool) {
	for _, c := range cands {
		rec := chunks.Get(c.id[:])
		if rec == nil {
			continue
		}
		depth = max(depth, recordDepth(rec))
		bases = append(bases, c)
	}
	if len(bases) == 0 || depth >= maxSpliceDepth {
		return nil, 0, false
	}
	return bases, depth + 1, true
}

// MarkBases adds to live, a set of chunk IDs that garbage collection keeps,
// every chunk a delta in it is decoded against, and theirs, and so on.
func MarkBases(tx *bolt.Tx, live map[ID]bool) error {
	chunks, err := bucket(tx, BucketChunks)
	if err != nil {
		return err
	}
	start := make([]ID, 0, len(live))
	for id := range live {
		start = append(start, id)
	}
	return walkBases(chunks, start, func(_ ID, _ []byte, bases [][]ID) (bool, error) {
		for _, cands := range bases {
			for _, b := range cands {
				live[b] = true
			}
		}
		return true, nil
	})
}

// walkBases visits each chunk reachable from start through the bases
// deltas are decoded against, once: visit gets a delta's record and its
// bases' candidates and says whether to go on into those bases. Chunks
// not stored, not deltas, or whose record does not parse (verify reports
// it) are not visited.
func walkBases(chunks *bolt.Bucket, start []ID, visit func(id ID, rec []byte, bases [][]ID) (bool, error)) error {
	seen := make(map[ID]bool, len(start))
	work := make([]ID, 0, len(start))
	for _, id := range start {
		if !seen[id] {
			seen[id] = true
			work = append(work, id)
		}
	}
	for len(work) > 0 {
		id := work[len(work)-1]
		work = work[:len(work)-1]
		rec := chunks.Get(id[:])
		if rec == nil || recordDepth(rec) == 0 {
			continue
		}
		_, refs, _, ok := parseDelta(rec)
		if !ok {
			continue
		}
		cands := resolveBases(chunks, refs, false)
		descend, err := visit(id, rec, cands)
		if err != nil {
			return err
		}
		if !descend {
			continue
		}
		for _, cs := range cands {
			for _, b := range cs {
				if !seen[b] {
					seen[b] = true
					work = append(work, b)
				}
			}
		}
	}
	return nil
}

// memBase is a deltaSource over a base content in memory, for a new content
// in memory: the bytes the new content's [a, b) replace are found through
// their common prefix and suffix.
type memBase struct {
	base, data []byte
	pre, suf   int     // common prefix and suffix (computed on first use)
	cuts       []int64 // the base's chunk ends (cut on first use)
	ids        map[int]ID
}

func newMemBase(base, data []byte) *memBase {
	return &memBase{base: base, data: data, pre: -1}
}

func (m *memBase) bases(a, b int64) []baseChunk {
	if len(m.base) == 0 {
		return nil
	}
	if m.pre < 0 {
		n := min(len(m.base), len(m.data))
		m.pre = CommonPrefix(m.base, m.data)
		m.suf = CommonSuffix(m.base[m.pre:], m.data[min(m.pre, n):])
		g2 := gearPairs()
		for off := 0; off < len(m.base); {
			off += cut(m.base[off:], g2)
			m.cuts = append(m.cuts, int64(off))
		}
		m.ids = map[int]ID{}
	}
	lb, ln := int64(len(m.base)), int64(len(m.data))
	pre, suf := int64(m.pre), int64(m.suf)
	// A byte in the common prefix or suffix maps to its twin in the base; a
	// byte of the changed middle to the same fraction of the base's middle:
	// a rewrite that changed every line keeps its lines where they were, so
	// its chunks are compressed against the base chunks at their place, not
	// against the whole middle's first chunks.
	at := func(x int64) int64 {
		switch {
		case x <= pre:
			return x
		case x >= ln-suf:
			return x + lb - ln
		default:
			return pre + int64(float64(x-pre)*float64(lb-suf-pre)/float64(ln-suf-pre))
		}
	}
	lo, hi := at(a), at(b)
	return pickBases(m.cuts, lo, hi, func(i int, start, end int64) (baseChunk, bool) {
		id, ok := m.ids[i]
		if !ok {
			id = Sum(m.base[start:end])
			m.ids[i] = id
		}
		return baseChunk{id: id, data: m.base[start:end]}, true
	})
}

// pickBases returns the chunks (by their ends, ends) overlapping the base
// bytes [lo, hi), or the one holding lo when the range is empty, at most
// maxBases; get returns chunk i, [start, end).
func pickBases(ends []int64, lo, hi int64, get func(i int, start, end int64) (baseChunk, bool)) []baseChunk {
	if len(ends) == 0 {
		return nil
	}
	total := ends[len(ends)-1]
	lo = min(max(lo, 0), total-1)
	hi = min(max(hi, lo+1), total)
	i := sort.Search(len(ends), func(i int) bool { return ends[i] > lo })
	var out []baseChunk
	for ; i < len(ends) && len(out) < maxBases; i++ {
		start := int64(0)
		if i > 0 {
			start = ends[i-1]
		}
		if start >= hi {
			break
		}
		if c, ok := get(i, start, ends[i]); ok {
			out = append(out, c)
		}
	}
	return out
}

// CommonPrefix returns how many first bytes a and b share, compared a
// block at a time (memcmp) before byte by byte: the delta encoder's cut,
// and the web diff's way past the unchanged part of a large file.
func CommonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i+64 <= n && bytes.Equal(a[i:i+64], b[i:i+64]) {
		i += 64
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// CommonSuffix returns how many last bytes a and b share (CommonPrefix).
func CommonSuffix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i+64 <= n && bytes.Equal(a[len(a)-i-64:len(a)-i], b[len(b)-i-64:len(b)-i]) {
		i += 64
	}
	for i < n && a[len(a)-1-i] == b[len(b)-1-i] {
		i++
	}
	return i
}

// chunkCache keeps decoded chunks of delta chains (see above), keyed by the
// database, the transaction's ID and the chunk: what one snapshot of the
// store decoded serves reads of the same snapshot.
type chunkCache struct {
	mu    sync.Mutex
	max   int
	size  int
	order *list.List // of *cacheEntry, most recent first
	byKey map[cacheKey]*list.Element
}

type cacheKey struct {
	db   *bolt.DB
	txid int
	id   ID
}

type cacheEntry struct {
	key  cacheKey
	data []byte
}

// cacheSize bounds the cache's bytes.
const cacheSize = 8 << 20

var chains = &chunkCache{max: cacheSize, order: list.New(), byKey: map[cacheKey]*list.Element{}}

func keyOf(tx *bolt.Tx, id ID) cacheKey { return cacheKey{db: tx.DB(), txid: tx.ID(), id: id} }

func (c *chunkCache) get(k cacheKey) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[k]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*cacheEntry).data, true
}

// touch marks the entry of k, if the cache holds it, as just used; else it
// keeps data (as put does). A reader that serves a chunk from a copy of its
// own (Versions) touches it, so that the chunk stays cached for as long as
// it is in use: it is the base the chunk's next version is decoded against,
// and a chunk evicted meanwhile costs its whole chain again (up to
// maxSpliceDepth levels).
func (c *chunkCache) touch(k cacheKey, data []byte) {
	c.mu.Lock()
	if el, ok := c.byKey[k]; ok {
		c.order.MoveToFront(el)
		c.mu.Unlock()
		return
	}
	c.mu.Unlock()
	c.put(k, data)
}

// drop forgets the entry of k, if the cache holds it.
func (c *chunkCache) drop(k cacheKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byKey[k]; ok {
		c.order.Remove(el)
		delete(c.byKey, k)
		c.size -= len(el.Value.(*cacheEntry).data)
	}
}

// put keeps data (which the cache now owns and nobody may change).
func (c *chunkCache) put(k cacheKey, data []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byKey[k]; ok || len(data) > c.max/4 {
		return
	}
	c.byKey[k] = c.order.PushFront(&cacheEntry{key: k, data: data})
	c.size += len(data)
	for c.size > c.max {
		el := c.order.Back()
		e := el.Value.(*cacheEntry)
		c.order.Remove(el)
		delete(c.byKey, e.key)
		c.size -= len(e.data)
	}
}
