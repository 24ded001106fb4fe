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
