package audit

import (
	"fmt"
	"io"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/snapshot"
)

// ContentReader reads a stored content in pieces of about readPiece bytes,
// each in a read transaction of its own (through view, which runs fn in
// one: journal.DB.View, or an engine's call holding the journal's lock), so that a
// reader of a large content neither holds it whole in memory nor keeps a
// transaction — and with it the journal's lock — open while it consumes
// it. Chunks never change under their IDs, so the pieces are the content
// however many transactions come between them. Every chunk is verified as
// it is read and the whole content against its ID before io.EOF: a content
// gone between two pieces (gc, redaction) or damaged ends the read with an
// error instead, so what was read is the content only if the read ends
// with io.EOF. Not safe for concurrent use.
type ContentReader struct {
	view   func(fn func(*journal.Tx) error) error
	id     snapshot.ID
	listed bool // chunks and size are read (by the first piece)
	chunks []snapshot.ID
	next   int // the next chunk to read
	size   int64
	n      int64 // bytes read so far
	h      *snapshot.Hasher
	buf    []byte // the piece read last, from pos on not yet returned
	pos    int
	err    error // after buf: io.EOF or why the read stopped
}

// readPiece is the bytes one transaction of a ContentReader reads (one
// chunk more, at most 64 KiB, when a chunk crosses it).
const readPiece = 1 << 20

// NewContentReader returns a reader of content id whose pieces are read
// through view.
func NewContentReader(view func(fn func(*journal.Tx) error) error, id snapshot.ID) *ContentReader {
	return &ContentReader{view: view, id: id, h: snapshot.NewHasher()}
}

// Read reads the content's next bytes.
func (r *ContentReader) Read(p []byte) (int, error) {
	for r.pos == len(r.buf) {
		if r.err != nil {
			return 0, r.err
		}
		r.piece()
	}
	n := copy(p, r.buf[r.pos:])
	r.pos += n
	return n, nil
}

// piece reads the next piece in one transaction.
func (r *ContentReader) piece() {
	if r.buf == nil {
		r.buf = make([]byte, 0, readPiece+64<<10)
	}
	r.buf, r.pos = r.buf[:0], 0
	err := r.view(func(tx *journal.Tx) error {
		if !r.listed {
			ids, size, err := snapshot.Chunks(tx.Bolt(), r.id)
			if err != nil {
				return err
			}
			r.chunks, r.size, r.listed = ids, size, true
		}
		for r.next < len(r.chunks) && len(r.buf) < readPiece {
			b, err := snapshot.AppendChunk(tx.Bolt(), r.chunks[r.next], r.buf)
			if err != nil {
				return fmt.Errorf("snapshot: content %s: %w", r.id.Short(), err)
			}
			r.buf = b
			r.next++
		}
		return nil
	})
	if err != nil {
		r.buf, r.err = r.buf[:0], err
		return
	}
	r.h.Write(r.buf)
	r.n += int64(len(r.buf))
	if r.next == len(r.chunks) {
		r.err = io.EOF
		if r.n != r.size || r.h.ID() != r.id {
			r.buf, r.err = r.buf[:0], fmt.Errorf("snapshot: content %s: content hash mismatch: %w", r.id.Short(), snapshot.ErrCorrupt)
		}
	}
}
