package journal

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/journalfs/journal/snapshot"
)

// The write-ahead log: see doc.go, "Write-ahead log".

const (
	walMagic  = 0x4a57414c // "JWAL"
	walHeader = 4 + 4 + 4 + 8 + 4
	// WALSize bounds the log file, and so a run of records. The file is
	// written with zeros ahead of the records, walGrow bytes at a time, so
	// that a record overwrites allocated blocks and its fdatasync has no
	// metadata to commit; it stays at the longest run's size.
	WALSize = 8 << 20
	// walGrow is the step by which the log file is extended (with zeros,
	// fsynced) when a record would not fit.
	walGrow = 1 << 20
	// MaxLogRecord bounds one record (header included): a batch with more
	// content goes through the bbolt intent instead.
	MaxLogRecord = 2 << 20
)

// LogRecord is one batch written ahead of the bbolt file: its events, with
// consecutive sequence numbers (observe events first, then the batch's own),
// and the contents they refer to that the store may not hold yet.
type LogRecord struct {
	Events   []*Event
	Contents []LogContent
}

// LogContent is one content of a LogRecord.
type LogContent struct {
	ID   snapshot.ID
	Data []byte
	// Base, not logged, is the bytes of the content's previous version, if
	// the batch had them: the checkpoint stores Data as deltas against it
	// (snapshot.PutDelta). A record read back from the log has none.
	Base []byte
}

// First returns the sequence number of the record's first event.
func (r *LogRecord) First() uint64 { return r.Events[0].Seq }

// Last returns the sequence number of the record's last event.
func (r *LogRecord) Last() uint64 { return r.Events[len(r.Events)-1].Seq }

// Content returns the record's copy of content id, if it has one.
func (r *LogRecord) Content(id snapshot.ID) ([]byte, bool) {
	for _, c := range r.Contents {
		if c.ID == id {
			return c.Data, true
		}
	}
	return nil, false
}

// encode returns the record as it is written: header (magic, payload
// length, CRC-32C of the payload, first sequence number, event count), then
// the payload: a 4-byte length and the events as JSON, then every content as
// its 32-byte ID, a 4-byte length and its bytes. Big endian throughout.
func (r *LogRecord) encode() ([]byte, error) {
	if len(r.Events) == 0 {
		return nil, fmt.Errorf("journal: log record without events: %w", ErrState)
	}
	for i, e := range r.Events {
		if e.Seq != r.First()+uint64(i) {
			return nil, fmt.Errorf("journal: log record: event %d follows %d: %w", e.Seq, r.First()+uint64(i)-1, ErrState)
		}
	}
	evs, err := json.Marshal(r.Events)
	if err != nil {
		return nil, fmt.Errorf("journal: encode log record %d: %w", r.First(), err)
	}
	n := walHeader + 4 + len(evs)
	for _, c := range r.Contents {
		n += len(c.ID) + 4 + len(c.Data)
	}
	b := make([]byte, walHeader, n)
	b = binary.BigEndian.AppendUint32(b, uint32(len(evs)))
	b = append(b, evs...)
	for _, c := range r.Contents {
		b = append(b, c.ID[:]...)
		b = binary.BigEndian.AppendUint32(b, uint32(len(c.Data)))
		b = append(b, c.Data...)
	}
	binary.BigEndian.PutUint32(b[0:], walMagic)
	binary.BigEndian.PutUint32(b[4:], uint32(len(b)-walHeader))
	binary.BigEndian.PutUint32(b[8:], crc32.Checksum(b[walHeader:], castagnoli))
	binary.BigEndian.PutUint64(b[12:], r.First())
	binary.BigEndian.PutUint32(b[20:], uint32(len(r.Events)))
	return b, nil
}

// logHeader is a record's header, as encode writes it.
type logHeader struct {
	n     int64  // payload length
	crc   uint32 // CRC-32C of the payload
	first uint64 // first event number
	count int    // events
}

// readLogHeader reads the header of the record at off; ok is false where no
// record starts (zeros, a voided record, garbage, the end of the file).
func readLogHeader(f *os.File, off int64) (h logHeader, ok bool, err error) {
	var b [walHeader]byte
	if _, err := f.ReadAt(b[:], off); err != nil {
		if errors.Is(err, io.EOF) {
			return h, false, nil
		}
		return h, false, fmt.Errorf("journal: read log at %d: %w", off, err)
	}
	h = logHeader{n: int64(binary.BigEndian.Uint32(b[4:])), crc: binary.BigEndian.Uint32(b[8:]),
		first: binary.BigEndian.Uint64(b[12:]), count: int(binary.BigEndian.Uint32(b[20:]))}
	ok = binary.BigEndian.Uint32(b[0:]) == walMagic && h.count > 0 && h.n <= MaxLogRecord && off+walHeader+h.n <= WALSize
	return h, ok, nil
}

// last returns the number of the record's last event.
func (h logHeader) last() uint64 { return h.first + uint64(h.count) - 1 }

// decodeLogPayload parses a record's payload (its checksum already checked).
func decodeLogPayload(p []byte, first uint64, count int) (*LogRecord, error) {
	bad := func(what string) error {
		return fmt.Errorf("journal: log record %d: %s: %w", first, what, ErrCorrupt)
	}
	if len(p) < 4 {
		return nil, bad("short")
	}
	n := int(binary.BigEndian.Uint32(p))
	if n > len(p)-4 {
		return nil, bad("events overrun the record")
	}
	r := &LogRecord{}
	if err := json.Unmarshal(p[4:4+n], &r.Events); err != nil {
		return nil, bad(err.Error())
	}
	if len(r.Events) != count || r.First() != first {
		return nil, bad("header and events disagree")
	}
	for rest := p[4+n:]; len(rest) > 0; {
		var c LogContent
		if len(rest) < len(c.ID)+4 {
			return nil, bad("content header overruns the record")
		}
		copy(c.ID[:], rest)
		rest = rest[len(c.ID):]
		m := int(binary.BigEndian.Uint32(rest))
		rest = rest[4:]
		if m > len(rest) {
			return nil, bad("content overruns the record")
		}
		c.Data, rest = rest[:m:m], rest[m:]
		r.Contents = append(r.Contents, c)
	}
	return r, nil
}

// walFile returns the open log file, making it (walGrow bytes of zeros,
// fsynced, its directory fsynced) the first time, and extended so that it
// holds at least size bytes. The caller holds the exclusive lock.
func (j *Journal) walFile(size int64) (*os.File, error) {
	j.walMu.Lock()
	defer j.walMu.Unlock()
	path := j.path + ".wal"
	if j.wal == nil {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return nil, fmt.Errorf("journal: open log %s: %w", path, err)
		}
		fi, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("journal: open log %s: %w", path, err)
		}
		if fi.Size() == 0 { // new: its name must be durable too
			if err := growWAL(f, 0, walGrow); err != nil {
				f.Close()
				return nil, fmt.Errorf("journal: prepare log %s: %w", path, err)
			}
			if err := syncDir(filepath.Dir(path)); err != nil {
				f.Close()
				return nil, err
			}
			j.walSize = walGrow
		} else {
			j.walSize = fi.Size()
		}
		j.wal = f
	}
	if size > j.walSize {
		// Another process may have extended it since.
		if fi, err := j.wal.Stat(); err == nil {
			j.walSize = fi.Size()
		}
	}
	if size > j.walSize {
		to := min(WALSize, (size+walGrow-1)/walGrow*walGrow)
		if err := growWAL(j.wal, j.walSize, to); err != nil {
			return nil, fmt.Errorf("journal: extend log %s: %w", path, err)
		}
		j.walSize = to
	}
	return j.wal, nil
}

// refreshWALSize forgets the log file's size this process last saw, so
// that walFile reads it again.
func (j *Journal) refreshWALSize() {
	j.walMu.Lock()
	defer j.walMu.Unlock()
	if j.wal == nil {
		return
	}
	if fi, err := j.wal.Stat(); err == nil {
		j.walSize = fi.Size()
	}
}

// LogTrim empties the write-ahead log file when nothing in it is needed
// any more: the bbolt file holds every event of its run and the run's
// files are synced (LogUnsynced is 0). The file keeps the longest run's
// size in zeros so that a record's fdatasync has no metadata to commit;
// the replay engine trims it when it closes, so that a journal nobody
// writes does not keep up to WALSize of zeros (2 MiB after a day of
// one-line edits: 100 bytes per edit of 20,000). The next run makes it
// again, walGrow at a time. A crash that loses the truncation leaves the
// old run, which the bbolt file has.
//
// The run also covers for bbolt's newest meta page: were it damaged, bbolt
// would open the file as the transaction before left it, which may be the
// one before the run was moved in, and the run would complete it. So the
// trim first commits one more transaction (metaLogTrimmed), after which
// both meta pages name a file that holds the whole run. The caller holds
// the exclusive lock.
func (d *DB) LogTrim() error {
	var last, unsynced uint64
	var trimmed []byte
	if err := d.View(func(tx *Tx) error {
		last, unsynced = tx.Last(), tx.LogUnsynced()
		trimmed = bytes.Clone(tx.tx.Bucket(bucketMeta).Get(metaLogTrimmed))
		return nil
	}); err != nil {
		return err
	}
	if unsynced != 0 {
		return nil
	}
	if fi, err := os.Stat(d.j.path + ".wal"); err != nil || fi.Size() == 0 {
		return nil // none, or empty already
	}
	if recs, err := d.LogRead(last); err != nil || len(recs) > 0 {
		return err
	}
	if !bytes.Equal(trimmed, u64(last)) {
		if err := d.Update(func(tx *Tx) error { return tx.tx.Bucket(bucketMeta).Put(metaLogTrimmed, u64(last)) }); err != nil {
			return err
		}
	}
	j := d.j
	j.walMu.Lock()
	defer j.walMu.Unlock()
	path := j.path + ".wal"
	f := j.wal
	if f == nil {
		var err error
		if f, err = os.OpenFile(path, os.O_RDWR, 0); errors.Is(err, fs.ErrNotExist) {
			return nil
		} else if err != nil {
			return fmt.Errorf("journal: open log %s: %w", path, err)
		}
		defer f.Close()
	}
	if err := f.Truncate(0); err != nil {
		return fmt.Errorf("journal: empty log %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("journal: empty log %s: %w", path, err)
	}
	j.walSize = 0
	return nil
}

// LogReserve makes the write-ahead log file hold at least size bytes of
// zeros past its records (WALSize at most), fsynced — made, with its
// directory, if there is none — so that a run of records up to size
// pays no growth in a batch. The caller holds the exclusive lock.
func (d *DB) LogReserve(size int64) error {
	_, err := d.j.walFile(min(size, WALSize))
	return err
}

// growWAL writes zeros to f from from to to, and fsyncs it.
func growWAL(f *os.File, from, to int64) error {
	zero := make([]byte, min(to-from, walGrow))
	for off := from; off < to; off += int64(len(zero)) {
		if _, err := f.WriteAt(zero[:min(int64(len(zero)), to-off)], off); err != nil {
			return err
		}
	}
	return f.Sync()
}

// Close releases the log file, if it was opened. The Journal may be used
// again afterwards (it reopens it).
func (j *Journal) Close() error {
	j.walMu.Lock()
	defer j.walMu.Unlock()
	if j.wal == nil {
		return nil
	}
	err := j.wal.Close()
	j.wal = nil
	return err
}

// LogAppend writes rec at offset off of the write-ahead log and syncs it
// (fdatasync): once it returns nil, rec survives a crash or a power failure.
// It returns the offset after rec, where the next record of the same run
// goes (a new run starts at 0). The commit hook runs first, as for Update.
// If the write or the sync fails, the record may or may not be on disk: the
// caller must LogVoid it.
func (d *DB) LogAppend(off int64, rec *LogRecord) (int64, error) {
	return d.LogAppendWith(off, rec, nil)
}

// LogAppendWith is LogAppend doing meanwhile (if not nil) between writing
// the record and syncing it: the kernel is asked to start writing the
// record back first, so the disk works while meanwhile runs, and the sync
// that follows — still before LogAppendWith returns, never skipped — has
// less to wait for. meanwhile runs exactly once, even when the record could
// not be written. A logged batch writes its temp files there (replay), not
// in a goroutine beside the sync: on a busy machine such a goroutine starts
// only once the sync is done, and the two do not overlap.
func (d *DB) LogAppendWith(off int64, rec *LogRecord, meanwhile func()) (end int64, err error) {
	if meanwhile != nil {
		defer func() { runOnce(&meanwhile) }()
	}
	if d.commitHook != nil {
		if err := d.commitHook(); err != nil {
			return off, err
		}
	}
	for _, e := range rec.Events {
		if err := e.salt(); err != nil {
			return off, err
		}
	}
	b, err := rec.encode()
	if err != nil {
		return off, err
	}
	if !LogFits(off, len(b)) {
		return off, fmt.Errorf("journal: log record %d of %d bytes does not fit at %d: %w", rec.First(), len(b), off, ErrState)
	}
	if off == 0 {
		// a new run: another process may have emptied the file (LogTrim)
		d.j.refreshWALSize()
	}
	f, err := d.j.walFile(off + int64(len(b)))
	if err != nil {
		return off, err
	}
	if _, err := f.WriteAt(b, off); err != nil {
		return off, fmt.Errorf("journal: write log record %d: %w", rec.First(), err)
	}
	if meanwhile != nil {
		startWriteback(f, off, int64(len(b)))
		runOnce(&meanwhile)
	}
	if err := datasync(f); err != nil {
		return off, fmt.Errorf("journal: sync log record %d: %w", rec.First(), err)
	}
	return off + int64(len(b)), nil
}

// runOnce runs *fn unless it ran already (nil): it is cleared first, so a
// panic inside it does not run it again on the way out.
func runOnce(fn *func()) {
	if f := *fn; f != nil {
		*fn = nil
		f()
	}
}

// LogFits reports whether a record of size bytes, header included, may be
// written at off.
func LogFits(off int64, size int) bool {
	return size <= MaxLogRecord && off+int64(size) <= WALSize
}

// LogVoid erases the record at off, and with it every record after it
// (LogRead stops there), and syncs: a batch whose record is voided is never
// completed by a recovery.
func (d *DB) LogVoid(off int64) error {
	f, err := d.j.walFile(0)
	if err != nil {
		return err
	}
	if _, err := f.WriteAt(make([]byte, walHeader), off); err != nil {
		return fmt.Errorf("journal: void log record at %d: %w", off, err)
	}
	if err := datasync(f); err != nil {
		return fmt.Errorf("journal: void log record at %d: %w", off, err)
	}
	return nil
}

// LogRead returns the records of the log's last run: from offset 0, each
// whole (its checksum holds) and numbered right after the one before it; a
// torn record, a voided one or one of an earlier run (numbered lower) ends
// the run. A journal without a log file has no records.
//
// A run is not erased once it is copied into the bbolt file (the next run
// overwrites it from offset 0), and it is copied whole: when its first
// record ends at or below after, the run is one the caller has, and LogRead
// returns nothing, having read no more than that record's header (the usual
// case).
func (d *DB) LogRead(after uint64) ([]*LogRecord, error) {
	recs, _, err := d.readRun(0, 0, after)
	return recs, err
}

// LogTail returns the records of the log's current run from offset off on
// — the first numbered next, each numbered right after the one before —
// and the offset after the last of them (off when there are none): the
// records other processes appended to a run the caller knows up to off. A
// torn or voided record, or one of an earlier run, ends them, as in LogRead;
// a damaged one followed by others sets LogLost.
func (d *DB) LogTail(off int64, next uint64) ([]*LogRecord, int64, error) {
	return d.readRun(off, next, 0)
}

// readRun reads records from off on: the first numbered next (any number,
// if next is 0, but then nothing when it ends at or below after), each
// numbered right after the one before. It returns them and the offset after
// the last.
func (d *DB) readRun(off int64, next, after uint64) ([]*LogRecord, int64, error) {
	if fi, err := os.Stat(d.j.path + ".wal"); errors.Is(err, fs.ErrNotExist) || err == nil && fi.Size() == 0 {
		return nil, off, nil // none, or emptied (LogTrim): not made here
	}
	f, err := d.j.walFile(0)
	if err != nil {
		return nil, off, err
	}
	var recs []*LogRecord
	for off+walHeader <= WALSize {
		h, ok, err := readLogHeader(f, off)
		if err != nil {
			return nil, off, err
		}
		if !ok || (next != 0 && h.first != next) {
			break // the end of the run, or a record of an earlier run
		}
		if next == 0 && h.last() <= after {
			return nil, off, nil // a run the bbolt file has
		}
		p := make([]byte, h.n)
		if _, err := f.ReadAt(p, off+walHeader); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, off, fmt.Errorf("journal: read log at %d: %w", off, err)
		}
		if crc32.Checksum(p, castagnoli) != h.crc {
			// torn (never acknowledged) when it is the run's last record;
			// damaged when records numbered after it follow: then they
			// are lost, and LogLost names them
			if last, ok := runAfter(f, off+walHeader+h.n, h.last()); ok {
				d.logLost = [2]uint64{h.first, last}
			}
			break
		}
		r, err := decodeLogPayload(p, h.first, h.count)
		if err != nil {
			return nil, off, err
		}
		recs = append(recs, r)
		next = h.last() + 1
		off += walHeader + h.n
	}
	return recs, off, nil
}

// runAfter follows the headers of the records from off on while each is
// numbered right after the one before (after: the number before the first)
// and returns the last number; ok is false when no such record follows.
func runAfter(f *os.File, off int64, after uint64) (last uint64, ok bool) {
	last = after
	for off+walHeader <= WALSize {
		h, valid, err := readLogHeader(f, off)
		if err != nil || !valid || h.first != last+1 {
			break
		}
		last, ok = h.last(), true
		off += walHeader + h.n
	}
	return last, ok
}

// LogLost returns the events the last LogRead found in damaged records of
// the log — records that fail their checksum although records numbered
// after them follow, so that no torn write explains them — from the first
// damaged one to the end of the run (first is 0 when there are none). They
// cannot be rolled forward; the replay engine records them as lost
// (Tx.AppendLost).
func (d *DB) LogLost() (first, last uint64) { return d.logLost[0], d.logLost[1] }

// LogAhead reports whether the write-ahead log holds a record numbered past
// last (the bbolt file's last event): a batch committed by its record and
// not yet in the bbolt file, which a reader finishes first (as it finishes a
// pending event) by opening the replay engine. It reads the run's headers
// only (a torn record it counts is found torn by the recovery it causes);
// call it holding the lock (View's shared lock will do).
func (j *Journal) LogAhead(last uint64) bool {
	f, err := os.Open(j.path + ".wal")
	if err != nil {
		return false
	}
	defer f.Close()
	var next uint64
	for off := int64(0); ; {
		h, ok, err := readLogHeader(f, off)
		if err != nil || !ok || (off > 0 && h.first != next) {
			return false
		}
		if h.last() > last {
			return true
		}
		next = h.last() + 1
		off += walHeader + h.n
	}
}

// metaLogTrimmed is the meta key LogTrim writes: the last event when it
// emptied the log.
var metaLogTrimmed = []byte("log_trimmed")

// metaLogUnsynced is the meta key of LogUnsynced.
var metaLogUnsynced = []byte("log_unsynced")

// LogUnsynced returns the first event of the write-ahead log's current run
// that the bbolt file holds while its files may not be synced yet (the
// replay engine moved it in for a reader before its checkpoint), or 0. A
// recovery rolls the files of the run forward from there, not only those of
// the records past the bbolt file's last event.
func (t *Tx) LogUnsynced() uint64 {
	if v := t.tx.Bucket(bucketMeta).Get(metaLogUnsynced); len(v) == 8 {
		return binary.BigEndian.Uint64(v)
	}
	return 0
}

// SetLogUnsynced records LogUnsynced (0 removes it: the run's files are synced).
func (t *Tx) SetLogUnsynced(seq uint64) error {
	m := t.tx.Bucket(bucketMeta)
	if seq == 0 {
		return m.Delete(metaLogUnsynced)
	}
	return m.Put(metaLogUnsynced, u64(seq))
}
