package journal

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Compaction. bbolt never gives pages back to the file system: after a gc
// that drops most events the file stays as large as it grew. Compact copies
// the live data into a fresh file beside the journal (bbolt.Compact, pages
// filled, in transactions of compactTx bytes), syncs it and renames it over
// the journal, then syncs the directory: a crash before the rename leaves
// the journal as it was (and a temporary file the next compaction removes),
// after it the new file, whole. It runs under the exclusive lock, as the
// last step of its Do: other processes open the file anew for each call and
// so find the new one; a process that held the old one open would not, and
// none does (see Journal).

// compactTx bounds the bytes copied per transaction of a compaction.
const compactTx = 4 << 20

// compactSuffix names a compaction's temporary file.
const compactSuffix = ".compact"

// Compact rewrites the journal file without its free pages (see above) and
// returns its size before and after. It must be the last thing the Do that
// calls it does with d.
func (d *DB) Compact() (before, after int64, err error) {
	return d.rewrite("compact", func(dst *bolt.DB) error { return bolt.Compact(dst, d.db, compactTx) })
}

// rewrite writes a fresh bbolt file beside the journal with fill (a
// compaction, a copying gc), then swaps it in (swapIn), and returns the
// journal file's size before and after. On an error the fresh file is
// removed and the journal is as it was; a crash leaves the fresh file,
// which the next rewrite removes.
func (d *DB) rewrite(what string, fill func(dst *bolt.DB) error) (before, after int64, err error) {
	fi, err := os.Stat(d.j.path)
	if err != nil {
		return 0, 0, fmt.Errorf("journal: %s: %w", what, err)
	}
	before = fi.Size()
	tmp := d.j.path + compactSuffix
	os.Remove(tmp) // a crashed rewrite's
	dst, err := bolt.Open(tmp, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		return before, 0, fmt.Errorf("journal: %s: %s: %w", what, tmp, err)
	}
	err = fill(dst)
	if cerr := dst.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return before, 0, fmt.Errorf("journal: %s: writing %s (is the disk full?): %w", what, tmp, err)
	}
	after, err = d.swapIn(tmp)
	return before, after, err
}

// swapIn makes the complete bbolt file tmp the journal: fsync, rename over
// the journal file, fsync of the directory. It returns tmp's size. On an
// error before the rename, tmp is removed and the journal is as it was.
func (d *DB) swapIn(tmp string) (int64, error) {
	f, err := os.Open(tmp)
	if err == nil {
		err = f.Sync()
		f.Close()
	}
	if err != nil {
		os.Remove(tmp)
		return 0, fmt.Errorf("journal: compact: sync: %w", err)
	}
	fi, err := os.Stat(tmp)
	if err != nil {
		os.Remove(tmp)
		return 0, fmt.Errorf("journal: compact: %w", err)
	}
	if err := os.Rename(tmp, d.j.path); err != nil {
		os.Remove(tmp)
		return 0, fmt.Errorf("journal: compact: %w", err)
	}
	if err := syncDir(filepath.Dir(d.j.path)); err != nil {
		return fi.Size(), fmt.Errorf("journal: compact: %w", err)
	}
	return fi.Size(), nil
}
