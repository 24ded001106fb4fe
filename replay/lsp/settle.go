package lsp

import (
	"context"
	"time"
)

// changed records that a change was sent: diagnostics are unsettled again.
// A document's own change (path not "") also waits for its publish.
func (s *server) changed(path string) {
	s.mu.Lock()
	s.lastChange = time.Now()
	if path != "" {
		s.pending[path] = true
	}
	s.signalLocked()
	s.mu.Unlock()
}

// signalLocked wakes every wait on the server. s.mu must be held.
func (s *server) signalLocked() {
	close(s.wake)
	s.wake = make(chan struct{})
}

// createdGrace is how long a created progress token that has not begun
// counts as work.
const createdGrace = 2 * time.Second

// busyPoll is how often a wait on a busy server looks again.
const busyPoll = 100 * time.Millisecond

// busyLocked reports whether the server has work in progress: a begun
// token that has not ended, or one created in the last createdGrace.
func (s *server) busyLocked(now time.Time) bool {
	for _, created := range s.progress {
		if created.IsZero() || now.Sub(created) < createdGrace {
			return true
		}
	}
	return false
}

// settle waits until the server's diagnostics are quiet: no $/progress is
// active, each of paths that was opened or changed got a publishDiagnostics
// since, and nothing arrived for quiet. Until the server's first
// publishDiagnostics and first publish for each of paths (its initial load),
// and while progress is active, the wait is bounded by load (from the call);
// after that by max (from the end of the load). Running out of time is not
// an error: the latest diagnostics are what there is.
func (s *server) settle(ctx context.Context, paths []string, quiet, max, load time.Duration) error {
	start := time.Now()  // the load bound counts from here
	var loaded time.Time // the max bound counts from the end of the load
	for {
		s.mu.Lock()
		now := time.Now()
		busy := s.busyLocked(now)
		loading := busy || !s.everPubd
		waiting := false
		for _, p := range paths {
			if s.pending[p] {
				waiting = true
				_, seen := s.diags[p]
				loading = loading || !seen // its first analysis is part of the load
			}
		}
		if loading {
			loaded = time.Time{}
		} else if loaded.IsZero() {
			loaded = now
		}
		last := s.lastChange
		if s.lastPublish.After(last) {
			last = s.lastPublish
		}
		wait := quiet - now.Sub(last)
		if !busy && !waiting && wait <= 0 {
			s.created = false
			s.mu.Unlock()
			return nil
		}
		left := max - now.Sub(loaded)
		if loading {
			left = load - now.Sub(start)
		}
		if left <= 0 {
			s.created = false
			s.mu.Unlock()
			return nil
		}
		if busy || waiting || wait > left {
			wait = left
		}
		if busy {
			wait = min(wait, busyPoll) // a created token's grace may run out
		}
		wake := s.wake
		s.mu.Unlock()
		if err := s.sleep(ctx, wake, wait); err != nil {
			return err
		}
	}
}

// ready waits until no $/progress the server reported is active (its
// initial load, a project load), bounded by load: requests sent during a load
// may be answered from partial knowledge.
func (s *server) ready(ctx context.Context, load time.Duration) error {
	deadline := time.Now().Add(load)
	for {
		s.mu.Lock()
		busy := s.busyLocked(time.Now())
		wake := s.wake
		s.mu.Unlock()
		left := time.Until(deadline)
		if !busy || left <= 0 {
			return nil
		}
		if err := s.sleep(ctx, wake, min(left, busyPoll)); err != nil {
			return err
		}
	}
}

// sleep waits for an event (wake closing) or d; it fails if the server
// exits or ctx ends.
func (s *server) sleep(ctx context.Context, wake <-chan struct{}, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-wake:
	case <-t.C:
	case <-s.exited:
		return s.exitError()
	case <-ctx.Done():
		return ctx.Err()
	}
	return nil
}
