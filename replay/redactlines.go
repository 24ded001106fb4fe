package replay

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/secrets"
	"github.com/journalfs/journal/snapshot"
	"github.com/zeebo/blake3"
	bolt "go.etcd.io/bbolt"
)

// Redacted lines: the owners the lines of a redacted version had, kept
// without their text, so that blame goes on naming the authors of lines
// that version held (doc.go, "Blame by content"). A record is written, for
// every content a redaction takes out, just before the redaction.

// bucketRedactLines holds the records: content ID (32) and the file's path
// → record (encodeRedactedLines), for each file whose history held the
// content (its lines' owners are that file's); and content ID alone → the
// first such file's record, the key binaries before the path read. A
// record under the ID alone is used only where every owner it names is an
// event of the blamed file's history (blame.go). Readers before the bucket
// ignore it: they blame a redacted version as a gap, as they did.
var bucketRedactLines = []byte("redactlines")

// LineKeySuffix names the file, beside the journal file (its path plus the
// suffix), that holds the key of the redacted lines' digests: 32 random
// bytes, made at the first redaction. It is not in the journal file, so
// that the journal alone (an export, a remote's copy, a clone) cannot test
// a guess at a redacted line; where it is missing, the digests prove
// nothing and blame fails closed as before them.
const LineKeySuffix = ".linekey"

const (
	lineDigestLen      = 16 // bytes of a line's keyed digest
	redactLinesVersion = 1  // the record's version byte
)

// lineKey computes the keyed digests of lines.
type lineKey struct {
	h  *blake3.Hasher
	id [8]byte // names the key in each record: a record of another key proves nothing
}

func newLineKey(key []byte) (*lineKey, error) {
	h, err := blake3.NewKeyed(key)
	if err != nil {
		return nil, err
	}
	k := &lineKey{h: h}
	sum := blake3.Sum256(append([]byte("journal line key id\x00"), key...))
	copy(k.id[:], sum[:])
	return k, nil
}

// digest returns the keyed digest of a line (with its line end).
func (k *lineKey) digest(line string) (d [lineDigestLen]byte) {
	k.h.Reset()
	_, _ = k.h.WriteString(line)
	copy(d[:], k.h.Sum(nil))
	return d
}

// readLineKey reads the key beside the journal file path; with create, it
// makes one if there is none. A missing key is nil, without error.
func readLineKey(path string, create bool) (*lineKey, error) {
	if path == "" {
		return nil, nil
	}
	kp := path + LineKeySuffix
	b, err := os.ReadFile(kp)
	if errors.Is(err, os.ErrNotExist) && create {
		b = make([]byte, 32)
		if _, err := rand.Read(b); err != nil {
			return nil, fmt.Errorf("redact: line key: %w", err)
		}
		if err := journal.WriteFileAtomic(kp, b, 0o600); err != nil {
			return nil, fmt.Errorf("redact: line key: %w", err)
		}
	} else if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, fmt.Errorf("line key: %w", err)
	}
	if len(b) != 32 {
		return nil, fmt.Errorf("line key %s: %d bytes, not 32", kp, len(b))
	}
	return newLineKey(b)
}

// redactedLine is one line of a redacted version: its owner and, unless
// it held what the redaction was for (a secret, the pattern), its digest.
type redactedLine struct {
	owner  uint64
	digest [lineDigestLen]byte
	known  bool // digest is set
}

// redactedLines is the record of a redacted version.
type redactedLines struct {
	key   [8]byte
	lines []redactedLine
	own   bool // read under the file's own key, not the content's alone (not stored)
}

// partial reports whether some line has no digest: what changed across
// the version is then not known line for line.
func (r *redactedLines) partial() bool {
	for _, l := range r.lines {
		if !l.known {
			return true
		}
	}
	return false
}

// placeholders returns the lines as blame compares them: a line by its
// digest, one without a digest as a text no line equals (lines hold no
// NUL, so neither meets a real line).
func (r *redactedLines) placeholders() []string {
	out := make([]string, len(r.lines))
	for i, l := range r.lines {
		if l.known {
			out[i] = "\x00r" + string(l.digest[:])
		} else {
			out[i] = "\x00u" + strconv.Itoa(i)
		}
	}
	return out
}

// owners returns the lines' owners.
func (r *redactedLines) owners() []uint64 {
	out := make([]uint64, len(r.lines))
	for i, l := range r.lines {
		out[i] = l.owner
	}
	return out
}

// encodeRedactedLines: version (1) | key id (8) | uvarint lines | per
// line: uvarint owner, one byte (1: a digest follows), the digest (16).
func encodeRedactedLines(r *redactedLines) []byte {
	b := append([]byte{redactLinesVersion}, r.key[:]...)
	b = binary.AppendUvarint(b, uint64(len(r.lines)))
	for _, l := range r.lines {
		b = binary.AppendUvarint(b, l.owner)
		if l.known {
			b = append(b, 1)
			b = append(b, l.digest[:]...)
		} else {
			b = append(b, 0)
		}
	}
	return b
}

var errRedactLinesRecord = errors.New("replay: damaged redacted-lines record")

func decodeRedactedLines(b []byte) (*redactedLines, error) {
	if len(b) < 9 || b[0] != redactLinesVersion {
		return nil, errRedactLinesRecord
	}
	r := &redactedLines{}
	copy(r.key[:], b[1:9])
	rd := bytes.NewReader(b[9:])
	n, err := binary.ReadUvarint(rd)
	if err != nil || n > uint64(len(b)) {
		return nil, errRedactLinesRecord
	}
	r.lines = make([]redactedLine, n)
	for i := range r.lines {
		o, err := binary.ReadUvarint(rd)
		if err != nil {
			return nil, errRedactLinesRecord
		}
		r.lines[i].owner = o
		f, err := rd.ReadByte()
		if err != nil || f > 1 {
			return nil, errRedactLinesRecord
		}
		if f == 1 {
			if _, err := rd.Read(r.lines[i].digest[:]); err != nil {
				return nil, errRedactLinesRecord
			}
			r.lines[i].known = true
		}
	}
	if rd.Len() != 0 {
		return nil, errRedactLinesRecord
	}
	return r, nil
}

// redactedLinesOf returns the record of redacted content id that key can
// read, or nil: none was written (a redaction by an earlier version, a
// clone), it was written under another key, or it is damaged — then blame
// treats the version as a gap.
func redactedLinesOf(tx *bolt.Tx, key *lineKey, id snapshot.ID, path string) *redactedLines {
	if key == nil {
		return nil
	}
	bk := tx.Bucket(bucketRedactLines)
	if bk == nil {
		return nil
	}
	v, own := bk.Get(redactLinesKey(id, path)), true
	if v == nil {
		v, own = bk.Get(id[:]), false
	}
	if v == nil {
		return nil
	}
	r, err := decodeRedactedLines(v)
	if err != nil || r.key != key.id {
		return nil
	}
	r.own = own
	return r
}

// redactLinesKey is the key of the record of content id in the file at
// path: the ID, then the path.
func redactLinesKey(id snapshot.ID, path string) []byte {
	return append(id[:len(id):len(id)], path...)
}

// redactedLinesFor returns, for each content the plan takes out that is a
// text blame can read, the record of its lines: their owners (its blame in
// the first of paths, the files whose histories hold the plan's contents,
// whose history holds it) and the digest of each line the
// secret scanner and the selection (pattern, match) do not flag. It reads
// through tx; what it returns holds no line's text, and recordRedactedLines
// writes it just before the redaction.
func redactedLinesFor(tx *journal.Tx, paths []string, plan []snapshot.ID, sel RedactSelect) (map[string][]byte, error) {
	if len(plan) == 0 {
		return nil, nil
	}
	key, err := readLineKey(tx.Path(), true)
	if err != nil || key == nil {
		return nil, err
	}
	want := map[snapshot.ID]bool{}
	for _, id := range plan {
		want[id] = true
	}
	out := map[string][]byte{} // by key (redactLinesKey; the ID alone for the first file)
	// the versions of a file share most lines, and most of their text:
	// each line's digest is computed once, and the scanner remembers what
	// it found in each region
	digests := map[string][lineDigestLen]byte{}
	scan := secrets.NewCache()
	for _, p := range paths {
		steps, err := blameHistory(tx, p, tx.Last(), tx.Event)
		if errors.Is(err, journal.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		r := newBlameReplay()
		r.seen = func(id snapshot.ID, text []string, owners []uint64) {
			k := string(redactLinesKey(id, p))
			if _, ok := out[k]; !want[id] || ok {
				return
			}
			rec := &redactedLines{key: key.id, lines: make([]redactedLine, len(text))}
			flagged := flaggedLines(scan, p, text, sel.Pattern, sel.Match)
			for i, t := range text {
				if flagged[i] {
					continue // owner 0, no digest: unproved
				}
				d, ok := digests[t]
				if !ok {
					d = key.digest(t)
					digests[t] = d
				}
				rec.lines[i] = redactedLine{owner: owners[i], digest: d, known: true}
			}
			out[k] = encodeRedactedLines(rec)
			if _, ok := out[string(id[:])]; !ok {
				out[string(id[:])] = out[k]
			}
		}
		// a history blame cannot read to its end (a damaged or oversized
		// version) gives the records of the versions before: the others
		// get none, and blame fails closed across them
		if r.remember(tx, steps, p, tx.Last(), tx.Event) == nil {
			_ = r.run(tx, steps)
		}
	}
	return out, nil
}

// recordRedactedLines stores the records redactedLinesFor made.
func recordRedactedLines(tx *journal.Tx, recs map[string][]byte) error {
	if len(recs) == 0 {
		return nil
	}
	bk, err := tx.Bolt().CreateBucketIfNotExists(bucketRedactLines)
	if err != nil {
		return fmt.Errorf("redact: %w", err)
	}
	for k, rec := range recs {
		if err := bk.Put([]byte(k), rec); err != nil {
			return fmt.Errorf("redact: %w", err)
		}
	}
	return nil
}

// flaggedLines marks the lines of a file (path, its lines) that hold a
// secret the scanner finds (through scan) (every line a finding spans) or that pattern
// or match accepts (pattern on the whole text too, for a match across
// lines): those keep no digest.
func flaggedLines(scan *secrets.Cache, path string, text []string, pattern *regexp.Regexp, match func([]byte) bool) []bool {
	out := make([]bool, len(text))
	n := 0
	for _, t := range text {
		n += len(t)
	}
	b := make([]byte, 0, n)
	starts := make([]int, len(text)+1)
	for i, t := range text {
		starts[i] = len(b)
		b = append(b, t...)
	}
	starts[len(text)] = len(b)
	span := func(s, e int) {
		for i := range text {
			if starts[i] < max(e, s+1) && starts[i+1] > s {
				out[i] = true
			}
		}
	}
	for _, f := range scan.ScanFile(path, b) {
		span(f.Start, f.End)
	}
	if pattern != nil {
		for _, m := range pattern.FindAllIndex(b, -1) {
			span(m[0], m[1])
		}
	}
	for i, t := range text {
		if pattern != nil && pattern.MatchString(t) || match != nil && match([]byte(t)) {
			out[i] = true
		}
	}
	return out
}

// RepairCarried names the buckets replay keeps in the journal file that
// journal.Repair must carry into a repaired journal (its carry): the
// redacted lines' owners, which no event holds, so that blame after a
// repair names who wrote a redacted version's lines as before it.
var RepairCarried = [][]byte{bucketRedactLines}
