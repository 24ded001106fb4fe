// Package gitai carries the journal's attribution into git: a note under
// refs/notes/ai in the Git AI Standard v3.0.0 on every commit, computed from
// the commit's blobs and the journal's history (never migrated from note to
// note), the git hooks that write them, and the readers (blame, stats, show,
// Agent Trace records). Git is reached through its plumbing commands.
//
// # What it owns
//
// The note's format (note.go: Format, Parse, the keys); computing notes
// (compute.go: Compute); writing and merging them in the notes ref
// (notes.go, objects.go, merge.go); the pending list and the hooks' work
// (hook.go: Hook, Flush); installing the hooks (install.go: Install,
// Uninstall). The readers (read*.go, stats.go, trace.go) read the notes
// back. Attestations (attest.go: NewStatement, SignStatement, OpenEnvelope,
// Differences) carry a commit's note, with the events behind its lines
// (ComputeEvidence) and a signed checkpoint, as an in-toto Statement in a
// DSSE envelope, stored as a file or as a note under AttestRef.
// cmd/journal holds only flags and wiring.
// The note's bytes and the files under <common dir>/journal/ are in
// docs/DESIGN.md ("Git notes", "Files").
//
// # A note
//
// For each commit, per file, the lines it adds against its first parent (a
// merge: against every parent, below) —
// `git diff-tree -r -M -U0`, so git's own diff and rename detection decide
// the line numbers every other reader of the commit sees; a root commit adds
// all its lines — each attributed by replay.BlameContent of the commit's
// blob (with the histories of the path git reports it renamed from):
//
//   - an agent's event (Actor.Kind "mcp", an MCP client; "agent", a call
//     attributed by `journal hook`): key SessionKey(tool, session) + "::" +
//     TraceKey("event:" + the event's chain hash) — one trace per tool call,
//     the same on every machine and after any gc or redaction; the session's
//     record names the tool, the session id and the model where the agent's
//     hook said it (modelOf: the event's arguments, "call"); the prompt a
//     call served has no field in a v3.0.0 session record (one per session)
//     and is left out;
//   - a person's edit through the journal (Actor.Kind "cli", Kind apply):
//     the h_ key of the commit's committer, with its humans record;
//   - anything else — outside changes (the watcher's, a baseline, a
//     catch-up, what the hook records before computing), reverts and
//     restores, event 0, a content the journal cannot read — no entry:
//     untracked.
//
// base_commit_sha is the first parent (a root commit: the null id). A merge
// commit's note holds only its own lines (the standard's § 2.2, "Standard
// Merge"): those new against every parent — a conflict's resolution, an
// evil merge's edits — found by diffing it against each parent (one
// diff-tree per parent index) and keeping the lines every diff adds; the
// lines it takes from a parent are that parent's, noted on the commits
// that added them. A merge with none (no conflict) gets a note without
// attestations, which the standard allows. Its base_commit_sha is the merge
// itself, as § 2.2 says. post-commit notes a merge whose conflict was
// resolved and committed; post-merge one git committed itself, when HEAD's
// first parent is ORIG_HEAD (a merge made here, not a pull's fast forward
// to someone else's).
//
// # Rules
//
//   - Evidence. A line is attributed only to the event that wrote that exact
//     content (replay's "Blame by content"), never by similarity, never by
//     carrying an older note over.
//   - Conservation. A rewrite (amend, rebase, cherry-pick, squash, stash,
//     reset, revert, a move) gets its note from its own content, so lines a
//     rewrite carries keep their author, and only the lines a commit adds
//     are in its note.
//   - Fail closed. Before computing, the journal records what it has not
//     yet (a running watcher flushes; without one the committed files that
//     differ from the journal's heads are observed), and what that records
//     is an outside change: untracked. An error of the journal (missing,
//     busy, damaged) writes no note at all: the commit stays in the pending
//     list (<common dir>/journal/pending) until the next hook or `journal
//     git note` can compute it. Two notes of one commit (two machines') merge
//     as the union of their entries; a line they give different keys is
//     nobody's.
//
// # Writing notes
//
// Never `git notes add`, which does not compare-and-swap the ref. A notes
// commit is made on the ref's value OLD — by objects written loose here
// (blob, the top tree with the commit's note replaced, the commit) when the
// note to replace, if any, sits at the tree's top (ours always do), else by
// `git fast-import` (whose notemodify rebalances git notes' fanout) — and
// the ref moves by `git update-ref refs/notes/ai NEW OLD` (fast-import:
// only onto a descendant, in a ref transaction naming the value it read);
// a lost race is retried on the new value. A note equal to the one there
// writes nothing. Remotes' notes are fetched into refs/notes/ai-remote/<remote>
// (a fetch refspec, and the pre-push hook) and merged into refs/notes/ai
// by the next hook (post-commit, post-merge, post-checkout, post-rewrite,
// pre-push) or `journal git note`, in a notes commit whose second parent is
// theirs; pre-push then pushes refs/notes/ai by a second push of its own
// (--no-verify, guarded by JOURNAL_GIT_HOOK), so a plain push pushes what
// it pushed before.
//
// # Hooks
//
// Install chains, never replaces: core.hooksPath (in the repository's own
// config) points at <common dir>/journal/hooks, whose scripts run the hook
// of the same name in the directory git used before (.git/hooks, husky's
// .husky/_, any core.hooksPath) by its own path, with the same arguments
// and a copy of its input, keep its exit status, and then run `journal git
// hook NAME`, which always exits 0 and says at most one line on stderr.
// Uninstall puts core.hooksPath back (unset, or its old value) and takes out
// the refspecs it added: hooks and config byte-identical. A rebase in
// progress writes nothing until its post-rewrite, so an aborted one writes
// no note.
//
// # Why plumbing, not go-git
//
// Measured (BENCHMARKS.md, BenchmarkChangedFiles): reading one commit's ten
// changed files, their added lines and blobs takes 12–16 ms through two git
// processes against 6–14 ms in process with go-git v5.19.3. The ~7 ms are
// paid for: git's own diff and rename detection (the line numbers git
// blame, GitHub and git-ai see; go-git's differ and rename scoring are its
// own), git's ref locking for the compare-and-swap (go-git's does not take
// git's .lock files, so it cannot exclude a concurrent git), and whatever
// the repository is — worktrees, SHA-256, alternates, partial clones,
// config includes — without a second implementation of git to keep up.
package gitai
