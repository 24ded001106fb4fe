package replay

import "time"

// SetFault installs a hook that runs before each step of the apply protocol
// ("mkdir", "create", "write", "fsync" or, for a logged batch's temps, "written",
// "log", "rename", "remove", "dirsync") and may fail it.
// (It waits for a batch or a deferred checkpoint in flight.)
func (e *Engine) SetFault(f func(step, path string) error) { e.mu.Lock(); e.fault = f; e.mu.Unlock() }

// SetCommitFault installs a hook that runs before every journal commit and may fail it.
func (e *Engine) SetCommitFault(f func() error) { e.mu.Lock(); e.commitFault = f; e.mu.Unlock() }

// TempName exposes the temporary-file naming rule to tests.
var TempName = tempName

// IsTemp exposes the temporary-file test to tests.
var IsTemp = isTemp

// LargeHashes returns how many large files batches and reads have hashed.
func LargeHashes() int64 { return largeHashes.Load() }

// SetBootTime makes the engine believe the machine booted at t (the power
// failure heuristic of recovery, wal.go) until the returned func restores it.
func SetBootTime(t time.Time) func() {
	saved := bootTime
	bootTime = func() time.Time { return t }
	return func() { bootTime = saved }
}

// SetLogDelays sets the deferred seal's delay and the age at which logged
// batches are checkpointed (seal.go, wal.go) until the returned func
// restores them: an hour each keeps every run of the log whole.
func SetLogDelays(seal, age time.Duration) func() {
	s, a := sealDelay, maxLogAge
	sealDelay, maxLogAge = seal, age
	return func() { sealDelay, maxLogAge = s, a }
}

// SetDirOpened runs f after Observe opens a directory's handle, until the
// returned func restores it.
func SetDirOpened(f func(dir string)) func() {
	dirOpened = f
	return func() { dirOpened = nil }
}

// Logged returns how many logged batches wait for the checkpoint.
func (e *Engine) Logged() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.logged) + len(e.appended)
}
