// Package watch records every change made to a workspace by another process
// — a shell command, a script, an editor, git — as an observe event of the
// journal, so that undo, restore and blame reach it. journal serve runs a
// Watcher (unless --watch=false); journal watch runs one alone; journal
// hook and journal exec bracket an agent's call or a command (Begin, End).
//
// # What is recorded, and when
//
// fsnotify (inotify on Linux, kqueue on macOS) watches every directory of
// the roots that the rules keep; a directory created later is watched, and
// walked, as soon as its creation is seen. A changed path is marked dirty;
// when every dirty file but the busy ones (changing for over a second: a
// log, a download) has been quiet for Options.Settle, the dirty files are
// recorded together through replay.Engine.Observe: a burst (a checkout, a
// formatter over the tree) is one event, up to Options.MaxDelay. A busy
// file is recorded once it is quiet itself, or after MaxDelay; one recorded
// HotLimit times in a minute is then recorded at most every HotPace.
//
// Observe compares each file with the journal's head and records only what
// differs, under the journal's lock, through the same commit as every batch
// (one transaction appending a committed event; no files are written, so
// nothing is left to recover): the engine's own writes equal their heads
// and never become an event, and a change racing one of them is recorded
// by the next look at the file. A file is read between two stats and again
// after racyMargin if it changed within it, so that a file replaced or
// rewritten while it is read is recorded as it ended, never half.
//
// # Catch-up and baseline
//
// Start walks the roots (adding the watches first, so that nothing changed
// during the walk is missed) and records what changed while no watcher ran:
// changes to files the journal knows as one event (journal.ToolCatchUp),
// files it never saw as a baseline (journal.ToolBaseline) — they existed
// before, so no undo or rewind deletes them. A cache of file identities
// (<journal dir>/watch/cache) spares the hashing of unchanged files; it is
// a hint, never the record. A watcher killed in a burst loses nothing: the
// next start finds the rest. Until the catch-up is recorded, the engine's
// batches wait (replay.Engine.HoldEdits, taken by Start and, before the
// server answers, by journal serve): the baseline is the tree as the
// watcher found it at its start, so a tool's edit made meanwhile is
// numbered after it and changes a file the baseline holds.
//
// # Rules
//
// Left alone: .git, .hg, .svn and the journal's directory; what the
// .gitignore files say (nested, with negations, as git reads them); what
// .journalignore files say, which take precedence (so `!node_modules/`
// brings back what a default leaves out); the defaults (DefaultIgnores:
// dependency trees, caches, editors' swap files); symbolic links, which are
// never followed; files larger than Options.MaxSize; the engine's temps.
//
// # Limits
//
// inotify needs one watch per directory (fs.inotify.max_user_watches); a
// directory that cannot be watched is rescanned every 5 s instead, and the
// watcher says so. An overflow of the kernel's event queue is recovered by
// a rescan of the whole tree. kqueue needs an open file per watched path,
// bounded by the open-file limit. One watcher runs per workspace: Start
// takes <journal dir>/watch/lock (ErrBusy otherwise), and journal serve
// waits for it, taking over when the other process stops.
//
// # Calls
//
// An agent's hook (Begin before a call, End after it) reaches the running
// watcher over <journal dir>/watch/sock: Begin records what changed before
// the call as the watcher's own, End records what changed since as one
// event named for the call (its agent, session, tool and input). A barrier
// through the event queue (Sync) makes sure every change made before the
// request is seen. With no watcher running, Begin and End walk the
// workspace themselves, under the watch lock.
//
// A hook does not wait for the store (HandBegin, HandEnd): after the
// barrier, under w.record, the watcher takes what is dirty, reads those
// files (replay.Engine.Capture), answers, and then stores what it read
// (Observation.Captured) in order behind every recording taken before it
// (w.lastDone). What the agent's next call does to a file cannot change
// what was read, so a call's changes are all in its event; a later write
// sends its own inotify event and is recorded after. The op "wait"
// (WaitRunning) returns once the recordings handed over are stored: the
// CLI's readers ask it first.
//
// A call whose after-hook never comes (the agent was killed, a call cut
// short) is closed by the first sign of it: its agent's process gone
// (Call.Proc, checked by the loop while changes wait, and before a flush
// or a "calls" question: reap), its session's next prompt, the end of its
// turn or of its session (Turn, from agents.Closes; op "turn"), or its
// tool's limit (limitOf, at most Options.CallMax). What changed in its
// window is tied to no one (tie: it may be a person's): the watcher's own
// event, listing the calls under "unproven" with About.Closed "exited",
// "prompt", "stop", "session-end" or "timeout". A file-edit call claims
// only the file its input names; a file that a process outside every open
// call's agent is found holding open for writing (proofs, /proc) is no
// call's. Op "calls" (OpenCalls) lists the calls open, for journal status
// and doctor. Calls open at once (parallel tool calls, an
// after-hook arriving after the next before-hook) are named together for
// what changed while they were all open (args "calls", oldest first); the
// event's actor is the first call's when they are all of one session, else
// none (external): no session is credited with another's changes. A
// flush asked over the socket (a CLI reader, a git hook: a commit made
// inside an agent's call) names the calls open then, which stay open.
//
// The event's arguments are the call's input with, for a hook's call, its
// About under "call": the agent's id of the call, and where the agent said
// them the model, the prompt's id and the subagent (Call.args). The actor
// is {Kind "agent", Name, Version, Session, Origin "hook"}; none of it
// needs a journal format of its own. An End whose call the watcher saw
// begin takes what it does not say (an empty input) from the Begin; an End
// with no Begin (Cursor's afterFileEdit) names what is still waiting. What
// each agent sends, and how it becomes a Call, is replay/watch/agents'.
//
// # Prompts
//
// A prompt's hook (agents.Prompt) asks the watcher to record the prompt
// (op "prompt", Watcher.Prompt): what changed before it first, as Begin
// does, then one prompt event through replay.Engine.RecordPrompt (kind
// prompt, no files, the text and id in its salted arguments), so that the
// state right after the prompt event is the state the prompt was given in
// (journal restore --before-prompt). With no watcher running the hook
// walks the workspace itself, then appends it (RecordPrompt). The hook
// remembers the prompt's id for the session, so that its later calls name
// it in call.prompt even where the agent sends the id only with the prompt.
//
// # Calls of this project's MCP tools
//
// An agent's call of an MCP tool (IsMCPTool: mcp__journal__edit_content;
// an MCPCall where the agent names it otherwise: Cline, Copilot CLI)
// leaves, from its before-hook, a note under mcp/ in the watcher's
// directory (OpenMCP: the call as the hook knows it — agent, session, id,
// prompt — and the digest of its arguments), removed by its after-hook
// (CloseMCP), or by the session's next prompt or the end of its turn or
// session (CloseMCPSessions). The MCP server, when a call reaches one of its tools, looks
// for the note (MatchMCP): the same tool, the same arguments' digest, the
// note younger than MCPMax; and names in its event the call and the
// agent's session (Call.MCPArgs: call.session), so that the edit serves the
// agent's prompt. The event stays the MCP session's: the client's own undo
// and redo take back its newest edit, whichever hook saw it. No note, or
// notes alike of different sessions or prompts, name nothing.
//
// Without a watcher, Begin leaves a note of the open call (open/,
// opencall.go), which a git hook's record meanwhile names (ObserveOpen):
// a commit inside an agent's call gives the call its lines.
//
// The files it keeps under the journal's watch/ directory (lock, sock,
// cache, sessions, mcp and open-call notes) are described in docs/DESIGN.md ("Files").
package watch
