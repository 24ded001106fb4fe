// Package replay is the engine: workspace roots and path safety, atomic
// multi-file apply, crash recovery, change detection, revert, undo, redo,
// restore, rewind and status — all as folds over the journal.
//
// A batch commits by one of two paths. The usual edit (files that exist,
// new contents held in memory and small) commits by one record in the
// journal's write-ahead log ("Logged batches" below); every other batch
// (new files, deletes, large or streamed contents) commits by a bbolt intent
// ("The apply protocol"). ARCHITECTURE.md says why both are kept. Changes
// made outside the engine are recorded by Observe, which writes no file and
// needs no recovery ("Outside changes: Observe").
//
// # Roots and paths
//
// Every file operation goes through an os.Root per workspace root, so `..`,
// symbolic links and races can never reach outside it. Resolve refuses NUL
// bytes, empty and over-long paths, paths outside every root, and the
// journal's directory. A symbolic link as the final component is refused
// (writing through a temp file and rename would replace the link), and so is a
// regular file with more than one hard link (its other name may be outside).
//
// # Walking a root
//
// Root.Walk is the one walk of a root's tree (the watcher's, a hook's
// without a watcher, status's). It starts from the os.Root's own
// directory and opens each directory relative to its parent's open
// handle with O_NOFOLLOW; each name is stat'd relative to its directory
// without following it. So it never follows a symbolic link, and a
// directory swapped for a link or another directory between its stat and
// its open is skipped. It passes directories and regular files only; a
// name that vanishes or cannot be opened is skipped, never an error.
//
// # The apply protocol
//
// Apply (and Edit, which computes the changes from the files as they are once
// the lock is held) runs, with the journal held exclusively, for a batch that
// is not logged:
//
//  0. Recovery of any batch a crashed process left pending.
//  1. Validation against the ORIGINAL contents: paths, expected versions, deletes of missing files.
//     Files whose disk content differs from their head get an observe event first.
//  2. Intent: one bbolt transaction stores before- and after-contents, the
//     observe events (committed) and the batch's event (pending).
//  3. Files: every new content is written to a temp file beside its target
//     (".<name>.jtmp-<seq>", mode preserved) and fsynced; then every rename and
//     removal; then every touched directory is fsynced.
//  4. Commit: the event is sealed committed and the heads move — deferred
//     (seal.go). The batch returns once its files are in place and durable;
//     its seal goes into the next transaction the engine commits anyway (the
//     next batch's intent, so back-to-back edits pay one bbolt commit each,
//     not two), or a transaction of its own 20 ms later if no batch comes, or
//     at once when a reader asks (Journal, Status, Event, FindEdit, Recover,
//     Close, and revert/undo/redo/restore, whose plans read events).
//     Meanwhile change detection compares files with the unsealed event's
//     after-contents, and recovery leaves it alone. Before returning, the
//     batch writes "done <seq>" into the lock file's note.
//
// When every file of the batch exists and gets a new content held in memory
// (writeAhead), the temps of 3 are written and fsynced by a goroutine while
// 2 commits: the two fsyncs overlap instead of following one another, and
// no rename happens before both are done, so the files' guarantee is the
// same. Such a batch first writes the temps' names into the lock file's note
// (journal.DB.SetNote; no fsync, it only has to outlive a crashed process):
// recovery removes the temps a note names when the journal has no event of
// its number, i.e. the intent never landed. After a power failure in that
// window a temp may remain (the note may be lost); it is a hidden
// ".<name>.jtmp-<seq>" file.
//
// Recovery of a pending event left by a stopped process (crash, SIGKILL,
// power failure) first asks whether the batch completed: if the note says
// "done" for it, or every file holds its after-content and none of its temps
// is left, it is sealed committed — a batch that returned success is never
// undone. (After a power failure the note may be lost; a batch completed less
// than 20 ms before the failure one of whose files someone else changed in
// between would then be rolled back — the files changed since are left alone.)
// Any other pending event is rolled back as below.
//
// A failure in 3 rolls back at once: every file whose disk content is the
// event's after-content is put back to its before-content (through a temp file
// and rename), temps are removed, and the event is sealed rolled_back. If even
// that fails, the event stays pending and the next Open (or the next batch)
// recovers it the same way. Recovery is idempotent: it only touches files that
// hold the after-content, so running it twice changes nothing, and a file
// changed by someone else after the crash is left alone. The event records the
// parent directories each new file needs (FileChange.NewDirs), so recovery
// after a crash removes them again, innermost first, when they are empty.
//
// A temp file recovery cannot reach, because its directory was swapped for a
// symbolic link outside the root or a loop, does not keep the event pending
// (every later batch would fail behind it): the file behind it is left as it
// is, the rest of the event is rolled back, and the event is sealed
// rolled_back with a reason naming the temp, which the same transaction puts
// in the journal's staging list. Every recovery tries to remove the staged
// temps (through the os.Root, never following a link outside) and forgets one
// once it is gone; one still out of reach stays staged, one that cannot be
// removed for another reason (a read-only directory) is forgotten and left.
//
// Contents at or above Options.StreamThreshold (16 MiB) never sit in memory:
// the new content is streamed into its temp file, which is staged in the
// journal first so recovery can remove it, and both contents stream into the
// store (snapshot.PutStreamWith) in transactions of their own before the
// intent.
//
// # Large files: what an edit costs
//
// A one-line edit of a large file the engine wrote last (the usual case: an
// agent editing the same file again) costs one pass over the content, shared
// by three goroutines, plus a few small fsyncs:
//
//   - The file's version comes from the version cache (version.go): the
//     engine proved, when it renamed the file into place, that any later
//     change would change the file's identity, so it is not hashed again.
//     Otherwise it is hashed, one goroutine reading while another hashes
//     (hashReader).
//   - A staging transaction records the temp file's name (one bbolt commit).
//   - One pass (stageStreams): the plan's Source writes into 1 MiB blocks of
//     an asyncPipe (a Source copying from the old file with io.Copy reads
//     straight into them). The writer writes every block to the temp file,
//     whose writeback is started every 4 MiB (sync_file_range) so that its
//     fsync finds little left to write. A goroutine of the pipe hashes every
//     block (the content's ID). The reader, snapshot.PutStreamWith, compares
//     the content with the file's previous version chunk by chunk (its layout
//     is kept with the cached version, its bytes read from the old file,
//     whose identity must be unchanged at the end or the batch fails with
//     ErrConflict), so only the few chunks around the edit are cut, hashed
//     and compressed; the chunks, one new chunk list and the manifest are
//     committed in one transaction.
//   - The temp file's fsync, the intent transaction, the rename (the old
//     inode is held open and closed in the background, holdOld, so freeing
//     its blocks and page cache is not inside the rename) and the
//     directory's fsync.
//
// BENCHMARKS.md has the figures (BenchmarkApply_OneLineEdit50MB and its
// step timings).
//
// # Logged batches: the write-ahead log
//
// The usual edit — every file of the batch exists and gets a new content
// held in memory, contents of at most 2 MiB before and after (Options.LogLimit)
// — does not commit by a bbolt intent. Its commit is one record in the
// journal's write-ahead log (<journal>.wal, a file written with zeros ahead
// of the records, so that a record overwrites allocated blocks: one pwrite
// and one fdatasync, no metadata, where a bbolt commit's pages are scattered
// over the B+trees and it syncs twice). The record holds the batch's events
// (observe events first), numbered, and every after-content (and a
// before-content the store lacks): enough to redo the batch. Then, wal.go:
//
//  1. The lock file's note names the temps (as for writeAhead, above).
//  2. The record is written, its write-back started, then the temps are
//     written, not fsynced, while the disk writes it, then the record is
//     synced (journal.DB.LogAppendWith); no rename happens before the
//     record is durable. In a server (Options.SpareTemps) a temp is an
//     unnamed file made after the previous batch, outside the lock, written,
//     then linked under its name (spare.go): no inode is allocated inside
//     the lock.
//  3. Every rename, each file's old inode held open across it and closed in
//     the background (holdOld: the rename does not free it). No directory
//     fsync. The batch returns.
//  4. The checkpoint, deferred like the seal of 4 above (the timer 20 ms
//     after the last batch, Close, Recover, gc, a batch that is not logged, a
//     log run of 64 batches or one whose oldest batch is 100 ms old): every
//     logged batch's files are fsynced, then their directories, then one
//     bbolt transaction appends their events, committed, with their
//     contents. The log is not erased: the next run starts at offset 0, and a
//     record numbered at or below the journal's last event is one the bbolt
//     file has.
//  5. A reader of the journal (Journal, Status, Event, FindEdit, Content, and
//     the plans of revert, undo, redo and restore) needs the events, not the
//     files' durability: FlushSeal moves the logged events into the bbolt
//     file with one commit and no fsync (appendForReaders), and the run goes
//     on. The bbolt file then notes the run's first event whose files may be
//     unsynced (journal.Tx.LogUnsynced); the checkpoint clears it, and until
//     then a recovery rolls the files of the whole run forward from there (in
//     order: every event from that one on is a record of the run, since a
//     batch that is not logged checkpoints first), appending only the events
//     the bbolt file lacks. A revert right after an edit costs one bbolt
//     commit for it, not two fsyncs and a commit.
//
// Several processes share one run (adopt, wal.go). A process that takes
// the lock and finds records past the bbolt file's last event — another
// server's batches, logged and renamed, or a stopped process's — takes them
// over instead of ending the run: it rolls them forward (below; a running
// engine skips reading the files when the last batch's note says it finished
// since the machine booted: every batch before it was taken over, in turn,
// by the process that logged the next), keeps them as its own logged batches
// (their heads, their contents, their numbers), and appends after them. Any
// process's checkpoint ends the run for all; the others find their batches in
// the bbolt file and forget them. Runs are adopted between processes that
// write one journal in turn: a serve --share=false, the CLI, a serve with
// other flags; the stdio servers of one workspace are one writing process
// (package mcp, "Several servers on one workspace"), whose batches come back
// to back under one lease of the lock (Engine.do). Open's own recovery,
// which more often than not follows a crash, reads the files and
// checkpoints what it took over.
//
// The record is the commit: a logged batch is never rolled back by
// recovery, it is rolled forward. Recovery (any process that takes the
// journal) reads the log's records numbered past the bbolt file's last event
// and, for each file: holding the after-content, it stays; holding the
// before-content (the process stopped before its rename, or a power failure
// lost the rename), it gets the after-content from the record through a temp
// and rename; holding neither, someone else changed it since and it is left
// (the next batch records it as an outside change) — unless the machine has
// booted since the batch and the file's inode last changed before that boot,
// which is a file a power failure tore (its unsynced data), which gets the
// after-content. Then files and directories are fsynced and the events
// appended. A batch that fails after its record landed (a temp's write, a
// rename) puts back the files it renamed, removes its temps, voids the record
// (zeroes its header and fdatasyncs) and is recorded rolled_back, like a
// failed unlogged batch; if a file cannot be put back the record stays and
// the next batch completes it instead.
//
// What this gives up: until the checkpoint (at most ≈ 100 ms, or 20 ms after
// the last batch) an acknowledged edit's file is in the page cache, not on
// disk. A power failure in that window can leave the file as it was (or torn)
// until the journal is next opened — the edit itself is durable in the log,
// and any journal process puts it back. A process crash (SIGKILL, panic)
// loses nothing: the page cache survives it. The unlogged path keeps the
// stronger guarantee (files durable before the batch returns) for new files,
// deletes, large and streamed contents.
//
// # Recovery
//
// Recover (recover.go) runs when an engine opens the journal and under the
// lock before every batch, and is idempotent. In order: the temps the lock
// file's note names are removed when the journal has no event of their
// number (an intent or record that never landed); the staged temps are
// removed where they can be reached; every pending event of another
// process is sealed committed if its batch completed (the note says done,
// or every file holds its after-content) and rolled back otherwise ("The
// apply protocol"); then the log's records past the bbolt file's last event
// are rolled forward and their events appended ("Logged batches").
// Recovery rolls back only pending intents; a record it finds in the log
// is always rolled forward.
//
// # Revert, undo, redo, restore, rewind
//
// Revert(N) builds a new event from event N's files: a file still as N left
// it gets N's before-content exactly; a file changed since gets N's change
// reversed by a three-way merge (base = N's after, ours = the file now,
// theirs = N's before); overlapping changes refuse the revert with a
// *ConflictError naming the lines, and Force restores N's before-content
// exactly — always as a new event, so nothing is lost. Undo reverts the
// newest live event that is not an undo (of one session, or anyone's); Redo
// reverts the newest live undo, unless a new change came after it. An event is
// live unless the event that reverted it is itself live (so a revert of a
// revert makes the original live again). Restore(path, N) sets a file to its
// content right after N. Rewind(N) (rewind.go) sets every file the journal
// knows to its state right after N, as one restore event that one undo takes
// back: files created since are removed, files deleted since recreated; a
// file first seen by a watcher's baseline after N is left alone. Undo and
// Revert take observe events recorded by the watcher, a hook or journal exec
// like any other (not a baseline, whose files existed before it, and not an
// outside change recorded only because a tool was about to overwrite it:
// its tool's event follows). A revert or undo that deletes a file its event
// created also removes the directories that creation made for it
// (FileChange.NewDirs) where the delete leaves them empty, once the batch is
// done (Change.PruneDirs): a crash before that leaves empty directories only.
//
// # Outside changes: Observe
//
// Observe (observe.go) records files that another process changed as
// committed observe events; the workspace watcher (package replay/watch)
// and the hooks call it. It writes no file, so it needs no intent, no temps
// and no recovery: the contents are stored first, in chunks of transactions
// of their own (contents no event names are harmless, and gc sweeps them);
// then, with the journal held, each file's identity is checked to be what
// it was when read, every logged and unsealed batch is moved into the bbolt
// file, and each event is appended committed in one transaction, which
// moves the heads. It is not a third commit path: only the intent's own
// observe events without a batch behind them. A file equal to its head
// (this engine's own write) is left out. A file whose stats differ around
// its read, or that changed within racyMargin of it and reads differently
// once the margin has passed, is returned as unsettled rather than recorded
// half-written.
//
// # Blame
//
// BlameTx (blame.go) names, for every line of a file after an event, the
// event that wrote it, replaying the file's versions from the path index
// oldest first and diffing each against the one before. It reads through
// one bbolt read transaction: snapshot.Versions serves the chunks a version
// shares with the one before from memory, and three goroutines share the
// work (read, hash each version whole, split and diff). BlameContent blames
// any content of a file (a commit's blob) by the same rules; package
// replay/gitai writes git notes from it.
//
// # Blame by content
//
// Who wrote a line is a fact about its content, not about the last change
// that put it in the file. The rules:
//
//   - Evidence. A line's owner is the event whose change first brought that
//     exact text into the file's history (every life of the file: a file
//     deleted and made again; the old path of a move the journal or git
//     reports, or that the journal saw as an outside create and a delete of
//     that very content within three events; and, for an outside create no
//     move explains, the paths outside changes deleted within three events
//     of it — a move whose file changed on the way). Exact bytes only —
//     never similarity.
//   - Conservation. A change that only puts content back — an outside change
//     (a git checkout, stash pop, reset, revert, a restore by git or any
//     shell command, whoever ran it) or a revert, undo, redo or restore of
//     ours — keeps the owners the content had: a version the history held
//     whole takes that version's owners line for line; otherwise each line it
//     changed whose distinctive text (three characters or more besides white
//     space, two of them letters or digits) the history holds under one owner
//     is that owner's, and a brace or blank line is, where it stood beside the
//     same neighbour line under the same owner. Only lines new to the file
//     are the change's. A tool's edit (an agent's call, a person's CLI edit)
//     wrote what it changed: its lines are its own, even where the text
//     existed before.
//   - Fail closed. A text two owners wrote proves neither; a line the journal
//     never held, or held only past a gc, is owned by no event (0) — in a
//     git note, untracked, never attributed. A version a redaction took out
//     hides what changed across it: the next version's lines are owned by
//     none but those the memory proves, never by the next event's author
//     (a file whose newest version was taken out is journal.ErrRedacted).
//
// # Several processes
//
// Writers serialize on the journal's lock (see package journal): a blocking
// flock of <journal>.lock, then bbolt opened for the batch and closed after
// it. The write-ahead log is read and written only under that lock; a
// process that takes it and finds records past the bbolt file's last event
// that are not its own logged batches (a crashed process's, or a running
// server's last few) takes them over (see "Logged batches"); a reader that
// needs them in the bbolt file (the CLI) checkpoints them, and the engine
// that logged them finds them there at its next batch and forgets them. A
// second process waits its turn (the lock passes to the next waiter as soon
// as it is released, and a waiter is not passed over by one that came
// later) and gives up with journal.ErrBusy only after LockTimeout without
// any progress of the holders. Inside one process a mutex orders batches
// before they reach the lock, and while batches are queued on it the lock is
// kept for the next with bbolt open (journal.Lease), unless someone else
// waits for it: several sessions of one server then pay no open, close and
// flock per batch. Another process reading the journal within 20 ms of a
// batch (journal log while the server edits) may see that batch still
// pending; a writing process's recovery seals it committed (its note says
// done).
package replay
