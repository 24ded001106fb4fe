// Package audit is the journal's audit record, above the store (package
// journal): the export of the history and the check of an export, the
// check of the Merkle tree against signed checkpoints, the checkpoints
// themselves, and the secret scan of what the store holds. The bytes it
// writes — export lines, checkpoint notes, the checkpoints and secrets
// buckets — are described in docs/DESIGN.md ("Exports", "Checkpoints",
// "The bbolt file").
//
// # What it owns
//
// The Merkle tree over the events: its stored hashes (the merkle bucket),
// roots and proofs (TreeHash, ProveEvent, ProveTree), and what gc must keep
// of it (KeepTreeForGC, which the store calls through
// journal.GCOptions.KeepTree) (tree.go); Export, ExportLine and the export
// records (export.go); VerifyExport and
// CheckExport, the check of an export without the journal
// (exportverify.go); TreeCheck, which recomputes the tree from a walk of
// events and holds every checkpoint's root to it (treecheck.go), and
// VerifyTree, its run over a journal with its stored hashes' proofs
// (checkverify.go); checkpoints: making, signing (Sign, MakeCheckpoint),
// cosigning, merging, storing and reading them (checkpoint.go); the secret
// scan of events' contents and arguments, its findings, and masking for
// printing (secretscan.go), which reads large contents in pieces
// (ContentReader, contentreader.go).
//
// It reads the store through its exported API only, 32 names, among them:
// transactions (journal.Tx: Each, Event, Last, Pending, Base, Bolt for its
// own buckets, ReleaseOver for the pages its reads touch), the events and
// their canonical JSON (journal.Canonical, ComputeHash) and what redaction
// recorded (Tx.ArgsRedactedBy, Tx.UnsaltedRedacted, Event.RedactedEvents). The store never imports it;
// its one call up is gc's GCOptions.KeepTree, a function it is handed.
// scripts/rooms measures that line (ARCHITECTURE.md, "Rooms").
//
// # What stays in the store, and why
//
// Three parts of the record sit below this package, in journal, because
// they read or rewrite the store's own encoding and the store's other parts
// depend on them. (The Merkle tree's stored hashes sat there too until
// issue 60, for gc's sake: gc now keeps what the tree needs through
// GCOptions.KeepTree, and refuses a journal with a tree without it.)
//
//   - Redaction (journal/redact.go) rewrites event records in place, inside
//     packed blocks, deletes chunks with gc's sweep, compacts the file and
//     empties the write-ahead log; salting happens where an event first
//     becomes durable (Tx.Append, the log record), and gc and the store's
//     verify read the redacted bucket. What an export line says of a
//     redacted or withheld event (Withhold, the args_withheld reasons) is
//     the export's, here.
//   - The store's verify (journal.Tx.Verify) walks the raw records, blocks
//     and contents in parallel read transactions, like check.go's walk of
//     the pages: it is the store's check of its own encoding, whose
//     damage handling and memory release are the store's. The tree's part
//     of journal verify is this package's VerifyTree.
//   - Import (journal/import.go) writes an event received from elsewhere (a
//     clone) with its own number and hash through the store's append
//     internals; the workspace ID it keeps is a meta key of the store.
//
// # Rules
//
//   - An export line is derived from its hashed event alone and must equal,
//     byte for byte, what ExportLine makes of it: the check re-derives every
//     line, so a flipped byte anywhere fails it, naming the line.
//   - The head line names the newest sealed event's hash; an anchor held
//     elsewhere catches a truncated tail. A filtered export checks each line
//     and the links between consecutive events, never that nothing is
//     missing.
//   - A checkpoint's root must be the tree recomputed from the events at its
//     size: two checkpoints matching one sequence of leaves are consistent.
//     With verifier keys every checkpoint must carry a signature of one of
//     them (Quorum: of that many), and there must be one. A history that
//     parts from an earlier record (a checkpoint, an export, a remote's
//     copy) fails with ErrRewritten naming the first event where it
//     does, or against a checkpoint alone the range between the last
//     checkpoint it matches and the first it does not; a checkpoint of
//     another workspace, or signed by no key given, fails with
//     ErrCheckpoint.
//   - A salted event's arguments are disclosed beside its hashed event and
//     checked against its digest, or withheld with a reason: "redacted" only
//     where a redact event names them, "secret" when export withholds a
//     detected secret (the line still verifies by its digest).
//   - The secret scan records where a secret is, never its value; it runs
//     off the edit's path, after the events, and is recomputed from the
//     events and contents, so no format number marks it.
//   - A signer's key is the user's and never enters a journal or an export.
//
// Errors keep the store's "journal:" prefix and wrap its sentinels
// (journal.ErrCorrupt, journal.ErrState, ErrTree), so callers test
// them as before.
package audit
