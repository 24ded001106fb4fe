package replay

import (
	"io"
	"sync"
	"sync/atomic"

	"github.com/journalfs/journal/snapshot"
)

// asyncPipe is an io.Pipe with a few blocks of buffer, so that the writer
// (producing a new content and writing its temp file) and the reader
// (chunking, hashing and storing it) run at the same time on two cores; an
// io.Pipe hands each write over synchronously.
//
// Writes are gathered into blocks of pipeBlock bytes. Each full block is
// first passed to onBlock on the writer's side (which writes it to the temp
// file: large writes cost the kernel less than the 32 KiB ones io.Copy
// makes), then queued for the reader and, if side is set, for a goroutine of
// its own that runs side on every block in order (hashing the content: the
// Go scheduler then spreads three streams of work over the cores, whichever
// side is the heavier). A block is reused once both are done with it.
// ReadFrom reads straight into the blocks, so content copied from a file
// with io.Copy is copied once on the writer's side.
type asyncPipe struct {
	onBlock  func([]byte) error // writer side, for every block before it is queued
	full     chan *pblock       // filled blocks, in order; closed by CloseWrite
	sideq    chan *pblock       // the same blocks for the side goroutine (nil without side)
	sideDone chan struct{}      // closed when the side goroutine has run on every block
	free     chan *pblock       // blocks every consumer has finished with
	wbuf     *pblock            // the block being filled (writer side)
	cur      []byte             // unread bytes of the block being read (reader side)
	rblk     *pblock            // the block cur is part of
	once     sync.Once
	mu       sync.Mutex
	rerr     error // set by CloseRead: writes fail with it
	werr     error // the writer's close error, returned to the reader after the data
}

// pblock is a pipe block and the count of its consumers not yet done with it.
type pblock struct {
	b    []byte
	refs atomic.Int32
}

// pipeBlock is the size of a pipe block.
const pipeBlock = 1 << 20

func newAsyncPipe(blocks int, onBlock func([]byte) error, side func([]byte)) *asyncPipe {
	p := &asyncPipe{onBlock: onBlock, full: make(chan *pblock, blocks), free: make(chan *pblock, 2*blocks+3)}
	if side != nil {
		p.sideq, p.sideDone = make(chan *pblock, blocks), make(chan struct{})
		go func() {
			defer close(p.sideDone)
			for blk := range p.sideq {
				side(blk.b)
				p.release(blk)
			}
		}()
	}
	return p
}

// release records that a consumer is done with blk.
func (p *asyncPipe) release(blk *pblock) {
	if blk.refs.Add(-1) == 0 {
		blk.b = blk.b[:0]
		select {
		case p.free <- blk:
		default:
		}
	}
}

// block returns the block being filled, taking a free one if there is none.
func (p *asyncPipe) block() *pblock {
	if p.wbuf == nil {
		select {
		case p.wbuf = <-p.free:
		default:
			p.wbuf = &pblock{b: make([]byte, 0, pipeBlock)}
		}
	}
	return p.wbuf
}

// flush hands the block being filled to onBlock and queues it.
func (p *asyncPipe) flush() error {
	if p.wbuf == nil || len(p.wbuf.b) == 0 {
		return nil
	}
	p.mu.Lock()
	err := p.rerr
	p.mu.Unlock()
	if err != nil {
		return err
	}
	blk := p.wbuf
	if p.onBlock != nil {
		if err := p.onBlock(blk.b); err != nil {
			return err
		}
	}
	blk.refs.Store(1)
	if p.sideq != nil {
		blk.refs.Store(2)
		p.sideq <- blk
	}
	p.full <- blk
	p.wbuf = nil
	return nil
}

// Write copies b into the pipe (the caller may reuse b).
func (p *asyncPipe) Write(b []byte) (int, error) {
	n := len(b)
	for len(b) > 0 {
		w := p.block()
		k := copy(w.b[len(w.b):cap(w.b)], b)
		w.b, b = w.b[:len(w.b)+k], b[k:]
		if len(w.b) == cap(w.b) {
			if err := p.flush(); err != nil {
				return n - len(b), err
			}
		}
	}
	return n, nil
}

// ReadFrom reads r to its end straight into the pipe's blocks.
func (p *asyncPipe) ReadFrom(r io.Reader) (int64, error) {
	var n int64
	for {
		w := p.block()
		k, err := r.Read(w.b[len(w.b):cap(w.b)])
		w.b = w.b[:len(w.b)+k]
		n += int64(k)
		if len(w.b) == cap(w.b) {
			if err := p.flush(); err != nil {
				return n, err
			}
		}
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// Flush passes on the last, partly filled block; call it once the content
// is complete, before CloseWrite(nil).
func (p *asyncPipe) Flush() error { return p.flush() }

// CloseWrite ends the stream; err (nil for a clean end, after Flush) reaches
// the reader after the blocks queued before it.
func (p *asyncPipe) CloseWrite(err error) {
	p.once.Do(func() {
		p.wbuf = nil
		p.mu.Lock()
		p.werr = err
		p.mu.Unlock()
		close(p.full)
		if p.sideq != nil {
			close(p.sideq)
		}
	})
}

// Read returns buffered bytes, then io.EOF (or the writer's error) once the
// side goroutine, if any, has run on every block.
func (p *asyncPipe) Read(b []byte) (int, error) {
	for len(p.cur) == 0 {
		if p.rblk != nil {
			p.release(p.rblk)
			p.rblk = nil
		}
		blk, ok := <-p.full
		if !ok {
			if p.sideDone != nil {
				<-p.sideDone
			}
			p.mu.Lock()
			defer p.mu.Unlock()
			if p.werr != nil {
				return 0, p.werr
			}
			return 0, io.EOF
		}
		p.cur, p.rblk = blk.b, blk
	}
	n := copy(b, p.cur)
	p.cur = p.cur[n:]
	return n, nil
}

// CloseRead makes further writes fail with err and drains what is queued,
// so a writer blocked on a full pipe is released.
func (p *asyncPipe) CloseRead(err error) {
	p.mu.Lock()
	if p.rerr == nil {
		p.rerr = err
		if p.rerr == nil {
			p.rerr = io.ErrClosedPipe
		}
	}
	p.mu.Unlock()
	go func() {
		for range p.full {
		}
	}()
}

// hashBlock is the size of the reads hashReader makes.
const hashBlock = 1 << 20

// hashReader returns the ID and size of everything read from r. One
// goroutine reads (for a file, a copy from the page cache) while this one
// hashes, so a large file is hashed in about the time of the slower of the
// two instead of their sum.
func hashReader(r io.Reader) (snapshot.ID, int64, error) {
	type block struct {
		b   []byte
		err error
	}
	const blocks = 4
	full := make(chan block, blocks)
	free := make(chan []byte, blocks)
	for range blocks {
		free <- make([]byte, hashBlock)
	}
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		defer close(full)
		for {
			var b []byte
			select {
			case b = <-free:
			case <-stop:
				return
			}
			n, err := io.ReadFull(r, b)
			if n > 0 {
				full <- block{b: b[:n]}
			}
			if err != nil {
				if err == io.ErrUnexpectedEOF || err == io.EOF {
					return
				}
				full <- block{err: err}
				return
			}
		}
	}()
	h := snapshot.NewHasher()
	var size int64
	for blk := range full {
		if blk.err != nil {
			return snapshot.ID{}, 0, blk.err
		}
		h.Write(blk.b)
		size += int64(len(blk.b))
		free <- blk.b[:cap(blk.b)]
	}
	return h.ID(), size, nil
}
