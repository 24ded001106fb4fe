// Package setup sets a workspace up for the coding agents in use (journal
// init) and says what is missing (journal doctor).
//
// # What init writes
//
// For each agent (Agents: paths and events from each agent's hooks
// reference), its hooks — every tool call before and after, prompts,
// subagents, turns and sessions, each running `journal hook AGENT` — in the
// project's file (or the user's, Scope User), and the MCP server entry
// `journal serve --root ROOT` in the project's MCP file where the agent has
// one (Claude Code, Cursor, Gemini CLI, Copilot CLI, Kiro; Codex's
// config.toml), or for an agent that lists its MCP servers only in the
// user's files (Cline, Windsurf: Agent.MCPUserFiles) in those it keeps (its
// directory there): they serve every project, so an entry journal serving
// another workspace is left as it is, with a warning giving the lines to
// add. Cline's hooks are executables named for their events.
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
// watch, and in a git repository whether journal's git notes are
// installed; each problem comes with what to do.
//
// What init records for --undo (init.json) and the hooks' fired marks are
// described in docs/DESIGN.md ("Files").
package setup
