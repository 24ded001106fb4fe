package replay

// SetFault installs a hook that runs before each step of the apply protocol
// ("mkdir", "create", "write", "fsync", "rename", "remove", "dirsync") and may fail it.
func (e *Engine) SetFault(f func(step, path string) error) { e.fault = f }

// SetCommitFault installs a hook that runs before every journal commit and may fail it.
func (e *Engine) SetCommitFault(f func() error) { e.commitFault = f }

// TempName exposes the temporary-file naming rule to tests.
var TempName = tempName

// IsTemp exposes the temporary-file test to tests.
var IsTemp = isTemp

// LargeHashes returns how many large files batches and reads have hashed.
func LargeHashes() int64 { return largeHashes.Load() }
