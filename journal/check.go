package journal

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"strings"
)

// Structural check. bbolt trusts its pages: a damaged header makes it panic
// (protect turns that into a DamageError), read outside its mapping (a
// fault, likewise), or — in a write — believe a page spans millions of
// overflow pages and exhaust memory freeing them, which nothing can catch.
// Check walks the file as bbolt's on-disk format lays it out, with plain
// reads (no mapping): both meta pages (magic, version, checksum; the newer
// valid one is used), then every page reachable from the root bucket —
// nested buckets, inline ones included — checking that each lies below the
// high-water mark and inside the file, names itself, is a branch or leaf
// page, is reached once (no cycles, no sharing), and that its elements,
// keys and values lie inside it; and the freelist page's header. Its cost
// is a read of every page in use. Do runs it once per Journal before its
// first write; journal status runs it every time.

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
	checkMetaChecksumAt = 16 + 56 // the checksum follows magic..txid (56 bytes)
)

// CheckReport is what Check found in a sound file.
type CheckReport struct {
	PageSize int
	Pages    int // pages reached from the root (overflow pages included)
	HighMark uint64
	TxID     uint64
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
	f, err := os.Open(j.path)
	if err != nil {
		return nil, fmt.Errorf("journal: check: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("journal: check: %w", err)
	}
	c := &checker{f: f, size: fi.Size(), seen: map[uint64]bool{}}
	rep, err := c.run()
	var d *DamageError
	if errors.As(err, &d) {
		d.Path = j.path
		j.markDamaged(d)
	}
	return rep, err
}

type checker struct {
	f    *os.File
	size int64
	ps   int
	hwm  uint64
	seen map[uint64]bool
	n    int
}

func damagedf(format string, a ...any) error {
	return &DamageError{What: fmt.Sprintf(format, a...)}
}

// meta reads meta page i (0 or 1) as written with a page size of ps, or why
// it is invalid.
func (c *checker) meta(i, ps int) (root, freelist, hwm, txid uint64, pageSize int, err error) {
	b := make([]byte, 128)
	if _, err := c.f.ReadAt(b, int64(i*ps)); err != nil && !errors.Is(err, io.EOF) {
		return 0, 0, 0, 0, 0, err
	}
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
	return le.Uint64(b[32:]), le.Uint64(b[48:]), le.Uint64(b[56:]), le.Uint64(b[64:]), int(le.Uint32(b[24:])), nil
}

func (c *checker) run() (*CheckReport, error) {
	ps := os.Getpagesize()
	var best struct {
		root, freelist, hwm, txid uint64
		ps                        int
		ok                        bool
	}
	var errs []string
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
			best.root, best.freelist, best.hwm, best.txid, best.ps, best.ok = root, fl, hwm, txid, mps, true
		}
	}
	if !best.ok {
		return nil, damagedf("both meta pages are invalid (%s)", strings.Join(errs, "; "))
	}
	if best.ps < 512 || best.ps > 1<<20 || best.ps&(best.ps-1) != 0 {
		return nil, damagedf("meta page: page size %d", best.ps)
	}
	c.ps, c.hwm = best.ps, best.hwm
	if int64(c.hwm)*int64(c.ps) > c.size {
		return nil, damagedf("the file is %d bytes, its meta page says %d pages of %d", c.size, c.hwm, c.ps)
	}
	c.seen[0], c.seen[1] = true, true
	if best.freelist != boltNoFreelist {
		if _, err := c.page(best.freelist, boltFreelist); err != nil {
			return nil, err
		}
	}
	if err := c.tree(best.root, 0); err != nil {
		return nil, err
	}
	return &CheckReport{PageSize: c.ps, Pages: c.n, HighMark: c.hwm, TxID: best.txid}, nil
}

// view is the part of a page the check reads: its header and element
// array (head), its length with overflow (size), and how to read more of it.
type view struct {
	id   uint64
	size int
	head []byte
	read func(off, n int) ([]byte, error)
}

// page reads the header and element array of page id and checks the header
// against want (page type flags); its overflow pages are not read.
func (c *checker) page(id uint64, want uint16) (*view, error) {
	if id < 2 || id >= c.hwm {
		return nil, damagedf("page %d: out of range (high-water mark %d)", id, c.hwm)
	}
	if c.seen[id] {
		return nil, damagedf("page %d: reached twice (a cycle or shared page)", id)
	}
	off := int64(id) * int64(c.ps)
	head := make([]byte, min(c.ps, 512))
	if _, err := c.f.ReadAt(head, off); err != nil {
		return nil, damagedf("page %d: %v", id, err)
	}
	le := binary.LittleEndian
	pid, flags, count, over := le.Uint64(head), le.Uint16(head[8:]), int(le.Uint16(head[10:])), uint64(le.Uint32(head[12:]))
	switch {
	case pid != id:
		return nil, damagedf("page %d: says it is page %d", id, pid)
	case flags&want == 0 || flags&^(boltBranch|boltLeaf|boltMeta|boltFreelist) != 0:
		return nil, damagedf("page %d: type flags %#x", id, flags)
	case id+over >= c.hwm:
		return nil, damagedf("page %d: %d overflow pages run past the high-water mark %d", id, over, c.hwm)
	case (over+1)*uint64(c.ps) > checkMaxPageBytes:
		return nil, damagedf("page %d: %d overflow pages", id, over)
	}
	for k := id; k <= id+over; k++ {
		if c.seen[k] {
			return nil, damagedf("page %d: overflow page %d reached twice", id, k)
		}
		c.seen[k] = true
	}
	c.n += int(over) + 1
	size := int(over+1) * c.ps
	read := func(at, n int) ([]byte, error) {
		if at < 0 || n < 0 || at+n > size {
			return nil, damagedf("page %d: %d bytes at %d lie outside the page", id, n, at)
		}
		b := make([]byte, n)
		if _, err := c.f.ReadAt(b, off+int64(at)); err != nil {
			return nil, damagedf("page %d: %v", id, err)
		}
		return b, nil
	}
	if flags&(boltBranch|boltLeaf) != 0 {
		if n := boltHeader + count*boltElement; n > len(head) {
			var err error
			if head, err = read(0, n); err != nil {
				return nil, damagedf("page %d: %d elements do not fit", id, count)
			}
		}
	}
	return &view{id: id, size: size, head: head, read: read}, nil
}

// tree checks the branch or leaf page id and everything below it.
func (c *checker) tree(id uint64, depth int) error {
	if depth > checkMaxDepth {
		return damagedf("page %d: deeper than %d levels", id, checkMaxDepth)
	}
	v, err := c.page(id, boltBranch|boltLeaf)
	if err != nil {
		return err
	}
	return c.elements(v, depth)
}

// inline is the view of an inline bucket's page, held in a value.
func inline(id uint64, b []byte) *view {
	return &view{id: id, size: len(b), head: b, read: func(at, n int) ([]byte, error) {
		if at < 0 || n < 0 || at+n > len(b) {
			return nil, damagedf("page %d: an inline bucket's %d bytes at %d lie outside it", id, n, at)
		}
		return b[at : at+n], nil
	}}
}

// elements checks the elements of page v: their keys and values lie inside
// it; branch children and buckets are walked.
func (c *checker) elements(v *view, depth int) error {
	le := binary.LittleEndian
	b, id := v.head, v.id
	flags, count := le.Uint16(b[8:]), int(le.Uint16(b[10:]))
	if boltHeader+count*boltElement > len(b) {
		return damagedf("page %d: %d elements do not fit", id, count)
	}
	if flags&boltBranch != 0 && count == 0 {
		// bbolt never writes one; its cursors would read element -1
		return damagedf("page %d: a branch page without elements", id)
	}
	for i := 0; i < count; i++ {
		at := boltHeader + i*boltElement
		e := b[at : at+boltElement]
		if flags&boltBranch != 0 {
			pos, ksize, child := int(le.Uint32(e)), int(le.Uint32(e[4:])), le.Uint64(e[8:])
			if at+pos+ksize > v.size {
				return damagedf("page %d: element %d's key lies outside the page", id, i)
			}
			if err := c.tree(child, depth+1); err != nil {
				return err
			}
			continue
		}
		ef, pos, ksize, vsize := le.Uint32(e), int(le.Uint32(e[4:])), int(le.Uint32(e[8:])), int(le.Uint32(e[12:]))
		if at+pos+ksize+vsize > v.size {
			return damagedf("page %d: element %d lies outside the page", id, i)
		}
		if ef&boltBucketLeaf == 0 {
			continue
		}
		val, err := v.read(at+pos+ksize, vsize)
		if err != nil {
			return err
		}
		if len(val) < 16 {
			return damagedf("page %d: element %d: a bucket header of %d bytes", id, i, len(val))
		}
		if root := le.Uint64(val); root != 0 {
			if err := c.tree(root, depth+1); err != nil {
				return err
			}
			continue
		}
		in := val[16:]
		if len(in) < boltHeader || le.Uint16(in[8:])&boltLeaf == 0 {
			return damagedf("page %d: element %d: an inline bucket that is not a leaf", id, i)
		}
		if err := c.elements(inline(id, in), depth+1); err != nil {
			return err
		}
	}
	return nil
}
