package match

// findTolerant matches whole lines by key: the whitespace level compares
// lines without indentation and trailing whitespace, one for one; the
// normalized level compares folded lines and lets blank lines differ in
// number (skipBlank). Each match records which window line every search line
// aligned with, for carry.
func findTolerant(li *lineIndex, search string, key func(string) string, skipBlank bool, lvl Level) []Match {
	sl, finalNL := searchLines(search)
	keys := make([]string, len(sl))
	var pat []int // search lines that must align
	for i, l := range sl {
		keys[i] = key(l)
		if !skipBlank || keys[i] != "" {
			pat = append(pat, i)
		}
	}
	if len(pat) == 0 {
		return nil
	}
	var ms []Match
	n := li.n()
	lk, have := make([]string, n), make([]bool, n)
	lineKey := func(j int) string {
		if !have[j] {
			lk[j], have[j] = key(li.text(j)), true
		}
		return lk[j]
	}
	for start := 0; start < n; start++ {
		// overlapping windows count too: "}\n}\n" at any indentation
		// stands twice in three closing lines (ambiguous, not the first)
		align, _, ok := tryAt(start, n, sl, keys, skipBlank, lineKey)
		if !ok {
			continue
		}
		// the window spans the lines from the first to the last aligned
		// (leading and trailing blank search lines align only one for one)
		lo, hi := -1, -1
		for _, a := range align {
			if a >= 0 {
				if lo < 0 {
					lo = a
				}
				hi = a
			}
		}
		if lo < 0 {
			continue
		}
		if skipBlank {
			lo, hi = edgeBlanks(align, keys, lo, hi, n, lineKey)
		}
		for i := range align {
			if align[i] >= 0 {
				align[i] -= lo
			}
		}
		m := windowMatch(li, lo, hi-lo+1, finalNL)
		m.Level, m.Similarity = lvl, 1
		m.align = align
		ms = append(ms, m)
	}
	return ms
}

// tryAt aligns the search lines starting at content line start. It returns
// the alignment, the last content line used, and whether every line matched.
func tryAt(start, n int, sl, keys []string, skipBlank bool, lineKey func(int) string) ([]int, int, bool) {
	align := make([]int, len(sl))
	j, last, anchored := start, start, false
	for i := range sl {
		if skipBlank && keys[i] == "" {
			align[i] = -1
			continue
		}
		if skipBlank && anchored {
			for j < n && lineKey(j) == "" {
				j++
			}
		}
		if j >= n || lineKey(j) != keys[i] {
			return nil, 0, false
		}
		align[i], last, anchored = j, j, true
		j++
	}
	return align, last, true
}

// windowMatch returns the byte range of content lines [i, i+n): from the start
// of line i to the end of line i+n-1, its terminator included if finalNL.
func windowMatch(li *lineIndex, i, n int, finalNL bool) Match {
	start, _, _ := li.bounds(i)
	_, textEnd, end := li.bounds(i + n - 1)
	m := Match{Start: start, End: textEnd}
	if finalNL {
		m.End = end
		m.dropFinalNL = end == textEnd
	}
	m.eol = eolAt(li.s, start)
	return m
}

// edgeBlanks takes into the window [lo, hi] the blank lines the file has
// where the search has blank lines before its first and after its last
// aligned line, one for one (as many as both have), and aligns a run of
// blank lines inside the search with the file's when the file has as many
// there: a change that adds or removes a blank line is carried onto the
// file's own blank lines instead of falling outside the window or between
// aligned lines (and being dropped). Blank search lines the file has in
// another number stay unaligned.
func edgeBlanks(align []int, keys []string, lo, hi, n int, lineKey func(int) string) (int, int) {
	first, last := 0, len(keys)-1
	for first < len(keys) && keys[first] == "" {
		first++
	}
	for last >= 0 && keys[last] == "" {
		last--
	}
	for i := first - 1; i >= 0 && lo > 0 && lineKey(lo-1) == ""; i-- {
		lo--
		align[i] = lo
	}
	for i := last + 1; i < len(keys) && hi+1 < n && lineKey(hi+1) == ""; i++ {
		hi++
		align[i] = hi
	}
	// inner runs of blank lines the file has as many of: one for one
	for a := first; a < last; {
		if keys[a] != "" {
			a++
			continue
		}
		b := a
		for keys[b] == "" {
			b++
		}
		if align[b]-align[a-1]-1 == b-a {
			for k := a; k < b; k++ {
				align[k] = align[a-1] + 1 + (k - a)
			}
		}
		a = b
	}
	return lo, hi
}
