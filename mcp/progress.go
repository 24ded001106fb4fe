package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// Progress and cancellation. A request that carries a progressToken gets
// notifications/progress while a long operation runs (a search over a large
// file, the writing of a large file's new content, a wait on a language
// server): progress increasing,
// total when known, a short message, at most one per progressEvery. A
// notifications/cancelled for a running request cancels its context (mcp-go
// does that); the operation stops at its next safe point — a search between
// blocks of a few MiB, an edit while its new content is staged, before
// anything is committed — and the call fails with CANCELLED, having changed
// nothing. Once an edit reached its commit point it completes: a batch is
// never torn by a cancellation.

// progressEvery bounds the rate of progress notifications.
const progressEvery = 100 * time.Millisecond

// errCancelled is a call its client cancelled before its commit point.
var errCancelled = errors.New("mcp: cancelled by the client")

// progress reports one call's advance; the zero value (no token) reports
// nothing.
type progress struct {
	s     *Server
	ctx   context.Context
	token mcpgo.ProgressToken
	mu    sync.Mutex
	last  time.Time
	sent  float64
}

// newProgress is the reporter of a call whose request carried meta.
func (s *Server) newProgress(ctx context.Context, meta *mcpgo.Meta) *progress {
	p := &progress{s: s, ctx: ctx}
	if meta != nil {
		p.token = meta.ProgressToken
	}
	return p
}

// report sends done of total (0: unknown) with msg, unless one was sent
// less than progressEvery ago (final reports, done == total, always go).
func (p *progress) report(done, total int64, msg string) {
	if p == nil || p.token == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if float64(done) <= p.sent || (now.Sub(p.last) < progressEvery && done != total) {
		return
	}
	p.last, p.sent = now, float64(done)
	params := map[string]any{"progressToken": p.token, "progress": done, "message": msg}
	if total > 0 {
		params["total"] = total
	}
	_ = p.s.srv.SendNotificationToClient(p.ctx, "notifications/progress", params)
}

// cancelled returns errCancelled once the call's client cancelled it.
func (p *progress) cancelled() error {
	if p == nil || p.ctx.Err() == nil {
		return nil
	}
	return fmt.Errorf("%w (%v)", errCancelled, context.Cause(p.ctx))
}

// scan is a match.SearchOptions.Progress for a search over total bytes. A
// call that searches again (exact, then fuzzy) goes on from where the
// last pass ended: progress only increases, and the total grows by a pass.
func (p *progress) scan(total int64) func(int64) error {
	var base int64
	if p != nil {
		p.mu.Lock()
		base = int64(p.sent)
		p.mu.Unlock()
	}
	return func(done int64) error {
		if err := p.cancelled(); err != nil {
			return err
		}
		p.report(base+done, base+total, fmt.Sprintf("searched %s of %s", humanSize(done), humanSize(total)))
		return nil
	}
}

// waiting reports, until stop is called, how long the call has waited on
// something it cannot measure (a language server): progress in elapsed
// milliseconds, no total.
func (p *progress) waiting(what string) (stop func()) {
	if p == nil || p.token == nil {
		return func() {}
	}
	p.mu.Lock()
	base := int64(p.sent)
	p.mu.Unlock()
	done := make(chan struct{})
	start := time.Now()
	go func() {
		t := time.NewTicker(progressEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				el := time.Since(start)
				p.report(base+el.Milliseconds(), 0, fmt.Sprintf("waiting for %s: %.1f s", what, el.Seconds()))
			}
		}
	}()
	return func() { close(done) }
}

// writer wraps w, where a large file's new content is written before the
// commit point: it reports the bytes written of total and fails once the
// call is cancelled.
func (p *progress) writer(w io.Writer, total int64, what string) io.Writer {
	return &progressWriter{w: w, p: p, total: total, what: what}
}

type progressWriter struct {
	w     io.Writer
	p     *progress
	n     int64
	total int64
	what  string
}

func (pw *progressWriter) Write(b []byte) (int, error) {
	if err := pw.p.cancelled(); err != nil {
		return 0, err
	}
	n, err := pw.w.Write(b)
	pw.n += int64(n)
	pw.p.report(pw.n, pw.total, fmt.Sprintf("%s: wrote %s of %s", pw.what, humanSize(pw.n), humanSize(pw.total)))
	return n, err
}

// humanSize is n bytes for a progress message.
func humanSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
