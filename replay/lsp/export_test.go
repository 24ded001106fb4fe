package lsp

import "time"

// SetStartBackoff changes how long a failed start keeps a server
// unavailable, for tests; it returns a function that restores it.
func SetStartBackoff(d time.Duration) func() {
	old := startBackoff
	startBackoff = d
	return func() { startBackoff = old }
}
