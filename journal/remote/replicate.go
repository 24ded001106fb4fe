package remote

import (
	"context"
	"os"
	"time"

	"github.com/journalfs/journal/journal"
)

// ReplicateOptions tune Replicate.
type ReplicateOptions struct {
	// Poll is how often the journal is looked at for new events (default
	// 100 ms).
	Poll time.Duration
	// MaxBackoff bounds the wait between attempts while the remote fails
	// (default 30 s; the first wait is Poll).
	MaxBackoff time.Duration
	// SegmentEvents: see PushOptions.
	SegmentEvents uint64
	// Pushed, if set, is called after each push that moved the remote's
	// head, with the newest event it holds.
	Pushed func(seq uint64)
	// Repository: see PushOptions.
	Repository *Repository
}

// Replicate pushes j's new events to remote r as they are committed — by
// any process — until ctx ends: the continuous replication of `journal
// serve --replicate`. An edit never waits for it. While the remote fails
// (down, refusing), it retries with a growing wait and records the failure;
// the lag grows and is made up when the remote answers again; a restart
// resumes from the remote's head. Its state is recorded beside the journal
// after every attempt (journal.Journal.WriteReplication) for `journal
// status` and the journal_status tool.
func Replicate(ctx context.Context, r Remote, j *journal.Journal, o ReplicateOptions) error {
	if o.Poll <= 0 {
		o.Poll = 100 * time.Millisecond
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = 30 * time.Second
	}
	st := journal.Replication{Remote: r.Name, PID: os.Getpid()}
	var s *Store
	wait := time.Duration(0)
	known := false // st.Pushed is the remote's head
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
		var last uint64
		if err := j.View(func(tx *journal.Tx) error { last = tx.Last(); return nil }); err != nil {
			return err
		}
		if known && last <= st.Pushed && st.Error == "" {
			wait = o.Poll
			continue
		}
		err := func() error {
			if s == nil {
				var err error
				if s, err = Open(ctx, r); err != nil {
					s = nil
					return err
				}
			}
			rep, err := Push(ctx, s, j, PushOptions{SegmentEvents: o.SegmentEvents, Repository: o.Repository})
			if rep != nil {
				st.Workspace = rep.Workspace
				if rep.Head > st.Pushed || !known {
					st.Pushed, st.PushedAt, known = rep.Head, time.Now().UTC(), true
					if o.Pushed != nil {
						o.Pushed(rep.Head)
					}
				}
			}
			return err
		}()
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			st.Error, st.ErrorAt = err.Error(), time.Now().UTC()
			// the wait doubles while it keeps failing: a push that met
			// another replication of this same journal (two servers on one
			// workspace) goes through at the next try; a true second
			// writer keeps failing and is tried less and less often
			if wait < o.Poll {
				wait = o.Poll
			} else if wait *= 2; wait > o.MaxBackoff {
				wait = o.MaxBackoff
			}
		} else {
			st.Error, st.ErrorAt, wait = "", time.Time{}, o.Poll
		}
		j.WriteReplication(st)
	}
}
