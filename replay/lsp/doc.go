// Package lsp is the journal's language-server client: it runs real language
// servers (gopls, pyright, typescript-language-server, and rust-analyzer or
// clangd when installed) over stdio and asks them for renames, references,
// diagnostics and quick fixes. It never writes a file: every answer that
// changes code comes back as byte-offset edits ([FileEdit]) for the caller
// to apply through the journal, in the same event as the edit that caused
// it.
//
// # What it owns
//
// A [Manager] owns the server processes of a set of workspace roots, the
// documents it has opened in them, and the diagnostics they published. It
// speaks JSON-RPC 2.0 with LSP base-protocol framing (go.lsp.dev/jsonrpc2
// v0.10.0, go.lsp.dev/protocol v0.12.0 types) and answers the requests
// servers send back: workspace/configuration (from [ServerConfig].Settings,
// by dotted section), client/registerCapability, window/workDoneProgress/
// create, window/showMessageRequest (no choice), workspace/workspaceFolders,
// the */refresh requests, and workspace/applyEdit (captured during a quick
// fix's command, refused otherwise). Anything else gets MethodNotFound, so a
// server never waits on the client.
//
// # Lifecycle
//
// A server is started on the first call that needs one for a path: the
// language comes from the path's extension ([Config].Servers, first match),
// the root is the longest workspace root containing the path, and the binary
// is found with [LookPath] (JOURNAL_LSP_PATH, then PATH). One process per
// (language, root), in its own process group, with stderr kept in a 16 KiB
// ring for error messages. initialize sends rootUri, rootPath and one
// workspace folder, initializationOptions, and these client capabilities:
// workspaceEdit.documentChanges (no resource operations), configuration,
// didChangeWatchedFiles and didChangeConfiguration (dynamic registration),
// publishDiagnostics (versions, related information, data), rename with
// prepareSupport, codeAction with literal kinds, isPreferred, data and
// resolveSupport for "edit", workDoneProgress, and positionEncodings
// ["utf-16"]. initialized and one didChangeConfiguration with the settings
// follow.
//
// A server that exits (crash, kill) is noticed at once: calls in flight fail
// with [ErrServerExited] carrying its exit status and the tail of its stderr.
// The next call starts a new process and re-opens every document the old
// one had (overlays with their text, the others from disk). A server whose
// start fails is reported unavailable by [Manager.Available], with the
// reason, for 30 seconds; then the next call tries again. [Manager.Close]
// sends shutdown and exit, waits up to two seconds, then kills the process
// group. Every request is bounded by its context, or 30 seconds when the
// context has none; a request abandoned by its context is followed by
// $/cancelRequest. All methods are safe for concurrent use; document
// notifications for one server are sent under one lock, so their order is
// the order of the calls.
//
// # Document sync: overlays and disk
//
// The server's view of a file is either the file on disk or an overlay:
//
//   - [Manager.Overlay] sets the view to a text that is not on disk (didOpen
//     the first time, then a full-text didChange with the next version): the
//     caller asks for diagnostics or a rename on an edit before writing it.
//   - [Manager.Saved] says the overlay is now on disk (didSave when the server
//     asked for saves).
//   - [Manager.Reset] puts the view back to the disk (didChange to the disk
//     content and didSave; didClose if the file is gone). The document stays
//     open, so servers that diagnose open files only keep reporting on it.
//   - [Manager.Changed] is called after every journaled write and every
//     change seen on disk: an open document is re-synced from disk (an
//     overlay of it is dropped), and every running server of the root gets
//     workspace/didChangeWatchedFiles: Deleted when the file is gone,
//     Created when the manager has not seen it before and it was written
//     after the server started (it may be new), Changed otherwise. A created
//     file of a server's language that is the only one of its extension in
//     its directory is also opened: gopls loads a package in a new directory
//     only once one of its files is open. The next rename,
//     references or quick fix after a creation or deletion first waits for
//     diagnostics to settle, the sign that the server has reloaded.
//   - [Manager.Open] opens files from disk; Rename, References, Diagnostics and
//     QuickFixes open the file they are about themselves.
//
// Documents stay open until Close, a Reset of a deleted file, or Changed of a
// deleted file.
//
// # Positions
//
// The API uses 1-based lines and 0-based byte columns (UTF-8), like the rest
// of the journal; [TextEdit] and [FileEdit] use byte offsets. LSP positions
// count UTF-16 code units unless the server chose another encoding in its
// initialize result (utf-8 and utf-32 are honoured). Conversion uses the
// content the server saw: the open document (overlay) if there is one, else
// the file on disk when the answer is converted. Lines end at "\n"; a "\r"
// before it is not addressable (a character past a line's end is clamped to
// before its "\r\n", as the specification says); a lone "\r" is not a line
// break here. A character inside a surrogate pair is moved before the rune.
// Invalid UTF-8 counts one unit per byte.
//
// # Settling diagnostics
//
// Servers push diagnostics (textDocument/publishDiagnostics) when they like;
// [Manager.Diagnostics] decides when they are done. It opens the asked
// paths that are not open. A server that can be asked instead
// (typescript-language-server, which offers the typescript.tsserverRequest
// command) is asked: once no progress is active, tsserver's
// syntacticDiagnosticsSync, semanticDiagnosticsSync and
// suggestionDiagnosticsSync are requested for every document open on it, in
// path order, and the answers are exact for the content it has. (The order
// is fixed because it changes the words: tsserver's checker gives a
// spelling suggestion — "Did you mean 'url'?", code 2552 instead of 2304 —
// to the first ten unresolved names it meets.) For the other servers it
// waits until all of these hold:
//
//  1. no work is in progress: every $/progress token that began has ended,
//     and no token was created (window/workDoneProgress/create) in the last
//     two seconds without beginning (pyright creates its token as analysis
//     starts and begins it later);
//  2. every asked path that was opened or changed since has had a
//     publishDiagnostics for its latest version (all three servers publish
//     for every change of an open document, even when nothing changed, and
//     gopls and pyright say for which version: a publish for an older one,
//     computed before the change arrived, does not count);
//  3. nothing (no publish, no change, no progress) happened for
//     [Config].Quiet (default 300ms) — this is what catches the diagnostics
//     of dependent files that arrive after the edited file's own.
//
// The wait is bounded by [Config].Load (default 60s) while the server loads —
// progress is active, it has published nothing yet, or it has not yet
// published for an asked path (its initial workspace load: pyright needs
// about three seconds here, much more on a loaded machine; gopls a fraction
// of a second) — and by [Config].Max (default 5s) from the end of the load.
// Running out of time is not an error: the latest published diagnostics are
// returned, and [Diagnosed].Unsettled names the asked paths they may be
// stale for, and why (no publish for the latest version; the server still at
// work), so that a caller comparing before and after an edit can say it
// could not rather than call old problems new. The result holds the asked
// paths (an empty list when clean) and every other file of the roots with
// problems. Rename, References and QuickFixes wait only for progress to end
// before asking.
//
// # Servers
//
// gopls (v0.23.0) checks the whole workspace: an overlay that breaks callers
// yields their errors in files that are not open, about 100ms after the
// edited file's own (diagnosticsDelay is set to 100ms; its default is 1s).
// It runs with verboseWorkDoneProgress, the setting gopls's own tests use:
// every diagnostics pass, the one over dependent packages included, is
// wrapped in $/progress, so settling waits for the pass itself rather than
// hoping it fits in the quiet window (without it, dependents' diagnostics
// were missed on a loaded machine).
// Its missing-import fix ("Add import: \"strings\"") is a quickfix with the
// edit inline but not marked preferred.
//
// pyright (1.1.414) runs with diagnosticMode "workspace" (DefaultConfig), so
// it also reports on files that are not open, after a full analysis that
// follows every change (about half a second for a small project here).
// With "openFilesOnly" callers must be opened ([Manager.Open]) first. Its
// first diagnostics take about three seconds (interpreter discovery). It
// offers no missing-import quick fix.
//
// typescript-language-server (5.3.0 with TypeScript 5.9.3) diagnoses open
// files only: open the callers (Open, or pass them to Diagnostics) to see
// what an edit breaks in them. Its pushed diagnostics cannot be settled
// reliably (it waits 300-800ms after a change before asking tsserver,
// publishes once per kind of diagnostic, and publishes nothing when nothing
// changed), so they are pulled as described above; suggestions come back as
// hints. It is started with tsserver.useSyntaxServer
// "never": with the default, rename and references sent while the project
// loads are answered by the syntax server from the open file alone. Its
// missing-import fix ("Add import from \"./circle\"") is preferred.
//
// rust-analyzer and clangd are configured but untested here; a rustup proxy
// without the component is found on PATH and fails at start, which
// [Manager.Available] reports after the first attempt.
//
// # Not supported
//
// Documents larger than [MaxDocument] (16 MiB) are not opened: the call
// fails with [ErrUnsupported] (an open document that grows past it is
// closed).
// Resource operations in workspace edits (create, rename, delete of files)
// fail with [ErrUnsupported]; a rename that would move a file or package is
// refused rather than half-applied. Quick fixes whose command runs a tool
// that writes files itself (gopls's go get, tidy, generate, vulncheck and
// test commands) are left out; other command-only actions are executed and
// the edits they send back through workspace/applyEdit are returned instead
// of applied. Pull diagnostics (textDocument/diagnostic), incremental
// document sync, notebooks, multi-root servers (one server per root
// instead), and file watching by the manager itself (the caller reports
// changes with Changed) are not used. Paths are compared as given: a root
// and the paths under it must be spelled the same way (no symlink
// resolution).
//
// # Testing
//
// The tests run the real servers that scripts/setup-lsp.sh installs (gopls
// in GOBIN, pyright and typescript-language-server in
// testdata/lsp/node_modules); they fail, naming the script, when one is
// missing, or skip with JOURNAL_LSP_OPTIONAL=1. JOURNAL_LSP_TRACE=1 logs every
// message to stderr.
package lsp
