// Package journal is the store: an append-only, hash-chained log of events
// over content-addressed snapshots (package snapshot), kept in one bbolt
// file, with indexes by path and by session, the heads (path → the content
// the journal last wrote or saw), the sessions, the write-ahead log, the
// lock, damage checks and repair, gc and redaction. The audit record built
// on it — the Merkle tree over the events, export and its check,
// checkpoints, the tree's check, the secret scan — is package
// journal/audit, which the store never imports; the walk of bbolt's pages
// behind the damage checks is package journal/boltfile.
//
// Every byte it writes (buckets and keys, event records and blocks, actors,
// index blocks, the write-ahead log's records, the lock file's note, the
// files beside the journal) and each format's history are described in
// docs/DESIGN.md; this file says what the store owns and the rules it
// keeps.
//
// # File
//
// The journal lives at <first root>/.journal/journal.db; .journal/ holds a
// .gitignore containing "*". A new journal is created under a temporary name,
// its buckets made and committed (fsync), then linked into place and the
// directory fsynced: a crash never leaves a half-made journal, and two
// processes creating one at once end up sharing the first.
//
// # Several processes
//
// bbolt holds an exclusive flock for as long as a file is open. A Journal
// therefore holds nothing between calls. Do first takes <journal>.lock with a
// blocking exclusive flock, waiting as long as the holders make progress and
// giving up with ErrBusy after Options.Timeout (default 2 s) without any
// (lock_unix.go), then opens the bbolt file, runs one batch — its intent
// transaction (which also seals the previous batch, whose seal the replay
// engine defers) and its file writes — closes it and
// releases the lock; View takes the lock file shared and opens bbolt
// read-only. Waiters block in the kernel and get the lock as soon as it is
// released (bbolt's own lock would poll every 50 ms, and a poller can starve
// under steady contention). All writers of all processes serialize there, so
// two batches touching one file are ordered and the second sees the first.
// BENCHMARKS.md has the cost (BenchmarkJournalOpenClose).
//
// A Lease (Acquire, Lease.Do, Release) is Do's lock kept across batches: a
// process with batches queued behind the one it runs keeps the lock and the
// open bbolt file for the next, as long as nobody else waits for the lock
// (Contended: someone holds the queue file). Do is Acquire, one Lease.Do and
// Release. Nothing else writes the file meanwhile, so nothing a reopen would
// learn is missed; a waiter of another process, or a reader of this one,
// gets the lock after the batch in progress.
//
// The lock file also carries a note (DB.SetNote, DB.Note), written without
// fsync by the holder of the exclusive lock for the next holder to read:
// the replay engine names there the temp files it writes before its intent
// commits, so that they can be removed after a crash, and then notes that
// the batch has all its files in place, so that a crash before its deferred
// seal does not undo it.
//
// # Write-ahead log
//
// <journal>.wal holds batches committed ahead of the bbolt file (the replay
// engine's logged batches, replay/doc.go). It is written with zeros ahead of
// the records (DB.LogReserve makes them ahead of a batch), so that writing a
// record changes no metadata and its fdatasync is one flush. A torn, voided or misnumbered record ends a run
// (DB.LogRead): a record is the commit only once it is whole and synced. A
// run is not erased once the bbolt file has its events; a reader skips
// records numbered at or below the bbolt file's last event. The log is read
// and written only under the exclusive lock; Journal.LogAhead tells a reader
// (shared lock) that the log holds events the bbolt file has not yet, which
// the CLI then completes by opening the replay engine. The replay engine
// empties it when it closes (DB.LogTrim), once the bbolt file holds every
// event of it, after one more commit so that either meta page still names a
// file holding the run.
//
// # Records
//
// An event is stored as the most compact record that decodes to exactly its
// canonical JSON (record.go), else as JSON; events written before a record
// version existed read as they are. The chain hash is over the canonical
// JSON whatever the record, and the store's other encodings (actors by
// number, actors.go; event blocks, pack.go; index blocks, index.go) are
// storage details no hash covers. Fields of an event are added only with
// omitempty, so events written before a field existed keep their hash.
//
// A record keeps what it could in principle derive, for damage's sake: Prev
// lets repair take a record found in a damaged file's bytes only when it
// links to the event before it, and carry the links around a lost run; the
// file changes' Before IDs could be read from the path's previous event, but
// an event after a lost one would then be lost too. So damage to one record
// costs that record only (the actor's record is the exception, mirrored for
// that reason), and a damaged block its run of events. The Hash is stored,
// not recomputed at every read, so a listing hashes nothing. Packing happens
// where events are written (Tx.put: append, seal, import and repair all
// write in order) and in gc's copy.
//
// A record that is too short, has an unknown version, fails its checksum or
// does not decode is reported as ErrCorrupt naming the event number. Inside
// bbolt a value is written whole or not at all, so a torn record can only come
// from damage to the file, which the checksum catches.
//
// # Formats
//
// Anything an older binary would misread takes a new format number (Format,
// journal.go), marked in the transaction that first writes it
// (Tx.MarkFormat); Do and View refuse a journal of a newer format
// (ErrFormat, FormatHint) and read every older one as it is. Buckets an
// older binary ignores and gc copies whole, whose contents are recomputed
// from the events or bound by a signature (the tree's hashes, checkpoints,
// secrets, store totals), take no number. docs/DESIGN.md "Version history"
// lists what each number added.
//
// # Hash chain
//
// An event is appended pending (the intent of the apply protocol) with Prev =
// the Hash of the event before it, and sealed once: Status becomes committed
// or rolled_back and Hash = blake3 of its canonical JSON (Canonical). An
// event can only be appended after its predecessor is sealed, which the
// writer lock guarantees (recovery seals a crashed process's pending event
// before anything else is appended). Verify walks the chain from event 1
// (or gc's base), recomputing every hash and link; links (reverted_by) live
// in their own bucket because they are added later, and are derivable from
// the chain (event M with Reverts = N).
//
// A chain proves that no record was changed, dropped or reordered since its
// head was seen — but whoever can write the file can rebuild the whole chain,
// or delete the journal and make another. The Merkle tree and the signed
// checkpoints of package journal/audit bind the history to a key and to a
// moment someone else saw.
//
// # Merkle tree
//
// The tree over the events and its stored hashes are package
// journal/audit's (tree.go there: RFC 6962 over the sealed events' chain
// hashes, tiles of 256 from level 8 up, in a bucket of its own, filled
// lazily by a checkpoint). The store keeps one duty to it: gc must keep
// what the tree needs of the events it drops, so that roots and proofs of
// the kept events still compute. gc calls GCOptions.KeepTree
// (audit.KeepTreeForGC, which replay.Engine.GC sets) in its own
// transaction before its copy, and refuses (ErrState), dropping nothing, a
// journal whose tree is stored when no KeepTree is given.
//
// # Redaction
//
// Redaction (redact.go) sits in the store because it rewrites the store's
// records: DB.Redact takes out, in one transaction, the arguments and salt
// of the events named (their records rewritten in place, inside their block
// if packed) and the contents named (kept chunks stored against them stored
// whole first, snapshot.Unbase; the rest deleted by gc's sweep), appends a
// redact event (KindRedact) and indexes what it took in the redacted bucket.
// The file is then compacted and the write-ahead log emptied, so that the
// values are on no free page of either; a crash before that is finished by
// the next recovery (FinishRedaction). Arguments are salted where an event
// first becomes durable (Tx.Append, or LogAppendWith), so that taking them
// out breaks no hash. Verify accepts a missing value only where a redact
// event names it and the index agrees; reads of a redacted content fail with
// ErrRedacted naming the event. Events written before salting can be
// redacted too, at a price the redact event records (Redaction.Unsalted):
// their own hash can no longer be recomputed, only their links and leaves
// checked.
//
// # Damage
//
// A damaged file never panics a caller (damage.go, check.go; the page walk
// is package journal/boltfile): every open and transaction runs under
// protect, which turns bbolt's panics on damaged pages, and faults reading
// the mapping, into a DamageError (ErrDamaged) and records it in
// <journal>.damaged (with the file's inode: a replaced file is not
// refused); writers refuse while it applies. Before a handle's first
// read or write of a file it does not know sound (its own check or write,
// or the stamp beside the file: check.go), and in journal verify, Check
// walks the file's pages with plain reads, so that damage bbolt would only
// meet in a write (an overflow count that makes a commit exhaust memory)
// refuses the write instead. Tx.Scan lists events around a damaged record or
// page. Journal.Repair (repair.go) salvages every readable event and content
// into a new journal: each run of lost events becomes one damaged event
// (Event.Lost) that carries the hash links around the gap, so Verify and
// audit.VerifyExport pass across it and show it.
//
// # Garbage collection
//
// GC (gc.go, "Retention") drops a prefix of the chain older than a window,
// never a file's last state, never what a retained or pending event names,
// never a write-ahead run whose files may be unsynced, and records itself as
// a gc event; Verify then starts the chain from the stored base. A gc that
// drops events copies what it keeps, in key order and in transactions of
// bounded size, into a fresh file beside the journal (gccopy.go), so that
// memory does not grow with the journal; a compaction copies the live pages
// the same way (compact.go). Either swaps the fresh file in (swapIn): fsync,
// rename over the journal, fsync of the directory, all under the exclusive
// lock, as the last step of its Do — other processes open the file anew for
// each call and find the new one. A crash before the rename leaves the
// journal as it was and a fresh file the next rewrite removes; after it, the
// new file whole: there is no in-between state to recover.
//
// # Size and memory
//
// A year of history stays small and its walks bounded by: compact records,
// actors by number and event blocks; the store's delta and splice chunks and
// inline manifests (package snapshot); index blocks; the log emptied when
// unused; the events bucket filled to 1.0 (appendFill); running store totals
// (snapshot/stats.go); gc's copy and compaction; walks that let go of
// bbolt's mapped pages past a budget of resident memory (release.go).
// BENCHMARKS.md "Storage" has the bytes per event.
package journal
