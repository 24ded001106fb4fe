package journal

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"

	bolt "go.etcd.io/bbolt"
)

// A readable copy. Damage the structural check finds (check.go) can send
// bbolt round a cycle of pages, or leave it nothing to open (both meta
// pages damaged). A reader that goes round damage — journal log, show,
// verify, the server's reads, repair — then reads a copy of the file, made
// beside it (or in the temporary directory when the journal's directory is
// not writable) and removed afterwards, in which:
//
//   - every reference the check found to a damaged page (a branch element,
//     a bucket header, the meta page's root) names a poison page appended at
//     the end instead: a page bbolt refuses with a panic where it would have
//     read the damaged one, which protect turns into a DamageError and
//     Tx.Scan into a damaged run of events — never a loop;
//   - with both meta pages damaged, both are made again: the high-water mark
//     from the file's size, no freelist (a read-only open needs none), the
//     root one of the pages that look like this journal's root bucket (a
//     leaf whose elements are all buckets, "events" among them), trying
//     candidates newest page first and keeping the one through which the
//     most events read.
//
// The damaged file itself is never written.

// rootBuckets are names the journal's root bucket holds.
var rootBuckets = map[string]bool{"meta": true, "events": true, "by_path": true, "by_session": true, "heads": true,
	"pending": true, "links": true, "sessions": true, "staging": true, "chunks": true, "lists": true, "contents": true, "store_stats": true, "actors": true}

// rebuildCandidates bounds the root pages tried when both meta pages are
// damaged.
const rebuildCandidates = 32

// needsCopy reports whether reading the file as it is could loop, or
// cannot start.
func (fd *findings) needsCopy() bool {
	return fd.metas || fd.metaRoot || len(fd.refs) > 0
}

// readable returns the journal to read j through, given what the check
// found: j itself, or a readable copy (see above) and the function that
// removes it.
func (j *Journal) readable(fd *findings) (*Journal, func(), error) {
	if !fd.needsCopy() {
		return j, func() {}, nil
	}
	f, err := copyBeside(j.path)
	if err != nil {
		return nil, nil, err
	}
	c := &Journal{path: f.Name(), timeout: j.timeout, openFile: j.openFile, origin: j}
	done := func() {
		f.Close()
		os.Remove(f.Name())
	}
	first := "a damaged page"
	if fd.err != nil {
		var d *DamageError
		if errors.As(fd.err, &d) {
			first = d.What
		}
	}
	if err := c.makeReadable(f, fd, first); err != nil {
		done()
		return nil, nil, err
	}
	return c, done, nil
}

// copyBeside copies the file at path to a new file beside it, or in the
// temporary directory.
func copyBeside(path string) (*os.File, error) {
	src, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("journal: read around damage: %w", err)
	}
	defer src.Close()
	dst, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".readable-*")
	if err != nil {
		if dst, err = os.CreateTemp("", "journal-readable-*"); err != nil {
			return nil, fmt.Errorf("journal: read around damage: %w", err)
		}
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		os.Remove(dst.Name())
		return nil, fmt.Errorf("journal: read around damage: copy to %s: %w", dst.Name(), err)
	}
	return dst, nil
}

// makeReadable patches the copy c (open as f) as described above.
func (c *Journal) makeReadable(f *os.File, fd *findings, first string) error {
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("journal: read around damage: %w", err)
	}
	ps := fd.ps
	if ps == 0 {
		ps = os.Getpagesize()
	}
	// the poison page: a page whose type bbolt refuses
	c.poison = uint64((fi.Size() + int64(ps) - 1) / int64(ps))
	c.finding = first
	page := make([]byte, ps)
	binary.LittleEndian.PutUint64(page, c.poison)
	if _, err := f.WriteAt(page, int64(c.poison)*int64(ps)); err != nil {
		return fmt.Errorf("journal: read around damage: %w", err)
	}
	if !fd.metas {
		if err := c.poisonRefs(f, fd.refs, nil); err != nil {
			return err
		}
		if fd.metaRoot {
			return c.setMetaRoot(f, ps, c.poison)
		}
		return nil
	}
	return c.rebuildMetas(f, ps)
}

// poisonRefs points each reference at refs to the poison page, saving the
// bytes it overwrites in saved (when not nil).
func (c *Journal) poisonRefs(f *os.File, refs []int64, saved map[int64][]byte) error {
	p := make([]byte, 8)
	binary.LittleEndian.PutUint64(p, c.poison)
	for _, at := range refs {
		if saved != nil {
			old := make([]byte, 8)
			if _, err := f.ReadAt(old, at); err != nil {
				return fmt.Errorf("journal: read around damage: %w", err)
			}
			saved[at] = old
		}
		if _, err := f.WriteAt(p, at); err != nil {
			return fmt.Errorf("journal: read around damage: %w", err)
		}
	}
	return nil
}

// setMetaRoot writes root into both meta pages, whose checksums it makes
// again.
func (c *Journal) setMetaRoot(f *os.File, ps int, root uint64) error {
	le := binary.LittleEndian
	for i := 0; i < 2; i++ {
		b := make([]byte, 128)
		if _, err := f.ReadAt(b, int64(i*ps)); err != nil {
			return fmt.Errorf("journal: read around damage: %w", err)
		}
		le.PutUint64(b[metaRootAt:], root)
		if err := sealMeta(f, b, int64(i*ps)); err != nil {
			return err
		}
	}
	return nil
}

// sealMeta computes the checksum of meta page b and writes it at off.
func sealMeta(f *os.File, b []byte, off int64) error {
	h := fnv.New64a()
	h.Write(b[16:checkMetaChecksumAt])
	binary.LittleEndian.PutUint64(b[checkMetaChecksumAt:], h.Sum64())
	if _, err := f.WriteAt(b, off); err != nil {
		return fmt.Errorf("journal: read around damage: %w", err)
	}
	return nil
}

// writeMetas makes both meta pages afresh: page size ps, root, no
// freelist, high-water mark hwm.
func writeMetas(f *os.File, ps int, root, hwm uint64) error {
	le := binary.LittleEndian
	for i := 0; i < 2; i++ {
		b := make([]byte, ps)
		le.PutUint64(b, uint64(i))
		le.PutUint16(b[8:], boltMeta)
		le.PutUint32(b[16:], boltMagic)
		le.PutUint32(b[20:], boltVersion)
		le.PutUint32(b[24:], uint32(ps))
		le.PutUint64(b[metaRootAt:], root)
		le.PutUint64(b[48:], boltNoFreelist)
		le.PutUint64(b[56:], hwm)
		le.PutUint64(b[64:], uint64(1<<40+i))
		if err := sealMeta(f, b, int64(i*ps)); err != nil {
			return err
		}
	}
	return nil
}

// rebuildMetas makes both meta pages of the copy again (see above).
func (c *Journal) rebuildMetas(f *os.File, ps int) error {
	hwm := c.poison // the pages before the poison one
	le := binary.LittleEndian
	var roots []uint64
	b := make([]byte, ps)
	for p := hwm - 1; p >= 2 && len(roots) < rebuildCandidates; p-- {
		if _, err := f.ReadAt(b, int64(p)*int64(ps)); err != nil {
			continue
		}
		count := int(le.Uint16(b[10:]))
		if le.Uint64(b) != p || le.Uint16(b[8:]) != boltLeaf || count < 2 || boltHeader+count*boltElement > ps {
			continue
		}
		events, all := false, true
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
	var best, bestN uint64
	var bestRefs []int64
	for _, root := range roots {
		if err := writeMetas(f, ps, root, hwm); err != nil {
			return err
		}
		fd := c.findings()
		saved := map[int64][]byte{}
		if err := c.poisonRefs(f, fd.refs, saved); err != nil {
			return err
		}
		var n uint64
		_ = c.protect(func() error {
			db, err := c.openFormat(true, false)
			if err != nil {
				return err
			}
			defer db.Close()
			return db.View(func(btx *bolt.Tx) error {
				return (&Tx{tx: btx, j: c}).Scan(0, false, func(*Event) error { n++; return nil }, func(uint64, uint64, error) error { return nil })
			})
		})
		if n > bestN {
			best, bestN, bestRefs = root, n, fd.refs
		}
		for at, old := range saved {
			if _, err := f.WriteAt(old, at); err != nil {
				return fmt.Errorf("journal: read around damage: %w", err)
			}
		}
	}
	if bestN == 0 {
		return &DamageError{Path: c.origin.path, What: "both meta pages are damaged and no page reads as the root of a journal"}
	}
	if err := writeMetas(f, ps, best, hwm); err != nil {
		return err
	}
	return c.poisonRefs(f, bestRefs, nil)
}
