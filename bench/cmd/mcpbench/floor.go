package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/journalfs/journal/bench/report"
	"github.com/journalfs/journal/bench/stats"
)

// measureFloor times the durability primitives on dir's disk, n times each
// with 4 KiB of data: a full atomic replace (temp + fsync + rename + dir
// fsync) and one bbolt update (a committed, synced transaction).
func measureFloor(dir string, n int) ([]report.Floor, error) {
	dir, err := os.MkdirTemp(dir, "floor-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	buf := make([]byte, 4096)
	for i := range buf {
		buf[i] = byte('a' + i%26)
	}

	replace := make([]time.Duration, 0, n)
	target := filepath.Join(dir, "target.txt")
	for i := 0; i < n; i++ {
		t0 := time.Now()
		if err := atomicReplace(target, buf); err != nil {
			return nil, err
		}
		replace = append(replace, time.Since(t0))
	}

	db, err := bolt.Open(filepath.Join(dir, "floor.db"), 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		return nil, err
	}
	defer db.Close()
	name := []byte("events")
	if err := db.Update(func(tx *bolt.Tx) error { _, err := tx.CreateBucketIfNotExists(name); return err }); err != nil {
		return nil, err
	}
	update := make([]time.Duration, 0, n)
	for i := 0; i < n; i++ {
		t0 := time.Now()
		err := db.Update(func(tx *bolt.Tx) error {
			b := tx.Bucket(name)
			seq, err := b.NextSequence()
			if err != nil {
				return err
			}
			return b.Put(binary.BigEndian.AppendUint64(nil, seq), buf)
		})
		if err != nil {
			return nil, err
		}
		update = append(update, time.Since(t0))
	}
	return []report.Floor{
		{Name: "atomic_replace", What: "write 4 KiB to a temp file, fsync, rename over the target, fsync the directory", Latency: stats.Of(replace)},
		{Name: "bolt_update", What: "one bbolt Update putting 4 KiB (fsync on commit)", Latency: stats.Of(update)},
	}, nil
}

// atomicReplace replaces path by data durably.
func atomicReplace(path string, data []byte) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, ".tmp-")
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("fsync %s: %w", dir, err)
	}
	return nil
}
