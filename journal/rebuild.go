package journal

import (
	"encoding/binary"
	"fmt"
	bolt "go.etcd.io/bbolt"
	"hash/fnv"
	"os"
)

// Both meta pages damaged: bbolt cannot open the file, as nothing says
// where the root bucket is. rebuildMeta writes a copy of the file with both
// meta pages made again — the high-water mark from the file's size, no
// freelist (a read-only open needs none), the root one of the pages that
// look like this journal's root bucket (a leaf whose elements are all
// buckets, "events" among them) — trying candidates newest page first and
// keeping the one through which the most events read. Repair then reads
// the copy as it would the file.

// rootBuckets are names the journal's root bucket holds.
var rootBuckets = map[string]bool{"meta": true, "events": true, "by_path": true, "by_session": true, "heads": true,
	"pending": true, "links": true, "sessions": true, "staging": true, "chunks": true, "lists": true, "contents": true}

// rebuildCandidates bounds the root pages rebuildMeta tries.
const rebuildCandidates = 32

// rebuildMeta returns the path of a copy of the journal file with its meta
// pages rebuilt, or an error when no candidate root gives any event.
func (j *Journal) rebuildMeta() (string, error) {
	raw, err := os.ReadFile(j.path)
	if err != nil {
		return "", fmt.Errorf("journal: repair: %w", err)
	}
	ps := os.Getpagesize()
	le := binary.LittleEndian
	var roots []int
	for p := len(raw)/ps - 1; p >= 2 && len(roots) < rebuildCandidates; p-- {
		b := raw[p*ps : (p+1)*ps]
		count := int(le.Uint16(b[10:]))
		if le.Uint64(b) != uint64(p) || le.Uint16(b[8:]) != boltLeaf || count < 2 || boltHeader+count*boltElement > ps {
			continue
		}
		events := false
		all := true
		for i := 0; i < count && all; i++ {
			e := b[boltHeader+i*boltElement:]
			pos, ksize := int(le.Uint32(e[4:])), int(le.Uint32(e[8:]))
			at := boltHeader + i*boltElement + pos
			if le.Uint32(e)&boltBucketLeaf == 0 || at+ksize > ps {
				all = false
				break
			}
			k := string(b[at : at+ksize])
			all = rootBuckets[k]
			events = events || k == "events"
		}
		if all && events {
			roots = append(roots, p)
		}
	}
	tmp := fmt.Sprintf("%s.rebuilt-%d", j.path, os.Getpid())
	best, bestN := -1, 0
	for _, root := range roots {
		writeMetas(raw, ps, uint64(root), uint64(len(raw)/ps))
		if err := os.WriteFile(tmp, raw, 0o600); err != nil {
			return "", fmt.Errorf("journal: repair: %w", err)
		}
		n := 0
		c := &Journal{path: tmp, timeout: j.timeout, openFile: j.openFile}
		_ = c.protect(func() error {
			db, err := c.open(true)
			if err != nil {
				return err
			}
			defer db.Close()
			return db.View(func(btx *bolt.Tx) error {
				return (&Tx{tx: btx}).Scan(0, false, func(*Event) error { n++; return nil }, func(uint64, uint64, error) error { return nil })
			})
		})
		if n > bestN {
			best, bestN = root, n
		}
	}
	if best < 0 {
		os.Remove(tmp)
		return "", &DamageError{Path: j.path, What: "both meta pages are damaged and no page reads as the root of a journal"}
	}
	writeMetas(raw, ps, uint64(best), uint64(len(raw)/ps))
	if err := os.WriteFile(tmp, raw, 0o600); err != nil {
		return "", fmt.Errorf("journal: repair: %w", err)
	}
	return tmp, nil
}

// writeMetas makes both meta pages of raw afresh: page size ps, root, no
// freelist, high-water mark hwm.
func writeMetas(raw []byte, ps int, root, hwm uint64) {
	le := binary.LittleEndian
	for i := 0; i < 2; i++ {
		b := raw[i*ps : (i+1)*ps]
		clear(b)
		le.PutUint64(b, uint64(i))
		le.PutUint16(b[8:], boltMeta)
		le.PutUint32(b[16:], boltMagic)
		le.PutUint32(b[20:], boltVersion)
		le.PutUint32(b[24:], uint32(ps))
		le.PutUint64(b[32:], root)
		le.PutUint64(b[48:], boltNoFreelist)
		le.PutUint64(b[56:], hwm)
		le.PutUint64(b[64:], uint64(1<<40+i))
		h := fnv.New64a()
		h.Write(b[16:checkMetaChecksumAt])
		le.PutUint64(b[checkMetaChecksumAt:], h.Sum64())
	}
}
