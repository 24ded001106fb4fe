package lsp

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"
)

// changed records that a change was sent: diagnostics are unsettled again.
// A document's own change (path not "") also waits for a publish for its
// version.
func (s *server) changed(path string, version int32) {
	s.mu.Lock()
	s.lastChange = time.Now()
	if path != "" {
		s.pending[path] = version
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
// for its latest version since, and nothing arrived for quiet. Until the
// server's first publishDiagnostics and first publish for each of paths (its
// initial load), and while progress is active, the wait is bounded by load
// (from the call); after that by max (from the end of the load). Running out
// of time is not an error: the latest diagnostics are what there is;
// unsettled says which of paths they may be stale for, and why, and
// incomplete (not "") that the server was still at work, so that files not
// asked about may lack problems it had yet to publish.
func (s *server) settle(ctx context.Context, paths []string, quiet, max, load time.Duration) (unsettled map[string]string, incomplete string, err error) {
	start := time.Now()  // the load bound counts from here
	var loaded time.Time // the max bound counts from the end of the load
	for {
		s.mu.Lock()
		now := time.Now()
		busy := s.busyLocked(now)
		loading := busy || !s.everPubd
		waiting := false
		for _, p := range paths {
			if _, ok := s.pending[p]; ok {
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
			return nil, "", nil
		}
		left := max - now.Sub(loaded)
		if loading {
			left = load - now.Sub(start)
		}
		if left <= 0 {
			s.created = false
			waited := now.Sub(start).Round(time.Millisecond)
			if busy {
				incomplete = fmt.Sprintf("%s was still at work after %v", s.cfg.Command[0], waited)
			}
			unsettled = map[string]string{}
			for _, p := range paths {
				if _, pending := s.pending[p]; pending {
					unsettled[p] = fmt.Sprintf("%s published no diagnostics for its latest content within %v", s.cfg.Command[0], waited)
				} else if busy {
					unsettled[p] = incomplete
				}
			}
			s.mu.Unlock()
			return unsettled, incomplete, nil
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
			return nil, "", err
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

// sleeping, when set (by tests), is called each time a call begins to wait
// on a server: the call is then in flight.
var sleeping atomic.Pointer[func()]

// sleep waits for an event (wake closing) or d; it fails if the server
// exits or ctx ends.
func (s *server) sleep(ctx context.Context, wake <-chan struct{}, d time.Duration) error {
	if f := sleeping.Load(); f != nil {
		(*f)()
	}
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
