// Package lsp is the journal's language-server client: it runs real
// language servers (gopls, pyright, typescript-language-server, ...) over
// stdio and asks them for renames, references, diagnostics and quick fixes,
// returned as byte-offset edits the journal applies itself.
package lsp
