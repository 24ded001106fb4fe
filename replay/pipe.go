package replay

import (
	"io"
	"sync"
)

// asyncPipe is an io.Pipe with a few blocks of buffer, so that the writer
// (producing a new content and writing its temp file) and the reader
// (chunking, hashing and storing it) run at the same time on two cores; an
// io.Pipe hands each write over synchronously.
type asyncPipe struct {
	ch   chan []byte
	cur  []byte
	once sync.Once
	mu   sync.Mutex
	rerr error // set by CloseWithError on the read side: writes fail with it
	werr error // the writer's close error, returned to the reader after the data
}

func newAsyncPipe(blocks int) *asyncPipe { return &asyncPipe{ch: make(chan []byte, blocks)} }

// Write copies p into the pipe (the caller may reuse p).
func (p *asyncPipe) Write(b []byte) (int, error) {
	p.mu.Lock()
	err := p.rerr
	p.mu.Unlock()
	if err != nil {
		return 0, err
	}
	p.ch <- append([]byte(nil), b...)
	return len(b), nil
}

// CloseWrite ends the stream; err (nil for a clean end) reaches the reader.
func (p *asyncPipe) CloseWrite(err error) {
	p.once.Do(func() {
		p.mu.Lock()
		p.werr = err
		p.mu.Unlock()
		close(p.ch)
	})
}

// Read returns buffered bytes, then io.EOF (or the writer's error).
func (p *asyncPipe) Read(b []byte) (int, error) {
	for len(p.cur) == 0 {
		blk, ok := <-p.ch
		if !ok {
			p.mu.Lock()
			defer p.mu.Unlock()
			if p.werr != nil {
				return 0, p.werr
			}
			return 0, io.EOF
		}
		p.cur = blk
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
		for range p.ch {
		}
	}()
}
