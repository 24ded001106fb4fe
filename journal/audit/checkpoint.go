package audit

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/journalfs/journal/journal"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

// A checkpoint is a signed note (C2SP signed-note) whose text is a C2SP
// tlog-checkpoint of the journal's Merkle tree (docs/DESIGN.md "Checkpoints"):
//
//	journal.workspace/<workspace ID>
//	<tree size, decimal>
//	<root hash, base64>
//	time <RFC 3339 UTC>
//
//	— <key name> <base64 signature>

// Errors of checkpoints.
var (
	// ErrCheckpoint means a checkpoint is malformed, is not signed by any
	// key given, or names another workspace.
	ErrCheckpoint = errors.New("journal: checkpoint invalid")
	// ErrRewritten means the events do not match a checkpoint signed
	// earlier: history was altered, dropped, reordered, cut or regenerated.
	ErrRewritten = errors.New("journal: history rewritten")
)

// bucketCheckpoints holds the journal's checkpoints: tree size (8) | time
// (8, Unix nanoseconds), both big endian → the signed note.
var bucketCheckpoints = []byte("checkpoints")

// OriginPrefix starts the origin line of every checkpoint; the workspace ID
// (Tx.Workspace) follows, so that a checkpoint of one workspace never
// passes for another's.
const OriginPrefix = "journal.workspace/"

// Origin is the origin line of workspace ws's checkpoints.
func Origin(ws string) string { return OriginPrefix + ws }

// Checkpoint is a signed tree head of a journal.
type Checkpoint struct {
	Origin string    // OriginPrefix + workspace ID
	Size   int64     // leaves: the events TreeBase+1 .. TreeBase+Size
	Root   tlog.Hash // RFC 6962 root of those leaves
	Time   time.Time // when it was signed (the signer's clock)
	Note   []byte    // the signed note, verbatim
	// Signers names the keys whose signatures verified (OpenCheckpoint
	// with verifiers); empty when none were given.
	Signers []string
}

// Workspace is the workspace ID the checkpoint names.
func (c *Checkpoint) Workspace() string { return strings.TrimPrefix(c.Origin, OriginPrefix) }

// checkpointText is the note text of a checkpoint.
func checkpointText(origin string, size int64, root tlog.Hash, at time.Time) string {
	return fmt.Sprintf("%s\n%d\n%s\ntime %s\n", origin, size, base64.StdEncoding.EncodeToString(root[:]),
		at.UTC().Format(time.RFC3339Nano))
}

// OpenCheckpoint parses a signed checkpoint and, when known is not nil,
// verifies its signatures: at least one must be by a known key, and none
// by a known key may be bad. With known nil the signatures are not checked
// (Signers stays empty). Errors wrap ErrCheckpoint.
func OpenCheckpoint(msg []byte, known note.Verifiers) (*Checkpoint, error) {
	vs := known
	if vs == nil {
		vs = note.VerifierList()
	}
	n, err := note.Open(msg, vs)
	var unverified *note.UnverifiedNoteError
	switch {
	case err == nil:
	case known == nil && errors.As(err, &unverified):
		n = unverified.Note
	case errors.As(err, &unverified):
		var names []string
		for _, s := range unverified.Note.UnverifiedSigs {
			names = append(names, s.Name)
		}
		return nil, fmt.Errorf("journal: checkpoint is signed by %s, none of the keys given: %w", strings.Join(names, ", "), ErrCheckpoint)
	default:
		return nil, fmt.Errorf("journal: checkpoint: %v: %w", err, ErrCheckpoint)
	}
	c, err := parseCheckpointText(n.Text)
	if err != nil {
		return nil, err
	}
	c.Note = msg
	for _, s := range n.Sigs {
		c.Signers = append(c.Signers, s.Name)
	}
	return c, nil
}

func parseCheckpointText(text string) (*Checkpoint, error) {
	bad := func(what string) error {
		return fmt.Errorf("journal: checkpoint: %s: %w", what, ErrCheckpoint)
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if len(lines) < 4 {
		return nil, bad("fewer than four lines (origin, size, root, time)")
	}
	c := &Checkpoint{Origin: lines[0]}
	if !strings.HasPrefix(c.Origin, OriginPrefix) || c.Workspace() == "" {
		return nil, bad(fmt.Sprintf("origin %q is not a journal workspace's", c.Origin))
	}
	size, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil || size < 1 || lines[1] != strconv.FormatInt(size, 10) {
		return nil, bad(fmt.Sprintf("tree size %q", lines[1]))
	}
	c.Size = size
	root, err := base64.StdEncoding.DecodeString(lines[2])
	if err != nil || len(root) != tlog.HashSize {
		return nil, bad(fmt.Sprintf("root hash %q", lines[2]))
	}
	c.Root = tlog.Hash(root)
	for _, l := range lines[3:] {
		if v, ok := strings.CutPrefix(l, "time "); ok {
			if c.Time, err = time.Parse(time.RFC3339Nano, v); err != nil {
				return nil, bad(fmt.Sprintf("time %q", v))
			}
		}
	}
	if c.Time.IsZero() {
		return nil, bad("no time line")
	}
	return c, nil
}

// Checkpoints returns the journal's checkpoints, smallest tree first (of a
// size, oldest first), signatures not checked.
func Checkpoints(t *journal.Tx) ([]*Checkpoint, error) {
	b := t.Bolt().Bucket(bucketCheckpoints)
	if b == nil {
		return nil, nil
	}
	var out []*Checkpoint
	err := b.ForEach(func(k, v []byte) error {
		c, err := OpenCheckpoint(bytes.Clone(v), nil)
		if err != nil {
			return fmt.Errorf("journal: checkpoint stored at size %d: %w", binary.BigEndian.Uint64(k), err)
		}
		out = append(out, c)
		return nil
	})
	return out, err
}

// NewestCheckpoint returns the checkpoint of the largest tree (of a size,
// the newest), signature not checked, or nil when the journal has none. It
// reads one record, where Checkpoints opens every one: serve asks it every
// second.
func NewestCheckpoint(t *journal.Tx) (*Checkpoint, error) {
	b := t.Bolt().Bucket(bucketCheckpoints)
	if b == nil {
		return nil, nil
	}
	k, v := b.Cursor().Last()
	if k == nil {
		return nil, nil
	}
	c, err := OpenCheckpoint(bytes.Clone(v), nil)
	if err != nil {
		return nil, fmt.Errorf("journal: checkpoint stored at size %d: %w", binary.BigEndian.Uint64(k), err)
	}
	return c, nil
}

// PutCheckpoint stores a checkpoint (as a clone receives it), fixing the
// tree's base if it was not yet: a later gc must not move the leaves the
// checkpoint covers.
func PutCheckpoint(t *journal.Tx, c *Checkpoint) error {
	if err := PinTreeBase(t); err != nil {
		return fmt.Errorf("journal: store checkpoint: %w", err)
	}
	b, err := t.Bolt().CreateBucketIfNotExists(bucketCheckpoints)
	if err != nil {
		return fmt.Errorf("journal: store checkpoint: %w", err)
	}
	k := append(u64(uint64(c.Size)), u64(uint64(c.Time.UnixNano()))...)
	if err := b.Put(k, c.Note); err != nil {
		return fmt.Errorf("journal: store checkpoint: %w", err)
	}
	return nil
}

// MakeCheckpoint signs a checkpoint of the tree as it is (every sealed
// event), stores it and returns it. When the newest checkpoint already
// covers every event, it is returned instead and made is false. The
// workspace gets its ID here if it had none (MakeWorkspace).
func MakeCheckpoint(t *journal.Tx, s note.Signer, now time.Time) (c *Checkpoint, made bool, err error) {
	ws, err := t.MakeWorkspace()
	if err != nil {
		return nil, false, err
	}
	if err := ExtendTree(t); err != nil {
		return nil, false, err
	}
	n := TreeSize(t)
	if n == 0 {
		return nil, false, fmt.Errorf("journal: checkpoint: the journal has no sealed event to sign: %w", journal.ErrState)
	}
	last, err := NewestCheckpoint(t)
	if err != nil {
		return nil, false, err
	}
	if last != nil && last.Size == n {
		return last, false, nil
	}
	root, err := TreeHash(t, n)
	if err != nil {
		return nil, false, err
	}
	msg, err := note.Sign(&note.Note{Text: checkpointText(Origin(ws), n, root, now)}, s)
	if err != nil {
		return nil, false, fmt.Errorf("journal: sign checkpoint: %w", err)
	}
	c, err = OpenCheckpoint(msg, nil)
	if err != nil {
		return nil, false, err
	}
	c.Signers = []string{s.Name()}
	return c, true, PutCheckpoint(t, c)
}

// Cosign adds s's signature to the checkpoint c (a witness's), keeping the
// signatures it has: the text, and so the tree it signs, is unchanged, and
// a verifier that asks for a quorum of keys counts both. A signature by s's
// key already there is replaced.
func Cosign(c *Checkpoint, s note.Signer) (*Checkpoint, error) {
	n, err := note.Open(c.Note, note.VerifierList())
	var unverified *note.UnverifiedNoteError
	if !errors.As(err, &unverified) {
		return nil, fmt.Errorf("journal: cosign checkpoint: %v: %w", err, ErrCheckpoint)
	}
	n = unverified.Note
	msg, err := note.Sign(n, s)
	if err != nil {
		return nil, fmt.Errorf("journal: cosign checkpoint: %w", err)
	}
	out, err := OpenCheckpoint(msg, nil)
	if err != nil {
		return nil, err
	}
	out.Signers = []string{s.Name()}
	return out, nil
}

// Signatures is the number of signature lines c's note carries, verified
// or not (a signer's and its witnesses').
func (c *Checkpoint) Signatures() int {
	n, err := note.Open(c.Note, note.VerifierList())
	var unverified *note.UnverifiedNoteError
	if !errors.As(err, &unverified) {
		return 0
	}
	n = unverified.Note
	return len(n.Sigs) + len(n.UnverifiedSigs)
}

// MergeCheckpoints returns one checkpoint carrying the signatures of a
// and b, two copies of one signed text (a checkpoint and its cosigned
// copy, as a remote may hold both); ok is false when their texts differ.
func MergeCheckpoints(a, b *Checkpoint) (c *Checkpoint, ok bool, err error) {
	var notes [2]*note.Note
	for i, x := range []*Checkpoint{a, b} {
		_, err := note.Open(x.Note, note.VerifierList())
		var unverified *note.UnverifiedNoteError
		if !errors.As(err, &unverified) {
			return nil, false, fmt.Errorf("journal: merge checkpoints: %v: %w", err, ErrCheckpoint)
		}
		notes[i] = unverified.Note
	}
	if notes[0].Text != notes[1].Text {
		return nil, false, nil
	}
	m := notes[0]
	seen := map[note.Signature]bool{}
	for _, sg := range m.UnverifiedSigs {
		seen[sg] = true
	}
	for _, sg := range notes[1].UnverifiedSigs {
		if !seen[sg] {
			m.UnverifiedSigs = append(m.UnverifiedSigs, sg)
			seen[sg] = true
		}
	}
	msg, err := note.Sign(m) // no new signer: the signatures as they are
	if err != nil {
		return nil, false, fmt.Errorf("journal: merge checkpoints: %v: %w", err, ErrCheckpoint)
	}
	c, err = OpenCheckpoint(msg, nil)
	return c, err == nil, err
}

// sortCheckpoints orders checkpoints by size, then time.
func sortCheckpoints(cps []*Checkpoint) {
	sort.SliceStable(cps, func(i, j int) bool {
		if cps[i].Size != cps[j].Size {
			return cps[i].Size < cps[j].Size
		}
		return cps[i].Time.Before(cps[j].Time)
	})
}

// Sign signs a checkpoint of every sealed event with s, in a write
// transaction of its own (MakeCheckpoint).
func Sign(j *journal.Journal, s note.Signer, now time.Time) (c *Checkpoint, made bool, err error) {
	err = j.Do(func(db *journal.DB) error {
		return db.Update(func(tx *journal.Tx) (err error) {
			c, made, err = MakeCheckpoint(tx, s, now)
			return err
		})
	})
	return c, made, err
}

// u64 is a key of the audit's buckets: n big-endian, so keys sort by n.
func u64(n uint64) []byte { return binary.BigEndian.AppendUint64(nil, n) }

// keySeq reads the number a u64 key holds; a key of another length is
// damage (a panic the store's guard turns into a DamageError).
func keySeq(k []byte) uint64 {
	if len(k) != 8 {
		panic(&journal.DamageError{What: fmt.Sprintf("a key of %d bytes where an event number (8) belongs", len(k))})
	}
	return binary.BigEndian.Uint64(k)
}
