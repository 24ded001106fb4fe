package lsp

import (
	"strings"
	"sync"
)

// ring keeps the last bytes a server wrote to stderr, for error messages.
type ring struct {
	mu  sync.Mutex // guards buf
	buf []byte
	max int
}

func newRing(max int) *ring { return &ring{max: max} }

// Write implements io.Writer, keeping only the newest max bytes.
func (r *ring) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.buf = append(r.buf, p...)
	if over := len(r.buf) - r.max; over > 0 {
		r.buf = append(r.buf[:0], r.buf[over:]...)
	}
	return len(p), nil
}

// tail returns the last n lines written, trimmed.
func (r *ring) tail(n int) string {
	r.mu.Lock()
	s := string(r.buf)
	r.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}
