package journal

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/journalfs/journal/journal/boltfile"
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
	ps := fd.ps
	if ps == 0 {
		ps = os.Getpagesize()
	}
	var err error
	if c.poison, err = boltfile.AddPoison(f, ps); err != nil {
		return fmt.Errorf("journal: read around damage: %w", err)
	}
	c.finding = first
	if fd.metas {
		return c.rebuildMetas(f, ps)
	}
	err = boltfile.Poison(f, c.poison, fd.refs, nil)
	if err == nil && fd.metaRoot {
		err = boltfile.SetRoot(f, ps, c.poison)
	}
	if err != nil {
		return fmt.Errorf("journal: read around damage: %w", err)
	}
	return nil
}

// rebuildMetas makes both meta pages of the copy again (see above).
func (c *Journal) rebuildMetas(f *os.File, ps int) error {
	hwm := c.poison // the pages before the poison one
	var best, bestN uint64
	var bestRefs []int64
	for _, root := range boltfile.RootCandidates(f, ps, hwm, rootBuckets, "events", rebuildCandidates) {
		if err := boltfile.WriteMetas(f, ps, root, hwm); err != nil {
			return fmt.Errorf("journal: read around damage: %w", err)
		}
		fd := c.findings()
		saved := map[int64][]byte{}
		if err := boltfile.Poison(f, c.poison, fd.refs, saved); err != nil {
			return fmt.Errorf("journal: read around damage: %w", err)
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
	err := boltfile.WriteMetas(f, ps, best, hwm)
	if err == nil {
		err = boltfile.Poison(f, c.poison, bestRefs, nil)
	}
	if err != nil {
		return fmt.Errorf("journal: read around damage: %w", err)
	}
	return nil
}
