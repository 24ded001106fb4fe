package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/audit"
	"github.com/journalfs/journal/snapshot"
)

// VerifyReport is what Verify found.
type VerifyReport struct {
	Workspaces []string // checked
	Events     int
	Contents   int
	Chunks     int
	Problems   []string // each names an object missing or altered, and how
	// Checkpoints counts the checkpoints whose roots matched their
	// workspace's events (and signatures, with keys).
	Checkpoints int
	// Redacted names each value of an encrypted remote whose key a
	// redaction shredded ("workspace W: event 42's arguments, redacted by
	// event 57"): it cannot be read, and that is not damage.
	Redacted []string
	// Unreadable counts the objects of an encrypted remote that no
	// workspace's keys open (shredded, or left by an interrupted push).
	Unreadable int
}

// OK reports whether nothing was wrong.
func (r *VerifyReport) OK() bool { return len(r.Problems) == 0 }

// Workspaces lists the workspaces on the store.
func (s *Store) Workspaces(ctx context.Context) ([]string, error) {
	keys, err := s.list(ctx, "workspaces/")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, k := range keys {
		if ws, ok := strings.CutSuffix(strings.TrimPrefix(k, "workspaces/"), "/head.json"); ok && !strings.Contains(ws, "/") {
			out = append(out, ws)
		}
	}
	sort.Strings(out)
	return out, nil
}

// Verify checks workspace ws on the store (every workspace when ws is ""):
// its head, every segment against the sum the head names, the chain of
// events through them to the head's hash, every content the events name
// and every chunk of it against its ID. Each missing or altered object is
// named in the report; an error is returned only when the store cannot be
// read at all.
func Verify(ctx context.Context, s *Store, ws string) (*VerifyReport, error) {
	return VerifyWith(ctx, s, ws, audit.CheckOptions{})
}

// VerifyWith is Verify, also checking the team index of each workspace
// whose segments are intact (ReadTeam: an index behind the head or altered,
// a page altered, is a problem; none is not: older journals wrote none),
// and each workspace's checkpoints against
// the Merkle tree of its events (audit.TreeCheck; with o.Keys, their
// signatures; o's checkpoints and reference too): a failure is a problem
// naming the workspace and the event where its history parts. On an
// encrypted remote every sealed object is opened with its key from the
// key store; a value whose key is gone is reported redacted when a
// redact event of its workspace names it, and a problem otherwise; a
// redacted value whose key is still there is a problem too (the shred
// did not finish).
func VerifyWith(ctx context.Context, s *Store, ws string, o audit.CheckOptions) (*VerifyReport, error) {
	rep := &VerifyReport{}
	wss := []string{ws}
	if ws == "" {
		var err error
		if wss, err = s.Workspaces(ctx); err != nil {
			return nil, err
		}
	}
	v := &verifier{s: s, rep: rep, checked: map[snapshot.ID]bool{}, chunkKeys: map[snapshot.ID]dataKey{}}
	problem := v.problem
	for _, ws := range wss {
		rep.Workspaces = append(rep.Workspaces, ws)
		head, _, err := s.readHead(ctx, ws)
		if errors.Is(err, ErrNotFound) || errors.Is(err, ErrDamaged) {
			problem("%s", cause(err))
			continue
		}
		if err != nil {
			return rep, err
		}
		prevSeq, prev, lastHash := head.BaseSeq, head.BaseHash, head.BaseHash
		intact, linked := true, true
		cps, err := Checkpoints(ctx, s, ws)
		if err != nil {
			return rep, err
		}
		tree, _, err := o.NewCheck(head.BaseSeq, ws, cps, "the remote's")
		if err != nil {
			problem("workspace %s: %s", ws, strings.TrimPrefix(err.Error(), "journal: "))
		}
		w := newShredCheck(s, ws)
		for _, sg := range head.Segments {
			if sg.First != prevSeq+1 {
				problem("%s: the head names it for events %d to %d where %d was due (a segment missing from the head)", sg.Key, sg.First, sg.Last, prevSeq+1)
				intact = false
			}
			sr, err := s.segmentAfter(ctx, sg, prevSeq, prev, linked)
			if err != nil {
				if !errors.Is(err, ErrNotFound) && !errors.Is(err, ErrDamaged) {
					return rep, err
				}
				problem("%s", cause(err))
				intact, linked = false, false // the next segment is checked on its own
				prevSeq, prev, lastHash = sg.Last, snapshot.ID{}, snapshot.ID{}
				continue
			}
			evs := sr.evs
			linked = true
			rep.Events += len(evs)
			prevSeq, prev, lastHash = sg.Last, evs[len(evs)-1].NextLink(), evs[len(evs)-1].Hash
			w.segment(sr)
			for _, e := range evs {
				if tree != nil {
					first := e.Seq
					if e.Lost != nil && e.Lost.First != 0 && e.Spans(e.Lost.First) {
						first = e.Lost.First
					}
					tree.Add(e.Seq, first, e.Hash)
				}
				for _, id := range contentIDs(e) {
					if v.checked[id] {
						continue
					}
					v.checked[id] = true
					rep.Contents++
					if err := v.content(ctx, id, w.ring); errors.Is(err, errNoKey) {
						if !slices.Contains(w.noKey, id) {
							w.noKey = append(w.noKey, id)
						}
						delete(v.checked, id) // another workspace may hold its key
						rep.Contents--
					} else if err != nil {
						return rep, err
					}
				}
			}
		}
		if intact && (prevSeq != head.Last || lastHash != head.Hash) {
			problem("%s: it names event %d as the newest, but its segments end at event %d (or in another hash)", headKey(ws), head.Last, prevSeq)
		}
		if tree != nil && intact {
			if err := tree.Finish(); err != nil {
				problem("workspace %s: %s", ws, strings.TrimPrefix(err.Error(), "journal: "))
			} else {
				rep.Checkpoints += tree.Matched
			}
		}
		w.report(rep, problem)
		if intact && !s.Encrypted() { // the team index, checked as journal team reads it
			tw, err := ReadTeam(ctx, s, ws, TeamOptions{IndexOnly: true})
			if err != nil {
				return rep, err
			}
			for _, p := range tw.Problems {
				problem("%s", p)
			}
		}
	}
	if ws != "" {
		return rep, nil
	}
	// every workspace: also the objects no readable event names
	keys, err := s.list(ctx, "contents/")
	if err != nil {
		return rep, err
	}
	for _, k := range keys {
		id, err := snapshot.ParseID(strings.TrimPrefix(k, "contents/"))
		if err != nil {
			problem("%s: not a content's name", k)
			continue
		}
		if !v.checked[id] {
			v.checked[id] = true
			if s.keys != nil { // sealed under a key no workspace's key files hold
				rep.Unreadable++
				continue
			}
			rep.Contents++
			if err := v.content(ctx, id, nil); err != nil {
				return rep, err
			}
		}
	}
	if keys, err = s.list(ctx, "chunks/"); err != nil {
		return rep, err
	}
	for _, k := range keys {
		id, err := snapshot.ParseID(k[strings.LastIndexByte(k, '/')+1:])
		if err != nil || chunkKey(id) != k {
			problem("%s: not a chunk's name", k)
			continue
		}
		if v.checked[id] {
			continue
		}
		v.checked[id] = true
		var key *dataKey
		if s.keys != nil {
			k, ok := v.chunkKeys[id]
			if !ok {
				rep.Unreadable++
				continue
			}
			key = &k
		}
		rep.Chunks++
		if _, err := s.chunk(ctx, id, key); errors.Is(err, ErrDamaged) {
			problem("%s: altered: its bytes are not chunk %s", k, id.Short())
		} else if err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// verifier is one Verify's state.
type verifier struct {
	s         *Store
	rep       *VerifyReport
	checked   map[snapshot.ID]bool // contents and chunks checked
	chunkKeys map[snapshot.ID]dataKey
}

func (v *verifier) problem(format string, a ...any) {
	v.rep.Problems = append(v.rep.Problems, fmt.Sprintf(format, a...))
}

// content checks a content's manifest and chunks, and that they make the
// content (ring: an encrypted remote's keys; errNoKey when it has none
// for the content).
func (v *verifier) content(ctx context.Context, id snapshot.ID, ring *keyFile) error {
	s, rep := v.s, v.rep
	size, chunks, keys, err := s.contentChunks(ctx, id, ring)
	switch {
	case errors.Is(err, errNoKey):
		return err
	case errors.Is(err, ErrDamaged):
		v.problem("%s", cause(err))
		return nil
	case err != nil:
		return err
	}
	h := snapshot.NewHasher()
	var n int64
	whole := true
	for i, c := range chunks {
		rep.Chunks++
		v.checked[c] = true
		if keys[i] != nil {
			v.chunkKeys[c] = *keys[i]
		}
		b, err := s.chunk(ctx, c, keys[i])
		switch {
		case errors.Is(err, ErrNotFound) && size < 0:
			v.problem("%s: missing (and no chunk %s stands for it)", contentKey(id), chunkKey(id))
			return nil
		case errors.Is(err, ErrNotFound):
			v.problem("%s: missing (chunk of %s)", chunkKey(c), contentKey(id))
			whole = false
			continue
		case errors.Is(err, ErrDamaged) && size < 0:
			v.problem("%s: altered: its bytes are not content %s", chunkKey(id), id.Short())
			return nil
		case errors.Is(err, ErrDamaged):
			v.problem("%s: altered: its bytes are not chunk %s", chunkKey(c), c.Short())
			whole = false
			continue
		case err != nil:
			return err
		}
		h.Write(b)
		n += int64(len(b))
	}
	if whole && (h.ID() != id || size >= 0 && n != size) {
		v.problem("%s: altered: its chunks make another content", contentKey(id))
	}
	return nil
}

// cause is err's message without the remote's name and the sentinel's
// words: the object's key, then what is wrong with it.
func cause(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, ": "); i >= 0 && strings.HasPrefix(msg, "remote ") {
		msg = msg[i+2:]
	}
	if errors.Is(err, ErrNotFound) {
		msg += ": missing"
	}
	return msg
}

// Export writes workspace ws's audit trail as `journal export` writes a
// journal's (jsonl: one line per event, then the head line), from the
// remote: each segment checked against its head, each event against its
// hash and its predecessor, so `journal verify --export` checks the file
// on its own and a head hash anchored earlier still matches.
func Export(ctx context.Context, s *Store, ws string, w io.Writer) (*audit.ExportHead, error) {
	head, err := s.workspaceHead(ctx, ws)
	if err != nil {
		return nil, err
	}
	cps, err := Checkpoints(ctx, s, ws)
	if err != nil {
		return nil, err
	}
	h := &audit.ExportHead{Type: "head", Version: audit.ExportVersionChain, BaseSeq: head.BaseSeq, Base: head.BaseHash, Head: head.BaseHash,
		Producer: "journal " + journal.BuildVersion() + " from remote " + s.r.Name}
	err = s.walk(ctx, head, func(sr *segRead, _ *keyFile) error {
		for _, e := range sr.evs {
			line, err := audit.ExportLine(e)
			if err != nil {
				return err
			}
			if _, err := w.Write(line); err != nil {
				return fmt.Errorf("remote: export: %w", err)
			}
			if h.First == 0 {
				h.First = e.Seq
				if e.Lost != nil && e.Lost.First != 0 && e.Spans(e.Lost.First) {
					h.First = e.Lost.First // a damaged event first: its span is the chain's start
				}
			}
			h.Last, h.Head = e.Seq, e.Hash
			h.Events++
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(cps) > 0 { // the tree starts at the remote's base: pushes start at the journal's
		h.Version, h.Workspace, h.TreeBase = audit.ExportVersion, ws, head.BaseSeq
		for _, c := range cps {
			h.Checkpoints = append(h.Checkpoints, string(c.Note))
		}
	}
	b, _ := json.Marshal(h)
	if _, err := w.Write(append(b, '\n')); err != nil {
		return nil, fmt.Errorf("remote: export: %w", err)
	}
	return h, nil
}

// Heads returns the head of every workspace on the store (those whose
// head cannot be read are left out; Verify names them).
func Heads(ctx context.Context, s *Store) ([]*Head, error) {
	wss, err := s.Workspaces(ctx)
	if err != nil {
		return nil, err
	}
	var out []*Head
	for _, ws := range wss {
		h, _, err := s.readHead(ctx, ws)
		if errors.Is(err, ErrDamaged) || errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, nil
}
