package replay

// Spares waits for the engine's spares being made and returns how many it
// holds.
func (e *Engine) Spares() int {
	e.spares.wg.Wait()
	e.spares.mu.Lock()
	defer e.spares.mu.Unlock()
	return len(e.spares.files)
}

// SparesOff reports whether the engine stopped using spares.
func (e *Engine) SparesOff() bool {
	e.spares.mu.Lock()
	defer e.spares.mu.Unlock()
	return e.spares.off
}

// SetProcSelfFD replaces /proc/self/fd/ for linking spares until the
// returned func restores it.
func SetProcSelfFD(p string) func() {
	saved := procSelfFD
	procSelfFD = p
	return func() { procSelfFD = saved }
}

// SpareLinks returns how many temps were made from spares.
func SpareLinks() int64 { return spareLinks.Load() }

// SetWalkListed runs f after each directory a walk lists, before its
// entries are looked at, until the returned func restores it.
func SetWalkListed(f func(rel string, names []string)) func() {
	walkListed = f
	return func() { walkListed = nil }
}

// SetWalkOpenDir makes a walk's open of a directory fail with err when
// fail(name) says so, until the returned func restores it.
func SetWalkOpenDir(fail func(name string) bool, err error) func() {
	walkOpenDir = func(dirfd int, name string) (int, error) {
		if fail(name) {
			return -1, err
		}
		return openDirAt(dirfd, name)
	}
	return func() { walkOpenDir = openDirAt }
}
