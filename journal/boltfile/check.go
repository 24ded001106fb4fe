package boltfile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"runtime/debug"
	"strings"
	"syscall"
)

// bbolt's on-disk constants (go.etcd.io/bbolt/internal/common).
const (
	boltMagic      = 0xED0CDAED
	boltVersion    = 2
	Branch         = 0x01 // a branch page's type flag
	Leaf           = 0x02 // a leaf page's type flag
	boltMeta       = 0x04
	boltFreelist   = 0x10
	boltBucketLeaf = 0x01
	// Header is a page header's length; Element a page element's.
	Header         = 16
	Element        = 16
	boltNoFreelist = ^uint64(0)
	maxDepth       = 64
	maxPageBytes   = 256 << 20
	metaChecksumAt = 16 + 56 // the checksum follows magic..txid (56 bytes)
	metaRootAt     = 32      // the root bucket's page number in a meta page
	// ReleaseEvery is how many pages the walk reads between two calls of
	// its release function.
	ReleaseEvery = 256
)

// Damage is damage the walk found: what, in the user's words.
type Damage struct{ What string }

// Error says what is damaged.
func (d *Damage) Error() string { return "damaged: " + d.What }

func damagedf(format string, a ...any) error {
	return &Damage{What: fmt.Sprintf(format, a...)}
}

// Report is what the walk found in a file whose meta pages are sound.
type Report struct {
	PageSize int
	Pages    int // pages reached from the root (overflow pages included)
	HighMark uint64
	TxID     uint64
	// FreePages are the pages the freelist lists: space the file holds
	// but no data uses, which a gc's compaction gives back.
	FreePages int
}

// Walk is a whole walk's result: the report (nil when no meta page is
// valid), the first damage (First, a *Damage), the offsets in the file of
// the references to damaged pages that need poison (Refs), whether the meta
// page's root is one (MetaRoot), whether both meta pages are damaged
// (Metas), and the page size and file size it walked.
type Walk struct {
	Report   *Report
	First    error
	Refs     []int64
	MetaRoot bool
	Metas    bool
	PageSize int
	Size     int64
}

// Check maps the file at path read-only and walks it (see the package
// doc); a fault while the mapping is read (the file cut meanwhile) is
// damage too. release, if not nil, is given the mapping every ReleaseEvery
// pages, to let go of the pages walked so far: the walk touches every page
// in use, which would otherwise all count in the process's resident memory.
// The error is the file not opening or mapping, or damage before any page
// could be walked (the file too small, a fault); a walk's damage is in
// Walk.First.
func Check(path string, release func(mapping []byte)) (w *Walk, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := fi.Size()
	if size < 1024 || size != int64(int(size)) {
		return nil, damagedf("the file is %d bytes, too small for a journal", size)
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("map %s: %w", path, err)
	}
	defer syscall.Munmap(data)
	old := debug.SetPanicOnFault(true)
	defer debug.SetPanicOnFault(old)
	defer func() {
		if r := recover(); r != nil {
			if f, ok := r.(interface{ Addr() uintptr }); !ok || f.Addr() < 1<<16 {
				panic(r)
			}
			w, err = nil, damagedf("reading the file faulted: %v", r)
		}
	}()
	c := &walker{data: data, size: size, release: release}
	report, err := c.run()
	return &Walk{Report: report, First: c.first, Refs: c.refs, MetaRoot: c.metaRoot, Metas: c.metas, PageSize: c.ps, Size: size}, err
}

// walker walks a mapped file. Past the meta pages it goes on after damage,
// noting the first (first) and each reference to a damaged page (refs).
type walker struct {
	data     []byte
	size     int64
	ps       int
	hwm      uint64
	seen     []uint64 // a bit per page reached
	n        int
	touched  int // pages walked since the mapping was last let go of
	free     int // pages the freelist lists
	release  func([]byte)
	first    error
	refs     []int64
	metaRoot bool
	metas    bool
}

// note records err as the first damage found, if it is.
func (c *walker) note(err error) {
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
func (c *walker) meta(i, ps int) (root, freelist, hwm, txid uint64, pageSize int, err error) {
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
	h.Write(b[16:metaChecksumAt])
	if h.Sum64() != le.Uint64(b[metaChecksumAt:]) {
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
func (c *walker) bestMeta(ps int) (best metaInfo, errs []string) {
	for i := 0; i < 2; i++ {
		// meta page 1 sits one page in: the page size is meta 0's, else the OS's
		p := ps
		if best.ok {
			p = best.ps
		}
		root, fl, hwm, txid, mps, err := c.meta(i, p)
		if err != nil {
			var d *Damage
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
	if len(b) < Header {
		return 0, 0, false
	}
	n, at = int(le.Uint16(b[10:])), Header
	if n == 0xFFFF {
		if len(b) < Header+8 {
			return 0, 0, false
		}
		n, at = int(le.Uint64(b[Header:])), Header+8
	}
	return n, at, true
}

func (c *walker) run() (*Report, error) {
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
	return &Report{PageSize: c.ps, Pages: c.n, HighMark: c.hwm, TxID: best.txid, FreePages: c.free}, nil
}

// freelist checks the free page numbers the freelist page v lists: a write
// allocates from them, so each must lie between the meta pages and the
// high-water mark, be listed once, in order, and not be a page the tree
// uses — else a commit would write over a live page, or at a negative
// offset.
func (c *walker) freelist(v *view) error {
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

func (c *walker) mark(id uint64) bool {
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
func (c *walker) page(id uint64, want uint16) (*view, error) {
	if id < 2 || id >= c.hwm {
		// a meta page, or a stale page past the mark, can pass bbolt's checks
		return nil, damagedf("page %d: out of range (high-water mark %d)", id, c.hwm)
	}
	if c.mark(id) {
		return nil, damagedf("page %d: reached twice (a cycle or shared page)", id)
	}
	off := int64(id) * int64(c.ps)
	head := c.data[off : off+Header]
	le := binary.LittleEndian
	pid, flags, over := le.Uint64(head), le.Uint16(head[8:]), uint64(le.Uint32(head[12:]))
	switch {
	case pid != id:
		return nil, refuse{damagedf("page %d: says it is page %d", id, pid)}
	case flags != Branch && flags != Leaf && flags != boltMeta && flags != boltFreelist:
		return nil, refuse{damagedf("page %d: type flags %#x", id, flags)}
	case flags&want == 0:
		return nil, damagedf("page %d: type flags %#x", id, flags)
	case id+over >= c.hwm:
		return nil, damagedf("page %d: %d overflow pages run past the high-water mark %d", id, over, c.hwm)
	case (over+1)*uint64(c.ps) > maxPageBytes:
		return nil, damagedf("page %d: %d overflow pages", id, over)
	}
	for k := id + 1; k <= id+over; k++ {
		if c.mark(k) {
			return nil, damagedf("page %d: overflow page %d reached twice", id, k)
		}
	}
	c.n += int(over) + 1
	if c.touched += int(over) + 1; c.touched >= ReleaseEvery && c.release != nil {
		// let go of the pages walked so far (the page cache keeps them;
		// touching one again is cheap)
		c.touched = 0
		c.release(c.data)
	}
	return &view{id: id, off: off, b: c.data[off : off+int64(over+1)*int64(c.ps)]}, nil
}

// tree checks the branch or leaf page id and everything below it. It
// returns the damage of page id itself, and whether the reference to it
// needs poison (bbolt could read it, and loop); damage below is noted, or
// poisoned where it is referred to.
func (c *walker) tree(id uint64, depth int) (poison bool, err error) {
	if depth > maxDepth {
		return true, damagedf("page %d: deeper than %d levels", id, maxDepth)
	}
	v, err := c.page(id, Branch|Leaf)
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
func (c *walker) child(ref int64, id uint64, depth int, safe bool) error {
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
func (c *walker) elements(v *view, depth int) error {
	le := binary.LittleEndian
	b, id := v.b, v.id
	if len(b) < Header {
		return damagedf("page %d: an inline bucket of %d bytes", id, len(b))
	}
	flags, count := le.Uint16(b[8:]), int(le.Uint16(b[10:]))
	if Header+count*Element > len(b) {
		return damagedf("page %d: %d elements do not fit", id, count)
	}
	if flags&Branch != 0 && count == 0 {
		// bbolt never writes one; its cursors would read element -1
		return damagedf("page %d: a branch page without elements", id)
	}
	buckets := false
	for i := 0; i < count; i++ {
		at := Header + i*Element
		e := b[at : at+Element]
		if flags&Branch != 0 {
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
	if flags&Branch != 0 {
		for i := 0; i < count; i++ {
			at := Header + i*Element
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
	spans := []span{{0, Header + count*Element}}
	for i := 0; i < count; i++ {
		at := Header + i*Element
		e := b[at : at+Element]
		from := at + int(le.Uint32(e[4:]))
		spans = append(spans, span{from, from + int(le.Uint32(e[8:])) + int(le.Uint32(e[12:]))})
	}
	for i := 0; i < count; i++ {
		at := Header + i*Element
		e := b[at : at+Element]
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
		if len(in) < Header || le.Uint16(in[8:])&Leaf == 0 {
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
// page, whose header holds the count. ok is false when the file cannot tell
// (no freelist kept, or unreadable).
func FreePages(path string) (n, pageSize int, ok bool) {
	f, err := os.Open(path)
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
	c := &walker{data: head, size: int64(len(head))}
	best, _ := c.bestMeta(ps)
	ps = best.ps
	if !best.ok || best.freelist == boltNoFreelist || int64(best.freelist+1)*int64(ps) > fi.Size() {
		return 0, 0, false
	}
	var h [Header + 8]byte
	if _, err := f.ReadAt(h[:], int64(best.freelist)*int64(ps)); err != nil {
		return 0, 0, false
	}
	count, _, ok := freeCount(h[:])
	if !ok || binary.LittleEndian.Uint16(h[8:])&boltFreelist == 0 || count < 0 || int64(count) > fi.Size()/int64(ps) {
		return 0, 0, false
	}
	return count, ps, true
}
