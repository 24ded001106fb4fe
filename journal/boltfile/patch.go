package boltfile

import (
	"encoding/binary"
	"hash/fnv"
	"os"
)

// AddPoison appends to the copy f (of ps-byte pages) a poison page: a page
// that names itself but whose type bbolt refuses, with a panic, where it
// would have read a damaged page. It returns the poison page's number.
func AddPoison(f *os.File, ps int) (uint64, error) {
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	poison := uint64((fi.Size() + int64(ps) - 1) / int64(ps))
	page := make([]byte, ps)
	binary.LittleEndian.PutUint64(page, poison)
	if _, err := f.WriteAt(page, int64(poison)*int64(ps)); err != nil {
		return 0, err
	}
	return poison, nil
}

// Poison points each reference at refs (offsets in f, as Walk.Refs) to page
// poison, saving the bytes it overwrites in saved (when not nil).
func Poison(f *os.File, poison uint64, refs []int64, saved map[int64][]byte) error {
	p := make([]byte, 8)
	binary.LittleEndian.PutUint64(p, poison)
	for _, at := range refs {
		if saved != nil {
			old := make([]byte, 8)
			if _, err := f.ReadAt(old, at); err != nil {
				return err
			}
			saved[at] = old
		}
		if _, err := f.WriteAt(p, at); err != nil {
			return err
		}
	}
	return nil
}

// SetRoot writes root into both meta pages of f (of ps-byte pages), whose
// checksums it makes again.
func SetRoot(f *os.File, ps int, root uint64) error {
	for i := 0; i < 2; i++ {
		b := make([]byte, 128)
		if _, err := f.ReadAt(b, int64(i*ps)); err != nil {
			return err
		}
		binary.LittleEndian.PutUint64(b[metaRootAt:], root)
		if err := sealMeta(f, b, int64(i*ps)); err != nil {
			return err
		}
	}
	return nil
}

// sealMeta computes the checksum of meta page b and writes it at off.
func sealMeta(f *os.File, b []byte, off int64) error {
	h := fnv.New64a()
	h.Write(b[16:metaChecksumAt])
	binary.LittleEndian.PutUint64(b[metaChecksumAt:], h.Sum64())
	_, err := f.WriteAt(b, off)
	return err
}

// WriteMetas makes both meta pages of f afresh: page size ps, root, no
// freelist (a read-only open needs none), high-water mark hwm.
func WriteMetas(f *os.File, ps int, root, hwm uint64) error {
	le := binary.LittleEndian
	for i := 0; i < 2; i++ {
		b := make([]byte, ps)
		le.PutUint64(b, uint64(i))
		le.PutUint16(b[8:], boltMeta)
		le.PutUint32(b[16:], boltMagic)
		le.PutUint32(b[20:], boltVersion)
		le.PutUint32(b[24:], uint32(ps))
		le.PutUint64(b[metaRootAt:], root)
		le.PutUint64(b[48:], boltNoFreelist)
		le.PutUint64(b[56:], hwm)
		le.PutUint64(b[64:], uint64(1<<40+i))
		if err := sealMeta(f, b, int64(i*ps)); err != nil {
			return err
		}
	}
	return nil
}

// RootCandidates returns up to most pages below hwm of f (ps-byte pages),
// newest first, that look like a root bucket holding the buckets named:
// a leaf page that names itself, whose elements are all buckets with names
// in names, need among them. For a file whose meta pages are both damaged.
func RootCandidates(f *os.File, ps int, hwm uint64, names map[string]bool, need string, most int) []uint64 {
	le := binary.LittleEndian
	var roots []uint64
	b := make([]byte, ps)
	for p := hwm - 1; p >= 2 && len(roots) < most; p-- {
		if _, err := f.ReadAt(b, int64(p)*int64(ps)); err != nil {
			continue
		}
		count := int(le.Uint16(b[10:]))
		if le.Uint64(b) != p || le.Uint16(b[8:]) != Leaf || count < 2 || Header+count*Element > ps {
			continue
		}
		found, all := false, true
		for i := 0; i < count && all; i++ {
			e := b[Header+i*Element:]
			pos, ksize := int(le.Uint32(e[4:])), int(le.Uint32(e[8:]))
			at := Header + i*Element + pos
			if le.Uint32(e)&boltBucketLeaf == 0 || at+ksize > ps {
				all = false
				break
			}
			k := string(b[at : at+ksize])
			all = names[k]
			found = found || k == need
		}
		if all && found {
			roots = append(roots, p)
		}
	}
	return roots
}
