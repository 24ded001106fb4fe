package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	bolt "go.etcd.io/bbolt"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/audit"
	"github.com/journalfs/journal/snapshot"
)

// CloneReport says what a clone did.
type CloneReport struct {
	Workspace string
	Last      uint64 // the newest event imported
	Events    int
	Contents  int // contents fetched
	Files     int // files written
	Skipped   []string
	// On an encrypted remote, what the key store no longer has the keys
	// of (shredded by a redaction): events imported without their
	// arguments, contents not fetched, and the files not written for it.
	WithheldArgs     []uint64
	WithheldContents []snapshot.ID
	Withheld         []string
}

// CloneOptions tune Clone.
type CloneOptions struct {
	At       uint64 // import events up to this one (0: all) and write the files as they were after it
	Progress func(done, total uint64)
	// Paths, if not nil, makes a clone for reading these files' histories
	// (the keys of a commit's files, for `journal git note --remote`):
	// every event is imported and checked as always, but only the contents
	// of these files' versions — and of the paths they were moved from in
	// the journal — are fetched, and no file is written. Reading another
	// file's content from such a clone fails.
	Paths []string
}

// Clone rebuilds workspace ws from the store in dir: a new journal in
// dir/.journal holding the workspace's events (up to o.At), every one
// checked against its hash and chain and every content against its ID, and
// the workspace's files as they were after the last of them. dir must not
// hold a journal yet. The new journal keeps the workspace's ID, so it can
// carry the workspace on (push from it once the old one stops), and the
// workspace's checkpoints of the events it received.
func Clone(ctx context.Context, s *Store, ws, dir string, o CloneOptions) (rep *CloneReport, err error) {
	head, err := s.workspaceHead(ctx, ws)
	if err != nil {
		return nil, err
	}
	if o.At != 0 && (o.At <= head.BaseSeq || o.At > head.Last) {
		return nil, fail(ErrUsage, "remote %s: --at %d: workspace %s holds events %d to %d", s.r.Name, o.At, ws, head.BaseSeq+1, head.Last)
	}
	jp := filepath.Join(dir, journal.DirName, journal.FileName)
	if _, err := os.Stat(jp); err == nil {
		return nil, fail(ErrUsage, "remote: %s holds a journal already: clone into an empty directory", dir)
	}
	if ents, err := os.ReadDir(dir); err == nil && len(ents) > 0 {
		return nil, fail(ErrUsage, "remote: %s is not empty: clone into an empty or new directory (nothing there is overwritten)", dir)
	}
	_, statErr := os.Stat(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("remote: %w", err)
	}
	// a clone that fails leaves nothing behind: not half a journal, not
	// some of the files
	defer func() {
		if err == nil {
			return
		}
		if statErr != nil {
			os.RemoveAll(dir)
			return
		}
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}()
	j, err := journal.Open(jp, journal.Options{Create: true})
	if err != nil {
		return nil, err
	}
	defer j.Close()
	rep = &CloneReport{Workspace: ws}
	redacted := map[any]bool{}   // event numbers and content IDs the events' redactions name
	var partial []*journal.Event // with o.Paths: the events, whose wanted contents are fetched at the end
	var lastRing *keyFile
	fetch := func(db *journal.DB, ids []snapshot.ID, ring *keyFile) error {
		n, withheld, err := fetchContents(ctx, s, db, ids, ring)
		if err != nil {
			return err
		}
		rep.Contents += n
		for _, id := range withheld {
			if !slices.Contains(rep.WithheldContents, id) {
				rep.WithheldContents = append(rep.WithheldContents, id)
			}
		}
		return nil
	}
	err = j.Do(func(db *journal.DB) error {
		if err := db.Update(func(tx *journal.Tx) error { return tx.SetWorkspace(ws) }); err != nil {
			return err
		}
		total := head.Last - head.BaseSeq
		if o.At != 0 {
			total = o.At - head.BaseSeq
		}
		err := s.walk(ctx, head, func(sr *segRead, ring *keyFile) error {
			evs := sr.evs
			if o.At != 0 {
				for len(evs) > 0 && evs[len(evs)-1].Seq > o.At {
					evs = evs[:len(evs)-1]
				}
			}
			if o.Paths != nil {
				partial, lastRing = append(partial, evs...), ring
			} else {
				var ids []snapshot.ID
				for _, e := range evs {
					ids = append(ids, contentIDs(e)...)
				}
				if err := fetch(db, ids, ring); err != nil {
					return err
				}
			}
			for _, seq := range sr.withheld {
				if o.At == 0 || seq <= o.At {
					rep.WithheldArgs = append(rep.WithheldArgs, seq)
				}
			}
			for _, e := range evs {
				if !e.Salted() && slices.Contains(sr.withheld, e.Seq) {
					return fail(ErrDamaged, "remote %s: event %d was written before salted arguments and its arguments were redacted: its hash can no longer be recomputed, and a clone cannot import it (journal verify --remote checks its links)", s.r.Name, e.Seq)
				}
			}
			for _, e := range evs {
				rs, cts := redactionOf(e)
				for _, seq := range rs {
					redacted[seq] = true
				}
				for _, id := range cts {
					redacted[id] = true
				}
			}
			err := db.Update(func(tx *journal.Tx) error {
				for _, e := range evs {
					if err := tx.Import(e, head.BaseHash); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				return err
			}
			if len(evs) > 0 {
				rep.Events += len(evs)
				rep.Last = evs[len(evs)-1].Seq
				if o.Progress != nil {
					o.Progress(rep.Last-head.BaseSeq, total)
				}
			}
			if o.At != 0 && rep.Last >= o.At {
				return errStop
			}
			return nil
		})
		if err != nil || o.Paths == nil {
			return err
		}
		return fetch(db, pathContents(partial, o.Paths), lastRing)
	})
	if err != nil {
		return rep, err
	}
	if o.At == 0 { // a value without its key must have been redacted (by an event after --at, it may)
		for _, seq := range rep.WithheldArgs {
			if !redacted[seq] {
				return rep, fail(ErrDamaged, "remote %s: key store %s has no key for event %d's arguments, and no redaction names them", s.r.Name, s.r.Keys, seq)
			}
		}
		for _, id := range rep.WithheldContents {
			if !redacted[id] {
				return rep, fail(ErrDamaged, "remote %s: key store %s has no key for content %s, and no redaction names it", s.r.Name, s.r.Keys, id.Short())
			}
		}
	}
	if err := cloneCheckpoints(ctx, s, j, ws, rep.Last-head.BaseSeq); err != nil {
		return rep, err
	}
	if o.Paths != nil {
		return rep, nil
	}
	return rep, writeFiles(j, dir, rep)
}

// pathContents are the contents of the versions of paths that evs (oldest
// first) hold, and of the paths they were moved from: a move's earlier
// name is wanted from the move back.
func pathContents(evs []*journal.Event, paths []string) []snapshot.ID {
	want := map[string]bool{}
	for _, p := range paths {
		want[p] = true
	}
	var ids []snapshot.ID
	for i := len(evs) - 1; i >= 0; i-- {
		for _, f := range evs[i].Files {
			if !want[f.Path] {
				continue
			}
			if f.MovedFrom != "" {
				want[f.MovedFrom] = true
			}
			for _, id := range []snapshot.ID{f.Before, f.After} {
				if !id.IsZero() {
					ids = append(ids, id)
				}
			}
		}
	}
	return ids
}

// cloneCheckpoints stores in the clone the workspace's checkpoints of trees
// of at most size leaves (the events it received): its verify checks them.
func cloneCheckpoints(ctx context.Context, s *Store, j *journal.Journal, ws string, size uint64) error {
	cps, err := Checkpoints(ctx, s, ws)
	if err != nil || len(cps) == 0 {
		return err
	}
	return j.Do(func(db *journal.DB) error {
		return db.Update(func(tx *journal.Tx) error {
			for _, c := range cps {
				if uint64(c.Size) > size {
					continue
				}
				if err := audit.PutCheckpoint(tx, c); err != nil {
					return err
				}
			}
			return nil
		})
	})
}

// fetchBatch bounds the contents of one segment fetched at once and stored
// in one transaction: a content of one chunk is at most 64 KiB, so a batch
// holds at most 16 MiB.
const fetchBatch = 256

// fetchContents stores in the clone's journal the contents ids names that
// it does not hold, and returns how many it fetched and the ones withheld
// (errNoKey: the remote is encrypted and ring has no key for them). A
// content of one chunk (every small file) is that chunk and has no
// manifest: those are asked for first, uploaders at once, and a batch of
// them is stored in one transaction (one commit, not two fdatasyncs a
// content); a content of several chunks (a 404 for its ID's chunk) is then
// read through its manifest (fetchLarge). Each is checked against its ID.
func fetchContents(ctx context.Context, s *Store, db *journal.DB, ids []snapshot.ID, ring *keyFile) (fetched int, withheld []snapshot.ID, err error) {
	var todo []snapshot.ID
	seen := map[snapshot.ID]bool{}
	db.View(func(tx *journal.Tx) error {
		for _, id := range ids {
			if seen[id] {
				continue
			}
			seen[id] = true
			if _, err := snapshot.Size(tx.Bolt(), id); err != nil {
				todo = append(todo, id)
			}
		}
		return nil
	})
	for len(todo) > 0 {
		batch := todo[:min(len(todo), fetchBatch)]
		todo = todo[len(batch):]
		bodies := make([][]byte, len(batch))
		errs := make([]error, len(batch))
		snapshot.ParallelN(len(batch), uploaders, func(i int) {
			bodies[i], errs[i] = s.singleChunk(ctx, batch[i], ring)
		})
		var large []snapshot.ID
		err := db.UpdateRaw(func(btx *bolt.Tx) error {
			in := func(fn func(*bolt.Tx) error) error { return fn(btx) }
			for i, id := range batch {
				switch {
				case errors.Is(errs[i], ErrNotFound):
					large = append(large, id)
					continue
				case errors.Is(errs[i], errNoKey):
					withheld = append(withheld, id)
					continue
				case errs[i] != nil:
					return errs[i]
				}
				got, _, err := snapshot.PutStream(in, bytes.NewReader(bodies[i]), 0)
				if err != nil {
					return err
				}
				if got != id {
					return fail(ErrDamaged, "remote %s: %s makes another content (%s)", s.r.Name, chunkKey(id), got.Short())
				}
				fetched++
			}
			return nil
		})
		if err != nil {
			return 0, nil, err
		}
		for _, id := range large {
			err := fetchLarge(ctx, s, db, id, ring)
			if errors.Is(err, errNoKey) {
				withheld = append(withheld, id)
				continue
			}
			if err != nil {
				return 0, nil, err
			}
			fetched++
		}
	}
	return fetched, withheld, nil
}

// fetchLarge stores content id, a content of several chunks: its manifest
// and then its chunks streamed into the store, the whole checked against
// id; errNoKey when the remote is encrypted and ring has no key for it.
func fetchLarge(ctx context.Context, s *Store, db *journal.DB, id snapshot.ID, ring *keyFile) error {
	size, chunks, keys, err := s.contentChunks(ctx, id, ring)
	if err != nil {
		return err
	}
	pr, pw := io.Pipe()
	go func() {
		for i, c := range chunks {
			b, err := s.chunk(ctx, c, keys[i])
			if err != nil {
				pw.CloseWithError(err)
				return
			}
			if _, err := pw.Write(b); err != nil {
				return
			}
		}
		pw.Close()
	}()
	got, n, err := snapshot.PutStream(db.UpdateRaw, pr, 0)
	pr.CloseWithError(errStop)
	if err != nil {
		return err
	}
	if got != id || size >= 0 && n != size {
		return fail(ErrDamaged, "remote %s: the chunks %s names make another content (%s, %d bytes)", s.r.Name, contentKey(id), got.Short(), n)
	}
	return nil
}

// errNoKey is a content of an encrypted remote whose key the key store
// does not hold.
var errNoKey = errors.New("remote: no key for the content")

// singleChunk returns content id as a chunk of its own (verified: its
// bytes are the content), ErrNotFound when there is none (a content of
// several chunks), errNoKey when the remote is encrypted and ring has no
// key for it.
func (s *Store) singleChunk(ctx context.Context, id snapshot.ID, ring *keyFile) ([]byte, error) {
	if ring == nil {
		return s.chunk(ctx, id, nil)
	}
	key, ok := ring.contents[id]
	if !ok {
		return nil, errNoKey
	}
	return s.chunk(ctx, id, &key)
}

// contentChunks reads content id's manifest: its size (-1: unknown, a
// content of one chunk, which has none), its chunks and, on an encrypted
// remote (ring: the keys met so far), their keys.
func (s *Store) contentChunks(ctx context.Context, id snapshot.ID, ring *keyFile) (int64, []snapshot.ID, []*dataKey, error) {
	var key dataKey
	if ring != nil {
		k, ok := ring.contents[id]
		if !ok {
			return 0, nil, nil, errNoKey
		}
		key = k
	}
	m, _, err := s.get(ctx, contentKey(id))
	switch {
	case errors.Is(err, ErrNotFound): // a content of one chunk is that chunk
		if ring != nil {
			return -1, []snapshot.ID{id}, []*dataKey{&key}, nil
		}
		return -1, []snapshot.ID{id}, []*dataKey{nil}, nil
	case err != nil:
		return 0, nil, nil, err
	case ring == nil:
		size, chunks, err := parseManifest(m)
		if err != nil {
			return 0, nil, nil, fail(ErrDamaged, "remote %s: %s is not a manifest", s.r.Name, contentKey(id))
		}
		return size, chunks, make([]*dataKey, len(chunks)), nil
	}
	p, err := unseal(key, m, id[:])
	if err != nil {
		return 0, nil, nil, fail(ErrDamaged, "remote %s: %s %v (altered)", s.r.Name, contentKey(id), err)
	}
	size, chunks, ks, err := parseSealedManifest(p)
	if err != nil {
		return 0, nil, nil, fail(ErrDamaged, "remote %s: %s is not a manifest", s.r.Name, contentKey(id))
	}
	keys := make([]*dataKey, len(ks))
	for i := range ks {
		keys[i] = &ks[i]
	}
	return size, chunks, keys, nil
}

// writeFiles writes the files the journal's heads name into dir (through
// os.Root: nothing lands outside it), each from the store, verified.
func writeFiles(j *journal.Journal, dir string, rep *CloneReport) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("remote: %w", err)
	}
	defer root.Close()
	return j.View(func(tx *journal.Tx) error {
		return tx.Heads(func(p string, h journal.Head) error {
			if h.ID.IsZero() {
				return nil
			}
			if path.IsAbs(p) || strings.HasPrefix(p, "../") || p == ".." || strings.HasPrefix(p, journal.DirName+"/") || path.Clean(p) != p {
				rep.Skipped = append(rep.Skipped, p) // a file of another root
				return nil
			}
			if d := path.Dir(p); d != "." {
				if err := root.MkdirAll(d, 0o755); err != nil {
					return fmt.Errorf("remote: %s: %w", p, err)
				}
			}
			mode := fs.FileMode(h.Mode).Perm()
			if mode == 0 {
				mode = 0o644
			}
			f, err := root.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
			if err != nil {
				return fmt.Errorf("remote: %s: %w", p, err)
			}
			if err := f.Chmod(mode); err != nil { // exactly, whatever the umask
				f.Close()
				return fmt.Errorf("remote: %s: %w", p, err)
			}
			if _, err := snapshot.Size(tx.Bolt(), h.ID); errors.Is(err, snapshot.ErrNotFound) && slices.Contains(rep.WithheldContents, h.ID) {
				f.Close()
				root.Remove(p)
				rep.Withheld = append(rep.Withheld, p) // its key was shredded
				return nil
			}
			if err := snapshot.Get(tx.Bolt(), h.ID, f); err != nil {
				f.Close()
				return fmt.Errorf("remote: %s: %w", p, err)
			}
			if err := f.Sync(); err != nil {
				f.Close()
				return fmt.Errorf("remote: %s: %w", p, err)
			}
			if err := f.Close(); err != nil {
				return fmt.Errorf("remote: %s: %w", p, err)
			}
			rep.Files++
			return nil
		})
	})
}
