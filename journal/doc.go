// Package journal owns the journal file: an append-only, hash-chained log of
// events over content-addressed snapshots (package snapshot), kept in one
// bbolt file, with indexes by path and by session, the heads (path → the
// content the journal last wrote or saw) and the sessions.
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
// The lock file also carries a note (DB.SetNote, DB.Note): a 4-byte
// big-endian length and that many bytes at offset 0, written without fsync
// by the holder of the exclusive lock for the next holder to read. The
// replay engine names there the temp files it writes before its intent
// commits, so that they can be removed after a crash, and then notes that
// the batch has all its files in place, so that a crash before its deferred
// seal does not undo it.
//
// # Write-ahead log
//
// <journal>.wal holds batches committed ahead of the bbolt file (the replay
// engine's logged batches, replay/doc.go). It is written with zeros ahead of
// the records (1 MiB when first needed, then 1 MiB more whenever a record
// would not fit, up to WALSize, 8 MiB; each extension fsynced), so that
// writing a record changes no metadata and its fdatasync is one flush. It
// keeps the size of the longest run. A record
// (LogRecord, DB.LogAppend) is, big endian:
//
//	magic "JWAL" (4) | payload length (4) | CRC-32C of the payload (4) | first event number (8) | event count (4)
//	payload: events JSON length (4) | events as a JSON array | per content: ID (32) | length (4) | bytes
//
// Records of a run follow one another from offset 0, each numbered right
// after the one before; a record whose magic, bounds or checksum fail (torn:
// never acknowledged), a voided one (header zeroed, DB.LogVoid) or one
// numbered otherwise ends the run (DB.LogRead). A run is not erased once the
// bbolt file has its events: the next run overwrites it from offset 0, and a
// reader skips records numbered at or below the bbolt file's last event. The
// log is read and written only under the exclusive lock; Journal.LogAhead
// tells a reader (shared lock) that the log holds events the bbolt file has
// not yet, which the CLI then completes by opening the replay engine.
//
// # Buckets
//
//	meta        "format" → 1 to 8, the newest feature the file holds (Format); after gc, "gc_base_seq", "gc_base_hash" (see gc.go);
//	            "log_unsynced" → the first event of the log's run whose files may not be synced yet (Tx.LogUnsynced);
//	            "log_trimmed" → the last event when the log was last emptied (DB.LogTrim)
//	events      seq (8 bytes, big endian) → event record
//	by_path     path 0x00 seq → block       (events touching a path: seq and the block's later ones, index.go)
//	by_session  session 0x00 seq → block    (events of a session)
//	heads       path → content ID (32) | mode (4) | seq (8)
//	pending     seq → ∅                     (events appended but not sealed)
//	links       seq → seq of the event that reverted it
//	sessions    session → JSON Session {id, actor, first, last, count}
//	actors      number → actor record, and a mirror under number | 1<<63 (actors.go; format 9)
//	staging     root dir 0x00 temp path → ∅ (temps to remove: made before an intent, or out of recovery's reach)
//	merkle      level (1) | index (8) → SHA-256 (32): the Merkle tree's stored hashes (see "Merkle tree")
//	checkpoints tree size (8) | time (8) → signed note (see "Checkpoints")
//	redacted    'e' | seq, or 'c' | content ID → the redact event (see "Redaction")
//	redactlines content ID → a redacted version's line owners and keyed line digests (package replay, redactlines.go)
//	secrets     seq → JSON findings of the secret detector; sequence: the last event scanned (secretscan.go)
//	chunks, lists, contents                 (package snapshot)
//
// Paths never contain NUL, so "path 0x00 seq" keys sort each path's events
// together, oldest first. A block's value lists the events after its key's
// in the block as uvarint differences (empty: the key's event alone, as
// every entry was before format 8), ~2 bytes per event instead of a key each.
//
// The log file keeps the longest run's size in zeros while it is written;
// the replay engine empties it when it closes (DB.LogTrim), once the bbolt
// file holds every event of it, after one more commit so that either meta
// page still names a file holding the run.
//
// # Damage
//
// A damaged file never panics a caller (damage.go, check.go): every open and
// transaction runs under protect, which turns bbolt's panics on damaged
// pages, and faults reading the mapping, into a DamageError (ErrDamaged) and
// records it in <journal>.damaged (with the file's inode: a replaced file is
// not refused); writers refuse while it applies. Before a handle's first
// read or write of a file it does not know sound (its own check or write,
// or the stamp beside the file: check.go), and in journal verify, Check
// walks the file's pages with plain reads, so that damage bbolt would only meet in a write (an overflow count
// that makes a commit exhaust memory) refuses the write instead. Tx.Scan
// lists events around a damaged record or page. Journal.Repair (repair.go)
// salvages every readable event and content into a new journal: each run of
// lost events becomes one damaged event (Event.Lost) that carries the hash
// links around the gap, so Verify and VerifyExport pass across it and show
// it; such a journal is format 3 (FormatRepaired) or later.
//
// # Event record
//
//	byte 0      record version (1: JSON, 2: compact, 3: compact naming its actor by number, 5 and 6: 2 and 3 of a salted event, record.go; 4 is a block, pack.go)
//	bytes 1..4  CRC-32C (Castagnoli) of the body, big endian
//	bytes 5..   body: the Event as JSON (1), or its fields in binary (2, 3)
//
// A journal written since format 5 stores its events compact whenever the
// compact record decodes to the same canonical JSON; events written before
// stay JSON and read as they are: the chain hash is over the canonical JSON
// either way. Since format 9 a compact record names its actor by number
// (v3, actors.go); v2 records written before read as they are.
//
// A record keeps what it could in principle derive, for damage's sake: Prev
// (the hash of the event before) lets repair take a record found in a
// damaged file's bytes only when it links to the event before it, and carry
// the links around a lost run; the file changes' Before IDs could be read
// from the path's previous event, but an event after a lost one would then
// be lost too. So damage to one record costs that record only (the actor's
// record is the exception, mirrored for that reason). The Hash is stored,
// not recomputed at every read, so a listing hashes nothing.
//
// Since format 10, events packLag (256) behind the newest are kept in
// blocks of 256: one zstd frame of their records, as they were (pack.go).
// Compressed together, a record's prev is a repeat of the hash before it,
// its before a repeat of the path's previous after, its arguments repeats of
// the paths and shapes before them. Since format 11 a block's compact
// records hold their arguments as they are, not each compressed on its own
// (record.go rawArgs), so the block's frame finds the repeats between calls
// too. BENCHMARKS.md "Storage" has the bytes per event. The
// price is the other side of the guarantee above: a damaged block costs its
// run of events where a damaged page of loose records costs the dozen it
// holds (repair still finds a whole block, or older loose copies of its
// records, in the file's bytes). Packing happens where events are written
// (Tx.put: append, seal, import and repair all write in order), every 256
// events, and in gc's copy, which packs what binaries before format 10
// left loose.
//
// Fields are added only with omitempty, so events written before a field
// existed keep their JSON and their hash: FileChange.NewDirs (new_dirs, the
// directories a change creates for a new file, for crash recovery) came after
// the first journals.
//
// A record that is too short, has an unknown version, fails its checksum or
// does not decode is reported as ErrCorrupt naming the event number. Inside
// bbolt a value is written whole or not at all, so a torn record can only come
// from damage to the file, which the checksum catches.
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
// What keeps a year of history small and its walks bounded:
// compact event records (record.go), the store's delta and splice chunks,
// inline manifests and contents of one chunk without any (package snapshot),
// index blocks (index.go), the log emptied when unused, the events bucket filled to 1.0 (appendFill),
// running store totals (snapshot/stats.go), a gc that copies what it keeps
// into a fresh file (gccopy.go) and compacts (compact.go), walks that let
// go of bbolt's mapped pages past a budget of resident memory (release.go),
// event blocks (pack.go). A journal holding any of these is marked format 4
// to 10 (Format), so an older binary refuses it instead of misreading it.
//
// # Hash chain
//
// An event is appended pending (the intent of the apply protocol) with Prev =
// the Hash of the event before it, and sealed once: Status becomes committed
// or rolled_back and Hash = blake3 of the event's JSON with Hash empty. An
// event can only be appended after its predecessor is sealed, which the
// writer lock guarantees (recovery seals a crashed process's pending event
// before anything else is appended). Verify walks the chain from event 1,
// recomputing every hash and link; links (reverted_by) live in their own
// bucket because they are added later, and are derivable from the chain
// (event M with Reverts = N).
//
// A chain proves that no record was changed, dropped or reordered since its
// head was seen — but whoever can write the file can rebuild the whole chain,
// or delete the journal and make another. The Merkle tree and its signed
// checkpoints bind the history to a key and to a moment someone else saw.
//
// # Merkle tree
//
// A binary Merkle tree with RFC 6962 hashing (golang.org/x/mod/sumdb/tlog:
// leaf SHA-256(0x00 || data), node SHA-256(0x01 || left || right)) over the
// sealed events in order: leaf i is event TreeBase+1+i (TreeBase is 0, or
// gc's base for a journal gc'd before it had a tree), a number no event
// holds (inside a span repair lost) has 32 zero bytes as its data. The tree
// has as many leaves as there are sealed events before the first pending
// one (TreeSize).
//
// A leaf's data is the event's chain hash (32 bytes), not its record: the
// chain hash is blake3 of the canonical record (the export's "event"), so
// it commits to every field and to the event before; leaves of a fixed 32
// bytes keep proofs and the tree's recomputation from re-encoding records
// (verify recomputes every leaf from the hashes it has just checked), and
// an auditor holding one record checks it with blake3 and SHA-256 alone
// (docs/VERIFY.md). The cost is one more hash function for the auditor.
//
// Stored: the hashes of complete subtrees of 256 leaves (tiles) and the
// levels above them, in the merkle bucket, as tlog would store them from
// level 8 up (two hashes per 256 events); everything
// below level 8 is recomputed from the events' hashes, 256 events at most,
// which are packed 256 to a block anyway (pack.go). The bucket is filled
// lazily, by the first checkpoint and every one after (extendTree): a
// journal written before the tree existed has none, reads as it is, and
// gets its tree when it is first checkpointed; nothing an edit does touches
// it. gc first stores what the tree needs of the events it drops (the
// complete tiles, and at level 0 the leaves of the tile its cut falls in),
// so roots and proofs of the kept events still compute; a checkpoint whose
// root needs leaves of a tile gc dropped whole cannot be recomputed and is
// reported as skipped, the later ones covering it.
//
// No format number marks the tree or the checkpoints: they are buckets an
// older binary does not read, whose gc copies them whole (gccopy.go), and
// every hash in them is recomputed from the events or bound by a signature,
// so nothing an older binary writes makes them say something false; at
// worst its gc drops leaves the tree needs, which verify reports
// (ErrTree). Exports are marked: a head with checkpoints is version 2.
//
// # Redaction
//
// An event with arguments written since format 12 commits to them by a
// salted digest (Event.ArgsDigest = blake3(ArgsSalt || Args), redact.go):
// its chain hash is over its JSON without the arguments and the salt, so
// both can be deleted and every hash, leaf, checkpoint and signature stays
// valid, while the salt (16 random bytes, stored beside the arguments and
// deleted with them) keeps the digest from confirming a guess. Arguments
// are salted where an event first becomes durable: Tx.Append, or the
// write-ahead record (LogAppendWith), whose JSON carries the salt into the
// bbolt file. An export line discloses them beside its hashed event
// (what.args, what.args_salt), or says why not (what.args_withheld). A
// prompt event (KindPrompt, format 13: an agent's prompt, no files) keeps
// the prompt's text and id in its arguments, so they are salted, redacted,
// exported and withheld exactly as a tool call's.
//
// DB.Redact takes out, in one transaction: the arguments and salt of the
// events named (their records rewritten in place, inside their block if
// packed); the contents named, whose chunks no kept content lists are
// deleted after every kept chunk that was a delta or splice against one of
// them is stored whole (snapshot.Unbase), by gc's sweep; then it appends a
// redact event (KindRedact, Event.Redaction: what, and why; who and when
// are its own) and indexes what it took in the redacted bucket ('e' | seq,
// 'c' | content ID → the redact event). The file is then compacted and the
// write-ahead log emptied, so that the values are on no free page of
// either. Verify checks the arguments it has against their digests,
// accepts missing ones only where a redact event names them and the index
// agrees, and does not re-hash redacted contents; reads of a redacted
// content fail with ErrRedacted naming the event. Events written before
// salting can be redacted too, at a price the redact event records
// (Redaction.Unsalted): their own hash can no longer be recomputed, only
// their links and leaves checked.
//
// # Checkpoints
//
// A checkpoint is a C2SP tlog-checkpoint in a C2SP signed note
// (golang.org/x/mod/sumdb/note, Ed25519): the origin
// "journal.workspace/<workspace ID>" (Tx.MakeWorkspace; a clone keeps it),
// the tree size, the root hash (base64) and a "time" extension line, then
// the signatures. The signer key is the user's (journal key generate writes
// it 0600 under os.UserConfigDir()/journal/, beside the remotes; or an SSH
// Ed25519 key, whose signatures are SSHSIG blobs ssh-keygen -Y verify
// checks: package sshnote), never in the journal or an export. Checkpoints are made on demand (journal
// checkpoint), by serve at the user's cadence and when it exits, kept in the
// checkpoints bucket, written into the head line of every export and pushed
// to remotes (immutable objects, under Object Lock with a retention).
// serve's cadence (cmd/journal/cadence.go) is a number of events, a time
// since the newest checkpoint's, the end of each MCP session, and its exit,
// each only once an event was sealed since the newest: it asks
// Tx.NewestCheckpoint, one record, every second. A witness countersigns a
// checkpoint (Cosign: one more signature line over the same text, stored
// in place); CheckOptions.Quorum asks for that many of the keys given on
// every checkpoint.
//
// Verify (TreeCheck) recomputes the tree from the events it has just
// checked and requires every checkpoint's root at its size: two
// checkpoints that match one sequence of leaves are consistent, which is
// what a consistency proof shows one who lacks the leaves. A journal's
// verify then also proves each of its checkpoints consistent with the next
// from the stored hashes (Tx.ProveTree, tlog.CheckTree), which prove uses:
// stored hashes damaged or altered on their own fail it (ErrCorrupt). With verifier keys every checkpoint must be signed
// by one of them, and there must be one. Given an earlier record — a
// checkpoint, an earlier export (its events' hashes and its checkpoints),
// or a remote's copy — the history must still match it: a journal deleted
// and regenerated, cut, or altered anywhere fails (ErrRewritten), naming
// the first event where it parts from the earlier events, or, against a
// checkpoint alone, the range between the last checkpoint it matches and
// the first it does not (a root names no single leaf). A checkpoint of
// another workspace, or signed by no key given, fails with ErrCheckpoint.
package journal
