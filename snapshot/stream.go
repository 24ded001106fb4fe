package snapshot

import (
	"bytes"
	"fmt"
	"io"

	bolt "go.etcd.io/bbolt"
)

// Chunk is one chunk of a content's layout: its ID and length.
type Chunk struct {
	ID  ID
	Len uint32
}

// Base is a stored content that a new content probably shares most of its
// chunks with (the file's previous version). Where the new content's bytes
// equal the base's bytes chunk for chunk, PutStreamWith takes the base's
// chunk IDs without cutting or hashing those bytes: cutting is a function of
// a chunk's bytes alone, so an equal chunk starting where a chunk of the new
// content starts is cut at the same length, and equal bytes have the same ID.
// A one-line edit of a large file then cuts and hashes a few chunks around
// the edit and compares the rest.
type Base struct {
	ID     ID          // the stored content
	Chunks []Chunk     // its layout, as PutStreamWith returned it
	Data   io.ReaderAt // its bytes
	// Check is called before the new content is recorded, and must return
	// nil only if Data held the content ID throughout (for a file: its
	// identity did not change). Its error fails the put.
	Check func() error
}

// StreamOptions tune PutStreamWith.
type StreamOptions struct {
	// TxBytes is the new data committed per transaction (0: 4 MiB).
	TxBytes int64
	// Sum, if set, returns the ID of exactly the bytes read from the reader;
	// it is called once the reader is exhausted. For a caller that hashes the
	// content on the goroutine that produces it. A wrong ID is caught when the
	// content is read (ErrCorrupt), never served as another content.
	Sum func() ID
	// Base, if set, is a stored content to take unchanged chunks from.
	Base *Base
	// Layout asks for the new content's layout in the result (to be a later Base).
	Layout bool
}

// Stored is what PutStreamWith stored.
type Stored struct {
	ID     ID
	Size   int64
	Chunks []Chunk // the layout, if asked for
	// Deltas is the number of new chunks stored as deltas against the
	// base's (delta.go): the journal marks its format when there are any.
	Deltas int
}

// PutStreamWith is PutStream with options; see StreamOptions.
func PutStreamWith(update UpdateFunc, r io.Reader, o StreamOptions) (Stored, error) {
	txBytes := o.TxBytes
	if txBytes <= 0 {
		txBytes = 4 << 20
	}
	sum := o.Sum
	if sum == nil {
		h := NewHasher()
		r, sum = io.TeeReader(r, h), h.ID
	}
	c := newChunker(r)
	w := &writer{}
	var st Stored
	if o.Layout {
		w.layout = &st.Chunks
	}
	var bc *baseCursor
	if o.Base != nil && len(o.Base.Chunks) > 0 {
		bc = &baseCursor{b: o.Base, on: true}
		w.delta = bc
	}
	for done := false; !done; {
		err := update(func(tx *bolt.Tx) error {
			if err := w.rebind(tx); err != nil {
				return err
			}
			if bc != nil && !Has(tx, bc.b.ID) {
				bc, w.delta = nil, nil // the base is gone (garbage collected): cut everything
			}
			start := w.newBytes
			for w.newBytes-start < txBytes {
				if bc != nil && bc.on {
					ok, err := bc.take(c, w)
					if err != nil {
						return err
					}
					if ok {
						continue
					}
				}
				ch, err := c.next()
				if err == io.EOF {
					if bc != nil && bc.used {
						if err := bc.b.Check(); err != nil {
							return fmt.Errorf("snapshot: base content %s: %w", bc.b.ID.Short(), err)
						}
					}
					done, st.ID = true, sum()
					return w.finish(tx, st.ID)
				}
				if err != nil {
					return fmt.Errorf("snapshot: read: %w", err)
				}
				id, err := w.addChunk(ch)
				if err != nil {
					return err
				}
				if bc != nil {
					bc.resync(id, w.size)
				}
			}
			return nil
		})
		if err != nil {
			return Stored{}, err
		}
	}
	st.Size, st.Deltas = w.size, w.deltas
	return st, nil
}

// baseCursor follows a Base along the new content.
type baseCursor struct {
	b     *Base
	k     int   // the base chunk the next new chunk starts where (if on)
	off   int64 // the offset of base chunk k
	on    bool  // the new content is at a chunk start aligned with base chunk k
	used  bool  // some base bytes were taken
	shift int64 // a base offset minus the new content's offset of the same bytes
	index map[ID]int
	offs  []int64 // offs[i] = offset of base chunk i; built with index
	win   []byte  // base bytes [winOff, winOff+len(win))
	wOff  int64
}

// take adds base chunk k if the new content's next bytes equal it.
func (bc *baseCursor) take(c *chunker, w *writer) (bool, error) {
	ch := bc.b.Chunks[bc.k]
	n := int(ch.Len)
	data, err := c.peek(n)
	if err != nil {
		return false, fmt.Errorf("snapshot: read: %w", err)
	}
	last := bc.k == len(bc.b.Chunks)-1
	// The base's last chunk was cut by its end: the new content must end there too.
	if len(data) < n || (last && !c.endsAfter(n)) || !bytes.Equal(data, bc.bytes(bc.off, n)) {
		bc.on = false
		return false, nil
	}
	c.skip(n)
	bc.used = true
	bc.shift = bc.off - w.size
	bc.k++
	bc.off += int64(n)
	bc.on = bc.k < len(bc.b.Chunks)
	return true, w.addStored(ch.ID, n)
}

// resync looks a chunk just cut from the new content, which ends at newEnd,
// up among the base's chunks: if it is there, the new content's next chunk
// may be the base's next.
func (bc *baseCursor) resync(id ID, newEnd int64) {
	bc.indexBase()
	if i, ok := bc.index[id]; ok {
		bc.shift = bc.offs[i+1] - newEnd
		if i+1 < len(bc.b.Chunks) {
			bc.k, bc.off, bc.on = i+1, bc.offs[i+1], true
		}
	}
}

// indexBase builds the index of the base's chunks and their offsets.
func (bc *baseCursor) indexBase() {
	if bc.index != nil {
		return
	}
	bc.index = make(map[ID]int, len(bc.b.Chunks))
	bc.offs = make([]int64, len(bc.b.Chunks)+1)
	for i, ch := range bc.b.Chunks {
		if _, dup := bc.index[ch.ID]; !dup {
			bc.index[ch.ID] = i
		}
		bc.offs[i+1] = bc.offs[i] + int64(ch.Len)
	}
}

// bases implements deltaSource: the base's bytes the new content's [a, b)
// replace are found by the offset shift where the two were last aligned. A
// base chunk is used only if its bytes, read now, hash to its ID.
func (bc *baseCursor) bases(a, b int64) []baseChunk {
	bc.indexBase()
	return pickBases(bc.offs[1:], a+bc.shift, b+bc.shift, func(i int, start, end int64) (baseChunk, bool) {
		data := bc.bytes(start, int(end-start))
		if data == nil || Sum(data) != bc.b.Chunks[i].ID {
			return baseChunk{}, false
		}
		return baseChunk{id: bc.b.Chunks[i].ID, data: bytes.Clone(data)}, true
	})
}

// baseWindow is how much of the base is read at a time.
const baseWindow = 1 << 20

// bytes returns n base bytes at off, or nil if they cannot be read.
func (bc *baseCursor) bytes(off int64, n int) []byte {
	if off < bc.wOff || off+int64(n) > bc.wOff+int64(len(bc.win)) {
		if bc.win == nil {
			bc.win = make([]byte, 0, max(baseWindow, maxChunk))
		}
		k, err := bc.b.Data.ReadAt(bc.win[:cap(bc.win)], off)
		if k < n && err != nil {
			bc.win, bc.wOff = bc.win[:0], 0
			return nil
		}
		bc.win, bc.wOff = bc.win[:k], off
	}
	i := int(off - bc.wOff)
	return bc.win[i : i+n]
}
