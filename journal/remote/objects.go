package remote

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/audit"
	"github.com/journalfs/journal/snapshot"
	"github.com/klauspost/compress/zstd"
)

// Head is a workspace's head object (workspaces/<ws>/head.json).
type Head struct {
	Version   int         `json:"version"` // 1
	Workspace string      `json:"workspace"`
	BaseSeq   uint64      `json:"base_seq"`  // the event before the first segment's first
	BaseHash  snapshot.ID `json:"base_hash"` // its hash (zero: the chain starts there)
	Last      uint64      `json:"last"`      // the newest event pushed
	Hash      snapshot.ID `json:"hash"`      // its hash
	Segments  []Segment   `json:"segments"`
	Updated   time.Time   `json:"updated"`
}

// Segment is one immutable segment object of events First..Last.
type Segment struct {
	Key   string      `json:"key"` // relative to the remote's prefix
	First uint64      `json:"first"`
	Last  uint64      `json:"last"`
	Sum   snapshot.ID `json:"sum"` // blake3 of the object's bytes
}

func headKey(ws string) string { return "workspaces/" + ws + "/head.json" }

func segmentKey(ws string, first, last uint64) string {
	return fmt.Sprintf("workspaces/%s/segments/%020d-%020d.jsonl.zst", ws, first, last)
}

func chunkKey(id snapshot.ID) string {
	s := id.String()
	return "chunks/" + s[:2] + "/" + s
}

func contentKey(id snapshot.ID) string { return "contents/" + id.String() }

// The zstd encoder and decoder of chunks and segments, made on first use
// (not at the start of every command of the binary).
var (
	zenc = sync.OnceValue(func() *zstd.Encoder {
		e, _ := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
		return e
	})
	zdec = sync.OnceValue(func() *zstd.Decoder {
		d, _ := zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(1<<30))
		return d
	})
)

// readHead returns workspace ws's head and its ETag (ErrNotFound: none).
func (s *Store) readHead(ctx context.Context, ws string) (*Head, string, error) {
	return readJSON(ctx, s, headKey(ws), "a workspace head", func(h *Head) bool { return h.Version == 1 && h.Workspace == ws })
}

// readJSON reads the JSON object name and its ETag: ErrDamaged (naming it
// not what) when it does not decode or ok refuses it; the ETag is returned
// then too, for a writer that replaces it.
func readJSON[T any](ctx context.Context, s *Store, name, what string, ok func(*T) bool) (*T, string, error) {
	b, etag, err := s.get(ctx, name)
	if err != nil {
		return nil, "", err
	}
	var v T
	if err := json.Unmarshal(b, &v); err != nil || !ok(&v) {
		return nil, etag, fail(ErrDamaged, "remote %s: %s is not %s", s.r.Name, name, what)
	}
	return &v, etag, nil
}

// workspaceHead is readHead for a workspace named by a user: one that is
// not there is a usage error saying where the IDs are listed.
func (s *Store) workspaceHead(ctx context.Context, ws string) (*Head, error) {
	head, _, err := s.readHead(ctx, ws)
	if errors.Is(err, ErrNotFound) {
		return nil, fail(ErrUsage, "remote %s: no workspace %s there (journal remote show %s lists them)", s.r.Name, ws, s.r.Name)
	}
	return head, err
}

// walk reads head's segments in order, each checked against the head and
// the chain from the head's base, and calls fn with each segment's events
// (as read) and, on an encrypted remote, the keys met so far.
// fn may return errStop to end the walk there; otherwise the segments
// must end in the event the head names.
func (s *Store) walk(ctx context.Context, head *Head, fn func(sr *segRead, ring *keyFile) error) error {
	prevSeq, prev, last := head.BaseSeq, head.BaseHash, head.BaseHash
	var ring *keyFile // nil: a plain remote
	if s.keys != nil {
		ring = newKeyFile()
	}
	for _, sg := range head.Segments {
		sr, err := s.segment(ctx, sg, prevSeq, prev)
		if err != nil {
			return err
		}
		evs := sr.evs
		if ring != nil {
			ring.merge(sr.keys)
		}
		prevSeq, prev, last = sg.Last, evs[len(evs)-1].NextLink(), evs[len(evs)-1].Hash
		if err := fn(sr, ring); errors.Is(err, errStop) {
			return nil
		} else if err != nil {
			return err
		}
	}
	if prevSeq != head.Last || last != head.Hash {
		return fail(ErrDamaged, "remote %s: workspace %s's head names event %d, but its segments end at event %d (or in another hash)", s.r.Name, head.Workspace, head.Last, prevSeq)
	}
	return nil
}

// manifest is a content's manifest object: "JRM1", its size, its chunks.
func manifest(size int64, chunks []snapshot.ID) []byte {
	b := append([]byte("JRM1"), binary.AppendUvarint(nil, uint64(size))...)
	b = binary.AppendUvarint(b, uint64(len(chunks)))
	for _, c := range chunks {
		b = append(b, c[:]...)
	}
	return b
}

func parseManifest(b []byte) (int64, []snapshot.ID, error) {
	if !bytes.HasPrefix(b, []byte("JRM1")) {
		return 0, nil, ErrDamaged
	}
	b = b[4:]
	size, n1 := binary.Uvarint(b)
	if n1 <= 0 {
		return 0, nil, ErrDamaged
	}
	b = b[n1:]
	n, n2 := binary.Uvarint(b)
	if n2 <= 0 || uint64(len(b)-n2) != n*32 {
		return 0, nil, ErrDamaged
	}
	b = b[n2:]
	ids := make([]snapshot.ID, n)
	for i := range ids {
		copy(ids[i][:], b[i*32:])
	}
	return int64(size), ids, nil
}

// chunk returns a chunk's verified bytes; key is its key on an encrypted
// remote (nil on a plain one).
func (s *Store) chunk(ctx context.Context, id snapshot.ID, key *dataKey) ([]byte, error) {
	z, _, err := s.get(ctx, chunkKey(id))
	if err != nil {
		return nil, err
	}
	if key != nil {
		if z, err = unseal(*key, z, id[:]); err != nil {
			return nil, fail(ErrDamaged, "remote %s: %s %v (altered)", s.r.Name, chunkKey(id), err)
		}
	}
	b, err := zdec().DecodeAll(z, nil)
	if err != nil || snapshot.Sum(b) != id {
		return nil, fail(ErrDamaged, "remote %s: %s does not hold chunk %s", s.r.Name, chunkKey(id), id.Short())
	}
	return b, nil
}

// segRead is a segment as read: its events, checked, and on an encrypted
// remote its key file and the events whose sealed arguments have no key
// there (returned without them).
type segRead struct {
	evs      []*journal.Event
	keys     *keyFile
	withheld []uint64
}

// segment returns a segment's events, each checked against its hash and its
// predecessor's (prev: the hash before the segment's first event).
func (s *Store) segment(ctx context.Context, sg Segment, prevSeq uint64, prev snapshot.ID) (*segRead, error) {
	return s.segmentAfter(ctx, sg, prevSeq, prev, true)
}

// segmentAfter is segment; without linked, the first event's link is not
// checked (the segment before it could not be read: verify goes on). An
// event whose arguments were sealed and whose key is gone is checked as
// far as it can be: a salted one whole (its hash does not cover them), an
// unsalted one by its place in the chain alone.
func (s *Store) segmentAfter(ctx context.Context, sg Segment, prevSeq uint64, prev snapshot.ID, linked bool) (*segRead, error) {
	z, _, err := s.get(ctx, sg.Key)
	if err != nil {
		return nil, err
	}
	if snapshot.Sum(z) != sg.Sum {
		return nil, fail(ErrDamaged, "remote %s: %s is not the segment its head names (altered or replaced)", s.r.Name, sg.Key)
	}
	raw, err := zdec().DecodeAll(z, nil)
	if err != nil {
		return nil, fail(ErrDamaged, "remote %s: %s: %v", s.r.Name, sg.Key, err)
	}
	sr := &segRead{}
	if s.keys != nil {
		if sr.keys, err = s.readKeys(ctx, sg.Key); err != nil {
			return nil, err
		}
	}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(nil, 1<<30)
	for sc.Scan() {
		e, withheld, err := s.line(sc.Bytes(), sr.keys)
		if err != nil {
			return nil, fail(ErrDamaged, "remote %s: %s: %v", s.r.Name, sg.Key, err)
		}
		if withheld {
			sr.withheld = append(sr.withheld, e.Seq)
		}
		switch {
		case e.Seq != prevSeq+1 && !e.Spans(prevSeq+1): // a damaged event (repair) stands for a run of numbers
			return nil, fail(ErrDamaged, "remote %s: %s: event %d where %d was due", s.r.Name, sg.Key, e.Seq, prevSeq+1)
		case e.Prev != prev && (linked || len(sr.evs) > 0):
			return nil, fail(ErrDamaged, "remote %s: %s: event %d does not link to event %d", s.r.Name, sg.Key, e.Seq, prevSeq)
		case journal.ComputeHash(e) != e.Hash && !(withheld && !salted(e)):
			return nil, fail(ErrDamaged, "remote %s: %s: event %d is not the event its hash names (altered)", s.r.Name, sg.Key, e.Seq)
		}
		sr.evs = append(sr.evs, e)
		prevSeq, prev = e.Seq, e.NextLink()
	}
	if err := sc.Err(); err != nil {
		return nil, fail(ErrDamaged, "remote %s: %s: %v", s.r.Name, sg.Key, err)
	}
	evs := sr.evs
	if len(evs) == 0 || evs[0].Seq != sg.First && !evs[0].Spans(sg.First) || evs[len(evs)-1].Seq != sg.Last {
		return nil, fail(ErrDamaged, "remote %s: %s does not hold events %d to %d", s.r.Name, sg.Key, sg.First, sg.Last)
	}
	return sr, nil
}

// line reads one line of a segment: an export line on a plain remote, a
// sealed line on an encrypted one (keys: the segment's key file).
func (s *Store) line(b []byte, keys *keyFile) (*journal.Event, bool, error) {
	if keys != nil {
		return openLine(b, keys)
	}
	var rec audit.ExportRecord
	if err := json.Unmarshal(b, &rec); err != nil || rec.Type != "event" {
		if bytes.Contains(b, []byte(`"type":"sealed"`)) {
			return nil, false, fmt.Errorf("an encrypted event, and the remote has no key store (add it with --keys)")
		}
		return nil, false, fmt.Errorf("a line that is not an event")
	}
	e, err := rec.Decode()
	if err != nil {
		return nil, false, err
	}
	return e, false, nil
}

// contentIDs are the contents an event names.
func contentIDs(e *journal.Event) []snapshot.ID {
	var ids []snapshot.ID
	for _, f := range e.Files {
		for _, id := range []snapshot.ID{f.Before, f.After} {
			if !id.IsZero() {
				ids = append(ids, id)
			}
		}
	}
	return ids
}

var errStop = errors.New("stop")
