package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/journalfs/journal/journal"
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
	return VerifyWith(ctx, s, ws, journal.CheckOptions{})
}

// VerifyWith is Verify, also checking each workspace's checkpoints against
// the Merkle tree of its events (journal.TreeCheck; with o.Keys, their
// signatures; o's checkpoints and reference too): a failure is a problem
// naming the workspace and the event where its history parts.
func VerifyWith(ctx context.Context, s *Store, ws string, o journal.CheckOptions) (*VerifyReport, error) {
	rep := &VerifyReport{}
	wss := []string{ws}
	if ws == "" {
		var err error
		if wss, err = s.Workspaces(ctx); err != nil {
			return nil, err
		}
	}
	checked := map[snapshot.ID]bool{}
	problem := func(format string, a ...any) { rep.Problems = append(rep.Problems, fmt.Sprintf(format, a...)) }
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
		for _, sg := range head.Segments {
			if sg.First != prevSeq+1 {
				problem("%s: the head names it for events %d to %d where %d was due (a segment missing from the head)", sg.Key, sg.First, sg.Last, prevSeq+1)
				intact = false
			}
			evs, err := s.segmentAfter(ctx, sg, prevSeq, prev, linked)
			if err != nil {
				if !errors.Is(err, ErrNotFound) && !errors.Is(err, ErrDamaged) {
					return rep, err
				}
				problem("%s", cause(err))
				intact, linked = false, false // the next segment is checked on its own
				prevSeq, prev, lastHash = sg.Last, snapshot.ID{}, snapshot.ID{}
				continue
			}
			linked = true
			rep.Events += len(evs)
			prevSeq, prev, lastHash = sg.Last, evs[len(evs)-1].NextLink(), evs[len(evs)-1].Hash
			for _, e := range evs {
				if tree != nil {
					first := e.Seq
					if e.Lost != nil && e.Lost.First != 0 && e.Spans(e.Lost.First) {
						first = e.Lost.First
					}
					tree.Add(e.Seq, first, e.Hash)
				}
				for _, id := range contentIDs(e) {
					if checked[id] {
						continue
					}
					checked[id] = true
					rep.Contents++
					if err := verifyContent(ctx, s, id, rep, checked, problem); err != nil {
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
		if !checked[id] {
			checked[id] = true
			rep.Contents++
			if err := verifyContent(ctx, s, id, rep, checked, problem); err != nil {
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
		if checked[id] {
			continue
		}
		checked[id] = true
		rep.Chunks++
		if _, err := s.chunk(ctx, id); errors.Is(err, ErrDamaged) {
			problem("%s: altered: its bytes are not chunk %s", k, id.Short())
		} else if err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// verifyContent checks a content's manifest and chunks, and that they make
// the content.
func verifyContent(ctx context.Context, s *Store, id snapshot.ID, rep *VerifyReport, checked map[snapshot.ID]bool, problem func(string, ...any)) error {
	m, _, err := s.get(ctx, contentKey(id))
	if errors.Is(err, ErrNotFound) { // a content of one chunk is that chunk, without a manifest
		rep.Chunks++
		checked[id] = true
		_, err := s.chunk(ctx, id)
		switch {
		case errors.Is(err, ErrNotFound):
			problem("%s: missing (and no chunk %s stands for it)", contentKey(id), chunkKey(id))
		case errors.Is(err, ErrDamaged):
			problem("%s: altered: its bytes are not content %s", chunkKey(id), id.Short())
		case err != nil:
			return err
		}
		return nil
	}
	if err != nil {
		return err
	}
	size, chunks, err := parseManifest(m)
	if err != nil {
		problem("%s: not a manifest (altered)", contentKey(id))
		return nil
	}
	h := snapshot.NewHasher()
	var n int64
	whole := true
	for _, c := range chunks {
		rep.Chunks++
		checked[c] = true
		b, err := s.chunk(ctx, c)
		switch {
		case errors.Is(err, ErrNotFound):
			problem("%s: missing (chunk of %s)", chunkKey(c), contentKey(id))
			whole = false
			continue
		case errors.Is(err, ErrDamaged):
			problem("%s: altered: its bytes are not chunk %s", chunkKey(c), c.Short())
			whole = false
			continue
		case err != nil:
			return err
		}
		h.Write(b)
		n += int64(len(b))
	}
	if whole && (h.ID() != id || n != size) {
		problem("%s: altered: its chunks make another content", contentKey(id))
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
func Export(ctx context.Context, s *Store, ws string, w io.Writer) (*journal.ExportHead, error) {
	head, err := s.workspaceHead(ctx, ws)
	if err != nil {
		return nil, err
	}
	cps, err := Checkpoints(ctx, s, ws)
	if err != nil {
		return nil, err
	}
	h := &journal.ExportHead{Type: "head", Version: journal.ExportVersionChain, BaseSeq: head.BaseSeq, Base: head.BaseHash, Head: head.BaseHash,
		Producer: "journal " + journal.BuildVersion() + " from remote " + s.r.Name}
	err = s.walk(ctx, head, func(evs []*journal.Event) error {
		for _, e := range evs {
			line, err := journal.ExportLine(e)
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
		h.Version, h.Workspace, h.TreeBase = journal.ExportVersion, ws, head.BaseSeq
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
