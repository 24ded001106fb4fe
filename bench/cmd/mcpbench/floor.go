package main

import (
	"time"

	"github.com/journalfs/journal/bench/floor"
	"github.com/journalfs/journal/bench/report"
	"github.com/journalfs/journal/bench/stats"
)

// measureFloor times the durability primitives on dir's disk, n times each
// with 4 KiB of data: a full atomic replace (temp + fsync + rename + dir
// fsync) and one bbolt update (a committed, synced transaction).
func measureFloor(dir string, n int) ([]report.Floor, error) {
	fl, err := floor.Open(dir)
	if err != nil {
		return nil, err
	}
	defer fl.Close()
	buf := make([]byte, 4096)
	for i := range buf {
		buf[i] = byte('a' + i%26)
	}
	replace := make([]time.Duration, 0, n)
	for i := 0; i < n; i++ {
		t0 := time.Now()
		if err := fl.Replace(buf); err != nil {
			return nil, err
		}
		replace = append(replace, time.Since(t0))
	}
	update := make([]time.Duration, 0, n)
	for i := 0; i < n; i++ {
		t0 := time.Now()
		if err := fl.Update(buf); err != nil {
			return nil, err
		}
		update = append(update, time.Since(t0))
	}
	return []report.Floor{
		{Name: "atomic_replace", What: "write 4 KiB to a temp file, fsync, rename over the target, fsync the directory", Latency: stats.Of(replace)},
		{Name: "bolt_update", What: "one bbolt Update putting 4 KiB (fsync on commit)", Latency: stats.Of(update)},
	}, nil
}
