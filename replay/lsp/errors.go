package lsp

import "errors"

// ErrNoServer means no language server handles a path: no server is
// configured for its extension, the server's binary is not on PATH, or the
// manager is disabled. It is wrapped with the reason (see Manager.Available).
var ErrNoServer = errors.New("lsp: no language server")

// ErrUnsupported means the server asked for something this client does not
// do (a resource operation in a workspace edit) or does not offer the request
// at all (no rename provider, no code actions).
var ErrUnsupported = errors.New("lsp: unsupported")

// ErrServerExited means the language server process ended while a request was
// in flight; the next call starts it again.
var ErrServerExited = errors.New("lsp: language server exited")
