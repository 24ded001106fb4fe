// Package mcp is the MCP adapter: it exposes the journal engine (package
// replay) as typed MCP tools, resources and error results. Handlers decode,
// call the engine, encode; the logic of an edit lives in ops and replay.
//
// # What it owns
//
//   - One file per toolset: mutate.go (seed 003), classic.go (seed 001),
//     largefile*.go (seed 004), semantic*.go (seed 000), forms*.go (seed 002),
//     history.go (revert, undo, redo, log, status, resources). Each registers
//     itself from init, so the server needs no edit to gain a toolset.
//   - tool.go: addTool, the one place arguments are decoded (strictly: an
//     unknown parameter is INVALID_INPUT naming the valid ones; another
//     seed's name of the path argument is first renamed to the tool's own
//     by one table, alias.go, and two names of one path are INVALID_INPUT;
//     long strings were decoded at the transport, wire.go) and results are
//     encoded (concise text for the model, structured content for programs,
//     never over Options.ResultCap; a text cut there says the structured
//     result has the rest only when it does). A line longer than a result
//     is shown from its start, cut between characters, with the column
//     read_content reads it on from.
//   - errors.go: the ONE mapping from errors to tool results ({code, message,
//     hint, candidates, retry}); anything unmapped is an internal fault and
//     becomes a protocol error. A refusal that knows what was meant carries
//     retry: the same tool with corrected arguments, ready to send.
//   - progress.go: notifications/progress for a request with a progressToken
//     (searches of large files, a large file's new content as it is written;
//     increasing, with a total, at most ten a second) and cancellation: a
//     notifications/cancelled stops a search between blocks and an edit
//     before its commit point (CANCELLED, nothing changed).
//   - subscribe.go: resources/subscribe (or, on protocol 2026-07-28, a
//     subscriptions/listen stream naming them) on journal://events and a file's
//     history (journal://files/{path}/events): notifications/resources/updated
//     after each commit that adds events, whoever made it (a watcher stats the
//     journal and its log every 200 ms while a subscription is open). The tool
//     list never changes while the server runs, so listChanged is not declared.
//   - Session versions (server.go, rebase.go): per session and file, the
//     version of its last read (the one its line numbers count from) and
//     whether it wrote the file since. Every tool that takes line numbers
//     (file_replace, file_insert_text, copy/move, ai_code_editing.edit_file,
//     file_edit's lines, the forms tools, insert_comment_at_line) maps stale
//     numbers through a line diff of that version and the current one: lines
//     moved by others are edited where they are now (and the result says
//     so); lines moved after the session's own write are refused with
//     EDIT_CONFLICT showing both numberings and a retry; lines that changed
//     are refused showing them. An expected_version that is not current is
//     the version the numbers count from: mapped the same way (never
//     ambiguous), refused only when the lines changed or the version is
//     unknown.
//   - Line tools' repeats and content (repeat.go, lines_content.go):
//     file_replace, ai_code_editing.edit_file and file_edit by lines answer
//     already_applied when the file's last change is this very request and
//     the file its result (the journal's evidence), or when the lines hold
//     the content; their content's agent artefacts (copied line numbers,
//     double escaping, look-alikes) are undone on evidence, refused when
//     ambiguous, else written as sent (ops/match.LineContent).
//
// # The wire
//
// wire.go: journal serve's stdio transport is mcp-go's, fed through
// Server.ServeStdio (and its HTTP handler wrapped by Server.Lighten). A
// tools/call message's long string arguments (8 KiB of JSON text and more)
// are decoded once, where the message arrives (the message itself checked
// by jsontext, from github.com/go-json-experiment/json: the proposal behind
// encoding/json/v2, kept by Go team members; see below); mcp-go handles the message
// with short placeholders in their place, and the handler claims them and
// puts the decoded strings back into its typed input. Why: the cost of a
// long argument is mcp-go's passes over the message with encoding/json
// (the stdio reader, the probes for responses and methods, the envelope,
// the request, the arguments into a map), inside its transport and request
// handling. A faster decoder would mean forking both, and decoding the
// typed input ourselves would skip its hooks, sessions and tasks;
// placeholders need nothing of mcp-go. The audit record keeps a long
// argument's hash and size, never its bytes (the snapshot store has them).
// A message is still held whole while it is read (a 10 MB write is a 10 MB
// line), in 1 MiB blocks that are never joined; what must stay bounded
// whatever a file's size — edits and reads of the file — is
// (replay.DefaultStreamThreshold).
//
// A long string is read once, where it lies: lighten finds the message's
// strings itself (outside a string, a '"' opens one; looking for quotes
// only, at memchr speed), and decodes each long one straight from the blocks
// into a buffer of its raw length, in a single pass that checks it as
// jsontext would (unquoter: plain ASCII skipped eight bytes at a time, runs
// between escapes copied whole, an escape or UTF-8 sequence cut by a block's
// end carried to the next). jsontext then walks only the light message, to
// check that it is valid JSON and that every placeholder is a string value
// of a known tool's arguments. Replacing a valid string token by another
// keeps a message's validity and structure, so the check on the light
// message is the check on the message; FuzzLighten (messages in blocks of
// any size) and FuzzUnquoter (bodies cut anywhere, against jsontext) hold it
// to that. The blocks are never joined into one copy of the message: a
// large memmove is one the collector cannot preempt. BENCHMARKS.md has the
// figures (mcpbench's large writes, BenchmarkLighten).
//
// # Several servers on one workspace
//
// share.go, relay.go: each MCP client starts its own `journal serve`; the
// first of a workspace serves the others' sessions (journal serve --share,
// the default; cmd/journal/share.go picks the role under a lock file). A
// later serve relays its client's messages, as they are, over a unix socket
// in the journal's directory (Relay) and the first serves each as a session
// of its own (ServeFollower): its own id (undo is per session), client
// info, log level, notifications, sampling requests — what mcp-go's stdio
// transport gives its one session (which is a package singleton there, so
// it cannot serve two). Why: processes taking the journal's lock in turn
// pay, at every hold, for adopting the others' records, reopening the
// journal and a cross-process hand-off, and together make no more edits a
// second than one. One process orders its sessions' batches with a mutex
// and keeps the journal open between them (journal.Lease), so several
// stdio servers make more than one does (BENCHMARKS.md "Several agents on
// one workspace"). A relay costs two pipes and a socket per call; its stdin
// is read through Go's poller (cmd/journal/stdin_unix.go).
//
// A session must not notice a change of writer. A relay keeps what the
// next writer needs: the client's initialize (replayed, its answer dropped
// when the client had one), the session's file views (sent by the writer as
// they change, so its line numbers still count from its last read), and
// every message not known to be read. A writer whose own client ends (or is
// signalled) hands over: it stops reading, answers what it read (within
// shareDrain), says how many messages it read and exits; the relay sends
// the rest to the next writer — one of the followers, chosen under the lock
// file, possibly itself. A writer that is killed cannot say: a tools/call
// in flight is answered OUTCOME_UNKNOWN (journal_log says whether it was
// applied; never applied twice, never lost if acknowledged:
// TestShare_WriterKilled), any other request is asked again. A serve with
// other flags, another binary, or a socket path too long for sun_path
// serves alone, as before.
//
// # The safety layer and the language servers
//
// file_edit and the form tools run a safety layer on the edited text before
// anything is written: tree-sitter symbols before and after give the
// detected intents (rename, delete, add, body_change), and new syntax errors
// refuse the edit unless allowed (semantic_edit.go, semantic_check.go).
//
// When a language server handles the file (Options.LSP, package replay/lsp),
// the edit is then shown to it as an overlay — seed 000's virtual document —
// before it is written (semantic_lsp.go):
//
//  1. the file, and the files that reference the symbols the edit renames,
//     deletes or changes, are opened with their disk content;
//  2. a detected rename is propagated with textDocument/rename at the OLD
//     declaration, on the original contents (seed 000 renames from a
//     reference site after writing; renaming before writing lets the server
//     still resolve the old name, and keeps the whole change one event). In
//     the edited file, the server's edits that fall in the span the agent
//     replaced are dropped — the agent's code is authoritative there — and
//     the others are shifted past it;
//  3. the diagnostics of every file opened so far — the rename's files
//     included — are taken (the "before" set), the planned contents become
//     overlays, the diagnostics are taken again, and only the errors and
//     warnings not in the "before" set are reported (semantic_diags.go:
//     same file, severity, source and code at the same range once mapped
//     through the edit — never by message, which servers word differently
//     from one check to the next); a file whose diagnostics before or after
//     are not known (the server had not published for that content when
//     the wait ran out) is named in the notes, and none of its problems is
//     called new;
//  4. with autoFix, quick fixes for new errors are folded in — those the
//     server marks preferred, else the only one it offers (gopls marks none) —
//     a round at a time (at most 5 rounds, 20 fixes);
//  5. everything — the agent's edit, the propagated rename, the fixes — is
//     applied as ONE journal event, every file checked against the version
//     the server saw (EDIT_CONFLICT otherwise), and the overlays are saved;
//     a dry run or a failure puts the server's view back to the disk.
//
// A consultation is bounded by Options.LSPTimeout (serve --lsp-timeout,
// default 15s): a server still loading a large workspace, or hung, makes the
// edit go on without it rather than block the agent.
//
// Consultations are serialized (Server.lspMu) because overlays are shared by
// every call. Every journaled batch, whatever tool made it, is reported to
// the servers (Server.synced) so they see what is on disk. A file the
// servers cannot be consulted on (none for its language, binary not on PATH,
// not UTF-8 without a BOM, or the server failed) is edited without them, and
// the result's notes say that propagation and type checks were skipped and
// why. rename_symbol and diagnostics expose the servers directly.
//
// The sharing server's socket and lock beside the journal, and what a tool
// call records in an event, are described in docs/DESIGN.md ("Files",
// "Events").
package mcp
