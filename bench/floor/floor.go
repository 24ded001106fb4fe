// Package floor is the durability floor the harness and the benchmarks
// compare a journaled change with: what one durable change of a file costs at
// least on a disk. A full atomic replace (temp file, fsync, rename over the
// target, directory fsync) and one committed bbolt update (fsync on commit).
package floor

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Floor holds a target file and a bbolt database in one directory.
type Floor struct {
	dir, target string
	db          *bolt.DB
}

var bucket = []byte("events")

// Open makes a new directory under dir for the floor's file and database.
func Open(dir string) (*Floor, error) {
	d, err := os.MkdirTemp(dir, "floor-")
	if err != nil {
		return nil, fmt.Errorf("floor: %w", err)
	}
	db, err := bolt.Open(filepath.Join(d, "floor.db"), 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		os.RemoveAll(d)
		return nil, fmt.Errorf("floor: open bbolt: %w", err)
	}
	if err := db.Update(func(tx *bolt.Tx) error { _, err := tx.CreateBucketIfNotExists(bucket); return err }); err != nil {
		db.Close()
		os.RemoveAll(d)
		return nil, fmt.Errorf("floor: create bucket: %w", err)
	}
	return &Floor{dir: d, target: filepath.Join(d, "target.txt"), db: db}, nil
}

// Close closes the database and removes the directory.
func (f *Floor) Close() error {
	err := f.db.Close()
	if rerr := os.RemoveAll(f.dir); err == nil {
		err = rerr
	}
	return err
}

// Replace replaces the target file by data durably: a temp file written and
// fsynced, renamed over the target, and the directory fsynced.
func (f *Floor) Replace(data []byte) error {
	t, err := os.CreateTemp(f.dir, ".tmp-")
	if err != nil {
		return fmt.Errorf("floor: %w", err)
	}
	if _, err := t.Write(data); err != nil {
		t.Close()
		return fmt.Errorf("floor: write: %w", err)
	}
	if err := t.Sync(); err != nil {
		t.Close()
		return fmt.Errorf("floor: fsync: %w", err)
	}
	if err := t.Close(); err != nil {
		return fmt.Errorf("floor: close: %w", err)
	}
	if err := os.Rename(t.Name(), f.target); err != nil {
		return fmt.Errorf("floor: %w", err)
	}
	d, err := os.Open(f.dir)
	if err != nil {
		return fmt.Errorf("floor: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("floor: fsync %s: %w", f.dir, err)
	}
	return nil
}

// Update puts data under the next sequence number in one bbolt transaction,
// committed (and so fsynced).
func (f *Floor) Update(data []byte) error {
	err := f.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucket)
		seq, err := b.NextSequence()
		if err != nil {
			return err
		}
		return b.Put(binary.BigEndian.AppendUint64(nil, seq), data)
	})
	if err != nil {
		return fmt.Errorf("floor: bbolt update: %w", err)
	}
	return nil
}
