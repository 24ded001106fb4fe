package journal

import (
	"errors"
	"fmt"
	"hash/fnv"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/journalfs/journal/snapshot"
	bolt "go.etcd.io/bbolt"
)

// VerifyReport is what Verify found.
type VerifyReport struct {
	Events   int         // events checked
	Head     snapshot.ID // hash of the newest sealed event
	Contents int         // contents re-hashed (with VerifyContents)
	Bytes    int64       // content bytes re-hashed
	Pending  []uint64    // events not yet sealed
	// Redacted are the events whose arguments a redact event took out
	// (their digests verify); Unsalted those of them written before
	// salting, whose own hash could not be recomputed (their links
	// were checked); RedactedContents the contents taken out;
	// Redactions the redact events.
	Redacted, Unsalted []uint64
	RedactedContents   int
	Redactions         []uint64
}

// NamedContent reports the failure to read a content an event names: a
// content the store does not hold (snapshot.ErrNotFound) is then damage —
// lost, not never stored — and wraps ErrCorrupt, which the CLI and the
// tools report as JOURNAL_DAMAGED with the way to repair. Other errors are
// returned as they are.
func NamedContent(err error) error {
	if errors.Is(err, snapshot.ErrNotFound) && !errors.Is(err, ErrCorrupt) {
		return fmt.Errorf("%w: the journal names it but does not hold it (%w)", err, ErrCorrupt)
	}
	return err
}

// verifySeen bounds the contents Verify remembers having checked (a
// content is named by its event's After and the next event's Before, and
// again by any revert to it, mostly within a few hundred events): a set of
// all of them grew with the journal, ~90 bytes each, 284 MiB of peak RSS at
// a million events; 1<<16 of them still took 11 MiB of a 100,000-event
// verify's 24 MiB of live heap. A content named again after that many
// others is checked again.
const verifySeen = 1 << 14

// recentSet remembers the IDs added lately: two generations of at most n
// each.
type recentSet struct {
	n         int
	cur, prev map[snapshot.ID]struct{}
}

func newRecentSet(n int) *recentSet {
	return &recentSet{n: n, cur: map[snapshot.ID]struct{}{}, prev: map[snapshot.ID]struct{}{}}
}

// add adds id and reports whether it was not there.
func (s *recentSet) add(id snapshot.ID) bool {
	if _, ok := s.cur[id]; ok {
		return false
	}
	if _, ok := s.prev[id]; ok {
		s.cur[id] = struct{}{}
		return false
	}
	if len(s.cur) >= s.n {
		s.prev, s.cur = s.cur, make(map[snapshot.ID]struct{}, s.n)
	}
	s.cur[id] = struct{}{}
	return true
}

// Verify recomputes the hash chain from the first event (after gc, from the
// stored hash of the first retained event's predecessor): every record's
// checksum, every event's hash, every prev link, and sequence numbers without
// gaps. The first bad record is named in the error (wrapping ErrCorrupt). With
// contents set, every content an event names is re-read and re-hashed too.
// progress, if not nil, is called after each event.
func (t *Tx) Verify(contents bool, progress func(seq uint64)) (r *VerifyReport, err error) {
	r = &VerifyReport{}
	seen := newRecentSet(verifySeen)
	var cv *contentVerifier
	var at uint64 // the event being checked
	if contents {
		if cv, err = t.newContentVerifier(); err != nil {
			return r, err
		}
		defer func() {
			// a record found bad here, at event at, is reported unless a
			// content of an event before it was found bad first
			if cerr := cv.wait(r); err != nil && cerr != nil && cv.errSeq < at {
				err = cerr
			}
		}()
	}
	base, prev := t.Base() // after gc, the chain starts at the first retained event
	want := base + 1
	ec := t.eventCursor()
	lost := t.lostContents()
	redacted := t.redactedContents()
	r.RedactedContents = len(redacted)
	named := map[uint64]uint64{} // events redact events name → the redact event
	for it := ec.seek(0, false); it.seq != 0 || it.err != nil; it = ec.next(false) {
		if it.err != nil {
			at = it.lo
			return r, fmt.Errorf("journal: verify: events %d..%d: %w", it.lo, it.hi, it.err)
		}
		seq := it.seq
		at = seq
		e, err := t.decode(it.rec)
		if err != nil {
			return r, fmt.Errorf("journal: verify: event %d: %w", seq, err)
		}
		if e.Seq != seq {
			return r, fmt.Errorf("journal: verify: event %d: record says %d: %w", seq, e.Seq, ErrCorrupt)
		}
		if seq != want && !e.Spans(want) {
			return r, fmt.Errorf("journal: verify: event %d missing (next is %d): %w", want, seq, ErrCorrupt)
		}
		if e.Prev != prev {
			return r, fmt.Errorf("journal: verify: event %d: prev %s does not match event %d's hash %s: %w",
				seq, e.Prev.Short(), seq-1, prev.Short(), ErrCorrupt)
		}
		if e.Status == StatusPending {
			r.Pending = append(r.Pending, seq)
			if !e.Hash.IsZero() {
				return r, fmt.Errorf("journal: verify: event %d: pending but hashed: %w", seq, ErrCorrupt)
			}
		} else if h := ComputeHash(e); h != e.Hash && !t.UnsaltedRedacted(e) {
			return r, fmt.Errorf("journal: verify: event %d: hash %s, recomputed %s: %w", seq, e.Hash.Short(), h.Short(), ErrCorrupt)
		} else {
			r.Head = e.Hash
			if h != e.Hash {
				r.Unsalted = append(r.Unsalted, seq)
			}
		}
		if err := e.CheckArgs(); err != nil {
			return r, fmt.Errorf("journal: verify: %w", err)
		}
		if e.ArgsRedacted() {
			r.Redacted = append(r.Redacted, seq)
		}
		if e.Kind == KindRedact && e.Status == StatusCommitted {
			r.Redactions = append(r.Redactions, seq)
			for _, n := range e.RedactedEvents() {
				named[n] = seq
			}
			if e.Redaction != nil {
				for _, id := range e.Redaction.Contents {
					if by, ok := redacted[id]; !ok || by != seq {
						return r, fmt.Errorf("journal: verify: redact event %d: content %s is not indexed as its redaction: %w", seq, id.Short(), ErrCorrupt)
					}
				}
			}
		}
		if contents {
			for _, f := range e.Files {
				for _, id := range []snapshot.ID{f.Before, f.After} {
					if _, gone := redacted[id]; gone {
						continue
					}
					if id.IsZero() || lost[id] || !seen.add(id) {
						continue
					}
					if !cv.submit(contentJob{seq: seq, path: f.Path, id: id}) {
						break // a worker failed: its error is returned below
					}
				}
			}
		}
		prev = e.NextLink()
		want = seq + 1
		// re-hashing contents reads chunks all over the file (their keys
		// are hashes): release sooner
		every := releaseEvery
		if contents {
			every = releaseContents
		}
		if r.Events++; r.Events%every == 0 {
			t.release()
		}
		if progress != nil {
			progress(seq)
		}
	}
	if cv != nil {
		if err := cv.wait(r); err != nil {
			return r, err
		}
	}
	for _, n := range append(slices.Clone(r.Redacted), r.Unsalted...) {
		if by, ok := t.ArgsRedactedBy(n); !ok || named[n] != by {
			return r, fmt.Errorf("journal: verify: event %d: arguments missing, and no redact event names it: %w", n, ErrCorrupt)
		}
	}
	for id, by := range redacted {
		if by > base && !slices.Contains(r.Redactions, by) { // gc may have dropped it
			return r, fmt.Errorf("journal: verify: content %s: indexed as redacted by event %d, which is no redact event: %w", id.Short(), by, ErrCorrupt)
		}
	}
	at = ^uint64(0)
	if t.damage != nil {
		return r, fmt.Errorf("journal: verify: every event reads and links, but %w", t.damage)
	}
	return r, nil
}

// contentVerifier re-reads and re-hashes the contents Verify names on
// workers of their own (one per core, up to four), each in a read
// transaction of its own on the same snapshot (bbolt's transactions are not
// shared between goroutines): content checks are most of verify's work. A
// file's contents go to one worker, which keeps that file's last version's
// chunks (snapshot.Versions, up to versionsBudget bytes in all), so that a
// chunk its next version shares is not read and hashed again. The first
// failure (the lowest event) is returned; a worker that meets a damaged page
// hands the damage to Verify's goroutine, which raises it as its own reads
// do (protect).
type contentVerifier struct {
	t       *Tx
	jobs    []chan contentJob
	wg      sync.WaitGroup
	failed  atomic.Bool
	mu      sync.Mutex // guards what follows
	err     error
	errSeq  uint64
	damage  *DamageError
	n       int
	bytes   int64
	stopped bool
}

// contentJob is one content to check: id, named by event seq for path.
type contentJob struct {
	seq  uint64
	path string
	id   snapshot.ID
}

func (t *Tx) newContentVerifier() (*contentVerifier, error) {
	cv := &contentVerifier{t: t}
	for range min(runtime.GOMAXPROCS(0), 4) {
		tx, err := t.tx.DB().Begin(false)
		if err != nil {
			cv.stop()
			return nil, fmt.Errorf("journal: verify: %w", err)
		}
		ch := make(chan contentJob, 64)
		cv.jobs = append(cv.jobs, ch)
		cv.wg.Add(1)
		go cv.work(tx, ch)
	}
	return cv, nil
}

// submit hands j to the worker of its file; false once a worker failed.
func (cv *contentVerifier) submit(j contentJob) bool {
	if cv.failed.Load() {
		return false
	}
	h := fnv.New32a()
	h.Write([]byte(j.path))
	cv.jobs[int(h.Sum32()%uint32(len(cv.jobs)))] <- j
	return true
}

func (cv *contentVerifier) work(tx *bolt.Tx, jobs chan contentJob) {
	defer cv.wg.Done()
	defer tx.Rollback()
	defer func() {
		if r := recover(); r != nil {
			if !storePanic(r) {
				panic(r)
			}
			cv.mu.Lock()
			cv.damage = cv.t.j.asDamage(r)
			cv.mu.Unlock()
			cv.failed.Store(true)
			for range jobs { // let Verify's goroutine go on
			}
		}
	}()
	debug.SetPanicOnFault(true) // a damaged mapping faults: a panic recovered above
	vers, held := map[string]*snapshot.Versions{}, int64(0)
	own := &Tx{tx: tx}
	n := 0
	for j := range jobs {
		if cv.failed.Load() {
			continue
		}
		// a version's chunks, and their delta chains, lie all over the
		// file: the workers check the mapped pages themselves (at a million
		// events, the main loop's checks every releaseContents events let
		// them map 110 MiB over the budget)
		if n++; n%releaseVersions == 0 {
			own.release()
		}
		v := vers[j.path]
		if v == nil {
			if held += versionMax; held > versionsBudget {
				vers, held = map[string]*snapshot.Versions{}, versionMax
			}
			v = snapshot.NewVersions(tx)
			vers[j.path] = v
		}
		n, err := v.Size(j.id)
		if err == nil && n <= versionMax {
			_, err = v.Bytes(j.id)
		} else if err == nil {
			n, err = snapshot.Verify(tx, j.id)
		}
		cv.mu.Lock()
		if err != nil && (cv.err == nil || j.seq < cv.errSeq) {
			cv.err, cv.errSeq = fmt.Errorf("journal: verify: event %d: %s: %w", j.seq, j.path, NamedContent(err)), j.seq
			cv.failed.Store(true)
		} else if err == nil {
			cv.n++
			cv.bytes += n
		}
		cv.mu.Unlock()
	}
}

// wait waits for the workers, adds what they checked to r and returns the
// first failure.
func (cv *contentVerifier) wait(r *VerifyReport) error {
	first := !cv.stopped
	cv.stop()
	r.Contents, r.Bytes = cv.n, cv.bytes
	if cv.damage != nil && first {
		panic(cv.damage) // as Verify's own reads raise it: protect reports it
	}
	return cv.err
}

// stop lets the workers finish and waits for them (once).
func (cv *contentVerifier) stop() {
	if cv.stopped {
		return
	}
	cv.stopped = true
	for _, ch := range cv.jobs {
		close(ch)
	}
	cv.wg.Wait()
}

// versionMax and versionsBudget bound what Verify keeps of files' last
// versions: versions of at most versionMax bytes, versionsBudget in all
// (counted as versionMax each).
const (
	versionMax     = 1 << 20
	versionsBudget = 64 << 20
)

// metaLostContents lists, as concatenated IDs, the contents repair could not
// salvage (the damaged events name them too): verify does not re-hash them.
var metaLostContents = []byte("lost_contents")

// lostContents returns the contents repair recorded as lost.
func (t *Tx) lostContents() map[snapshot.ID]bool {
	v := t.tx.Bucket(bucketMeta).Get(metaLostContents)
	out := map[snapshot.ID]bool{}
	for len(v) >= len(snapshot.ID{}) {
		var id snapshot.ID
		copy(id[:], v)
		out[id] = true
		v = v[len(id):]
	}
	return out
}
