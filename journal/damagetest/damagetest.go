// Package damagetest lists the ways the damage tests damage a journal file
// (RELIABILITY.md, "A damaged journal"): the CLI's matrix and the server's
// use the same classes.
package damagetest

import (
	"encoding/binary"
	"fmt"
)

// Damage is one way to damage a copy of a journal file.
type Damage struct {
	Name string
	// Page is the page damaged (-1: meta pages or the whole file).
	Page int
	// Apply damages b (a copy) and returns it.
	Apply func(b []byte) []byte
}

// Flip inverts n bytes at off (clipped to the file).
func Flip(off, n int) func([]byte) []byte {
	return func(b []byte) []byte {
		for i := off; i < off+n && i < len(b); i++ {
			b[i] ^= 0xFF
		}
		return b
	}
}

// Zero clears n bytes at off.
func Zero(off, n int) func([]byte) []byte {
	return func(b []byte) []byte {
		for i := off; i < off+n && i < len(b); i++ {
			b[i] = 0
		}
		return b
	}
}

// Classes lists the damage classes for the journal file orig in pages of
// ps: both meta pages, each page's header and body (page header flipped or
// zeroed, bytes flipped in the element area and the data area), truncation,
// and the damage that would send bbolt round a cycle: a branch page's child
// pointing back at it, a branch page without elements, the root bucket's
// first bucket rooted at the root bucket's page.
func Classes(orig []byte, ps int) []Damage {
	size := len(orig)
	le := binary.LittleEndian
	ds := []Damage{
		{"meta page 0", -1, Flip(16, 32)},
		{"both meta pages", -1, func(b []byte) []byte { return Flip(ps+16, 32)(Flip(16, 32)(b)) }},
		{"truncated to half", -1, func(b []byte) []byte { return b[:len(b)/2] }},
		{"truncated to 100 bytes", -1, func(b []byte) []byte { return b[:100] }},
	}
	for p := 2; p*ps < size; p++ {
		off := p * ps
		ds = append(ds,
			Damage{fmt.Sprintf("page %d header flipped", p), p, Flip(off, 8)},
			Damage{fmt.Sprintf("page %d flags flipped", p), p, Flip(off+8, 2)},
			Damage{fmt.Sprintf("page %d zeroed", p), p, Zero(off, ps)},
			Damage{fmt.Sprintf("page %d elements flipped", p), p, Flip(off+16, 8)},
			Damage{fmt.Sprintf("page %d data flipped", p), p, Flip(off+ps/2, 8)},
		)
		if le.Uint64(orig[off:]) == uint64(p) && le.Uint16(orig[off+8:]) == 0x01 && le.Uint16(orig[off+10:]) > 0 {
			ds = append(ds,
				Damage{fmt.Sprintf("page %d child points back at it", p), p, func(b []byte) []byte {
					le.PutUint64(b[off+16+8:], uint64(p))
					return b
				}},
				Damage{fmt.Sprintf("page %d branch without elements", p), p, Zero(off+10, 2)},
			)
		}
	}
	// the newer meta page's root: a leaf of buckets; its first bucket's
	// header names the root page itself
	meta := 0
	if le.Uint64(orig[ps+64:]) > le.Uint64(orig[64:]) {
		meta = ps
	}
	if root := int(le.Uint64(orig[meta+32:])); (root+1)*ps <= size && le.Uint16(orig[root*ps+8:]) == 0x02 {
		e := root*ps + 16
		if le.Uint32(orig[e:])&1 != 0 {
			at := e + int(le.Uint32(orig[e+4:])) + int(le.Uint32(orig[e+8:]))
			ds = append(ds, Damage{"a bucket rooted at the root bucket's page", root, func(b []byte) []byte {
				le.PutUint64(b[at:], uint64(root))
				return b
			}})
		}
	}
	return ds
}

// Sample keeps, of ds, the damage to the meta pages and the whole file and
// that to pages spread evenly over a file of size bytes: about pages of them.
func Sample(ds []Damage, size, ps, pages int) []Damage {
	step := max(1, size/ps/pages)
	var some []Damage
	for _, d := range ds {
		if d.Page < 0 || d.Page%step == 0 {
			some = append(some, d)
		}
	}
	return some
}
