// Package web is `journal web`: a local web app over a workspace's journal —
// the timeline of events grouped by session (filters by file, session,
// tool, text and time; paging), an event's diffs, a session's combined
// diff, a file's blame at any event, and four actions — revert an event,
// undo a whole session, restore a file to its state after an event, rewind
// the whole workspace to its state after an event — each previewed as the
// diff it makes (or the conflict that blocks it, in words), then applied as
// one new event on confirmation; new events appear live as any process (a
// running `journal serve`) commits them.
//
// Server-rendered HTML (html/template) and a few lines of plain JavaScript
// (keyboard navigation, the live list), embedded with go:embed: no build
// step, no CDN, works offline. htmx would add a dependency for what three
// event listeners do here.
//
// Pages of many files (files.go) — an event's, a session's, each preview's
// — list 100 files at a time (?from=N, with links to the pages before and
// after) with their counts, and diff in place the first files, up to 200
// rows in all; each other file's entry carries a link to its diff alone
// (an event's /event/N/diff?path=, the page's own address with ?file=
// elsewhere), which works without JavaScript and which app.js fetches as
// the entry comes into view (or, for a large file's folded entry, is
// opened). So the page of a 10,000-file baseline is a few hundred KB.
//
// Diffs (diff.go) are unified or side by side (a cookie set by /view, so
// it works without JavaScript), highlighted server-side by chroma v2 with
// GitHub's light and dark colours, and computed only over the part of a
// file between its common first and last lines: a one-line edit of a 50 MB
// file diffs a few lines. A highlighted line is used only if the lexer gave
// the text back exactly; otherwise the line is shown plain. Hunk numbers
// come from ops.Unified, which corrects go-udiff's.
//
// It reads only through the engine's public read paths (replay.Engine,
// journal.Tx, replay.BlameTx); it never reads the bbolt format itself.
//
// Safety: without a token it answers on loopback only, and every request's
// Host must be a loopback name (a DNS rebinding page cannot reach it); with
// Server.Token (--token) it answers on any address to requests carrying the
// token (?token= once, exchanged for an HttpOnly SameSite=Strict cookie, or
// Authorization: Bearer). Either way a request with an Origin must come
// from the app's own origin, and a mutating request is a POST carrying the
// CSRF token of the page that offered it (an HMAC, keyed per server start;
// a session undo's and a rewind's token also bind the newest event the
// preview saw, so they never take back more than was shown).
//
// `journal serve --http ADDR --web` mounts it at / beside /mcp (beyond
// loopback, behind serve's --token).
//
// The team page (team.go; `journal team web`, NewTeam) serves a remote
// instead of a workspace, through a TeamSource that cmd/journal implements
// with `journal team`'s reading code, so every row and figure comes from
// events verified against their workspace's chain and an object found
// missing or altered is named and not counted. The plots are SVG drawn by
// the server (a stacked bar a day per author, and the same as shares of
// each day), bounded to 10 series and 120 bars each; the timeline's first
// page is in the HTML and app.js appends the next ones from /team/events
// (JSON); an event's diffs are read from the remote's contents (only those
// its files name) and masked as every diff here.
package web
