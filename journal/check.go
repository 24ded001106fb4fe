package journal

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/journalfs/journal/journal/boltfile"
)

// Structural check. bbolt trusts its pages (a damaged one can make it
// panic, fault, or loop for ever), so the file is walked as bbolt's on-disk
// format lays it out before it is read or written (journal/boltfile, whose
// doc says what the walk checks). The store records what the walk found:
// damage beside the journal (noteDamage), a sound file in a stamp (below).
//
// The check does not stop at the first damage: it walks every sound page
// and notes each reference to a page it found damaged. Do refuses to write
// on any damage. A reader (View, Repair) that must go round damage reads a
// copy of the file in which each such reference names a poison page
// instead (readable.go): bbolt stops there with a panic, which protect
// turns into a DamageError and Tx.Scan into a damaged run of events, and
// never follows the damaged page into a loop.

// checkBudget is the mapped memory past which the walk lets go of its
// pages (it seldom comes back to one): every fault maps the 16 pages
// around the one walked (the kernel's fault-around), so what counts is the
// process's mapped memory, not the pages walked (release.go).
const checkBudget = 32 << 20

// CheckReport is what Check found in a sound file.
type CheckReport = boltfile.Report

// Check runs the structural check on the journal file (see above) and
// returns a DamageError naming the first damaged page, or what it walked.
// It takes the journal's lock shared, as a reader.
func (j *Journal) Check() (*CheckReport, error) {
	_, unlock, err := j.lock(false)
	if err != nil {
		return nil, err
	}
	defer unlock()
	return j.check()
}

func (j *Journal) check() (*CheckReport, error) {
	f := j.findings()
	return f.report, f.err
}

// findings is what a check found: the first damage (err), the offsets in
// the file of the references to damaged pages (refs; metaRoot when it is
// the meta page's root), and whether both meta pages are damaged.
type findings struct {
	report   *CheckReport
	err      error
	refs     []int64
	metaRoot bool
	metas    bool // both meta pages are damaged
	ps       int
}

// findings runs the check; damage is recorded beside the journal
// (markDamaged), a sound file is stamped (see stampSuffix).
func (j *Journal) findings() *findings {
	start := time.Now()
	before := fileStamp(j.path)
	w, err := boltfile.Check(j.path, func(m []byte) { releaseOver(m, checkBudget) })
	fd := &findings{err: err}
	if w != nil {
		fd.report, fd.refs, fd.metaRoot, fd.metas, fd.ps = w.Report, w.Refs, w.MetaRoot, w.Metas, w.PageSize
		if fd.err == nil {
			fd.err = w.First
		}
	}
	var bd *boltfile.Damage
	if errors.As(fd.err, &bd) {
		fd.err = &DamageError{What: bd.What}
	} else if fd.err != nil {
		fd.err = fmt.Errorf("journal: check: %w", fd.err)
	}
	var d *DamageError
	if errors.As(fd.err, &d) {
		j.noteDamage(d)
	}
	j.stamp(fd.err == nil, before, start)
	return fd
}

// stampSuffix names the file, beside the journal, that says the journal
// file passed the structural check as it is now: its device, inode, size,
// and modification and change times to the nanosecond. A read or write that
// finds the stamp matching the file skips the check (which reads every page
// in use: tens of milliseconds at 100,000 events); any write to the file
// changes its change time, which no program can set back, and so voids the
// stamp — unless it is a journal's own write, which renews it (wrote). A
// check's stamp is written only for a file last changed more than
// stampMargin before the check began, so that a change just after the check
// cannot share the coarse timestamp of the one before it. What a stamp
// cannot see is damage that bypasses the file system (a failing disk):
// journal status and journal verify check the file every time.
const stampSuffix = ".checked"

// stampMargin is how long before a check the file must have last changed
// for its result to be stamped.
const stampMargin = time.Second

// fileStamp describes the file at path for the stamp ("" when it cannot be
// read).
func fileStamp(path string) string {
	st := statOf(path)
	if st == nil {
		return ""
	}
	return fmt.Sprintf("%d:%d %d %d.%09d %d.%09d", st.Dev, st.Ino, st.Size, st.Mtim.Sec, st.Mtim.Nsec, st.Ctim.Sec, st.Ctim.Nsec)
}

// stamp records a sound check of the file as it was before the check
// began (before) — in this handle, and beside the file when it last changed
// more than stampMargin before — or forgets it after damage; best effort (a
// read-only directory keeps no stamp).
func (j *Journal) stamp(sound bool, before string, start time.Time) {
	if j.origin != nil {
		return
	}
	p := j.path + stampSuffix
	if !sound {
		j.seen.Store("")
		os.Remove(p)
		return
	}
	if before == "" || fileStamp(j.path) != before {
		return
	}
	j.seen.Store(before)
	if st := statOf(j.path); st == nil || !time.Unix(st.Ctim.Sec, st.Ctim.Nsec).Before(start.Add(-stampMargin)) {
		return
	}
	writeStamp(p, before)
	j.written.Store(before)
}

// Stamped reports whether the journal file is, as it is now, one a
// structural check (or this handle's own write) found sound: this handle
// saw it so, or the stamp beside it matches its identity, size and times.
// journal status then reports the check's result without walking every
// page again.
func (j *Journal) Stamped() bool { return j.knownSound() }

// knownSound reports whether the file as it is now is known to have passed
// the check: this handle saw it so (its check, or its own last write), or
// the stamp beside it says so.
func (j *Journal) knownSound() bool {
	now := fileStamp(j.path)
	if now == "" {
		return false
	}
	if s, _ := j.seen.Load().(string); s == now {
		return true
	}
	b, err := os.ReadFile(j.path + stampSuffix)
	if err != nil || strings.TrimSpace(string(b)) != now {
		return false
	}
	j.seen.Store(now)
	return true
}

// wrote records the file as this handle's write (under the exclusive lock,
// to a file known sound before it) left it: bbolt's own writes keep a sound
// file sound, so the next reader — this process or another — need not
// check it again. An outside change in the same clock tick as the commit
// could share its times: a window of a few milliseconds the stamp accepts
// (journal status and verify check every time).
func (j *Journal) wrote() {
	now := fileStamp(j.path)
	if now == "" {
		return
	}
	j.seen.Store(now)
	if w, _ := j.written.Load().(string); w == now {
		return // a call that changed nothing (a logged batch, a read)
	}
	writeStamp(j.path+stampSuffix, now)
	j.written.Store(now)
}

// stampLen is the stamp file's fixed length: it is overwritten in place,
// never truncated (ext4 flushes a file rewritten after a truncation).
const stampLen = 128

// writeStamp writes stamp s, padded to stampLen, over the file at p.
func writeStamp(p, s string) {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	b := make([]byte, stampLen)
	for i := range b {
		b[i] = ' '
	}
	copy(b, s)
	b[stampLen-1] = '\n'
	_, _ = f.WriteAt(b, 0)
	f.Close()
}

// FreePages reads, without walking the file, how many pages its freelist
// lists and the page size (boltfile.FreePages). For journal status on a
// file its stamp shows sound (a read-only bbolt open does not load the
// freelist). ok is false when the file cannot tell (no freelist kept, or
// unreadable).
func (j *Journal) FreePages() (n, pageSize int, ok bool) { return boltfile.FreePages(j.path) }
