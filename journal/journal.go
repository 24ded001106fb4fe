package journal

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/journalfs/journal/snapshot"
	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// Sentinel errors.
var (
	// ErrNotFound means no journal exists where one was looked for, or no event has that number.
	ErrNotFound = errors.New("journal: not found")
	// ErrBusy means another process held the journal longer than the lock timeout.
	ErrBusy = errors.New("journal: busy")
	// ErrCorrupt means a stored record fails its checksum, does not decode, or breaks the hash chain.
	ErrCorrupt = errors.New("journal: corrupt")
	// ErrState means an operation does not fit an event's state (sealing a sealed event, say).
	ErrState = errors.New("journal: invalid state")
	// ErrFormat means the journal was written in a format newer than this binary reads.
	ErrFormat = errors.New("journal: format too new")
)

// FormatHint is what to do about ErrFormat, for the CLI and the tools.
const FormatHint = "a newer journal binary has written this journal: run that binary (or a newer one) instead of this one — for an MCP client, restart its journal server with it; nothing was changed"

// Format is the newest journal format this package reads and writes, kept in
// the meta bucket ("format", one byte): 1, the bbolt file alone; 2
// (FormatLogged), events may also sit in the write-ahead log (wal.go), which
// a reader of format 1 would ignore; 3 (FormatRepaired), the journal was
// rebuilt by repair and holds damaged events (KindDamaged) whose gaps a
// reader of format 2 would take for tampering; 4 (FormatDeltas), chunks may
// be stored as deltas against other chunks (snapshot's delta.go), which a
// reader of format 3 cannot decode and whose gc would delete; 5
// (FormatCompact), event records may be compact (record.go) and contents'
// manifests inline (snapshot's manifest version 2); 6 (FormatSplice),
// chunks may be stored as splices of their bases (snapshot's delta.go),
// which a reader of format 5 cannot decode; 7 (FormatUndone), an event may
// take back several events (Event.Undone: the undo of a session), a field
// a reader of format 6 does not know and would take the event's hash, which
// covers it, for tampering; 8 (FormatWhole), a content of one chunk may
// have no manifest, its chunk being marked whole instead, and splices may
// chain 128 deep (snapshot's store.go and delta.go), which a reader of
// format 7 would take for missing contents and damaged chunks; 9
// (FormatActors), event records may name their actor by number (record.go,
// actors.go), which a reader of format 8 cannot decode; 10 (FormatPacked),
// runs of events may be stored as one compressed block (pack.go), which a
// reader of format 9 would take for a damaged record; 11 (FormatBaseRefs),
// a delta or splice chunk may name its bases by the first 8 bytes of their
// IDs (snapshot's delta.go), which a reader of format 10 would take for a
// damaged record; 12 (FormatSalted), an event may commit to its arguments
// by a salted digest (Event.ArgsDigest) and be stored as a record of
// version 5 or 6 (record.go), and a redact event (KindRedact) may have taken
// arguments and contents out, which a reader of format 11 would take for
// tampering; 13 (FormatPrompts), an event may record an agent's prompt
// (KindPrompt, no files), which a reader of format 12 would offer to undo
// (its undo would stop there, finding nothing to take back) and list as an
// unknown kind. A journal is marked 12 in the transaction that appends
// its first event from this version (Tx.MarkFormat), which covers 2 to 11,
// and 13 only in the one that appends its first prompt event, so a journal
// no agent's prompt was recorded in still opens with the version before;
// a journal a version before wrote stays as it was marked: 2 once its
// first logged events reached the bbolt file, 3 when repair wrote it, 4
// when it stored its first delta, 5 to 10 when it appended its first event
// with the versions before this one (10 also when that version's repair or
// gc packed events). Do and View refuse a journal of a newer format
// (ErrFormat).
//
// A content stored before its event is appended (a large one, streamed in
// transactions of its own) may be of format 8 in a journal still marked 7
// until the event lands; a reader of format 7 does not see it, as no event
// it reads names it.
const Format = FormatPrompts

// The formats that need a newer reader than the one before.
const (
	FormatLogged   = 2
	FormatRepaired = 3
	FormatDeltas   = 4
	FormatCompact  = 5
	FormatSplice   = 6
	FormatUndone   = 7
	FormatWhole    = 8
	FormatActors   = 9
	FormatPacked   = 10
	FormatBaseRefs = 11
	FormatSalted   = 12
	FormatPrompts  = 13
)

// DirName is the directory, inside the first workspace root, that holds the journal.
const DirName = ".journal"

// FileName is the bbolt file inside DirName.
const FileName = "journal.db"

// Options configure Open.
type Options struct {
	// Timeout is how long to wait for another process's lock without a sign
	// of its progress (default 2s); see lock_unix.go.
	Timeout time.Duration
	// Waiting, if set, is called once when a call has waited a second for
	// another process's lock (a command says it is waiting).
	Waiting func()
	// Create makes the journal if it does not exist.
	Create bool
}

// Journal is a handle on a journal file. It holds no lock and no open file
// between calls: each Do or View opens the bbolt file, runs, and closes it, so
// several processes can share one journal (see doc.go, "Several processes").
type Journal struct {
	path    string
	timeout time.Duration
	waiting func() // Options.Waiting
	// openFile is the bbolt open seam; tests swap it to inject faults.
	openFile func(path string, mode os.FileMode, o *bolt.Options) (*bolt.DB, error)
	// actors caches the actors records name (actors.go).
	actors actorCache
	// wal is the write-ahead log file (wal.go), opened by the first writer
	// that needs it and kept open (it is only read or written under the
	// exclusive lock); Close releases it.
	walMu   sync.Mutex
	wal     *os.File
	walSize int64 // its size as this process last saw it
	// seen is the file's stamp (check.go) when this handle last knew it
	// sound: after its check passed, or after its own write.
	seen atomic.Value
	// written is the stamp this handle last wrote beside the file (string):
	// a call that changed nothing does not write it again.
	written atomic.Value
	// origin is set on a readable copy (readable.go): the journal it is a
	// copy of, which damage found in it is reported against; poison is the
	// copy's poison page and finding what the check found there.
	origin  *Journal
	poison  uint64
	finding string
}

// Path returns the bbolt file's path.
func (j *Journal) Path() string { return j.path }

// Open returns a handle on the journal at path (a bbolt file). With
// Options.Create, a missing journal is created under a temporary name, its
// buckets made, then renamed into place and the directory fsynced, so a crash
// never leaves a half-initialised journal.
func Open(path string, o Options) (*Journal, error) {
	if o.Timeout <= 0 {
		o.Timeout = 2 * time.Second
	}
	j := &Journal{path: path, timeout: o.Timeout, waiting: o.Waiting, openFile: bolt.Open}
	_, err := os.Stat(path)
	switch {
	case err == nil:
		return j, nil
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("journal: open %s: %w", path, err)
	case !o.Create:
		return nil, fmt.Errorf("journal: open %s: %w", path, ErrNotFound)
	}
	if err := create(path); err != nil {
		return nil, err
	}
	return j, nil
}

// checkFormat refuses a journal whose format is newer than Format. Do and
// View run it on every open (one key read).
func (j *Journal) checkFormat(db *bolt.DB) error {
	var v byte
	err := db.View(func(tx *bolt.Tx) error {
		if m := tx.Bucket(bucketMeta); m != nil {
			if b := m.Get([]byte("format")); len(b) == 1 {
				v = b[0]
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("journal: read format of %s: %w", j.path, err)
	}
	if v > Format {
		return fmt.Errorf("journal: %s is in format %d; this binary reads formats up to %d (run a newer journal binary): %w", j.path, v, Format, ErrFormat)
	}
	return nil
}

// MarkFormat records that the journal is in format v (see Format), unless it
// is marked newer already.
func (t *Tx) MarkFormat(v byte) error {
	m := t.tx.Bucket(bucketMeta)
	if b := m.Get([]byte("format")); len(b) == 1 && b[0] >= v {
		return nil
	}
	if err := m.Put([]byte("format"), []byte{v}); err != nil {
		return fmt.Errorf("journal: mark format %d: %w", v, err)
	}
	return nil
}

func create(path string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("journal: create %s: %w", dir, err)
	}
	if filepath.Base(dir) == DirName {
		gi := filepath.Join(dir, ".gitignore")
		if _, err := os.Stat(gi); errors.Is(err, fs.ErrNotExist) {
			if err := os.WriteFile(gi, []byte("*\n"), 0o644); err != nil {
				return fmt.Errorf("journal: create %s: %w", gi, err)
			}
		}
	}
	tmp := fmt.Sprintf("%s.init-%d", path, os.Getpid())
	db, err := bolt.Open(tmp, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		return fmt.Errorf("journal: create %s: %w", tmp, err)
	}
	err = db.Update(createBuckets)
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("journal: create %s: %w", path, err)
	}
	// Link, not rename: if another process created the journal meanwhile, keep theirs.
	err = os.Link(tmp, path)
	if err != nil && !errors.Is(err, fs.ErrExist) {
		os.Remove(tmp)
		return fmt.Errorf("journal: create %s: %w", path, err)
	}
	if err == nil {
		// A write-ahead log left by a journal file that was removed belongs
		// to that journal, not this one (its records would not follow).
		if err := os.Remove(path + ".wal"); err != nil && !errors.Is(err, fs.ErrNotExist) {
			os.Remove(tmp)
			return fmt.Errorf("journal: create %s: remove a stale log: %w", path, err)
		}
	}
	os.Remove(tmp)
	return syncDir(dir)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("journal: sync dir %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("journal: sync dir %s: %w", dir, err)
	}
	return nil
}

// open opens the bbolt file; run it under protect. A panic inside bbolt's
// Open (a damaged meta or freelist page) closes the file it opened, so that
// its flock is not left held.
func (j *Journal) open(readOnly bool) (*bolt.DB, error) { return j.openFormat(readOnly, true) }

// openFormat is open; without strict, a format the damaged file does not
// let it read is not checked (repair reads what it can).
func (j *Journal) openFormat(readOnly, strict bool) (*bolt.DB, error) {
	var f *os.File
	o := &bolt.Options{Timeout: j.timeout, ReadOnly: readOnly,
		OpenFile: func(name string, flag int, perm os.FileMode) (*os.File, error) {
			fh, err := os.OpenFile(name, flag, perm)
			f = fh
			return fh, err
		}}
	defer func() {
		if r := recover(); r != nil {
			if f != nil {
				f.Close()
			}
			panic(r)
		}
	}()
	db, err := j.openFile(j.path, 0o600, o)
	if err != nil {
		if errors.Is(err, bolterrors.ErrTimeout) {
			return nil, fmt.Errorf("journal: %s is held by another process for more than %v: %w", j.path, j.timeout, ErrBusy)
		}
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("journal: open %s: %w", j.path, ErrNotFound)
		}
		if damagedOpen(err) {
			d := &DamageError{What: err.Error()}
			j.noteDamage(d)
			return nil, d
		}
		return nil, fmt.Errorf("journal: open %s: %w", j.path, err)
	}
	if err := j.checkFormatSafe(db, strict); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// checkFormatSafe is checkFormat; without strict, damage met reading the
// format is ignored.
func (j *Journal) checkFormatSafe(db *bolt.DB, strict bool) (err error) {
	if !strict {
		defer func() {
			if r := recover(); r != nil {
				if !storePanic(r) {
					panic(r)
				}
				err = nil
			}
		}()
	}
	return j.checkFormat(db)
}

// DB is the journal opened exclusively for the duration of one Do call.
type DB struct {
	j  *Journal
	db *bolt.DB
	// lock is the open lock file, which holds the note (SetNote).
	lock *os.File
	// commitHook, if set, runs before every Update commits (fault injection in tests).
	commitHook func() error
	// logLost is the run of events the last LogRead found in damaged log
	// records (LogLost).
	logLost [2]uint64
}

// Update runs fn in a write transaction; it commits (with fsync) when fn returns nil.
func (d *DB) Update(fn func(tx *Tx) error) error {
	return d.db.Update(func(btx *bolt.Tx) error {
		if err := fn(&Tx{tx: btx, j: d.j}); err != nil {
			return err
		}
		if d.commitHook != nil {
			return d.commitHook()
		}
		return nil
	})
}

// View runs fn in a read transaction.
func (d *DB) View(fn func(tx *Tx) error) error {
	return d.db.View(func(btx *bolt.Tx) error { return fn(&Tx{tx: btx, j: d.j}) })
}

// UpdateRaw exposes bbolt write transactions for snapshot.PutStream.
func (d *DB) UpdateRaw(fn func(tx *bolt.Tx) error) error { return d.db.Update(fn) }

// SetNote stores b in the journal's lock file, replacing the note before it,
// for the next holder of the lock to read with Note. It is a single write
// without fsync: it outlives the writing process (a crash, SIGKILL), not
// necessarily the machine, and a crash while it is written can leave it torn
// (Note then returns bytes the caller cannot parse). The replay engine notes
// temporary files it writes before its intent is committed (replay/doc.go).
func (d *DB) SetNote(b []byte) error {
	buf := make([]byte, 4+len(b))
	binary.BigEndian.PutUint32(buf, uint32(len(b)))
	copy(buf[4:], b)
	if _, err := d.lock.WriteAt(buf, 0); err != nil {
		return fmt.Errorf("journal: write note: %w", err)
	}
	return nil
}

// Note returns the last note SetNote stored (by this process or another),
// or nil if there is none.
func (d *DB) Note() ([]byte, error) {
	var hdr [4]byte
	if _, err := d.lock.ReadAt(hdr[:], 0); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil // an empty lock file: no note yet
		}
		return nil, fmt.Errorf("journal: read note: %w", err)
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n == 0 || n > maxNote {
		return nil, nil
	}
	b := make([]byte, n)
	if _, err := d.lock.ReadAt(b, 4); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil // torn
		}
		return nil, fmt.Errorf("journal: read note: %w", err)
	}
	return b, nil
}

// maxNote bounds a note; a longer length prefix is garbage.
const maxNote = 1 << 24

// SetCommitHook installs a function that runs just before every commit of
// Update; an error it returns aborts the commit. For fault-injection tests.
func (d *DB) SetCommitHook(h func() error) { d.commitHook = h }

// Do opens the journal exclusively (waiting up to the lock timeout), runs fn,
// and closes it. All writers serialize here, across processes.
//
// A journal found damaged (Damaged) is refused with its DamageError before
// anything is opened; damage found while fn runs (bbolt's panics on a
// damaged page, a fault reading the file) is returned as a DamageError and
// recorded, so later writers refuse too.
func (j *Journal) Do(fn func(db *DB) error) error {
	l, err := j.Acquire()
	if err != nil {
		return err
	}
	err = l.Do(fn)
	if rerr := l.Release(); err == nil && rerr != nil {
		err = rerr
	}
	return err
}

// Lease is the journal's write lock, taken by Acquire and kept, with the
// database open, across the batches Do runs until Release. Between two
// batches of one lease nothing else writes the journal, so the second
// neither takes the lock again nor reopens the database (flock, open,
// mmap, close, munmap: a large part of a small edit's hold). A process keeps one
// only while it has more batches waiting and nobody else waits (Contended):
// see replay.Engine's do.
type Lease struct {
	j      *Journal
	lf     *os.File
	unlock func()
	db     *bolt.DB
	queue  *os.File // the lock's queue file, opened by the first Contended
}

// Acquire takes the journal's lock for writing (waiting for it as Do does)
// and checks the journal as Do does.
func (j *Journal) Acquire() (*Lease, error) {
	lf, unlock, err := j.lock(true)
	if err != nil {
		return nil, err
	}
	if d := j.Damaged(); d != nil {
		unlock()
		return nil, d
	}
	if !j.knownSound() {
		if _, err := j.check(); err != nil {
			unlock()
			return nil, err
		}
	}
	return &Lease{j: j, lf: lf, unlock: unlock}, nil
}

// Do runs fn with the database open for writing, as Journal.Do does; the
// database stays open for the lease's next Do. After an error the caller
// releases the lease.
func (l *Lease) Do(fn func(db *DB) error) error {
	if d := l.j.Damaged(); d != nil {
		return d
	}
	err := l.j.protect(func() error {
		if l.db == nil {
			db, err := l.j.open(false)
			if err != nil {
				return err
			}
			l.db = db
		}
		return fn(&DB{j: l.j, db: l.db, lock: l.lf})
	})
	if !errors.Is(err, ErrDamaged) {
		l.j.wrote()
	}
	return err
}

// Contended reports whether someone else waits for the journal's lock: a
// writer or reader of another process, or a reader of this one.
func (l *Lease) Contended() bool {
	if l.queue == nil {
		q, err := l.j.openQueue()
		if err != nil {
			return false
		}
		l.queue = q
	}
	return waiting(l.queue)
}

// Release closes the database and lets go of the lock.
func (l *Lease) Release() (err error) {
	if l.db != nil {
		err = l.j.protect(func() error {
			if cerr := l.db.Close(); cerr != nil {
				return fmt.Errorf("journal: close: %w", cerr)
			}
			return nil
		})
		l.db = nil
	}
	if l.queue != nil {
		l.queue.Close()
		l.queue = nil
	}
	l.unlock()
	return err
}

// View opens the journal with a shared lock and runs fn in one read
// transaction. A damaged journal is read as far as it can be: damage met on
// the way is returned as a DamageError (and recorded, see Do).
//
// Unless the file is known to have passed the structural check as it is
// now (this handle's check or write, or the stamp beside it: check.go),
// View runs the check first, as Do does: damage that could send bbolt round
// a cycle of pages is read around through a readable copy (readable.go).
func (j *Journal) View(fn func(tx *Tx) error) error {
	_, unlock, err := j.lock(false)
	if err != nil {
		return err
	}
	defer unlock()
	from := j
	var d *DamageError
	if !j.knownSound() {
		fd := j.findings()
		switch {
		case fd.err == nil:
		case !errors.As(fd.err, &d):
			return fd.err
		default:
			r, done, err := j.readable(fd)
			if err != nil {
				return err
			}
			defer done()
			from = r
		}
	}
	return from.protect(func() error {
		db, err := from.open(true)
		if err != nil {
			return err
		}
		defer db.Close()
		return db.View(func(btx *bolt.Tx) error { return fn(&Tx{tx: btx, j: from, damage: d}) })
	})
}

// SetOpenFile replaces the bbolt open function (fault-injection tests).
func (j *Journal) SetOpenFile(f func(path string, mode os.FileMode, o *bolt.Options) (*bolt.DB, error)) {
	j.openFile = f
}

// Bucket names; docs/DESIGN.md ("The bbolt file") has their layout.
var (
	bucketMeta      = []byte("meta")
	bucketEvents    = []byte("events")
	bucketByPath    = []byte("by_path")
	bucketBySession = []byte("by_session")
	bucketHeads     = []byte("heads")
	bucketPending   = []byte("pending")
	bucketLinks     = []byte("links")
	bucketSessions  = []byte("sessions")
	bucketStaging   = []byte("staging")
)

func createBuckets(tx *bolt.Tx) error {
	for _, b := range [][]byte{bucketMeta, bucketEvents, bucketByPath, bucketBySession, bucketHeads,
		bucketPending, bucketLinks, bucketSessions, bucketStaging} {
		if _, err := tx.CreateBucketIfNotExists(b); err != nil {
			return fmt.Errorf("journal: create bucket %s: %w", b, err)
		}
	}
	if err := tx.Bucket(bucketMeta).Put([]byte("format"), []byte{1}); err != nil {
		return err
	}
	return snapshot.CreateBuckets(tx)
}
