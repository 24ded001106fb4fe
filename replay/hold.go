package replay

import (
	"context"
	"sync"
)

// editHold lets a watcher's first walk come before any batch: while it is
// held, Edit (and so Apply, Revert, Undo, Restore, Rewind) waits before it
// takes the lock. Observe does not wait: it is what the walk records with.
type editHold struct {
	mu    sync.Mutex
	n     int           // holders; guarded by mu
	freed chan struct{} // closed when n drops to 0; guarded by mu
}

// HoldEdits makes every batch of this engine wait until release is called
// (by each holder, once; holds nest). A watcher holds it from before its
// first walk until the catch-up and baseline are recorded, so that the
// baseline is the tree as the watcher found it at its start and numbered
// before any tool's change made meanwhile (which would otherwise get an
// event before the baseline, and a rewind to it would leave alone every file
// the baseline then recorded). A batch whose context ends while it waits
// returns the context's error.
func (e *Engine) HoldEdits() (release func()) {
	h := &e.hold
	h.mu.Lock()
	if h.n == 0 {
		h.freed = make(chan struct{})
	}
	h.n++
	h.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			h.mu.Lock()
			if h.n--; h.n == 0 {
				close(h.freed)
			}
			h.mu.Unlock()
		})
	}
}

// wait returns once no hold is in place, or ctx is done.
func (h *editHold) wait(ctx context.Context) error {
	h.mu.Lock()
	n, freed := h.n, h.freed
	h.mu.Unlock()
	if n == 0 {
		return nil
	}
	select {
	case <-freed:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
