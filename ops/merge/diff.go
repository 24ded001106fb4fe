package merge

// hunk says base lines [b0,b1) became side lines [s0,s1).
type hunk struct{ b0, b1, s0, s1 int }

// diffLines returns the hunks turning a into b (line IDs, small non-negative
// integers), in order. Lines that occur on one side only are marked changed
// up front and left out of the Myers search (as GNU diff does), which keeps
// heavily rewritten files linear.
func diffLines(a, b []int) []hunk {
	da, db := make([]bool, len(a)), make([]bool, len(b))
	fa, ia := onlyShared(a, b, da)
	fb, ib := onlyShared(b, a, db)
	d := &differ{a: fa, b: fb, da: make([]bool, len(fa)), db: make([]bool, len(fb))}
	d.compare(0, len(fa), 0, len(fb))
	for k, changed := range d.da {
		da[ia[k]] = changed
	}
	for k, changed := range d.db {
		db[ib[k]] = changed
	}
	var hs []hunk
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		if i < len(a) && j < len(b) && !da[i] && !db[j] {
			i, j = i+1, j+1
			continue
		}
		h := hunk{b0: i, s0: j}
		for i < len(a) && da[i] {
			i++
		}
		for j < len(b) && db[j] {
			j++
		}
		h.b1, h.s1 = i, j
		hs = append(hs, h)
	}
	return hs
}

// onlyShared returns the lines of x that also occur in y, with their indexes
// in x, and marks the others in changed.
func onlyShared(x, y []int, changed []bool) (kept, idx []int) {
	n := 0
	for _, id := range x {
		n = max(n, id+1)
	}
	in := make([]bool, n)
	for _, id := range y {
		if id < n {
			in[id] = true
		}
	}
	for i, id := range x {
		if in[id] {
			kept, idx = append(kept, id), append(idx, i)
		} else {
			changed[i] = true
		}
	}
	return kept, idx
}

// differ marks deleted lines of a (da) and inserted lines of b (db).
type differ struct {
	a, b   []int
	da, db []bool
}

func (d *differ) compare(a0, a1, b0, b1 int) {
	for a0 < a1 && b0 < b1 && d.a[a0] == d.b[b0] {
		a0, b0 = a0+1, b0+1
	}
	for a0 < a1 && b0 < b1 && d.a[a1-1] == d.b[b1-1] {
		a1, b1 = a1-1, b1-1
	}
	switch {
	case a0 == a1:
		for j := b0; j < b1; j++ {
			d.db[j] = true
		}
	case b0 == b1:
		for i := a0; i < a1; i++ {
			d.da[i] = true
		}
	default:
		x, y, ok := d.split(a0, a1, b0, b1)
		if !ok || (x == a0 && y == b0) || (x == a1 && y == b1) {
			for i := a0; i < a1; i++ {
				d.da[i] = true
			}
			for j := b0; j < b1; j++ {
				d.db[j] = true
			}
			return
		}
		d.compare(a0, x, b0, y)
		d.compare(x, a1, y, b1)
	}
}

// split finds where a shortest edit script of a[a0:a1]→b[b0:b1] crosses its
// middle (Myers' middle snake, searched from both ends at once).
func (d *differ) split(a0, a1, b0, b1 int) (x, y int, ok bool) {
	n, m := a1-a0, b1-b0
	maxD := (n + m + 1) / 2
	off := maxD + 1
	v1 := make([]int, 2*maxD+3)
	v2 := make([]int, 2*maxD+3)
	for i := range v1 {
		v1[i], v2[i] = -1, -1
	}
	v1[off+1], v2[off+1] = 0, 0
	delta := n - m
	front := delta%2 != 0
	k1start, k1end, k2start, k2end := 0, 0, 0, 0
	for e := 0; e < maxD; e++ {
		for k1 := -e + k1start; k1 <= e-k1end; k1 += 2 {
			i := off + k1
			var x1 int
			if k1 == -e || (k1 != e && v1[i-1] < v1[i+1]) {
				x1 = v1[i+1]
			} else {
				x1 = v1[i-1] + 1
			}
			y1 := x1 - k1
			for x1 < n && y1 < m && d.a[a0+x1] == d.b[b0+y1] {
				x1, y1 = x1+1, y1+1
			}
			v1[i] = x1
			switch {
			case x1 > n:
				k1end += 2
			case y1 > m:
				k1start += 2
			case front:
				if j := off + delta - k1; j >= 0 && j < len(v2) && v2[j] != -1 && x1 >= n-v2[j] {
					return a0 + x1, b0 + y1, true
				}
			}
		}
		for k2 := -e + k2start; k2 <= e-k2end; k2 += 2 {
			i := off + k2
			var x2 int
			if k2 == -e || (k2 != e && v2[i-1] < v2[i+1]) {
				x2 = v2[i+1]
			} else {
				x2 = v2[i-1] + 1
			}
			y2 := x2 - k2
			for x2 < n && y2 < m && d.a[a1-x2-1] == d.b[b1-y2-1] {
				x2, y2 = x2+1, y2+1
			}
			v2[i] = x2
			switch {
			case x2 > n:
				k2end += 2
			case y2 > m:
				k2start += 2
			case !front:
				if j := off + delta - k2; j >= 0 && j < len(v1) && v1[j] != -1 {
					x1 := v1[j]
					y1 := off + x1 - j
					if x1 >= n-x2 {
						return a0 + x1, b0 + y1, true
					}
				}
			}
		}
	}
	return 0, 0, false
}

// Hunk says lines [A0,A1) of the first sequence became lines [B0,B1) of the
// second.
type Hunk struct{ A0, A1, B0, B1 int }

// Diff returns the hunks turning a into b, in order, where a and b are line
// IDs (small non-negative integers; equal lines have equal IDs). It is the
// diff Merge3 uses.
func Diff(a, b []int) []Hunk {
	hs := diffLines(a, b)
	out := make([]Hunk, len(hs))
	for i, h := range hs {
		out[i] = Hunk{h.b0, h.b1, h.s0, h.s1}
	}
	return out
}

// DiffStrings is Diff over lines given as strings (equal strings, equal
// lines).
func DiffStrings(a, b []string) []Hunk {
	ids := map[string]int{}
	toIDs := func(ls []string) []int {
		out := make([]int, len(ls))
		for i, l := range ls {
			v, ok := ids[l]
			if !ok {
				v = len(ids)
				ids[l] = v
			}
			out[i] = v
		}
		return out
	}
	return Diff(toIDs(a), toIDs(b))
}
