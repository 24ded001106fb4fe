package journal

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"

	"github.com/klauspost/compress/zstd"
	bolt "go.etcd.io/bbolt"
)

// Event blocks (format 10, FormatPacked). An event record alone compresses
// badly — its IDs are random — but consecutive records share most of what
// they hold: an event's prev is the hash of the record before it, its before
// is the after of the path's previous event, its arguments repeat the
// paths and shapes of the ones before. So once an event is packLag events
// behind the newest, runs of packBlock of them are stored as one value of
// the events bucket, a zstd frame of their records (100,000 one-line edits
// through MCP: the events bucket's pages 349 → 143 bytes per event; the
// whole journal 627 → 422 bytes per edit, where git packs the same history
// in 514).
//
// A block is keyed by the number of its LAST event, so a cursor's Seek to
// an event lands on its loose record or on the block that holds it, and the
// newest key is still the newest event whatever is packed. Its value:
//
//	byte 0     recordBlock (4, which no record version uses)
//	bytes 1..4 CRC-32C of everything after them (big-endian)
//	uvarints   first event number, count, decompressed length, frame length
//	frame      zstd: per event, a uvarint length and its record as it was
//	           stored loose (v1, v2 or v3, with its own checksum) — since
//	           format 11 with a compact record's arguments as they are, not
//	           compressed on their own (rawArgs: 100,000 one-line edits,
//	           153 → 123 bytes per event), which any reader of compact
//	           records decodes
//
// The records inside decode to exactly the events of the loose ones, so the
// hash chain, exports and everything that decodes an event are unchanged.
// Blocks are written where an event is (Tx.put, every packBlock events, of
// loose sealed records — a pending event is always the newest, so never
// among them: Append, Seal, Import and repair all write through it) and by
// gc's copy, which packs old journals' loose runs; gc trims a block that
// straddles its cut.
// A damaged block loses its run of events where a damaged page of loose
// records loses the ~12 the page holds: repair finds blocks in the file's
// raw bytes by their frame and checksum (rawBlockRecords).
const (
	recordBlock = 4
	// packBlock is how many events a block holds.
	packBlock = 256
	// packLag is how many of the newest events stay loose records.
	packLag = 256
	// blockMaxRaw bounds a block's decompressed size (a record is at most
	// the size bbolt allows a value; blocks hold small ones).
	blockMaxRaw = 64 << 20
)

var (
	blockEncoder, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1),
		zstd.WithEncoderCRC(false))
	blockDecoder, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(blockMaxRaw))
)

// encodeEventBlock returns the block value of the records recs, the first of
// which is event first.
func encodeEventBlock(first uint64, recs [][]byte) []byte {
	var raw []byte
	for _, r := range recs {
		r = rawArgs(r)
		raw = binary.AppendUvarint(raw, uint64(len(r)))
		raw = append(raw, r...)
	}
	frame := blockEncoder.EncodeAll(raw, nil)
	v := make([]byte, 5, 5+4*binary.MaxVarintLen64+len(frame))
	v[0] = recordBlock
	v = binary.AppendUvarint(v, first)
	v = binary.AppendUvarint(v, uint64(len(recs)))
	v = binary.AppendUvarint(v, uint64(len(raw)))
	v = binary.AppendUvarint(v, uint64(len(frame)))
	v = append(v, frame...)
	binary.BigEndian.PutUint32(v[1:], crc32.Checksum(v[5:], castagnoli))
	return v
}

// blockHeader is a block's header, read without checking the block.
type blockHeader struct {
	first, count, rawLen, frameLen uint64
	size                           int // header bytes
}

func parseBlockHeader(v []byte) (h blockHeader, ok bool) {
	if len(v) < 5 || v[0] != recordBlock {
		return h, false
	}
	off := 5
	for _, f := range []*uint64{&h.first, &h.count, &h.rawLen, &h.frameLen} {
		x, n := binary.Uvarint(v[off:])
		if n <= 0 {
			return h, false
		}
		*f, off = x, off+n
	}
	if h.count == 0 || h.count > 1<<20 || h.rawLen > blockMaxRaw || h.first == 0 || h.first+h.count < h.first {
		return h, false
	}
	h.size = off
	return h, true
}

// last returns the number of the block's last event.
func (h blockHeader) last() uint64 { return h.first + h.count - 1 }

// eventBlock is a block's records, decoded.
type eventBlock struct {
	first uint64
	recs  [][]byte
}

// decodeEventBlock checks and decompresses the block value v stored under key
// last.
func decodeEventBlock(last uint64, v []byte) (*eventBlock, error) {
	h, ok := parseBlockHeader(v)
	if !ok {
		return nil, fmt.Errorf("journal: event block %d: header unreadable: %w", last, ErrCorrupt)
	}
	if uint64(len(v)-h.size) != h.frameLen {
		return nil, fmt.Errorf("journal: event block %d: %d bytes of frame, header says %d: %w", last, len(v)-h.size, h.frameLen, ErrCorrupt)
	}
	if crc32.Checksum(v[5:], castagnoli) != binary.BigEndian.Uint32(v[1:]) {
		return nil, fmt.Errorf("journal: event block %d: checksum mismatch: %w", last, ErrCorrupt)
	}
	if h.last() != last {
		return nil, fmt.Errorf("journal: event block keyed %d holds events %d..%d: %w", last, h.first, h.last(), ErrCorrupt)
	}
	raw, err := blockDecoder.DecodeAll(v[h.size:], make([]byte, 0, h.rawLen))
	if err != nil || uint64(len(raw)) != h.rawLen {
		return nil, fmt.Errorf("journal: event block %d: frame: %v: %w", last, err, ErrCorrupt)
	}
	b := &eventBlock{first: h.first, recs: make([][]byte, 0, h.count)}
	for len(raw) > 0 {
		n, k := binary.Uvarint(raw)
		if k <= 0 || n > uint64(len(raw)-k) {
			return nil, fmt.Errorf("journal: event block %d: record %d torn: %w", last, len(b.recs), ErrCorrupt)
		}
		b.recs = append(b.recs, raw[k:k+int(n)])
		raw = raw[k+int(n):]
	}
	if uint64(len(b.recs)) != h.count {
		return nil, fmt.Errorf("journal: event block %d: %d records, header says %d: %w", last, len(b.recs), h.count, ErrCorrupt)
	}
	return b, nil
}

// block returns the decoded block stored under key last (value v), from the
// transaction's cache of the last one decoded.
func (t *Tx) block(last uint64, v []byte) (*eventBlock, error) {
	if t.blk != nil && t.blkLast == last && t.blkSize == len(v) {
		return t.blk, nil
	}
	b, err := decodeEventBlock(last, v)
	if err != nil {
		return nil, err
	}
	t.blk, t.blkLast, t.blkSize = b, last, len(v)
	return b, nil
}

// record returns the stored record of event seq, loose or from its block
// (ErrNotFound: no such event).
func (t *Tx) record(seq uint64) ([]byte, error) {
	b := t.tx.Bucket(bucketEvents)
	if v := b.Get(u64(seq)); v != nil && (len(v) == 0 || v[0] != recordBlock) {
		return v, nil
	}
	k, v := b.Cursor().Seek(u64(seq))
	if k == nil || len(v) == 0 || v[0] != recordBlock {
		return nil, ErrNotFound
	}
	last := keySeq(k)
	if h, ok := parseBlockHeader(v); ok && h.first > seq && h.last() == last {
		return nil, ErrNotFound // the block begins after seq
	}
	blk, err := t.block(last, v) // checks the header against the key
	if err != nil {
		return nil, err
	}
	return blk.recs[seq-blk.first], nil
}

// eventCursor walks the events bucket event by event, through blocks.
type eventCursor struct {
	t   *Tx
	c   *bolt.Cursor
	blk *eventBlock // the block being walked, or nil
	i   int         // the current record's index in blk
}

// cursorItem is what an eventCursor step yields: event seq's record, or —
// err set — a run lo..hi of events it cannot read (a damaged block). seq
// is 0 past the end.
type cursorItem struct {
	seq    uint64
	rec    []byte
	lo, hi uint64
	err    error
}

func (t *Tx) eventCursor() *eventCursor {
	return &eventCursor{t: t, c: t.tx.Bucket(bucketEvents).Cursor()}
}

// item makes the cursor's item of bucket entry k, v, entering a block at its
// first record (or its last, walking backward).
func (ec *eventCursor) item(k, v []byte, backward bool) cursorItem {
	ec.blk = nil
	if k == nil {
		return cursorItem{}
	}
	seq := keySeq(k)
	if len(v) == 0 || v[0] != recordBlock {
		return cursorItem{seq: seq, rec: v}
	}
	blk, err := ec.t.block(seq, v)
	if err != nil {
		return cursorItem{lo: ec.before(k) + 1, hi: seq, err: err}
	}
	ec.blk, ec.i = blk, 0
	if backward {
		ec.i = len(blk.recs) - 1
	}
	return ec.cur()
}

// before returns the event number of the key before k (0: none).
func (ec *eventCursor) before(k []byte) uint64 {
	c := ec.t.tx.Bucket(bucketEvents).Cursor()
	c.Seek(k)
	if p, _ := c.Prev(); p != nil {
		return keySeq(p)
	}
	base, _ := ec.t.safeBase()
	return base
}

func (ec *eventCursor) cur() cursorItem {
	return cursorItem{seq: ec.blk.first + uint64(ec.i), rec: ec.blk.recs[ec.i]}
}

// seek moves to event seq, or the first event after it; backward, to seq
// or the last event before it (seq 0: the newest).
func (ec *eventCursor) seek(seq uint64, backward bool) cursorItem {
	var k, v []byte
	if !backward || seq != 0 {
		k, v = ec.c.Seek(u64(seq))
	}
	if k == nil {
		if !backward {
			return cursorItem{}
		}
		k, v = ec.c.Last()
		return ec.item(k, v, true)
	}
	it := ec.item(k, v, backward)
	switch {
	case it.err != nil:
		return it
	case ec.blk != nil && seq >= ec.blk.first:
		ec.i = int(seq - ec.blk.first)
		return ec.cur()
	case backward && it.seq > seq:
		k, v := ec.c.Prev()
		return ec.item(k, v, true)
	}
	return it
}

// next moves one event on (backward: one event back).
func (ec *eventCursor) next(backward bool) cursorItem {
	if ec.blk != nil {
		if backward && ec.i > 0 {
			ec.i--
			return ec.cur()
		}
		if !backward && ec.i < len(ec.blk.recs)-1 {
			ec.i++
			return ec.cur()
		}
	}
	if backward {
		k, v := ec.c.Prev()
		return ec.item(k, v, true)
	}
	k, v := ec.c.Next()
	return ec.item(k, v, false)
}

// packOnAppend is whether Append packs; tests turn it off to write loose
// records only, as binaries before format 10 did.
var packOnAppend = true

// maybePack packs, when event seq (just written) ends a run of packBlock,
// the packBlock loose records before the newest packLag into a block: if
// they are consecutive, sealed and loose (a run already packed, or with a
// gap, is left as it is).
func (t *Tx) maybePack(seq uint64) error {
	if !packOnAppend || seq%packBlock != 0 || seq < packLag+packBlock {
		return nil
	}
	last := seq - packLag
	first := last - packBlock + 1
	if pk, _ := t.tx.Bucket(bucketPending).Cursor().Seek(u64(first)); pk != nil && keySeq(pk) <= last {
		return nil
	}
	b := t.tx.Bucket(bucketEvents)
	recs := make([][]byte, 0, packBlock)
	c := b.Cursor()
	k, v := c.Seek(u64(first))
	if k == nil {
		return nil
	}
	// the run may begin later than first: at the base a gc left
	first = keySeq(k)
	for want := first; k != nil && want <= last; k, v = c.Next() {
		if keySeq(k) != want || len(v) == 0 || v[0] == recordBlock {
			return nil
		}
		recs = append(recs, v)
		want++
	}
	if len(recs) == 0 || first+uint64(len(recs))-1 != last {
		return nil
	}
	return t.putBlock(first, recs)
}

// putBlock replaces the loose records recs of events first.. with their
// block.
func (t *Tx) putBlock(first uint64, recs [][]byte) error {
	last := first + uint64(len(recs)) - 1
	blk := encodeEventBlock(first, recs) // copies recs before the deletes below
	b := t.tx.Bucket(bucketEvents)
	for s := first; s < last; s++ {
		if err := b.Delete(u64(s)); err != nil {
			return fmt.Errorf("journal: pack events %d..%d: %w", first, last, err)
		}
	}
	if err := t.MarkFormat(FormatPacked); err != nil {
		return err
	}
	if err := b.Put(u64(last), blk); err != nil {
		return fmt.Errorf("journal: pack events %d..%d: %w", first, last, err)
	}
	t.blk = nil
	return nil
}

// dropEventsBelow deletes the events before b, trimming a block that holds
// events on both sides.
func (t *Tx) dropEventsBelow(b uint64) error {
	bk := t.tx.Bucket(bucketEvents)
	var drop [][]byte
	c := bk.Cursor()
	k, v := c.First()
	for ; k != nil && keySeq(k) < b; k, v = c.Next() {
		drop = append(drop, append([]byte(nil), k...))
	}
	var trimmed []byte
	if k != nil {
		nv, changed, err := trimEventBlock(keySeq(k), v, b)
		if err != nil {
			return err
		}
		if changed {
			trimmed = nv
		}
	}
	for _, k := range drop {
		if err := bk.Delete(k); err != nil {
			return fmt.Errorf("journal: gc: events: %w", err)
		}
	}
	if trimmed != nil {
		if err := bk.Put(u64(keySeq(k)), trimmed); err != nil {
			return fmt.Errorf("journal: gc: events: %w", err)
		}
	}
	t.blk = nil
	return nil
}

// trimEventBlock returns the events bucket's value v (key last) without its
// events before b; a loose record, or a block that begins at b or later,
// comes back as it is (changed false).
func trimEventBlock(last uint64, v []byte, b uint64) (nv []byte, changed bool, err error) {
	if len(v) == 0 || v[0] != recordBlock {
		return v, false, nil
	}
	if h, ok := parseBlockHeader(v); ok && h.first >= b {
		return v, false, nil
	}
	blk, err := decodeEventBlock(last, v) // checks the header against the key
	if err != nil {
		return nil, false, fmt.Errorf("journal: gc: %w", err)
	}
	return encodeEventBlock(b, blk.recs[b-blk.first:]), true, nil
}

// packer packs runs of loose records as they are copied (gc's copy), so
// that a journal written before format 10 is packed by its first gc.
type packer struct {
	put   func(k, v []byte) error
	upTo  uint64 // events after it stay loose
	first uint64
	recs  [][]byte
}

// add copies event bucket entry k, v through the packer.
func (p *packer) add(k, v []byte) error {
	seq := keySeq(k)
	loose := len(v) > 0 && v[0] != recordBlock
	if !loose || seq > p.upTo || (len(p.recs) > 0 && seq != p.first+uint64(len(p.recs))) {
		if err := p.flush(); err != nil {
			return err
		}
		if !loose || seq > p.upTo {
			return p.put(k, v)
		}
	}
	if len(p.recs) == 0 {
		p.first = seq
	}
	p.recs = append(p.recs, bytes.Clone(v))
	if len(p.recs) == packBlock {
		blk := encodeEventBlock(p.first, p.recs)
		p.recs = p.recs[:0]
		return p.put(u64(seq), blk)
	}
	return nil
}

// flush copies the loose records of a run too short for a block as they
// are.
func (p *packer) flush() error {
	for i, r := range p.recs {
		if err := p.put(u64(p.first+uint64(i)), r); err != nil {
			return err
		}
	}
	p.recs = p.recs[:0]
	return nil
}
