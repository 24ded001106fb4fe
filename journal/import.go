package journal

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"fmt"

	"github.com/journalfs/journal/snapshot"
)

// metaWorkspace is the meta key of the journal's workspace ID.
var metaWorkspace = []byte("workspace")

// Workspace returns the ID that names this journal's workspace on remotes
// ("" until the first push made one; see MakeWorkspace).
func (t *Tx) Workspace() string {
	return string(t.tx.Bucket(bucketMeta).Get(metaWorkspace))
}

// MakeWorkspace returns the journal's workspace ID, making a random one (16
// bytes, hex) the first time.
func (t *Tx) MakeWorkspace() (string, error) {
	if ws := t.Workspace(); ws != "" {
		return ws, nil
	}
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("journal: workspace ID: %w", err)
	}
	ws := hex.EncodeToString(b)
	return ws, t.SetWorkspace(ws)
}

// SetWorkspace records the journal's workspace ID (a clone takes its
// source's).
func (t *Tx) SetWorkspace(ws string) error {
	if err := t.tx.Bucket(bucketMeta).Put(metaWorkspace, []byte(ws)); err != nil {
		return fmt.Errorf("journal: set workspace: %w", err)
	}
	return nil
}

// Import appends a sealed event read from elsewhere (a remote's segment)
// exactly as it was: its number must follow the newest event's (into an
// empty journal, any number: the events before it become the journal's
// base, as after a gc), its Prev must be that event's hash (or, into an
// empty journal, base), and its hash must be its own. The contents it names
// must be stored already (but those a later redact event takes out). Indexes,
// heads, sessions and revert links are kept as Append keeps them, and a
// redact event takes out here what it took out in its source.
func (t *Tx) Import(e *Event, base snapshot.ID) error {
	if e.Status == StatusPending {
		return fmt.Errorf("journal: import %d: a pending event: %w", e.Seq, ErrState)
	}
	if h := ComputeHash(e); h != e.Hash {
		return fmt.Errorf("journal: import %d: its hash is not its own: %w", e.Seq, ErrCorrupt)
	}
	last := t.Last()
	first := e.Seq // the first number it stands for: a damaged event (repair) stands for a run
	if e.Lost != nil && e.Lost.First != 0 && e.Spans(e.Lost.First) {
		first = e.Lost.First
	}
	switch {
	case last == 0:
		if e.Prev != base {
			return fmt.Errorf("journal: import %d: it does not follow the chain's base: %w", e.Seq, ErrCorrupt)
		}
		if first > 1 {
			m := t.tx.Bucket(bucketMeta)
			if err := m.Put(metaBaseSeq, binary.BigEndian.AppendUint64(nil, first-1)); err != nil {
				return fmt.Errorf("journal: import: %w", err)
			}
			if err := m.Put(metaBaseHash, base[:]); err != nil {
				return fmt.Errorf("journal: import: %w", err)
			}
		}
	case first != last+1:
		return fmt.Errorf("journal: import %d after %d: %w", e.Seq, last, ErrState)
	default:
		prev, err := t.Event(last)
		if err != nil {
			return fmt.Errorf("journal: import %d: %w", e.Seq, err)
		}
		if e.Prev != prev.NextLink() {
			return fmt.Errorf("journal: import %d: it does not link to event %d: %w", e.Seq, last, ErrCorrupt)
		}
	}
	if err := t.index(e); err != nil {
		return err
	}
	if err := t.committed(e); err != nil {
		return err
	}
	if err := t.put(e); err != nil {
		return err
	}
	if e.Kind == KindRedact && e.Redaction != nil && e.Status == StatusCommitted {
		// what the source took out, the copy takes out too; its file is
		// compacted when next recovered (FinishRedaction)
		if t.j != nil {
			if err := t.tx.Bucket(bucketMeta).Put(metaRedactDue, []byte(fileInode(t.j.path))); err != nil {
				return fmt.Errorf("journal: import %d: %w", e.Seq, err)
			}
		}
		if _, _, err := t.applyRedaction(e); err != nil {
			return fmt.Errorf("journal: import %d: %w", e.Seq, err)
		}
	}
	return nil
}
