// Package gitai carries the journal's attribution into git: a note under
// refs/notes/ai in the Git AI Standard v3.0.0 on every commit, computed from
// the commit's blobs and the journal's history (never migrated from note to
// note), the git hooks that write them, and the readers (blame, stats, show,
// Agent Trace records). Git is reached through its plumbing commands.
package gitai
