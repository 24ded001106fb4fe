package journal

import (
	"bytes"
	"os"
	"strconv"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Reading the whole journal (verify, export, gc's mark, a long log) touches
// every page of bbolt's mapping of the file, and each page touched counts in
// the process's resident memory until the mapping is dropped: a 1 GB journal
// would need 1 GB of RSS to verify. A walk calls release every so many
// events; when the process's file-backed resident memory is past
// mappedBudget, the kernel is told to drop the mapping's pages from the
// process (MADV_DONTNEED: the page cache keeps them, so touching one again
// costs a minor fault), as the structural check does for its own mapping
// (check.go). Dropping only past the budget, not at every call, keeps those
// faults rare: a verify that re-hashes contents reads chunks all over the
// file (their keys are hashes), and dropping every 256 events cost it 25 %
// more time. The mapping is read-only and bbolt writes through the file, so
// this loses nothing; the transaction holds bbolt's mmap lock, so the mapping
// cannot move meanwhile.

// releaseEvery is how many events a walk reads between releases;
// releaseContents, when it reads every event's contents too;
// releaseRandom, how many records a walk that reads pages all over the file
// (gc's copy of the indexes, of contents' chunks) reads between checks;
// releaseVersions, how many versions a worker of verify rebuilds between
// checks (each reads its new chunks and their delta chains). A page a read
// faults in maps ~110 KiB of the page cache around it (fault-around, large
// folios; MADV_RANDOM changes nothing), so 1,024 random reads can map 100
// MiB: at a million events, gc's peak was 220 MiB of mapped pages between
// two checks, verify's 137 MiB.
const (
	releaseEvery    = 1024
	releaseContents = 64
	releaseRandom   = 64
	releaseVersions = 16
)

// mappedBudget is the file-backed resident memory (the binary's pages and
// the journal's mapping) past which release drops the mapping's pages.
const mappedBudget = 64 << 20

// release drops the pages of the journal's mapping from the process's
// resident memory, if the process holds more than mappedBudget of mapped
// file pages (or cannot tell).
func (t *Tx) release() {
	budget := int64(mappedBudget)
	if t.budget != 0 {
		budget = t.budget
	}
	releaseOver(t.mapping(), budget)
}

// copyBudget is mappedBudget for gc's copy, which reads the old file and
// the new one at random (chunks keyed by hash): it re-reads a dropped page
// at little cost, so it keeps half as many (a million events: 330 → 124 MiB
// of peak RSS with the checks above, for a tenth more time).
const copyBudget = 32 << 20

// releaseOver drops the pages of the mapping m from the process's resident
// memory if the process holds budget bytes or more of mapped file pages (or
// cannot tell).
func releaseOver(m []byte, budget int64) {
	if n, ok := residentShared(); ok && n < budget {
		return
	}
	if m != nil {
		_ = unix.Madvise(m, unix.MADV_DONTNEED)
	}
}

// ReleaseOver drops the pages of the journal's mapping from the process's
// resident memory if the process holds budget bytes or more of mapped file
// pages (or cannot tell): for a reader above the store whose reads touch
// pages all over the file (contents rebuilt from chains of splices, whose
// chunks are keyed by hash), which the store's own walks release as they
// go. The pages stay in the page cache: a page read again costs a fault.
func (t *Tx) ReleaseOver(budget int64) { releaseOver(t.mapping(), budget) }

// releaseAll drops the pages of the journal's mapping from the process's
// resident memory, whatever it holds: after a step that read much of the
// file, before the next one.
func (t *Tx) releaseAll() {
	if m := t.mapping(); m != nil {
		_ = unix.Madvise(m, unix.MADV_DONTNEED)
	}
}

// mapping returns bbolt's mapping of the file, as far as this transaction sees it.
func (t *Tx) mapping() []byte {
	info := t.tx.DB().Info()
	size := t.tx.Size()
	if info == nil || info.Data == 0 || size <= 0 {
		return nil
	}
	// the mapping is not Go memory: its address comes as an integer
	base := *(*unsafe.Pointer)(unsafe.Pointer(&info.Data))
	return unsafe.Slice((*byte)(base), size)
}

// residentShared returns the process's resident file-backed (shared) memory
// in bytes, from /proc/self/statm (Linux).
func residentShared() (int64, bool) {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0, false
	}
	f := bytes.Fields(b)
	if len(f) < 3 {
		return 0, false
	}
	pages, err := strconv.ParseInt(string(f[2]), 10, 64)
	if err != nil {
		return 0, false
	}
	return pages * int64(os.Getpagesize()), true
}
