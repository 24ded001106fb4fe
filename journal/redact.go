package journal

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/journalfs/journal/snapshot"
)

// Salted arguments and redaction (doc.go "Redaction").

// ErrRedacted means a value the caller needs was taken out of the record
// by a redaction (a redact event says who, when and why).
var ErrRedacted = errors.New("journal: redacted")

// saltLen is the length of an event's argument salt: 128 bits, as SD-JWT's
// disclosures recommend, so that a digest cannot be matched against guesses.
const saltLen = 16

// Redaction is what a redact event (KindRedact) took out of the record. Who
// did it and when are the event's Actor and Time.
type Redaction struct {
	// Events are the events whose arguments and salt were removed; their
	// ArgsDigest stays, so their chain hash still verifies.
	Events []uint64 `json:"events,omitempty"`
	// Unsalted are events written before salting (no ArgsDigest) whose
	// arguments were removed anyway: their hash can no longer be
	// recomputed; their place in the chain (the next event's prev, the
	// Merkle leaves) is all that still binds them.
	Unsalted []uint64 `json:"unsalted,omitempty"`
	// Contents are the contents whose bytes were deleted from the store.
	Contents []snapshot.ID `json:"contents,omitempty"`
	// Paths are the paths asked for, if any.
	Paths []string `json:"paths,omitempty"`
	// Why is the reason given.
	Why string `json:"why,omitempty"`
}

// Salted reports whether e commits to its arguments by a salted digest
// (written since format 12 with arguments).
func (e *Event) Salted() bool { return e.ArgsDigest != nil }

// ArgsRedacted reports whether e's arguments were taken out of the record:
// it commits to arguments (a digest) it no longer holds.
func (e *Event) ArgsRedacted() bool { return e.ArgsDigest != nil && len(e.Args) == 0 }

// ArgsDigestOf is the digest a salted event commits to: blake3 of the salt
// followed by the arguments' JSON exactly as the event (and its export
// line's what.args) holds it.
func ArgsDigestOf(salt, args []byte) snapshot.ID {
	h := snapshot.NewHasher()
	h.Write(salt)
	h.Write(args)
	return h.ID()
}

// salt gives e's arguments a fresh salt and their digest, unless it has
// them or has no arguments. The arguments are first put in the form
// json.Marshal writes them in (compact, HTML escaped), the bytes an export
// line then carries, so that the digest is over exactly those.
func (e *Event) salt() error {
	if len(e.Args) == 0 || e.ArgsDigest != nil {
		return nil
	}
	args, err := json.Marshal(e.Args)
	if err != nil {
		return fmt.Errorf("journal: event arguments: %w", err)
	}
	s := make([]byte, saltLen)
	if _, err := rand.Read(s); err != nil {
		return fmt.Errorf("journal: salt: %w", err)
	}
	d := ArgsDigestOf(s, args)
	e.Args, e.ArgsSalt, e.ArgsDigest = args, s, &d
	return nil
}

// CheckArgs reports whether e's arguments, if it holds them, are those its
// digest commits to. An event without a digest, or whose arguments were
// redacted, has nothing to check.
func (e *Event) CheckArgs() error {
	if e.ArgsDigest == nil || len(e.Args) == 0 {
		return nil
	}
	if len(e.ArgsSalt) != saltLen {
		return fmt.Errorf("journal: event %d: argument salt of %d bytes: %w", e.Seq, len(e.ArgsSalt), ErrCorrupt)
	}
	if ArgsDigestOf(e.ArgsSalt, e.Args) != *e.ArgsDigest {
		return fmt.Errorf("journal: event %d: arguments do not match their digest: %w", e.Seq, ErrCorrupt)
	}
	return nil
}

// RedactedEvents returns the events whose arguments the redact event e
// took out, salted or not.
func (e *Event) RedactedEvents() []uint64 {
	if e.Redaction == nil {
		return nil
	}
	return append(append([]uint64{}, e.Redaction.Events...), e.Redaction.Unsalted...)
}

// bucketRedacted indexes what redact events took out: 'e' | event (8) →
// the redact event (8), for arguments; 'c' | content ID (32) → the redact
// event, for contents. It is derived from the redact events (verify checks
// that every entry is named by the event it points to), so that a read
// meeting a missing value can say who took it out, and verify can tell a
// redacted value from a lost one without a pass over the events first.
var bucketRedacted = []byte("redacted")

func redactedKey(kind byte, k []byte) []byte { return append([]byte{kind}, k...) }

// Redacted reports which redact event took content id out of the store,
// if one did.
func (t *Tx) Redacted(id snapshot.ID) (by uint64, ok bool) {
	return t.redactedBy('c', id[:])
}

// ArgsRedactedBy reports which redact event took event seq's arguments
// out, if one did.
func (t *Tx) ArgsRedactedBy(seq uint64) (by uint64, ok bool) {
	return t.redactedBy('e', u64(seq))
}

func (t *Tx) redactedBy(kind byte, k []byte) (uint64, bool) {
	b := t.tx.Bucket(bucketRedacted)
	if b == nil {
		return 0, false
	}
	v := b.Get(redactedKey(kind, k))
	if len(v) != 8 {
		return 0, false
	}
	return keySeq(v), true
}

// UnsaltedRedacted reports whether e, written before salting, had its
// arguments taken out by a redact event (its own hash can then not be
// recomputed; verify checks at its end that the redact event names it).
func (t *Tx) UnsaltedRedacted(e *Event) bool {
	if e.ArgsDigest != nil || len(e.Args) > 0 {
		return false
	}
	_, ok := t.ArgsRedactedBy(e.Seq)
	return ok
}

// ContentError is NamedContent for content id, which an event names,
// unless a redact event took it out: then the error says which, and wraps
// ErrRedacted instead of ErrCorrupt.
func (t *Tx) ContentError(id snapshot.ID, err error) error {
	if err == nil || !errors.Is(err, snapshot.ErrNotFound) {
		return NamedContent(err)
	}
	if by, ok := t.Redacted(id); ok {
		return fmt.Errorf("content %s was taken out of the journal by redact event %d (see journal show %d): %w", id.Short(), by, by, ErrRedacted)
	}
	return NamedContent(err)
}

// redactedContents returns every content a redact event took out.
func (t *Tx) redactedContents() map[snapshot.ID]uint64 {
	out := map[snapshot.ID]uint64{}
	b := t.tx.Bucket(bucketRedacted)
	if b == nil {
		return out
	}
	c := b.Cursor()
	for k, v := c.Seek([]byte{'c'}); len(k) == 33 && k[0] == 'c'; k, v = c.Next() {
		out[snapshot.ID(k[1:])] = keySeq(v)
	}
	return out
}

// RedactRequest is what to take out of the record.
type RedactRequest struct {
	Events   []uint64      // events whose arguments (and salt) to remove
	Contents []snapshot.ID // contents whose bytes to delete
	Paths    []string      // the paths asked for, recorded in the event
	Why      string        // the reason, recorded in the event
	Actor    Actor
	Now      time.Time
}

// RedactReport is what a redaction did.
type RedactReport struct {
	Event     uint64        // the redact event
	Events    []uint64      // salted events whose arguments were removed
	Unsalted  []uint64      // events written before salting whose arguments were removed
	Contents  []snapshot.ID // contents deleted
	Chunks    int           // chunk records deleted with them (gc's sweep)
	Rewritten int           // kept chunks that were deltas against them, now stored whole
	// FileBefore and FileAfter are the journal file's sizes around the
	// compaction that leaves the values' bytes in no free page.
	FileBefore, FileAfter int64
}

// ErrNothingToRedact means a redaction named nothing the journal still
// holds.
var ErrNothingToRedact = errors.New("journal: nothing to redact")

// Redact takes values out of the journal without breaking what verifies
// it: the arguments and salt of req.Events (their digests stay, so their
// hashes verify; events written before salting lose the check of their own
// hash, which the report and the redact event say), the bytes of
// req.Contents (chunks no kept content lists; kept chunks that were deltas
// against them are stored whole first), then appends a redact event naming
// all of it, and rewrites the file without its free pages and empties the
// write-ahead log, so that the values are in neither file. It must be the
// last thing its Do does with d (the compaction swaps the file), and every
// batch must be in the bbolt file (the replay engine's Redact flushes
// first).
func (d *DB) Redact(req RedactRequest) (*RedactReport, error) {
	if req.Now.IsZero() {
		req.Now = time.Now()
	}
	rep := &RedactReport{}
	err := d.Update(func(t *Tx) error {
		if d.j.LogAhead(t.Last()) {
			return fmt.Errorf("journal: redact: the write-ahead log holds events not yet in %s: %w", d.j.path, ErrBusy)
		}
		if len(t.Pending()) > 0 {
			return fmt.Errorf("journal: redact: event %d is pending: %w", t.Pending()[0], ErrBusy)
		}
		if err := t.tx.Bucket(bucketMeta).Put(metaRedactDue, []byte(fileInode(d.j.path))); err != nil {
			return fmt.Errorf("journal: redact: %w", err)
		}
		return t.redact(req, rep)
	})
	if err != nil {
		return nil, err
	}
	rep.FileBefore, rep.FileAfter, err = d.finishRedaction()
	return rep, err
}

// metaRedactDue names, in the meta bucket, the file (fileInode) a
// redaction committed in whose free pages and write-ahead log may still
// hold the values: until a compaction replaced that file, FinishRedaction
// does the rest.
var metaRedactDue = []byte("redact_due")

// FinishRedaction completes a redaction a crash interrupted after its
// transaction (FinishRedaction is called by the replay engine's recovery):
// it empties the write-ahead log and compacts the file, unless that file
// was replaced since. Like Compact, it must be the last thing its Do does
// with d.
func (d *DB) FinishRedaction() error {
	var due []byte
	if err := d.View(func(t *Tx) error {
		due = bytes.Clone(t.tx.Bucket(bucketMeta).Get(metaRedactDue))
		return nil
	}); err != nil {
		return err
	}
	if due == nil || string(due) != fileInode(d.j.path) {
		return nil
	}
	_, _, err := d.finishRedaction()
	return err
}

// finishRedaction empties the write-ahead log and compacts the file.
func (d *DB) finishRedaction() (before, after int64, err error) {
	if err := d.LogTrim(); err != nil {
		return 0, 0, fmt.Errorf("journal: redact: empty the write-ahead log: %w", err)
	}
	if fi, err := os.Stat(d.j.path + ".wal"); err == nil && fi.Size() > 0 {
		return 0, 0, fmt.Errorf("journal: redact: the write-ahead log %s could not be emptied (its files may be unsynced): %w", d.j.path+".wal", ErrBusy)
	}
	return d.Compact()
}

func (t *Tx) redact(req RedactRequest, rep *RedactReport) error {
	red := &Redaction{Paths: req.Paths, Why: req.Why}
	evs := slices.Clone(req.Events)
	slices.Sort(evs)
	for _, seq := range slices.Compact(evs) {
		e, err := t.Event(seq)
		if err != nil {
			return fmt.Errorf("journal: redact: %w", err)
		}
		switch {
		case len(e.Args) == 0: // none, or redacted already
		case e.Status == StatusPending:
			return fmt.Errorf("journal: redact: event %d is pending: %w", seq, ErrBusy)
		case e.Salted():
			red.Events = append(red.Events, seq)
		default:
			red.Unsalted = append(red.Unsalted, seq)
		}
	}
	done := t.redactedContents()
	for _, id := range req.Contents {
		if _, ok := done[id]; !ok && !id.IsZero() && snapshot.Has(t.tx, id) && !slices.Contains(red.Contents, id) {
			red.Contents = append(red.Contents, id)
		}
	}
	if len(red.Events)+len(red.Unsalted)+len(red.Contents) == 0 {
		return fmt.Errorf("journal: redact: %w", ErrNothingToRedact)
	}
	ev := &Event{Time: req.Now.UTC(), Kind: KindRedact, Actor: req.Actor, Tool: "redact", Status: StatusCommitted,
		Files: []FileChange{}, Redaction: red}
	if err := t.Append(ev); err != nil {
		return err
	}
	rewritten, chunks, err := t.applyRedaction(ev)
	if err != nil {
		return err
	}
	*rep = RedactReport{Event: ev.Seq, Events: red.Events, Unsalted: red.Unsalted, Contents: red.Contents,
		Chunks: chunks, Rewritten: rewritten}
	return nil
}

// applyRedaction takes out what the redact event ev names: the events'
// arguments and salt (their records rewritten), the contents' bytes (the
// chunks no kept content lists, after the kept chunks that were deltas
// against them are stored whole, by gc's sweep), and indexes it. Redact
// runs it on the event it appends, Import on one a remote's history holds,
// so that a clone takes out what its source did. It returns how many
// chunks it stored whole and how many it deleted.
func (t *Tx) applyRedaction(ev *Event) (rewritten, chunks int, err error) {
	red := ev.Redaction
	b, err := t.tx.CreateBucketIfNotExists(bucketRedacted)
	if err != nil {
		return 0, 0, fmt.Errorf("journal: redact: %w", err)
	}
	by := u64(ev.Seq)
	for _, seq := range ev.RedactedEvents() {
		e, err := t.Event(seq)
		if errors.Is(err, ErrNotFound) {
			continue // before the base of a clone or a gc
		}
		if err != nil {
			return 0, 0, fmt.Errorf("journal: redact: %w", err)
		}
		if len(e.Args) > 0 {
			c := *e
			c.Args, c.ArgsSalt = nil, nil
			rec, err := t.encode(&c)
			if err != nil {
				return 0, 0, err
			}
			if err := t.replaceRecord(seq, rec); err != nil {
				return 0, 0, err
			}
		}
		if err := b.Put(redactedKey('e', u64(seq)), by); err != nil {
			return 0, 0, fmt.Errorf("journal: redact: %w", err)
		}
	}
	// the contents' chunks, before their names go: those no kept content
	// lists must leave the file
	forbid := map[snapshot.ID]bool{}
	for _, id := range red.Contents {
		if snapshot.Has(t.tx, id) {
			if err := snapshot.Refs(t.tx, id, func(bk []byte, ref snapshot.ID) {
				if string(bk) == string(snapshot.BucketChunks) {
					forbid[ref] = true
				}
			}); err != nil {
				return 0, 0, fmt.Errorf("journal: redact: content %s: %w", id.Short(), err)
			}
		}
		if err := b.Put(redactedKey('c', id[:]), by); err != nil {
			return 0, 0, fmt.Errorf("journal: redact: %w", err)
		}
	}
	if len(red.Contents) == 0 {
		return 0, 0, nil
	}
	gc := &GCReport{}
	rewritten, err = t.sweepWithout(gc, func(string, int, int) {}, forbid)
	return rewritten, gc.Chunks, err
}

// indexRedaction writes the index entries of redact event ev (what it took
// out, bucketRedacted) and nothing else: the records it rewrote and the
// chunks it deleted are as it left them. Repair runs it on every redact
// event it restores, as the index is derived from them.
func (t *Tx) indexRedaction(ev *Event) error {
	if ev.Redaction == nil {
		return nil
	}
	b, err := t.tx.CreateBucketIfNotExists(bucketRedacted)
	if err != nil {
		return fmt.Errorf("journal: restore %d: %w", ev.Seq, err)
	}
	by := u64(ev.Seq)
	for _, seq := range ev.RedactedEvents() {
		if err := b.Put(redactedKey('e', u64(seq)), by); err != nil {
			return fmt.Errorf("journal: restore %d: %w", ev.Seq, err)
		}
	}
	for _, id := range ev.Redaction.Contents {
		if err := b.Put(redactedKey('c', id[:]), by); err != nil {
			return fmt.Errorf("journal: restore %d: %w", ev.Seq, err)
		}
	}
	return nil
}

// replaceRecord stores rec as event seq's record, loose or inside its
// block.
func (t *Tx) replaceRecord(seq uint64, rec []byte) error {
	bk := t.tx.Bucket(bucketEvents)
	if v := bk.Get(u64(seq)); v != nil && (len(v) == 0 || v[0] != recordBlock) {
		if err := bk.Put(u64(seq), rec); err != nil {
			return fmt.Errorf("journal: rewrite event %d: %w", seq, err)
		}
		return nil
	}
	k, v := bk.Cursor().Seek(u64(seq))
	if k == nil || len(v) == 0 || v[0] != recordBlock {
		return fmt.Errorf("journal: rewrite event %d: %w", seq, ErrNotFound)
	}
	blk, err := decodeEventBlock(keySeq(k), v)
	if err != nil {
		return err
	}
	if seq < blk.first {
		return fmt.Errorf("journal: rewrite event %d: %w", seq, ErrNotFound)
	}
	recs := slices.Clone(blk.recs)
	recs[seq-blk.first] = rec
	if err := bk.Put(bytes.Clone(k), encodeEventBlock(blk.first, recs)); err != nil {
		return fmt.Errorf("journal: rewrite event %d: %w", seq, err)
	}
	t.blk = nil
	return nil
}
