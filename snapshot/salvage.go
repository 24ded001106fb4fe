package snapshot

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"
	"github.com/zeebo/blake3"
	bolt "go.etcd.io/bbolt"
)

// Salvage. A damaged journal file can hide a content whose records are
// whole: the page of the bucket that leads to them is damaged, not they.
// Salvage rebuilds such a content from the file's bytes, as the journal's
// repair finds lost events there: in a bbolt leaf a value follows its key,
// so a record is found as its ID (32 bytes) followed by the record. The
// manifest and lists are taken where they parse (a list only when its
// record hashes to its ID); a chunk is taken from the readable store when it
// is there, else from the bytes after its ID: a zstd frame decoded, or raw
// bytes, cut where the chunker would have cut them (a chunk's end depends on
// its own bytes only) or where the content ends. Nothing is trusted until
// the whole content hashes to its ID.

// salvageMax bounds the size of a content Salvage rebuilds.
const salvageMax = 1 << 30

// ReadChunk returns the verified bytes of chunk id from the store.
func ReadChunk(tx *bolt.Tx, id ID) ([]byte, error) {
	b, err := bucket(tx, BucketChunks)
	if err != nil {
		return nil, err
	}
	return readChunk(b, id, nil)
}

// Salvage rebuilds content id from raw, the bytes of a journal file, taking
// chunks from have when it has them (nil: none). It returns ErrNotFound when
// no copy whole enough is there.
func Salvage(raw []byte, id ID, have func(ID) ([]byte, bool)) ([]byte, error) {
	if have == nil {
		have = func(ID) ([]byte, bool) { return nil, false }
	}
	for _, p := range after(raw, id[:]) {
		m, ok := parseManifest(p)
		if !ok || m.size > salvageMax {
			continue
		}
		if out, ok := salvageFrom(raw, m, have); ok && Sum(out) == id {
			return out, nil
		}
	}
	// a content of one chunk has no manifest (store.go: finish)
	if b, ok := have(id); ok {
		return b, nil
	}
	if b, ok := salvageChunk(raw, id, -1, have, readDepth); ok {
		return b, nil
	}
	return nil, fmt.Errorf("snapshot: content %s: no whole copy in the file: %w", id.Short(), ErrNotFound)
}

// after returns the bytes that follow each occurrence of key in raw.
func after(raw, key []byte) [][]byte {
	var out [][]byte
	for off := 0; ; {
		i := bytes.Index(raw[off:], key)
		if i < 0 {
			return out
		}
		out = append(out, raw[off+i+len(key):])
		off += i + 1
	}
}

// parseManifest reads a contents record at the start of p (which may go on
// past it: readManifest checks that it does not): version 1 names the
// content's lists, version 2 its chunks (inline).
func parseManifest(p []byte) (manifest, bool) {
	var m manifest
	if len(p) < 3 || (p[0] != formatV1 && p[0] != manifestInline) {
		return m, false
	}
	m.inline = p[0] == manifestInline
	size, n := binary.Uvarint(p[1:])
	if n <= 0 || size > 1<<62 {
		return m, false
	}
	p = p[1+n:]
	count, n := binary.Uvarint(p)
	if n <= 0 || count > uint64(len(p)-n)/32 {
		return m, false
	}
	p = p[n:]
	m.size = int64(size)
	ids := make([]ID, count)
	for i := range ids {
		copy(ids[i][:], p[32*i:])
	}
	if m.inline {
		m.chunks = ids
	} else {
		m.lists = ids
	}
	return m, true
}

// manifestLen is the length of m's record.
func manifestLen(m manifest) int {
	var b [binary.MaxVarintLen64]byte
	n := len(m.lists)
	if m.inline {
		n = len(m.chunks)
	}
	return 1 + binary.PutUvarint(b[:], uint64(m.size)) + binary.PutUvarint(b[:], uint64(n)) + 32*n
}

// salvageFrom assembles the content m describes.
func salvageFrom(raw []byte, m manifest, have func(ID) ([]byte, bool)) ([]byte, bool) {
	out := make([]byte, 0, min(m.size, 64<<20))
	err := m.parts(func(l ID) ([]ID, error) {
		chunks, ok := salvageList(raw, l)
		if !ok {
			return nil, ErrNotFound
		}
		return chunks, nil
	}, func(chunks []ID) error {
		for _, c := range chunks {
			if b, ok := have(c); ok {
				out = append(out, b...)
				continue
			}
			b, ok := salvageChunk(raw, c, m.size-int64(len(out)), have, readDepth)
			if !ok {
				return ErrNotFound
			}
			out = append(out, b...)
		}
		return nil
	})
	return out, err == nil && int64(len(out)) == m.size
}

// salvageList finds list id's record and its chunk IDs.
func salvageList(raw []byte, id ID) ([]ID, bool) {
	for _, p := range after(raw, id[:]) {
		if len(p) < 2 || p[0] != formatV1 {
			continue
		}
		count, n := binary.Uvarint(p[1:])
		if n <= 0 || count > uint64(len(p)-1-n)/32 {
			continue
		}
		rec := p[:1+n+32*int(count)]
		if Sum(rec) != id {
			continue
		}
		out := make([]ID, count)
		for i := range out {
			copy(out[i][:], rec[1+n+32*i:])
		}
		return out, true
	}
	return nil, false
}

// prefixHashing returns the length of the prefix of data that hashes to
// id (~0.1 µs a byte: salvage only).
func prefixHashing(data []byte, id ID) (int, bool) {
	h := blake3.New()
	var sum [32]byte
	for n := range data {
		h.Write(data[n : n+1])
		if ID(h.Sum(sum[:0])) == id {
			return n + 1, true
		}
	}
	return 0, false
}

// salvageChunk finds chunk id's bytes, left being what the content still
// lacks (the last chunk ends there, not at a cut; -1 for a content of one
// chunk without a manifest, whose size no record gives). A delta's bases, of depth
// below limit, come from have or are salvaged in turn.
func salvageChunk(raw []byte, id ID, left int64, have func(ID) ([]byte, bool), limit int) ([]byte, bool) {
	for _, p := range after(raw, id[:]) {
		if len(p) < 2 || !isChunk(p[0]) {
			continue
		}
		var data []byte
		switch p[1] {
		case codecRaw:
			data = p[2:min(len(p), 2+maxChunk)]
		case codecZstd:
			data = firstFrame(p[2:min(len(p), 2+2*maxChunk)], nil)
		case codecDelta, codecSplice:
			depth, refs, frame, ok := parseDelta(p[:min(len(p), 4+32*maxBases+2*maxChunk)])
			if !ok || depth > limit {
				continue
			}
			cands := make([][]ID, len(refs))
			for i, r := range refs {
				cands[i] = rawCandidates(raw, r)
			}
			var dict, out []byte
			if eachCombination(cands, func(bases []ID) bool {
				dict = dict[:0]
				for _, b := range bases {
					bb, ok := have(b)
					if !ok {
						bb, ok = salvageChunk(raw, b, maxChunk, have, depth-1)
					}
					if !ok {
						return false
					}
					dict = append(dict, bb...)
				}
				if p[1] == codecSplice {
					data, _ = decodeSplice(frame, dict, true)
				} else {
					data = firstFrame(frame, dict)
				}
				out, ok = chunkOf(data, id, left)
				return ok
			}) {
				return out, true
			}
			continue
		default:
			continue
		}
		if out, ok := chunkOf(data, id, left); ok {
			return out, true
		}
		if (left < 0 || p[0] == chunkWhole) && p[1] == codecRaw {
			// raw bytes of a content of one chunk (a base, too) end
			// nowhere a record says: try every length
			if n, ok := prefixHashing(data, id); ok {
				return data[:n], true
			}
		}
	}
	return nil, false
}

// chunkOf returns the chunk id at the start of data: data up to where the
// chunker cuts it, or up to left (salvageChunk), if that hashes to id.
func chunkOf(data []byte, id ID, left int64) ([]byte, bool) {
	ends := []int{cut(data, gearPairs()), int(min(left, int64(len(data))))}
	if left < 0 { // a content of this chunk alone, of a size no record says
		ends[1] = len(data)
	}
	for _, n := range ends {
		if n > 0 && n <= len(data) && Sum(data[:n]) == id {
			return data[:n], true
		}
	}
	return nil, false
}

// rawCandidates returns the IDs base reference r may name in raw: its ID
// when whole, else each 32 bytes of raw that begin with it (a key is
// followed by its record; the prefix found inside other records gives IDs
// that nothing is stored under, which fail).
func rawCandidates(raw []byte, r baseRef) []ID {
	if r.n == len(ID{}) {
		return []ID{r.id}
	}
	seen := map[ID]bool{}
	var out []ID
	for _, p := range after(raw, r.id[:r.n]) {
		id := r.id
		if copy(id[r.n:], p) < len(id)-r.n || seen[id] {
			continue
		}
		seen[id] = true
		out = append(out, id)
	}
	return out
}

// firstFrame decodes what it can of the zstd frame at the start of p (the
// bytes after it are not the store's), up to a chunk's largest size; dict,
// if not nil, is a delta's dictionary.
func firstFrame(p, dict []byte) []byte {
	var h zstd.Header
	if h.Decode(p) != nil {
		return nil
	}
	opts := []zstd.DOption{zstd.WithDecoderConcurrency(1)}
	if dict != nil {
		opts = append(opts, zstd.WithDecoderDictRaw(dictID, dict))
	}
	d, err := zstd.NewReader(bytes.NewReader(p), opts...)
	if err != nil {
		return nil
	}
	defer d.Close()
	out := make([]byte, maxChunk)
	n, err := io.ReadFull(d, out)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && n == 0 {
		return nil
	}
	if h.HasFCS && h.FrameContentSize <= uint64(n) {
		n = int(h.FrameContentSize)
	}
	return out[:n]
}
