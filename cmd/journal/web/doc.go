// Package web is `journal web`: a local web app over a workspace's journal —
// the timeline of events, an event's diffs, a session's combined diff, a file's blame at any event, the
// revert of an event and the restore of a file to its state after an event
// (each previewed as the diff it makes, then applied as a new event on
// confirmation), and live updates as other processes (a running `journal
// serve`) commit.
//
// Server-rendered HTML (html/template) and a few lines of plain JavaScript
// (keyboard navigation, the live reload), embedded with go:embed: no build
// step, no CDN, works offline. htmx would add a dependency for what three
// event listeners do here.
//
// It reads only through the engine's public read paths (replay.Engine,
// journal.Tx, replay.BlameTx); it never reads the bbolt format itself.
//
// Safety: it listens on loopback only; every request's Host must be a
// loopback name (a DNS rebinding page cannot reach it), a request with an
// Origin must come from the app's own origin, and a mutating request is a
// POST carrying the CSRF token of the page that offered it (an HMAC, keyed
// per server start).
//
// `journal serve --http ADDR --web` mounts it at / beside /mcp (loopback
// addresses only).
//
// Not built yet (issue #18): undo of a whole session,
// side-by-side diffs and syntax highlighting, and --token for non-loopback
// use.
package web
