package audit

import (
	"container/list"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/secrets"
	"github.com/journalfs/journal/snapshot"
	bolt "go.etcd.io/bbolt"
)

// bucketSecrets holds what the secret detector found in events: seq (8,
// big endian) → JSON array of Secret, for events with at least one; its
// bbolt sequence is the last event scanned (SecretsScanned). Written after
// the events, off the edit's path (the replay engine scans after its
// deferred checkpoint); a journal written before detection existed has no
// bucket, and its events are scanned when asked (ScanSecrets). An older
// binary ignores the bucket and gc copies it whole, so no format number
// marks it: what it says is recomputed from the events and contents.
var bucketSecrets = []byte("secrets")

// bucketSecretsDetector holds, under keyDetector, the detector
// (secrets.DetectorVersion) whose findings bucketSecrets holds. Findings
// of another detector — an earlier binary's, which knew fewer kinds of
// secret, or no record of which — count as none stored: every event is
// scanned again (ScanSecrets, the replay engine's pass), and the next
// PutSecrets empties the bucket before it stores, so that an export or a
// status never relies on what an older detector missed.
var (
	bucketSecretsDetector = []byte("secrets-detector")
	keyDetector           = []byte("version")
)

// secretsBucket returns the bucket of stored findings, nil if there is
// none or it is another detector's.
func secretsBucket(t *journal.Tx) *bolt.Bucket {
	b := t.Bolt().Bucket(bucketSecrets)
	d := t.Bolt().Bucket(bucketSecretsDetector)
	if b == nil || d == nil || string(d.Get(keyDetector)) != secrets.DetectorVersion {
		return nil
	}
	return b
}

// Secret is a secret found in an event: in the content a file change left
// (Path, Content: the file's after-content) or, with Finding.Arg set, in
// the event's arguments (Path is then the arguments' path, if any). It
// never holds the value, only where it is.
type Secret struct {
	Path    string      `json:"path,omitempty"`
	Content snapshot.ID `json:"content"`
	secrets.Finding
}

// InArgs reports whether the secret is in the event's arguments.
func (s Secret) InArgs() bool { return s.Arg != "" }

// ScanText is what the detector reads of one event: its arguments and the
// contents its file changes left, read inside a transaction so that the
// scan itself can run outside it (CollectSecretTexts, ScanSecretTexts).
// A content over StreamScanSize is not read then: ScanSecretTexts reads it
// in pieces as it scans it (Sizes).
type ScanText struct {
	Seq      uint64
	Args     []byte
	Paths    []string
	Contents []snapshot.ID
	Bytes    [][]byte // nil for a content not scanned (too large, gone) or read as it is scanned
	Sizes    []int64  // the contents' sizes; -1 for a content not scanned
}

// StreamScanSize is the size above which the detector reads a content in
// pieces while it scans it (ContentReader, secrets.Cache.ScanReader) rather
// than whole before: a 50 MB content costs the scan a piece and a window,
// not 50 MB of heap, and no read transaction lasts longer than a piece's.
const StreamScanSize = 1 << 20

// SecretsScanned returns the last event the detector has scanned and
// stored (0: none, or a journal from before detection).
func SecretsScanned(t *journal.Tx) uint64 {
	if b := secretsBucket(t); b != nil {
		return b.Sequence()
	}
	return 0
}

// Secrets returns the secrets stored for event seq, and whether the event
// has been scanned (if not, ScanSecrets finds them).
func Secrets(t *journal.Tx, seq uint64) ([]Secret, bool, error) {
	b := secretsBucket(t)
	if b == nil {
		return nil, false, nil
	}
	v := b.Get(u64(seq))
	if v == nil {
		return nil, seq <= b.Sequence(), nil
	}
	var out []Secret
	if err := json.Unmarshal(v, &out); err != nil {
		return nil, true, fmt.Errorf("journal: secrets of event %d: %w: %w", seq, journal.ErrCorrupt, err)
	}
	return out, true, nil
}

// EachSecrets calls fn with every event's stored secrets, oldest first.
func EachSecrets(t *journal.Tx, fn func(seq uint64, s []Secret) error) error {
	b := secretsBucket(t)
	if b == nil {
		return nil
	}
	return b.ForEach(func(k, v []byte) error {
		var s []Secret
		if err := json.Unmarshal(v, &s); err != nil {
			return fmt.Errorf("journal: secrets of event %d: %w: %w", keySeq(k), journal.ErrCorrupt, err)
		}
		return fn(keySeq(k), s)
	})
}

// PutSecrets stores the secrets found in the events up to last (found:
// seq → secrets; events without any are left out) and records last as
// scanned. A last at or below the stored one changes nothing. What
// another detector stored is dropped first (bucketSecretsDetector).
func PutSecrets(t *journal.Tx, last uint64, found map[uint64][]Secret) error {
	if secretsBucket(t) == nil {
		if err := t.Bolt().DeleteBucket(bucketSecrets); err != nil && !errors.Is(err, bolt.ErrBucketNotFound) {
			return fmt.Errorf("journal: store secrets: drop another detector's: %w", err)
		}
		d, err := t.Bolt().CreateBucketIfNotExists(bucketSecretsDetector)
		if err == nil {
			err = d.Put(keyDetector, []byte(secrets.DetectorVersion))
		}
		if err != nil {
			return fmt.Errorf("journal: store secrets: %w", err)
		}
	}
	b, err := t.Bolt().CreateBucketIfNotExists(bucketSecrets)
	if err != nil {
		return fmt.Errorf("journal: store secrets: %w", err)
	}
	if last <= b.Sequence() {
		return nil
	}
	for seq, s := range found {
		if seq <= b.Sequence() || seq > last || len(s) == 0 {
			continue
		}
		v, err := json.Marshal(s)
		if err != nil {
			return fmt.Errorf("journal: store secrets of event %d: %w", seq, err)
		}
		if err := b.Put(u64(seq), v); err != nil {
			return fmt.Errorf("journal: store secrets of event %d: %w", seq, err)
		}
	}
	if err := b.SetSequence(last); err != nil {
		return fmt.Errorf("journal: store secrets: %w", err)
	}
	return nil
}

// collectMapped is the mapped memory (the binary's pages and the
// journal's) past which CollectSecretTexts lets go of the journal's pages
// after an event's contents (BENCHMARKS.md, issue 60).
const collectMapped = 16 << 20

// collectHeld bounds the bytes of files' last versions a Collector keeps:
// below the store's cache of decoded chunks (8 MiB), which must hold them
// as the bases of the files' next versions.
const collectHeld = 4 << 20

// Collector reads the texts the secret detector scans, event after event,
// in passes (CollectSecretTexts). It reads each file's versions in order,
// each against the one before (snapshot.Versions): a version's chunks its
// predecessor shares are not read again, and a new chunk, stored as a
// splice or a delta of its predecessor's, costs that one record. Read one
// by one, each content would be rebuilt from its whole chain of splices (up
// to 128 records, all over the file): journal status's first scan of
// 100,000 one-line edits faulted in pages all over the journal and took
// over 20 minutes (BENCHMARKS.md, issue 60). It keeps the last version of
// the files read most recently, collectHeld bytes at most; what it keeps
// never changes what is read (every chunk is verified against its ID, every
// content against its own). The zero Collector is ready; it is not safe for
// concurrent use.
type Collector struct {
	files map[string]*list.Element // path → its *fileVersions in recent
	// recent orders the files, the most recently read first
	recent list.List
	held   int64
}

// fileVersions is what a Collector keeps of one file.
type fileVersions struct {
	path string
	v    *snapshot.Versions
	held int64
}

// versions returns the reader of path's versions through t.
func (c *Collector) versions(t *journal.Tx, path string) *fileVersions {
	if c.files == nil {
		c.files = map[string]*list.Element{}
	}
	if el, ok := c.files[path]; ok {
		c.recent.MoveToFront(el)
		fv := el.Value.(*fileVersions)
		fv.v.Renew(t.Bolt())
		return fv
	}
	fv := &fileVersions{path: path, v: snapshot.NewVersions(t.Bolt())}
	c.files[path] = c.recent.PushFront(fv)
	return fv
}

// kept records what fv holds now, and lets go of the least recently read
// files' versions past collectHeld.
func (c *Collector) kept(fv *fileVersions) {
	c.held += fv.v.Held() - fv.held
	fv.held = fv.v.Held()
	for c.held > collectHeld && c.recent.Len() > 1 {
		old := c.recent.Back().Value.(*fileVersions)
		c.recent.Remove(c.recent.Back())
		delete(c.files, old.path)
		c.held -= old.held
	}
}

// CollectSecretTexts reads the texts of the sealed events after event from
// (the arguments and the after-contents of their file changes), stopping
// after the event that brings the bytes read past budget, and returns them
// with the last event read (from if none). Contents larger than
// secrets.MaxSize, and contents no longer in the store (redacted, lost),
// are left unread. Its passes may run in transactions of their own.
func (c *Collector) CollectSecretTexts(t *journal.Tx, from uint64, budget int) (texts []ScanText, last uint64, err error) {
	last = from
	read := 0
	top := t.Last()
	for _, p := range t.Pending() {
		if p <= top {
			top = p - 1
		}
	}
	err = t.Each(from+1, false, func(e *journal.Event) error {
		if e.Seq > top || read > budget {
			return journal.ErrStop
		}
		st := ScanText{Seq: e.Seq, Args: e.Args}
		read += len(e.Args)
		for _, f := range e.Files {
			if f.After.IsZero() {
				continue
			}
			// a content gone (redacted, lost) or damaged is not scanned:
			// the detector must not stop status, which reports damage
			// (and verify names it)
			var b []byte
			fv := c.versions(t, f.Path)
			n, err := fv.v.Size(f.After)
			switch {
			case err != nil || n > secrets.MaxSize:
				n = -1
			case n <= StreamScanSize:
				if b, err = fv.v.Bytes(f.After); err != nil {
					b, n = nil, -1
				}
				c.kept(fv)
			}
			read += int(max(n, 0))
			st.Paths = append(st.Paths, f.Path)
			st.Contents = append(st.Contents, f.After)
			st.Bytes = append(st.Bytes, b)
			st.Sizes = append(st.Sizes, n)
		}
		texts = append(texts, st)
		last = e.Seq
		if len(st.Contents) > 0 {
			t.ReleaseOver(collectMapped)
		}
		return nil
	})
	if errors.Is(err, journal.ErrStop) {
		err = nil
	}
	return texts, last, err
}

// ScanSecretTexts runs the detector over texts: seq → secrets, for the
// events that have any. A content CollectSecretTexts left unread for its
// size is read in pieces through view, a read transaction per piece
// (ContentReader); other texts need no transaction. A content gone since
// or damaged (snapshot.ErrNotFound, snapshot.ErrCorrupt) is not scanned, as
// CollectSecretTexts leaves such a content; any other error of view (the
// journal busy, closed) is returned, with no findings: the texts are not
// scanned, and a caller must not mark them so. A content shared by several
// changes is scanned once per path; with a cache (nil: none), an edited
// file's regions the edit left alone are not scanned again (secrets.Cache).
func ScanSecretTexts(c *secrets.Cache, texts []ScanText, view func(fn func(*journal.Tx) error) error) (map[uint64][]Secret, error) {
	found := map[uint64][]Secret{}
	type key struct {
		path string
		id   snapshot.ID
	}
	memo := map[key][]secrets.Finding{}
	for _, st := range texts {
		var out []Secret
		for i, id := range st.Contents {
			k := key{st.Paths[i], id}
			fs, ok := memo[k]
			switch {
			case ok:
			case st.Bytes[i] != nil:
				fs = c.ScanFile(st.Paths[i], st.Bytes[i])
				memo[k] = fs
			case st.Sizes[i] > 0:
				var err error
				fs, err = c.ScanReader(st.Paths[i], st.Sizes[i], NewContentReader(view, id))
				switch {
				case err == nil:
					memo[k] = fs
				case !errors.Is(err, snapshot.ErrNotFound) && !errors.Is(err, snapshot.ErrCorrupt):
					return nil, fmt.Errorf("journal: scan %s for secrets: %w", st.Paths[i], err)
				}
			}
			for _, f := range fs {
				out = append(out, Secret{Path: st.Paths[i], Content: id, Finding: f})
			}
		}
		for _, f := range secrets.ScanArgs(st.Args) {
			out = append(out, Secret{Path: secrets.ArgPath(st.Args, f.Arg), Finding: f})
		}
		if len(out) > 0 {
			found[st.Seq] = out
		}
	}
	return found, nil
}

// ScanSecrets returns every event's secrets, seq → secrets: those stored,
// and those of the events after the last scanned one, found now (read
// only: nothing is stored). For journal status on a journal the detector
// has not caught up with, or one written before it existed.
func ScanSecrets(t *journal.Tx) (map[uint64][]Secret, error) {
	found := map[uint64][]Secret{}
	if err := EachSecrets(t, func(seq uint64, s []Secret) error { found[seq] = s; return nil }); err != nil {
		return nil, err
	}
	from := SecretsScanned(t)
	c := secrets.NewCache() // successive versions of a file share most of their regions
	var col Collector
	view := func(fn func(*journal.Tx) error) error { return fn(t) }
	for {
		texts, last, err := col.CollectSecretTexts(t, from, 4<<20)
		if err != nil {
			return nil, err
		}
		if last == from {
			return found, nil
		}
		more, err := ScanSecretTexts(c, texts, view)
		if err != nil {
			return nil, err
		}
		for seq, s := range more {
			found[seq] = s
		}
		from = last
	}
}

// MaskEvent returns e if its arguments hold no secret, else a copy whose
// arguments have them masked (secrets.MaskArgs) and whose salt is left out
// (beside the digest, the salt would let a reader test guesses of a weak
// password): for printing, never for storing.
func MaskEvent(e *journal.Event) *journal.Event {
	fs := secrets.ScanArgs(e.Args)
	if len(fs) == 0 {
		return e
	}
	c := *e
	c.Args, c.ArgsSalt = secrets.MaskArgs(e.Args, fs), nil
	return &c
}

// Masking masks detected secrets in what is printed of the journal (an
// event's arguments, contents, a file's lines), unless Reveal: the CLI's
// --reveal, journal web's.
type Masking struct{ Reveal bool }

// Event returns e with the secrets in its arguments masked (MaskEvent).
func (m Masking) Event(e *journal.Event) *journal.Event {
	if m.Reveal {
		return e
	}
	return MaskEvent(e)
}

// File returns the content of the file at path with its secrets masked
// (secrets.MaskFile); nil stays nil (no such file).
func (m Masking) File(path string, b []byte) []byte {
	if m.Reveal || b == nil {
		return b
	}
	return secrets.MaskFile(path, b)
}

// Lines is File for a file given as lines (secrets.MaskLines).
func (m Masking) Lines(path string, lines []string) []string {
	if m.Reveal {
		return lines
	}
	return secrets.MaskLines(path, lines)
}

// argsSecrets returns the secrets in e's arguments: those the detector
// stored, if it scanned e (scanned is SecretsScanned), else found now.
func argsSecrets(t *journal.Tx, e *journal.Event, scanned uint64) []secrets.Finding {
	if e.Seq > scanned {
		return secrets.ScanArgs(e.Args)
	}
	stored, _, err := Secrets(t, e.Seq)
	if err != nil {
		return secrets.ScanArgs(e.Args) // a damaged record of findings: look again
	}
	var out []secrets.Finding
	for _, s := range stored {
		if s.InArgs() {
			out = append(out, s.Finding)
		}
	}
	return out
}
