// Package setup sets a workspace up for the coding agents in use (journal
// init) and says what is missing (journal doctor).
//
// # What init writes
//
// For each agent (Agents: paths and events from each agent's hooks
// reference), its hooks — every tool call before and after, prompts,
// subagents, turns and sessions, each running `journal hook AGENT` — in the
// project's file (or the user's, Scope User), and the MCP server entry
// `journal serve` in the project's MCP file where the agent has one (Claude
// Code, Cursor, Gemini CLI, Copilot CLI, Kiro; Codex's config.toml), or for
// an agent that lists its MCP servers only in the user's files (Cline,
// Windsurf: Agent.MCPUserFiles) in those it keeps (its directory there):
// they serve every project, so an entry journal serving another workspace
// is left as it is, with a warning giving the lines to add. Cline's hooks
// are executables named for their events.
//
// # Files a team commits
//
// What init writes in the project's files holds in every clone: they run
// `journal` (Env.Bin: found on PATH), and name no path of this machine. The
// MCP entry gives no --root where the agent starts its stdio servers in the
// project (serve then finds the workspace from its working directory), and
// the agent's own variable where it starts them elsewhere (Agent.ProjectRoot:
// Cursor's ${workspaceFolder}). Machine-specific settings go in the user's
// files only: hooks written with --user and the user-level MCP files run
// Env.UserBin (the absolute path when PATH does not find this binary as
// journal) and name the workspace by its path. When the project's files run
// a journal PATH does not find as this binary, Plan warns. Over an earlier
// init's entries naming a path (its binary's, --root's), init writes the new
// form in their place (rebin, staleServer, Codex's marked block, Cline's
// scripts); strip and the record recognise both forms, so --undo takes out
// what either added.
//
// # Merging, and taking it back
//
// A settings file is edited as a tree that keeps the text it was read
// from (jsonedit.go): only the objects and arrays that gain an entry are
// printed again, the text around each of their members as read (comments
// too: a file may be JSONC, with // and /* */ comments and trailing
// commas), a new member on a line of its own in the file's indentation;
// the user's hooks, permissions, key order and spelling are written back
// as read. Codex's
// config.toml gets one marked block appended. An entry already there (a
// journal hook for that agent on that event, an MCP server named journal)
// is not added again, so a second init changes nothing.
//
// Every file written is recorded in <journal dir>/init.json: its content
// before (or that init made it), the digest of what init left, the
// directories init made. init --undo gives a file that still holds what
// init wrote its content back byte for byte (removes one init made, and
// the directories, if empty); a file changed since has only journal's
// entries taken out, the user's edits kept.
//
// # Doctor
//
// Doctor looks at the journal, the watcher (its lock held), each agent's
// hooks — installed where, and when they last fired: every hook call that
// reaches a journal writes <journal dir>/watch/fired/<agent> (Fired) —,
// inotify's max_user_watches against the directories a watcher would
// watch, in a git repository whether journal's git notes are installed and
// which agent settings git tracks name a path of this machine or one not
// on it (committedPathChecks); each problem comes with what to do.
//
// What init records for --undo (init.json) and the hooks' fired marks are
// described in docs/DESIGN.md ("Files").
package setup
