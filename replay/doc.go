// Package replay is the engine: roots and path safety, atomic multi-file
// apply, recovery, change detection, revert, undo, restore, rewind, status.
//
// A batch commits by one of two paths: the usual edit by one record in the
// journal's write-ahead log ("Logged batches"), every other batch (new
// files, deletes, large or streamed contents) by a bbolt intent ("The apply
// protocol"); ARCHITECTURE.md says why both are kept, docs/DESIGN.md what
// each writes. Observe records outside changes and writes no file.
//
// # Roots and paths
//
// Every file operation goes through an os.Root per workspace root, so `..`,
// symbolic links and races can never reach outside it. Resolve refuses NUL
// bytes, empty and over-long paths, paths outside every root, and the
// journal's directory. A symbolic link as the final component is refused
// (writing through a temp file and rename would replace the link), and so is a
// regular file with more than one hard link (its other name may be outside).
// Root.Walk, the one walk of a tree (watcher, hooks, status), opens each
// directory at its parent's handle with O_NOFOLLOW and stats names there
// unfollowed: a link is never followed, a directory swapped between its
// stat and its open is skipped, and only directories and regular files
// are passed (a name that vanishes or cannot be opened is skipped).
//
// # The apply protocol
//
// Apply (and Edit, which plans on the files as they are once the lock is
// held) runs an unlogged batch with the journal held exclusively: recovery;
// validation against the ORIGINAL contents (a file unlike its head gets an
// observe event first); the intent (one bbolt transaction: contents, the
// event pending); temps fsynced, renames, directories fsynced; the seal,
// deferred (seal.go). docs/DESIGN.md ("The apply protocol, step by step")
// has every step and what it writes. The rules:
//
//   - Nothing is written if any op of the batch fails validation.
//   - No rename happens before the intent and every temp are durable; the
//     batch notes "done" for its event in the lock file's note and returns
//     once its files are in place and durable. A failure writing the files
//     rolls back at once; if that fails too, the next recovery does it.
//   - Until the seal, change detection compares files with the unsealed
//     event's after-contents, and recovery leaves it alone.
//   - A pending event left by a stopped process is sealed committed if its
//     batch completed (the note says done, or every file holds its
//     after-content and none of its temps is left): a batch that returned
//     success is never undone. Any other is rolled back: every file holding
//     the after-content is put back to its before-content (through a temp and
//     rename), temps and the directories the batch made (FileChange.NewDirs)
//     removed, the event sealed rolled_back. A file changed by someone else
//     since is left alone, so recovery is idempotent.
//   - Temps named in the lock file's note before the intent are removed when
//     the journal has no event of their number. A temp recovery cannot reach
//     (its directory swapped for a link outside the root) does not keep the
//     event pending: the event is sealed rolled_back naming it, and the temp
//     is staged for every later recovery to remove.
//   - Contents at or above Options.StreamThreshold (16 MiB) never sit in
//     memory: streamed into their temp (staged first) and into the store in
//     transactions of their own before the intent; a one-line edit of one
//     costs one pass over it and cuts only the chunks around the edit
//     (docs/DESIGN.md "A large edit, step by step").
//
// # Logged batches: the write-ahead log
//
// The usual edit — every file of the batch exists and gets a new content
// held in memory, at most 2 MiB before and after (Options.LogLimit) —
// commits by one record in the journal's write-ahead log holding its events
// (observe events first) and every after-content: enough to redo the
// batch (wal.go). Its files are renamed unsynced and made durable by a
// deferred checkpoint (every logged batch's files fsynced, then their
// directories, then one bbolt transaction appending their events), which
// runs 20 ms after the last batch (at once after a batch whose record is
// 512 KiB or more: storing it takes long, better while the agent reads the
// reply), on Close, Recover, gc or a batch that is not logged, or after 64
// batches or 100 ms. The timer's checkpoint compresses a large content's
// chunks before it takes the journal's lock (snapshot.Precompress), so a
// batch arriving meanwhile waits for the commit, not for the compression.
// docs/DESIGN.md ("Logged batches, step by step") has every step. The
// rules:
//
//   - The record is the commit: no rename happens before it is durable, and
//     recovery never rolls a logged batch back, it rolls it forward. For
//     each file: holding the after-content, it stays; holding the
//     before-content, it gets the after-content from the record; holding
//     neither, someone else changed it and it is left (the next batch
//     records it as an outside change) — unless the machine has booted since
//     and the file's inode last changed before that boot, a file a power
//     failure tore, which gets the after-content.
//   - A batch that fails after its record landed puts back the files it
//     renamed, removes its temps, voids the record and is recorded
//     rolled_back; if a file cannot be put back the record stays and the
//     next batch completes it.
//   - A reader of the journal needs the events, not the files' durability:
//     FlushSeal moves logged events into the bbolt file with one commit and
//     no fsync (a reader that needs only a file's last change or a logged
//     content — LastChange, Content — reads them from the records, with no
//     commit: the line tools ask before every call), noting the run's first event whose files may be unsynced
//     (journal.Tx.LogUnsynced); until the checkpoint clears it, recovery
//     rolls the files of the whole run forward from there.
//   - A process that takes the lock and finds records past the bbolt file's
//     last event (another server's batches, or a stopped process's) adopts
//     them: rolls them forward, keeps them as its own logged batches and
//     appends after them. Any process's checkpoint ends the run for all.
//   - What this gives up: until the checkpoint a power failure can leave
//     an acknowledged edit's file as it was (or torn) until the journal is
//     next opened, which puts it back from the log.
//
// # Recovery
//
// Recover (recover.go), idempotent, runs at open and under the lock before
// every batch: temps removed, pending events sealed or rolled back, the
// log's records past the bbolt file's last event rolled forward.
//
// # Revert, undo, redo, restore, rewind
//
// Revert(N) builds a new event from event N's files: a file still as N left
// it gets N's before-content; a file changed since gets N's change reversed
// by a three-way merge (base N's after, ours the file now, theirs N's
// before); an overlap refuses it (*ConflictError names the lines), Force
// restores N's before-content — always a new event. Undo reverts the newest
// live event that is not an undo (of one session, or anyone's); Redo the
// newest live undo, unless a new change came after it. An event is live
// unless the event that reverted it is live. Restore(path, N) sets a file
// to its content right after N; Rewind(N) (rewind.go) every file the
// journal knows, as one restore event: files created since removed, files
// deleted since recreated, a file first seen by a baseline after N left
// alone. Undo and Revert take observe events like any other (not a
// baseline, nor an outside change recorded only because a tool was about
// to overwrite it). Deleting a file its event created also removes the
// directories that creation made (FileChange.NewDirs) where left empty,
// once the batch is done: a crash before leaves empty directories only.
// A revert gives back N's before-mode only where the mode is still N's
// after-mode (or with Force): a chmod made since stays.
//
// A batch that would change a file whose owner may not write it (chmod
// a-w) is refused whole with ErrReadOnlyFile before anything is written,
// dry runs included, unless Batch.WriteReadOnly (RevertOptions too): the
// rename would replace it, but a read-only file is a person's protection.
// The mode bits decide, not access(2), so a server run as root refuses too.
//
// # Outside changes: Observe
//
// Observe (observe.go) records files that another process changed as
// committed observe events; the workspace watcher (package replay/watch)
// and the hooks call it. It writes no file, so it needs no intent, no temps
// and no recovery: contents are stored first (gc sweeps those no event
// names); then, with the journal held, each file's identity is checked, the
// logged and unsealed batches are moved into the bbolt file and the events
// appended committed, a transaction each (a baseline's as its files are
// stored). Not a third commit path. A file equal to its head is left out;
// one whose stats differ around its read, or that changed within racyMargin
// of it and reads differently after, is unsettled, never recorded half.
//
// # Blame by content
//
// BlameTx (blame.go) names the event that wrote each line of a file after
// an event; BlameContent blames any content of a file (a commit's blob).
// Who wrote a line is a fact about its content. The rules:
//
//   - Evidence. A line's owner is the event whose change first brought that
//     exact text into the file's history (every life of the file: a file
//     deleted and made again; the old path of a move the journal or git
//     reports, or that the journal saw as an outside create and a delete of
//     that content within three events, or as the one delete of the
//     outside event that made only this file; else the paths deleted
//     within three events of it). Exact bytes only, never similarity.
//   - Conservation. A change that only puts content back — an outside change
//     (git checkout, stash pop, reset, revert, any shell command) or our
//     revert, undo, redo, restore or edit_move_text (its source paths'
//     histories in the memory) — keeps the owners the content had: a
//     version the history held whole takes its owners line for line; else a
//     changed line whose distinctive text (three characters or more besides
//     white space, two of them letters or digits) the history holds under
//     one owner is that owner's, and a brace or blank line is where it stood
//     beside the same neighbour under the same owner — unless the change
//     kept that text (or pair) elsewhere in the file: then it is a new copy.
//     Only lines new to the file are the change's. A tool's edit owns what
//     it changed.
//   - Fail closed. A text two owners wrote proves neither; a line the journal
//     never held, or held only past a gc, is owned by no event (0) — in a
//     git note, untracked. A redacted version with no record of its lines
//     (below) is a gap: the next version's lines are owned by none but what
//     the memory proves, never by the next event's author.
//   - Redacted contents keep their attribution, never their text. Before
//     a redaction deletes a version's bytes it records the version's line
//     owners and, per line, a digest keyed by a file beside the journal
//     (<journal>.linekey), never in it: the journal alone cannot recover or
//     test a guess at a line. A line the secret scanner flags, or the
//     redaction's pattern matches, gets neither: unproved. Blame reads the
//     version by its record — restored whole it takes its owners; the next
//     version is compared through the digests (where some line had none,
//     only the lines it kept are proved); a later distinctive line is
//     proved by its digest as by its text. Without a record or its key
//     (an earlier binary's redaction, a clone, a remote) a redacted version
//     is the gap above. Records and what they tell without the key:
//     docs/DESIGN.md § Redaction.
//
// BlameTx and BlameContent are the one implementation (`journal blame`, the
// web app, replay/gitai). The export carries no line attribution on
// purpose: it is a function of the chain-verified event lines and of the
// contents they name by ID, so an auditor with the contents replays these
// rules to the same owners, and one without could check no listed claim.
//
// # Several processes
//
// Writers serialize on the journal's lock (package journal, "Several
// processes"); the write-ahead log is read and written only under it, and a
// process that finds records past the bbolt file's last event that are not
// its own takes them over ("Logged batches"); a reader that needs them in
// the bbolt file (the CLI) checkpoints them. Inside one process a mutex
// orders batches before they reach the lock, and while batches are queued
// the lock is kept for the next with bbolt open (journal.Lease), unless
// someone else waits for it. A second process gives up with journal.ErrBusy
// only after LockTimeout without any progress of the holders. Another
// process reading the journal within 20 ms of a batch may see that batch
// still pending; a writing process's recovery seals it committed (its note
// says done).
package replay
