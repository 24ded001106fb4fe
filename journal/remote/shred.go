package remote

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/snapshot"
)

// StoreShred says what shredding a redaction on one encrypted remote did.
type StoreShred struct {
	Remote    string
	Workspace string
	KeyFiles  int // the workspace's key files looked at
	Rewritten int // key files rewritten without the keys
	Events    int // event argument keys destroyed
	Contents  int // content keys destroyed
	Versions  int // older versions of key files deleted
}

// ShredStore destroys, in the key store of encrypted remote s, the keys
// of workspace ws that open what a redaction took out: the arguments of
// events and the contents (their manifests, and through them the keys of
// the chunks no other content of the workspace names). Every key file of
// the workspace — the segments' the head names, and any an interrupted
// roll-up left — is rewritten without those keys, and every older version
// of it deleted, so a versioned key store keeps no copy. The sealed
// objects in the data bucket stay (under Object Lock they must), and no
// longer open for anyone. It is idempotent: after a failure, running it
// again completes it.
func ShredStore(ctx context.Context, s *Store, ws string, events []uint64, contents []snapshot.ID) (*StoreShred, error) {
	if s.keys == nil {
		return nil, fail(ErrUsage, "remote %s: not encrypted: nothing on it can be shredded", s.r.Name)
	}
	rep := &StoreShred{Remote: s.r.Name, Workspace: ws}
	names, err := s.keys.keyFiles(ctx, "workspaces/"+ws+"/segments/")
	if err != nil {
		return rep, err
	}
	for _, n := range names {
		rep.KeyFiles++
		if !n.live { // deleted (a rolled-up segment's): its older versions go
			v, err := s.keys.purge(ctx, n.name, true)
			rep.Versions += v
			if err != nil {
				return rep, err
			}
			continue
		}
		b, _, err := s.keys.get(ctx, n.name)
		if err != nil && !errors.Is(err, ErrNotFound) {
			return rep, err
		}
		if err == nil {
			f, err := decodeKeyFile(b)
			if err != nil {
				return rep, fail(ErrDamaged, "remote %s: key store %s: %s: %v", s.r.Name, s.r.Keys, n.name, err)
			}
			ev, ct := 0, 0
			for _, seq := range events {
				if _, ok := f.events[seq]; ok {
					delete(f.events, seq)
					ev++
				}
			}
			for _, id := range contents {
				if _, ok := f.contents[id]; ok {
					delete(f.contents, id)
					ct++
				}
			}
			if ev+ct > 0 {
				if s.keys.beforeWrite != nil {
					s.keys.beforeWrite("put", n.name)
				}
				if _, err := s.keys.put(ctx, n.name, f.encode(), "", false); err != nil {
					return rep, err
				}
				rep.Rewritten++
				rep.Events += ev
				rep.Contents += ct
			}
		}
		v, err := s.keys.purge(ctx, n.name, false)
		rep.Versions += v
		if err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// shredPushed shreds on s, before a push of events from..upTo of j, the
// redactions those events carry: all that an earlier push sent of what
// they took out. It returns nil when they carry none.
func shredPushed(ctx context.Context, s *Store, j *journal.Journal, ws string, from, upTo uint64) (*StoreShred, error) {
	var events []uint64
	var contents []snapshot.ID
	err := j.View(func(tx *journal.Tx) error {
		return tx.Scan(from, false, func(e *journal.Event) error {
			if e.Seq > upTo {
				return journal.ErrStop
			}
			evs, cts := redactionOf(e)
			events, contents = append(events, evs...), append(contents, cts...)
			return nil
		}, nil)
	})
	if err != nil && !errors.Is(err, journal.ErrStop) {
		return nil, err
	}
	if len(events)+len(contents) == 0 {
		return nil, nil
	}
	return ShredStore(ctx, s, ws, events, contents)
}

// keyFileName is a key file found in the key store; live when it has a
// current version (not only older ones behind a delete).
type keyFileName struct {
	name string
	live bool
}

// keyFiles lists the key files under dir, with every version: one that
// was deleted but whose older versions remain is listed too.
func (s *Store) keyFiles(ctx context.Context, dir string) ([]keyFileName, error) {
	live := map[string]bool{}
	var order []string
	err := s.eachVersion(ctx, dir, func(name string, v version) {
		if !strings.HasSuffix(name, ".keys") {
			return
		}
		if _, ok := live[name]; !ok {
			order = append(order, name)
		}
		live[name] = live[name] || v.latest
	})
	if err != nil {
		return nil, err
	}
	out := make([]keyFileName, len(order))
	for i, n := range order {
		out[i] = keyFileName{n, live[n]}
	}
	return out, nil
}

// ShredReport says what a redaction did on the remotes a journal pushes
// to (Shred).
type ShredReport struct {
	// Shredded are the encrypted remotes whose keys were destroyed.
	Shredded []*StoreShred
	// NotShredded are the remotes that still hold the values, each with
	// the reason: a plain remote (its segments hold the arguments, its
	// objects the contents; under Object Lock they cannot be deleted), or
	// the failure of a shred that `journal push REMOTE` retries.
	NotShredded []NotShredded
}

// Lines says what the report holds, a line per remote, for a command to
// print: "remote audit (workspace W): shredded the keys of 1 event's
// arguments and 2 contents in 3 key files" or "remote team: not shredded:
// REASON (ERROR)".
func (r *ShredReport) Lines() []string {
	var out []string
	for _, s := range r.Shredded {
		out = append(out, fmt.Sprintf("remote %s (workspace %s): shredded the keys of %d event(s)' arguments and %d content(s) in %d key file(s); %d older version(s) deleted",
			s.Remote, s.Workspace, s.Events, s.Contents, s.Rewritten, s.Versions))
	}
	for _, n := range r.NotShredded {
		l := fmt.Sprintf("remote %s: not shredded: %s", n.Remote, n.Reason)
		if n.Err != nil {
			l += " (" + n.Err.Error() + ")"
		}
		out = append(out, l)
	}
	return out
}

// NotShredded is a remote a redaction could not reach.
type NotShredded struct {
	Remote string
	Reason string
	Err    error // the failure, when it was one (nil: a plain remote)
}

// Shred shreds a redaction (the events' arguments and the contents it took
// out of journal j) on every remote j has pushed to (its replication
// state): ShredStore on the encrypted ones, and a reason for each other.
// A remote that fails is reported, not fatal: the push that carries the
// redact event shreds again. The error is for j itself.
func Shred(ctx context.Context, j *journal.Journal, events []uint64, contents []snapshot.ID) (*ShredReport, error) {
	reps, err := j.Replications()
	if err != nil {
		return nil, err
	}
	out := &ShredReport{}
	for _, r := range reps {
		if r.Workspace == "" {
			continue
		}
		not := func(reason string, err error) {
			out.NotShredded = append(out.NotShredded, NotShredded{Remote: r.Remote, Reason: reason, Err: err})
		}
		rm, err := Lookup(r.Remote)
		if err != nil {
			not("it is no longer configured (journal remote list)", err)
			continue
		}
		s, err := Open(ctx, rm)
		if err != nil {
			not("it could not be opened; `journal push "+r.Remote+"` shreds once it can", err)
			continue
		}
		if !s.Encrypted() {
			reason := "it is not encrypted: its segments keep the arguments and its objects the contents"
			if rm.Retain != "" {
				reason += fmt.Sprintf(", under Object Lock for %s from each push (they cannot be deleted)", rm.Retain)
			}
			not(reason, nil)
			continue
		}
		sr, err := ShredStore(ctx, s, r.Workspace, events, contents)
		if err != nil {
			not("the shred failed part way; `journal push "+r.Remote+"` completes it", err)
			continue
		}
		out.Shredded = append(out.Shredded, sr)
	}
	return out, nil
}

// shredCheck is verify's view of one workspace's redactions on an
// encrypted remote: what its redact events name, what the key store has
// no key for, and what it still has keys for.
type shredCheck struct {
	ws       string
	ring     *keyFile // every key of the workspace's key files; nil: a plain remote
	withheld []uint64 // events whose sealed arguments have no key
	noKey    []snapshot.ID
	redacted map[uint64]uint64      // event → the redact event that names it
	contents map[snapshot.ID]uint64 // content → the redact event that names it
}

func newShredCheck(s *Store, ws string) *shredCheck {
	w := &shredCheck{ws: ws, redacted: map[uint64]uint64{}, contents: map[snapshot.ID]uint64{}}
	if s.keys != nil {
		w.ring = newKeyFile()
	}
	return w
}

// segment takes in a segment read.
func (w *shredCheck) segment(sr *segRead) {
	if w.ring != nil {
		w.ring.merge(sr.keys)
	}
	w.withheld = append(w.withheld, sr.withheld...)
	for _, e := range sr.evs {
		evs, cts := redactionOf(e)
		for _, seq := range evs {
			w.redacted[seq] = e.Seq
		}
		for _, id := range cts {
			w.contents[id] = e.Seq
		}
	}
}

// report adds to rep what the workspace's redactions left: the redacted
// values (their keys gone), and as problems a key gone that no redaction
// names, or a redacted value whose key is still there.
func (w *shredCheck) report(rep *VerifyReport, problem func(string, ...any)) {
	if w.ring == nil {
		return
	}
	for _, seq := range w.withheld {
		if by, ok := w.redacted[seq]; ok {
			rep.Redacted = append(rep.Redacted, fmt.Sprintf("workspace %s: event %d's arguments, redacted by event %d", w.ws, seq, by))
		} else {
			problem("workspace %s: event %d: the key store has no key for its arguments, and no redaction names them", w.ws, seq)
		}
	}
	for _, id := range w.noKey {
		if by, ok := w.contents[id]; ok {
			rep.Redacted = append(rep.Redacted, fmt.Sprintf("workspace %s: content %s, redacted by event %d", w.ws, id.Short(), by))
		} else {
			problem("workspace %s: content %s: the key store has no key for it, and no redaction names it", w.ws, id.Short())
		}
	}
	seqs := make([]uint64, 0, len(w.redacted))
	for seq := range w.redacted {
		seqs = append(seqs, seq)
	}
	slices.Sort(seqs)
	for _, seq := range seqs {
		if _, ok := w.ring.events[seq]; ok {
			problem("workspace %s: event %d's arguments were redacted by event %d, but the key store still opens them (journal push shreds them)", w.ws, seq, w.redacted[seq])
		}
	}
	for id, by := range w.contents {
		if _, ok := w.ring.contents[id]; ok {
			problem("workspace %s: content %s was redacted by event %d, but the key store still opens it (journal push shreds it)", w.ws, id.Short(), by)
		}
	}
}

// redactionOf returns what e, a redact event, took out: the events whose
// arguments (salted or not) and the contents (nil, nil for any other
// event).
func redactionOf(e *journal.Event) ([]uint64, []snapshot.ID) {
	if e.Kind != journal.KindRedact || e.Redaction == nil {
		return nil, nil
	}
	r := e.Redaction
	return append(append([]uint64{}, r.Events...), r.Unsalted...), r.Contents
}
