package journal

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"runtime/debug"
	"strings"
	"syscall"
	"time"
)

// Structural check. bbolt trusts its pages: a damaged header makes it panic
// (protect turns that into a DamageError), read outside its mapping (a
// fault, likewise), loop for ever round a cycle of pages (a child pointer
// that names an ancestor, a branch page without elements whose cursor reads
// element -1) — which nothing can stop once started — or, in a write,
// believe a page spans millions of overflow pages and exhaust memory
// freeing them. Check walks the file as bbolt's on-disk format lays it out,
// through its own read-only mapping: both meta pages (magic, version,
// checksum; the newer valid one is used), then every page reachable from
// the root bucket — nested buckets, inline ones included — checking that
// each lies below the high-water mark and inside the file, names itself, is
// a branch or leaf page, is reached once (no cycles, no sharing), and that
// its elements, keys and values lie inside it; and the freelist: its page's
// header, and every free page it lists lies below the high-water mark, once,
// in order, and is no page the tree uses (a commit allocates from it: a
// damaged entry would make bbolt write over a live page). Its cost is a
// touch of every page in use (BenchmarkCheck100k).
//
// The check does not stop at the first damage: it walks every sound page
// and notes each reference (a branch element, a bucket header, the meta
// page's root) to a page it found damaged. Do refuses to write on any
// damage. A reader (View, Repair) that must go round damage reads a copy of
// the file in which each such reference names a poison page instead
// (readable.go): bbolt stops there with a panic, which protect turns into a
// DamageError and Tx.Scan into a damaged run of events, and never follows
// the damaged page into a loop.

// bbolt's on-disk constants (go.etcd.io/bbolt/internal/common), little
// endian as bbolt writes them on the machines we build for.
const (
	boltMagic           = 0xED0CDAED
	boltVersion         = 2
	boltBranch          = 0x01
	boltLeaf            = 0x02
	boltMeta            = 0x04
	boltFreelist        = 0x10
	boltBucketLeaf      = 0x01
	boltHeader          = 16
	boltElement         = 16
	boltNoFreelist      = ^uint64(0)
	checkMaxDepth       = 64
	checkMaxPageBytes   = 256 << 20
	checkMetaChecksumAt = 16 + 56  // the checksum follows magic..txid (56 bytes)
	metaRootAt          = 32       // the root bucket's page number in a meta page
	checkResident       = 256      // pages walked between two looks at the process's mapped memory (release.go)
	checkBudget         = 32 << 20 // mapped memory past which the walk lets go of its pages (it seldom comes back to one)
)

// CheckReport is what Check found in a sound file.
type CheckReport struct {
	PageSize int
	Pages    int // pages reached from the root (overflow pages included)
	HighMark uint64
	TxID     uint64
	// FreePages are the pages the freelist lists: space the file holds
	// but no data uses, which a gc's compaction gives back.
	FreePages int
}

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
	size     int64
}

// findings runs the check; damage is recorded beside the journal
// (markDamaged), a sound file is stamped (see stampSuffix).
func (j *Journal) findings() *findings {
	start := time.Now()
	before := fileStamp(j.path)
	c, err := j.checkFile()
	fd := &findings{err: err}
	if c != nil {
		fd.report, fd.refs, fd.metaRoot, fd.metas, fd.ps, fd.size = c.report, c.refs, c.metaRoot, c.metas, c.ps, c.size
		if fd.err == nil {
			fd.err = c.first
		}
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

// checkFile maps the file and walks it; a fault while the mapping is read
// (the file cut meanwhile) is damage too.
func (j *Journal) checkFile() (c *checker, err error) {
	f, err := os.Open(j.path)
	if err != nil {
		return nil, fmt.Errorf("journal: check: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("journal: check: %w", err)
	}
	size := fi.Size()
	if size < 1024 || size != int64(int(size)) {
		return nil, damagedf("the file is %d bytes, too small for a journal", size)
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("journal: check: map %s: %w", j.path, err)
	}
	defer syscall.Munmap(data)
	old := debug.SetPanicOnFault(true)
	defer debug.SetPanicOnFault(old)
	defer func() {
		if r := recover(); r != nil {
			if f, ok := r.(interface{ Addr() uintptr }); !ok || f.Addr() < 1<<16 {
				panic(r)
			}
			c, err = nil, damagedf("reading the file faulted: %v", r)
		}
	}()
	c = &checker{data: data, size: size}
	c.report, err = c.run()
	return c, err
}

// checker walks a mapped journal file. Past the meta pages it goes on
// after damage, noting the first (first) and each reference to a damaged
// page (refs).
type checker struct {
	data     []byte
	size     int64
	ps       int
	hwm      uint64
	seen     []uint64 // a bit per page reached
	n        int
	touched  int // pages walked since the mapping was last let go of
	free     int // pages the freelist lists
	report   *CheckReport
	first    error
	refs     []int64
	metaRoot bool
	metas    bool
}

func damagedf(format string, a ...any) error {
	return &DamageError{What: fmt.Sprintf(format, a...)}
}

// note records err as the first damage found, if it is.
func (c *checker) note(err error) {
	var r refuse
	if errors.As(err, &r) {
		err = r.error
	}
	if c.first == nil {
		c.first = err
	}
}

// meta reads meta page i (0 or 1) as written with a page size of ps, or why
// it is invalid.
func (c *checker) meta(i, ps int) (root, freelist, hwm, txid uint64, pageSize int, err error) {
	if int64(i*ps+128) > c.size {
		return 0, 0, 0, 0, 0, damagedf("meta page %d: past the end of the file", i)
	}
	b := c.data[i*ps : i*ps+128]
	le := binary.LittleEndian
	switch {
	case le.Uint16(b[8:])&boltMeta == 0:
		return 0, 0, 0, 0, 0, damagedf("meta page %d: not a meta page (flags %#x)", i, le.Uint16(b[8:]))
	case le.Uint32(b[16:]) != boltMagic:
		return 0, 0, 0, 0, 0, damagedf("meta page %d: bad magic", i)
	case le.Uint32(b[20:]) != boltVersion:
		return 0, 0, 0, 0, 0, damagedf("meta page %d: version %d", i, le.Uint32(b[20:]))
	}
	h := fnv.New64a()
	h.Write(b[16:checkMetaChecksumAt])
	if h.Sum64() != le.Uint64(b[checkMetaChecksumAt:]) {
		return 0, 0, 0, 0, 0, damagedf("meta page %d: checksum mismatch", i)
	}
	return le.Uint64(b[metaRootAt:]), le.Uint64(b[48:]), le.Uint64(b[56:]), le.Uint64(b[64:]), int(le.Uint32(b[24:])), nil
}

// metaInfo is what a valid meta page says.
type metaInfo struct {
	root, freelist, hwm, txid uint64
	ps                        int
	ok                        bool
}

// bestMeta reads both meta pages (a page size of ps for meta page 1 unless
// meta page 0 says otherwise) and returns the newer valid one, and why each
// invalid one is.
func (c *checker) bestMeta(ps int) (best metaInfo, errs []string) {
	for i := 0; i < 2; i++ {
		// meta page 1 sits one page in: the page size is meta 0's, else the OS's
		p := ps
		if best.ok {
			p = best.ps
		}
		root, fl, hwm, txid, mps, err := c.meta(i, p)
		if err != nil {
			var d *DamageError
			if errors.As(err, &d) {
				errs = append(errs, d.What)
			} else {
				errs = append(errs, err.Error())
			}
			continue
		}
		if !best.ok || txid > best.txid {
			best = metaInfo{root: root, freelist: fl, hwm: hwm, txid: txid, ps: mps, ok: true}
		}
	}
	return best, errs
}

// freeCount reads a freelist page's count from its start: the header's, or
// when it does not fit there (0xFFFF) the first element; at is where the
// page numbers begin. ok is false when the page is too short to say.
func freeCount(b []byte) (n, at int, ok bool) {
	le := binary.LittleEndian
	if len(b) < boltHeader {
		return 0, 0, false
	}
	n, at = int(le.Uint16(b[10:])), boltHeader
	if n == 0xFFFF {
		if len(b) < boltHeader+8 {
			return 0, 0, false
		}
		n, at = int(le.Uint64(b[boltHeader:])), boltHeader+8
	}
	return n, at, true
}

func (c *checker) run() (*CheckReport, error) {
	best, errs := c.bestMeta(os.Getpagesize())
	if !best.ok {
		c.metas = true
		return nil, damagedf("both meta pages are invalid (%s)", strings.Join(errs, "; "))
	}
	if best.ps < 512 || best.ps > 1<<20 || best.ps&(best.ps-1) != 0 {
		c.metas = true
		return nil, damagedf("meta page: page size %d", best.ps)
	}
	c.ps, c.hwm = best.ps, best.hwm
	if int64(c.hwm)*int64(c.ps) > c.size {
		// cut short: walk what is left, the pages past its end are damaged
		c.first = damagedf("the file is %d bytes, its meta page says %d pages of %d", c.size, c.hwm, c.ps)
		c.hwm = uint64(c.size / int64(c.ps))
	}
	c.seen = make([]uint64, (max(c.hwm, 2)+63)/64)
	c.mark(0)
	c.mark(1)
	// a read-only open does not load the freelist: only writes need it
	var free *view
	if best.freelist != boltNoFreelist {
		v, err := c.page(best.freelist, boltFreelist)
		if err != nil {
			c.note(err)
		}
		free = v
	}
	if poison, err := c.tree(best.root, 0); err != nil {
		c.note(err)
		c.metaRoot = poison
	}
	if free != nil {
		if err := c.freelist(free); err != nil {
			c.note(err)
		}
	}
	return &CheckReport{PageSize: c.ps, Pages: c.n, HighMark: c.hwm, TxID: best.txid, FreePages: c.free}, nil
}

// freelist checks the free page numbers the freelist page v lists: a write
// allocates from them, so each must lie between the meta pages and the
// high-water mark, be listed once, in order, and not be a page the tree
// uses — else a commit would write over a live page, or at a negative
// offset.
func (c *checker) freelist(v *view) error {
	le := binary.LittleEndian
	n, at, ok := freeCount(v.b)
	if !ok {
		return damagedf("freelist page %d: its count lies outside the page", v.id)
	}
	if n < 0 || n > (len(v.b)-at)/8 {
		return damagedf("freelist page %d: %d free pages do not fit", v.id, n)
	}
	var prev uint64
	for i := 0; i < n; i++ {
		id := le.Uint64(v.b[at+8*i:])
		switch {
		case id < 2 || id >= c.hwm:
			return damagedf("freelist page %d: free page %d out of range (high-water mark %d)", v.id, id, c.hwm)
		case i > 0 && id <= prev:
			return damagedf("freelist page %d: free page %d listed out of order", v.id, id)
		case c.seen[id/64]&(1<<(id%64)) != 0:
			return damagedf("freelist page %d: page %d is listed free but in use", v.id, id)
		}
		prev = id
	}
	c.free = n
	return nil
}

func (c *checker) mark(id uint64) bool {
	w, b := id/64, uint64(1)<<(id%64)
	was := c.seen[w]&b != 0
	c.seen[w] |= b
	return was
}

// view is a branch or leaf page as the check reads it: where it starts in
// the file (off), its bytes with overflow (b).
type view struct {
	id  uint64
	off int64
	b   []byte
}

// refuse is damage of a page that bbolt refuses by itself, with a panic
// (FastCheck: the page names another page, or no page type), or a fault:
// the reference to it needs no poison.
type refuse struct{ error }

func (r refuse) Unwrap() error { return r.error }

// page checks the header of page id against want (page type flags) and
// returns the page with its overflow pages.
func (c *checker) page(id uint64, want uint16) (*view, error) {
	if id < 2 || id >= c.hwm {
		// a meta page, or a stale page past the mark, can pass bbolt's checks
		return nil, damagedf("page %d: out of range (high-water mark %d)", id, c.hwm)
	}
	if c.mark(id) {
		return nil, damagedf("page %d: reached twice (a cycle or shared page)", id)
	}
	off := int64(id) * int64(c.ps)
	head := c.data[off : off+boltHeader]
	le := binary.LittleEndian
	pid, flags, over := le.Uint64(head), le.Uint16(head[8:]), uint64(le.Uint32(head[12:]))
	switch {
	case pid != id:
		return nil, refuse{damagedf("page %d: says it is page %d", id, pid)}
	case flags != boltBranch && flags != boltLeaf && flags != boltMeta && flags != boltFreelist:
		return nil, refuse{damagedf("page %d: type flags %#x", id, flags)}
	case flags&want == 0:
		return nil, damagedf("page %d: type flags %#x", id, flags)
	case id+over >= c.hwm:
		return nil, damagedf("page %d: %d overflow pages run past the high-water mark %d", id, over, c.hwm)
	case (over+1)*uint64(c.ps) > checkMaxPageBytes:
		return nil, damagedf("page %d: %d overflow pages", id, over)
	}
	for k := id + 1; k <= id+over; k++ {
		if c.mark(k) {
			return nil, damagedf("page %d: overflow page %d reached twice", id, k)
		}
	}
	c.n += int(over) + 1
	if c.touched += int(over) + 1; c.touched >= checkResident {
		// let go of the pages walked so far: the walk touches every page in
		// use, which would otherwise all count in the process's resident
		// memory (the page cache keeps them; touching one again is cheap).
		// Every fault maps the 16 pages around the one walked (the
		// kernel's fault-around), so what counts is the process's mapped
		// memory, not the pages walked (release.go).
		c.touched = 0
		releaseOver(c.data, checkBudget)
	}
	return &view{id: id, off: off, b: c.data[off : off+int64(over+1)*int64(c.ps)]}, nil
}

// tree checks the branch or leaf page id and everything below it. It
// returns the damage of page id itself, and whether the reference to it
// needs poison (bbolt could read it, and loop); damage below is noted, or
// poisoned where it is referred to.
func (c *checker) tree(id uint64, depth int) (poison bool, err error) {
	if depth > checkMaxDepth {
		return true, damagedf("page %d: deeper than %d levels", id, checkMaxDepth)
	}
	v, err := c.page(id, boltBranch|boltLeaf)
	if err == nil {
		err = c.elements(v, depth)
	}
	var r refuse
	if errors.As(err, &r) {
		return false, r.error
	}
	return err != nil, err
}

// child walks the page id that the 8 bytes at ref (an offset in the file)
// refer to; a reference that needs poison is recorded, unless the page that
// holds it is damaged itself (the error).
func (c *checker) child(ref int64, id uint64, depth int, safe bool) error {
	poison, err := c.tree(id, depth)
	if err == nil {
		return nil
	}
	c.note(err)
	if !poison {
		return nil
	}
	if !safe {
		return err
	}
	c.refs = append(c.refs, ref)
	return nil
}

// elements checks the elements of page v: their keys and values lie inside
// it; branch children and buckets are walked. The error is damage of v
// itself (bbolt would read its elements wrong).
func (c *checker) elements(v *view, depth int) error {
	le := binary.LittleEndian
	b, id := v.b, v.id
	if len(b) < boltHeader {
		return damagedf("page %d: an inline bucket of %d bytes", id, len(b))
	}
	flags, count := le.Uint16(b[8:]), int(le.Uint16(b[10:]))
	if boltHeader+count*boltElement > len(b) {
		return damagedf("page %d: %d elements do not fit", id, count)
	}
	if flags&boltBranch != 0 && count == 0 {
		// bbolt never writes one; its cursors would read element -1
		return damagedf("page %d: a branch page without elements", id)
	}
	buckets := false
	for i := 0; i < count; i++ {
		at := boltHeader + i*boltElement
		e := b[at : at+boltElement]
		if flags&boltBranch != 0 {
			pos, ksize := int(le.Uint32(e)), int(le.Uint32(e[4:]))
			if at+pos+ksize > len(b) || at+pos+ksize < at {
				return damagedf("page %d: element %d's key lies outside the page", id, i)
			}
			continue
		}
		ef, pos, ksize, vsize := le.Uint32(e), int(le.Uint32(e[4:])), int(le.Uint32(e[8:])), int(le.Uint32(e[12:]))
		if end := at + pos + ksize + vsize; end > len(b) || end < at {
			return damagedf("page %d: element %d lies outside the page", id, i)
		}
		if ef&boltBucketLeaf != 0 {
			if vsize < 16 {
				return damagedf("page %d: element %d: a bucket header of %d bytes", id, i, vsize)
			}
			buckets = true
		}
	}
	if flags&boltBranch != 0 {
		for i := 0; i < count; i++ {
			at := boltHeader + i*boltElement
			if err := c.child(v.off+int64(at+8), le.Uint64(b[at+8:]), depth+1, true); err != nil {
				return err
			}
		}
		return nil
	}
	if !buckets {
		return nil
	}
	// a leaf holding buckets: a bucket header that overlaps another
	// element cannot be poisoned without damaging that element
	type span struct{ from, to int }
	spans := []span{{0, boltHeader + count*boltElement}}
	for i := 0; i < count; i++ {
		at := boltHeader + i*boltElement
		e := b[at : at+boltElement]
		from := at + int(le.Uint32(e[4:]))
		spans = append(spans, span{from, from + int(le.Uint32(e[8:])) + int(le.Uint32(e[12:]))})
	}
	for i := 0; i < count; i++ {
		at := boltHeader + i*boltElement
		e := b[at : at+boltElement]
		ef, pos, ksize, vsize := le.Uint32(e), int(le.Uint32(e[4:])), int(le.Uint32(e[8:])), int(le.Uint32(e[12:]))
		if ef&boltBucketLeaf == 0 {
			continue
		}
		valAt := at + pos + ksize
		val := b[valAt : valAt+vsize]
		if root := le.Uint64(val); root != 0 {
			safe := true
			for k, s := range spans {
				if k != i+1 && valAt < s.to && s.from < valAt+8 {
					safe = false
				}
			}
			if err := c.child(v.off+int64(valAt), root, depth+1, safe); err != nil {
				return damagedf("page %d: element %d overlaps another, and the bucket it holds is damaged (%v)", id, i, err)
			}
			continue
		}
		in := val[16:]
		if len(in) < boltHeader || le.Uint16(in[8:])&boltLeaf == 0 {
			return damagedf("page %d: element %d: an inline bucket that is not a leaf", id, i)
		}
		if err := c.elements(&view{id: id, off: v.off + int64(valAt+16), b: in}, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// FreePages reads, without walking the file, how many pages its freelist
// lists and the page size: the newer valid meta page names the freelist
// page, whose header holds the count. For journal status on a file its
// stamp shows sound (a read-only bbolt open does not load the freelist).
// ok is false when the file cannot tell (no freelist kept, or unreadable).
func (j *Journal) FreePages() (n, pageSize int, ok bool) {
	f, err := os.Open(j.path)
	if err != nil {
		return 0, 0, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, 0, false
	}
	ps := os.Getpagesize()
	head := make([]byte, 2*ps)
	if _, err := f.ReadAt(head, 0); err != nil {
		return 0, 0, false
	}
	c := &checker{data: head, size: int64(len(head))}
	best, _ := c.bestMeta(ps)
	ps = best.ps
	if !best.ok || best.freelist == boltNoFreelist || int64(best.freelist+1)*int64(ps) > fi.Size() {
		return 0, 0, false
	}
	var h [boltHeader + 8]byte
	if _, err := f.ReadAt(h[:], int64(best.freelist)*int64(ps)); err != nil {
		return 0, 0, false
	}
	count, _, ok := freeCount(h[:])
	if !ok || binary.LittleEndian.Uint16(h[8:])&boltFreelist == 0 || count < 0 || int64(count) > fi.Size()/int64(ps) {
		return 0, 0, false
	}
	return count, ps, true
}
