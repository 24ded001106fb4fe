package journal

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	bolterrors "go.etcd.io/bbolt/errors"
	"golang.org/x/sys/unix"
)

// ErrDamaged means the journal file's structure is damaged: a page or meta
// page fails bbolt's checks (which bbolt reports by panicking), or reading
// the file faults. DamageError says what; every open and transaction of a
// Journal turns such a fault into one (see protect).
var ErrDamaged = errors.New("journal: damaged")

// DamageError is a damaged journal file: what is damaged, and where.
type DamageError struct {
	Path string // the journal file
	What string // what failed: bbolt's assertion, the fault, the open error
	// Earlier is set when the damage was found by an earlier call (the
	// marker file, see Journal.Damaged), not by this one.
	Earlier bool
}

// Error says what is damaged.
func (e *DamageError) Error() string {
	if e.Path == "" {
		return "journal: damaged: " + e.What
	}
	if e.Earlier {
		return fmt.Sprintf("journal: %s is damaged (found earlier: %s)", e.Path, e.What)
	}
	return fmt.Sprintf("journal: %s is damaged: %s", e.Path, e.What)
}

// Unwrap returns ErrDamaged.
func (e *DamageError) Unwrap() error { return ErrDamaged }

// DamageHint is what to do about a damaged journal.
const DamageHint = "reads of workspace files still work and `journal log` shows what is readable; edits are refused until the journal is repaired: `journal repair` says what can be salvaged, `journal repair --apply` rebuilds it (the damaged file is kept beside it)"

// markerSuffix names the file, beside the journal, that records damage once
// found (Journal.Damaged): writers refuse while it exists.
const markerSuffix = ".damaged"

// Damaged returns the damage an earlier call found and recorded beside the
// journal file, or nil. Do refuses to write while it is there; removing it
// (once the journal is replaced or repaired) lifts that.
//
// The marker names the damaged file's inode: once that file is moved aside
// or replaced (a restored backup, a new journal), the marker no longer
// applies.
func (j *Journal) Damaged() *DamageError {
	b, err := os.ReadFile(j.path + markerSuffix)
	if err != nil {
		return nil
	}
	first, rest, _ := strings.Cut(string(b), "\n")
	if ino, ok := strings.CutPrefix(first, "inode "); !ok || ino != fileInode(j.path) {
		return nil
	}
	what := strings.TrimSpace(rest)
	if what == "" {
		what = "no details recorded"
	}
	return &DamageError{Path: j.path, What: what, Earlier: true}
}

// ClearDamaged removes the damage marker (after the journal was replaced).
func (j *Journal) ClearDamaged() error {
	if err := os.Remove(j.path + markerSuffix); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("journal: clear damage marker: %w", err)
	}
	return nil
}

// markDamaged records d beside the journal, best effort: a read-only file
// system or directory leaves no marker, and the next call finds the damage
// again.
func (j *Journal) markDamaged(d *DamageError) {
	if j.origin != nil || j.Damaged() != nil {
		return
	}
	ino := fileInode(j.path)
	if ino == "" {
		return
	}
	msg := fmt.Sprintf("inode %s\n%s (%s, pid %d)\n", ino, d.What, time.Now().UTC().Format(time.RFC3339), os.Getpid())
	_ = os.WriteFile(j.path+markerSuffix, []byte(msg), 0o600)
}

// fileInode is the device and inode of path, "" when it cannot be read.
func fileInode(path string) string {
	st := statOf(path)
	if st == nil {
		return ""
	}
	return fmt.Sprintf("%d:%d", st.Dev, st.Ino)
}

// statOf is the stat of path, nil when it cannot be read.
func statOf(path string) *unix.Stat_t {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return nil
	}
	return &st
}

// damagedOpen reports whether err from bbolt's Open means a damaged file
// (rather than a lock timeout or a missing file).
func damagedOpen(err error) bool {
	for _, e := range []error{bolterrors.ErrInvalid, bolterrors.ErrChecksum, bolterrors.ErrVersionMismatch, bolterrors.ErrInvalidMapping} {
		if errors.Is(err, e) {
			return true
		}
	}
	return strings.Contains(err.Error(), "file size too small") || strings.Contains(err.Error(), "invalid database")
}

// protect runs fn with memory faults turned into panics (a damaged page can
// point bbolt outside its mapping) and turns a panic that comes from bbolt —
// its assertions on damaged pages — or from a fault into a DamageError,
// recorded beside the journal. Any other panic is a bug, and goes on.
func (j *Journal) protect(fn func() error) (err error) {
	old := debug.SetPanicOnFault(true)
	defer debug.SetPanicOnFault(old)
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		if !storePanic(r) {
			panic(r)
		}
		d := j.asDamage(r)
		j.noteDamage(d)
		err = d
	}()
	return fn()
}

// asDamage is the DamageError a store panic (storePanic) stands for. On a
// readable copy, bbolt's refusal of the poison page is said as what the
// check found (j may be nil).
func (j *Journal) asDamage(r any) *DamageError {
	if d, ok := r.(*DamageError); ok {
		return d
	}
	what := fmt.Sprint(r)
	if j != nil && j.origin != nil && strings.Contains(what, fmt.Sprintf("page %d:", j.poison)) {
		what = j.finding + " (found by the structural check)"
	}
	return &DamageError{What: what}
}

// noteDamage names the journal file in d and records the damage beside it;
// on a readable copy, the journal it is a copy of (j may be nil).
func (j *Journal) noteDamage(d *DamageError) {
	if j == nil {
		return
	}
	if j.origin != nil {
		j = j.origin
	}
	d.Path = j.path
	j.markDamaged(d)
}

// storePanic reports whether a recovered panic comes from reading the
// journal file: a memory fault away from address zero (the file's mapping),
// or a panic raised inside bbolt.
func storePanic(r any) bool {
	if _, ok := r.(*DamageError); ok {
		return true // raised by this package on a damaged key or value
	}
	if f, ok := r.(interface{ Addr() uintptr }); ok && f.Addr() >= 1<<16 {
		return true
	}
	// The frame that raised each panic on the stack (a recover that closes
	// a file and panics again raises the outer one): bbolt's raised it.
	pcs := make([]uintptr, 128)
	n := runtime.Callers(3, pcs) // from inside the deferred function
	frames := runtime.CallersFrames(pcs[:n])
	panicking := false
	for {
		fr, more := frames.Next()
		switch {
		case fr.Function == "runtime.gopanic":
			panicking = true
		case panicking && strings.HasPrefix(fr.Function, "runtime."):
		case panicking:
			if strings.HasPrefix(fr.Function, "go.etcd.io/bbolt") {
				return true
			}
			panicking = false
		}
		if !more {
			return false
		}
	}
}
