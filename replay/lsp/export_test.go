package lsp

import "time"

// SetStartBackoff changes how long a failed start keeps a server
// unavailable, for tests; it returns a function that restores it.
func SetStartBackoff(d time.Duration) func() {
	old := startBackoff
	startBackoff = d
	return func() { startBackoff = old }
}

// InFlight returns a channel that receives once a call waits on a server
// (settling diagnostics, a load), and a function that stops watching.
func InFlight() (<-chan struct{}, func()) {
	c := make(chan struct{}, 1)
	f := func() {
		select {
		case c <- struct{}{}:
		default:
		}
	}
	sleeping.Store(&f)
	return c, func() { sleeping.Store(nil) }
}
