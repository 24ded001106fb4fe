package otlp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// LiveOptions say how Live follows the journal.
type LiveOptions struct {
	Options
	// Every is how often the journal is read for new events (0: 200ms).
	Every time.Duration
	// Idle is how long a session goes without a new event before its
	// root span (and its last prompt's) is sent (0: 1 minute); they are
	// sent again, same ids, later ends, if it goes on after.
	Idle time.Duration
	// Queue is how many batches of spans wait for the sender at most (0:
	// 64); past it a batch is dropped and counted (LiveStatus.Dropped).
	Queue int
	// Timeout bounds each request to the collector (NewSender).
	Timeout time.Duration
}

// LiveStatus is what a Live sender has done, as `journal status` shows it
// (written to StatusFile beside the journal).
type LiveStatus struct {
	URL     string    `json:"url"`
	PID     int       `json:"pid"`
	Started time.Time `json:"started"`
	Updated time.Time `json:"updated"`
	Seen    uint64    `json:"seen"`    // the newest event read
	Sent    int64     `json:"sent"`    // spans the collector took
	Dropped int64     `json:"dropped"` // spans dropped: the queue was full
	Failed  int64     `json:"failed"`  // spans the collector did not take (ErrSend)
	Error   string    `json:"error,omitempty"`
	ErrorAt time.Time `json:"error_at,omitzero"`
	Stopped bool      `json:"stopped,omitempty"`
}

// StatusFile is where a Live sender of the journal at journalPath keeps
// its LiveStatus.
func StatusFile(journalPath string) string {
	return filepath.Join(filepath.Dir(journalPath), "otlp-live.json")
}

// ReadStatus reads the LiveStatus of the journal at journalPath (nil when
// no live sender ever ran on it).
func ReadStatus(journalPath string) (*LiveStatus, error) {
	b, err := os.ReadFile(StatusFile(journalPath))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("otlp: %w", err)
	}
	var st LiveStatus
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("otlp: %s: %w", StatusFile(journalPath), err)
	}
	return &st, nil
}

// Live sends the spans of the events recorded in a journal while it runs,
// as they are recorded: a goroutine reads the events after the last it
// read every o.Every, in a read transaction of its own; another sends. Neither is
// on an edit's or a hook's path, and the queue between them is bounded:
// when the collector is slow or away, batches are dropped and counted,
// never waited for.
type Live struct {
	j      *journal.Journal
	o      LiveOptions
	sender *Sender
	b      *builder
	q      chan []sdktrace.ReadOnlySpan
	stop   chan struct{}
	done   sync.WaitGroup
	active map[*session]time.Time // sessions with spans not sent yet: their newest event's arrival
	ctx    context.Context        // the sends'; cancelled o.Timeout after Close
	cancel context.CancelFunc

	mu sync.Mutex
	st LiveStatus
}

// StartLive starts sending the spans of the events j records from now on
// to endpoint. It reads the journal's events so far first (in its own
// goroutine), for the sessions and prompts the new ones continue.
func StartLive(ctx context.Context, j *journal.Journal, endpoint string, o LiveOptions) (*Live, error) {
	if o.Every <= 0 {
		o.Every = 200 * time.Millisecond
	}
	if o.Idle <= 0 {
		o.Idle = time.Minute
	}
	if o.Queue <= 0 {
		o.Queue = 64
	}
	s, err := NewSender(ctx, endpoint, o.Timeout)
	if err != nil {
		return nil, err
	}
	var ws string
	var start uint64
	if err := j.View(func(tx *journal.Tx) error { ws, start = tx.Workspace(), tx.Last(); return nil }); err != nil {
		return nil, fmt.Errorf("otlp: %w", err)
	}
	l := &Live{j: j, o: o, sender: s, q: make(chan []sdktrace.ReadOnlySpan, o.Queue), stop: make(chan struct{}),
		active: map[*session]time.Time{}}
	l.ctx, l.cancel = context.WithCancel(context.Background())
	l.st = LiveStatus{URL: s.URL, PID: os.Getpid(), Started: time.Now().UTC()}
	l.b = newBuilder(ws, o.Options, l.enqueue)
	l.b.select_ = func(ev *journal.Event) bool { return ev.Seq > start && o.Filter.Match(ev) }
	l.b.promptDone = func(s *session, pr *prompt) {
		l.b.promptSpan(s, pr)
		pr.selected = false
	}
	l.save()
	l.done.Add(2)
	go l.follow()
	go l.send()
	return l, nil
}

// Status is what l has done so far.
func (l *Live) Status() LiveStatus {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.st
}

// enqueue hands spans to the sender, or drops them when its queue is full.
func (l *Live) enqueue(spans []sdktrace.ReadOnlySpan) error {
	select {
	case l.q <- spans:
	default:
		l.mu.Lock()
		l.st.Dropped += int64(len(spans))
		l.mu.Unlock()
		l.save()
	}
	return nil
}

// follow reads the new events every o.Every until Close, then sends the
// spans of every session still open.
func (l *Live) follow() {
	defer l.done.Done()
	defer close(l.q)
	var seen uint64
	t := time.NewTicker(l.o.Every)
	defer t.Stop()
	for first := true; ; first = false {
		if !first {
			select {
			case <-l.stop:
				l.read(&seen) // what was recorded before Close
				for s := range l.active {
					l.b.sessionSpans(s)
				}
				l.b.flush(true)
				return
			case <-t.C:
			}
		}
		l.read(&seen)
		for s, at := range l.active {
			if time.Since(at) >= l.o.Idle {
				l.b.sessionSpans(s)
				delete(l.active, s)
			}
		}
		l.b.flush(true)
	}
}

// readChunk bounds the events one read transaction of Live takes: a long
// read transaction would hold up a writer that grows the file (bbolt
// remaps it only when no reader is open), and the first read walks the
// whole history.
const readChunk = 1024

// read takes the sealed events after seen, readChunk a transaction (an
// event still pending is read again at the next look).
func (l *Live) read(seen *uint64) {
	var err error
	for more := true; more && err == nil; {
		more = false
		err = l.j.View(func(tx *journal.Tx) error {
			if tx.Last() <= *seen {
				return nil
			}
			n := 0
			return tx.Each(*seen+1, false, func(ev *journal.Event) error {
				if ev.Status == journal.StatusPending {
					return journal.ErrStop
				}
				if n++; n > readChunk {
					more = true
					return journal.ErrStop
				}
				*seen = ev.Seq
				if err := l.b.event(ev); err != nil {
					return err
				}
				if s := l.b.sessions[replay.CallSession(ev)]; s != nil && s.selected {
					l.active[s] = time.Now()
				}
				return nil
			})
		})
		if errors.Is(err, journal.ErrStop) {
			err = nil
		}
	}
	l.mu.Lock()
	moved := l.st.Seen != *seen
	l.st.Seen = *seen
	if err != nil {
		l.st.Error, l.st.ErrorAt, moved = err.Error(), time.Now().UTC(), true
	}
	l.mu.Unlock()
	if moved {
		l.save()
	}
}

// send posts the queued batches until the queue is closed.
func (l *Live) send() {
	defer l.done.Done()
	for spans := range l.q {
		err := l.sender.Send(l.ctx, spans)
		l.mu.Lock()
		if err != nil {
			l.st.Failed += int64(len(spans))
			l.st.Error, l.st.ErrorAt = err.Error(), time.Now().UTC()
		} else {
			l.st.Sent += int64(len(spans))
		}
		l.mu.Unlock()
		l.save()
	}
}

// save writes l's status to StatusFile (whole: a reader sees the old one
// or the new one).
func (l *Live) save() {
	l.mu.Lock()
	l.st.Updated = time.Now().UTC()
	b, _ := json.Marshal(l.st)
	l.mu.Unlock()
	p := StatusFile(l.j.Path())
	tmp := p + "." + strconv.Itoa(os.Getpid())
	if os.WriteFile(tmp, b, 0o600) == nil {
		os.Rename(tmp, p)
	}
}

// Close stops following, sends what the journal recorded before it and
// the spans of the sessions still open, waits for the sender (at most
// o.Timeout more), and says so in the status file.
func (l *Live) Close() error {
	close(l.stop)
	finished := make(chan struct{})
	go func() {
		timeout := l.o.Timeout
		if timeout <= 0 {
			timeout = 30 * time.Second
		}
		select {
		case <-time.After(timeout):
			l.cancel() // what is still queued fails now, counted
		case <-finished:
		}
	}()
	l.done.Wait()
	close(finished)
	l.cancel()
	l.b.tp.Shutdown(context.Background())
	l.sender.Close(context.Background())
	l.mu.Lock()
	l.st.Stopped = true
	l.mu.Unlock()
	l.save()
	return nil
}
