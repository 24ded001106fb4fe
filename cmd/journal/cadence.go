package main

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/audit"
	"golang.org/x/mod/sumdb/note"
)

// cadence is when serve signs a checkpoint, beside the one it always signs
// when it exits: after a number of events, after a time, at the end of each
// MCP session. Every condition also needs an event sealed since the newest
// checkpoint: a server left idle signs nothing.
type cadence struct {
	// Events: sign once this many events were sealed since the newest
	// checkpoint (0: not by count).
	Events int64
	// Every: sign once the newest checkpoint is this old, by its signed
	// time, so the cadence holds across restarts (0: not by time).
	Every time.Duration
	// Session: sign when an MCP session ends (a relayed client gone, an
	// HTTP session closed) while the server keeps serving others.
	Session bool
	// Off: no checkpoint at all, not even at exit (overrides the
	// configuration for one serve).
	Off bool
}

// minEvery is the shortest time cadence: serve looks once a second.
const minEvery = time.Second

// cadenceHelp says what parseCadence reads, for flags and errors.
const cadenceHelp = "a comma-separated list of: a number of events (1000), a duration (10m, 1h, 1d), session; 0 alone signs at exit only, off signs nothing"

// parseCadence reads a cadence: comma-separated items, each a number of
// events, a duration (journal.ParseDuration: 90s, 10m, 1h, 1d) or
// "session"; "0" alone (or "exit") is exit only, "off" nothing at all.
// flag names where s comes from, in errors.
func parseCadence(flag, s string) (cadence, error) {
	var c cadence
	bad := func(item, why string) (cadence, error) {
		return cadence{}, withHint(usageError{fmt.Errorf("%s %s: %s", flag, s, why)}, "want "+cadenceHelp+", e.g. 1000,10m,session")
	}
	if strings.TrimSpace(s) == "off" {
		return cadence{Off: true}, nil
	}
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		switch {
		case item == "":
			return bad(item, "an empty item")
		case item == "off":
			return bad(item, "off goes alone")
		case item == "session":
			c.Session = true
		case item == "exit":
		case item[0] == '-' || item[0] >= '0' && item[0] <= '9' && strings.Trim(item, "0123456789") == "":
			n, err := strconv.ParseInt(item, 10, 64)
			if err != nil || n < 0 {
				return bad(item, fmt.Sprintf("%s is not a number of events (0 or more)", item))
			}
			if c.Events != 0 && n != 0 {
				return bad(item, "two numbers of events")
			}
			c.Events = n
		default:
			d, err := journal.ParseDuration(item)
			if err != nil {
				return bad(item, fmt.Sprintf("%s is neither a number of events, a duration nor session", item))
			}
			if d < minEvery {
				return bad(item, fmt.Sprintf("%s is shorter than a second", item))
			}
			if c.Every != 0 {
				return bad(item, "two durations")
			}
			c.Every = d
		}
	}
	return c, nil
}

// String is the cadence as parseCadence reads it.
func (c cadence) String() string {
	if c.Off {
		return "off"
	}
	var parts []string
	if c.Events > 0 {
		parts = append(parts, strconv.FormatInt(c.Events, 10))
	}
	if c.Every > 0 {
		parts = append(parts, c.Every.String())
	}
	if c.Session {
		parts = append(parts, "session")
	}
	if len(parts) == 0 {
		return "0"
	}
	return strings.Join(parts, ",")
}

// signs reports whether the cadence asks for anything beyond the exit.
func (c cadence) signs() bool { return !c.Off && (c.Events > 0 || c.Every > 0 || c.Session) }

// due reports whether a checkpoint is due now: a tree of size leaves, the
// newest checkpoint last (nil: none), at the exit or a session's end
// (final) or on the clock.
func (c cadence) due(size int64, last *audit.Checkpoint, final bool, now time.Time) bool {
	var lastSize int64
	var lastTime time.Time
	if last != nil {
		lastSize, lastTime = last.Size, last.Time
	}
	switch {
	case size <= lastSize:
		return false
	case final:
		return true
	case c.Events > 0 && size-lastSize >= c.Events:
		return true
	case c.Every > 0 && now.Sub(lastTime) >= c.Every:
		return true
	}
	return false
}

// checkpointPoll is how often serve looks whether a checkpoint is due by
// count or by time.
const checkpointPoll = time.Second

// checkpointer signs checkpoints of a server's journal in the background,
// never in an edit's way: when the cadence says, at the end of a session
// (SessionEnded) and once more at Stop (serve's close) if any event came
// after the newest. Failures are reported on stderr; the next attempt
// retries.
type checkpointer struct {
	j     *journal.Journal
	s     note.Signer
	c     cadence
	flush func() error // makes every acknowledged batch visible (replay.Engine.FlushSeal)

	ended          chan struct{} // a session ended; one pending is enough
	done, finished chan struct{}
	closing        atomic.Bool // set by Pause: flush no more, the engine closes
	mu             sync.Mutex  // held while signing, so that Pause waits for a sign in progress
}

// startCheckpointer starts signing j's checkpoints with s at cadence c;
// flush, if not nil, runs before a session's checkpoint so that it covers
// every batch the session was answered.
func startCheckpointer(j *journal.Journal, s note.Signer, c cadence, flush func() error) *checkpointer {
	p := &checkpointer{j: j, s: s, c: c, flush: flush, ended: make(chan struct{}, 1),
		done: make(chan struct{}), finished: make(chan struct{})}
	go p.run()
	return p
}

func (p *checkpointer) run() {
	defer close(p.finished)
	var tick <-chan time.Time
	if p.c.Events > 0 || p.c.Every > 0 {
		t := time.NewTicker(checkpointPoll)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-p.done:
			p.sign(true, false)
			return
		case <-p.ended:
			p.sign(true, true)
		case <-tick:
			p.sign(false, false)
		}
	}
}

// SessionEnded asks for a checkpoint if the cadence includes sessions
// (mcp.Options.SessionEnded); it does not wait for it.
func (p *checkpointer) SessionEnded(string) {
	if !p.c.Session || p.closing.Load() {
		return
	}
	select {
	case p.ended <- struct{}{}:
	default:
	}
}

// Pause stops flushing the engine before a session's checkpoint, and waits
// for a sign in progress: the engine is closed next.
func (p *checkpointer) Pause() {
	p.closing.Store(true)
	p.mu.Lock()
	defer p.mu.Unlock()
}

// Stop signs a last checkpoint if any event came after the newest, and
// returns once it is stored.
func (p *checkpointer) Stop() {
	close(p.done)
	<-p.finished
}

// sign signs a checkpoint if one is due (final: at a session's end or the
// exit, whenever an event came after the newest); flush first makes the
// engine's acknowledged batches visible.
func (p *checkpointer) sign(final, flush bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if flush && p.flush != nil && !p.closing.Load() {
		if err := p.flush(); err != nil {
			fmt.Fprintf(os.Stderr, "journal serve: checkpoint at a session's end: %v\n", err)
		}
	}
	var size int64
	var last *audit.Checkpoint
	err := p.j.View(func(tx *journal.Tx) (err error) {
		size = audit.TreeSize(tx)
		last, err = audit.NewestCheckpoint(tx)
		return err
	})
	now := time.Now()
	if err == nil && p.c.due(size, last, final, now) {
		_, _, err = audit.Sign(p.j, p.s, now)
	}
	if err != nil && !errors.Is(err, journal.ErrState) {
		fmt.Fprintf(os.Stderr, "journal serve: checkpoint: %v\n", err)
	}
}
