// Package boltfile reads and patches bbolt's on-disk format without bbolt:
// the structural walk of a file's pages (Check), the count its freelist
// page holds (FreePages), and the patches that make a copy of a damaged
// file readable by bbolt (Poison, SetRoot, WriteMetas, RootCandidates). It
// knows bbolt's pages, meta pages and elements, nothing of the journal:
// what the store makes of a walk — the stamp, the damage marker, the
// readable copy, repair — is package journal's (journal/check.go,
// journal/readable.go).
//
// # Why
//
// bbolt trusts its pages: a damaged header makes it panic, a read outside
// its mapping faults, a cycle of pages (a child pointer that names an
// ancestor, a branch page without elements whose cursor reads element -1)
// makes it loop for ever — which nothing can stop once started — and, in a
// write, a page that claims millions of overflow pages exhausts memory when
// freed. So the walk reads the file as bbolt lays it out, through its own
// read-only mapping: both meta pages (magic, version, checksum; the newer
// valid one is used), then every page reachable from the root bucket —
// nested buckets, inline ones included — checking that each lies below the
// high-water mark and inside the file, names itself, is a branch or leaf
// page, is reached once (no cycles, no sharing), and that its elements,
// keys and values lie inside it; and the freelist: its page's header, and
// every free page it lists lies below the high-water mark, once, in order,
// and is no page the tree uses (a commit allocates from it: a damaged entry
// would make bbolt write over a live page). Its cost is a touch of every
// page in use (BenchmarkCheck100k in cmd/journal).
//
// # Rules
//
//   - The walk does not stop at the first damage: it walks every sound page
//     and notes each reference (a branch element, a bucket header, the meta
//     page's root) to a page it found damaged, and whether that reference
//     needs poison (bbolt could read the page and loop) or bbolt refuses
//     the page by itself (Refs, MetaRoot).
//   - Damage is a *Damage saying what, in words the user reads; any other
//     error is the file not being readable at all.
//   - The patches write only the copy they are given, never the file walked.
//   - The constants are bbolt's (go.etcd.io/bbolt/internal/common), little
//     endian as bbolt writes them on the machines we build for; a bbolt
//     release that changed its format would fail the store's damage tests
//     (journal/damagetest).
package boltfile
