package match

import (
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/agnivade/levenshtein"
)

// fuzzyTieMargin: fuzzy windows that do not overlap the best one and score
// within this margin of it make the fuzzy match ambiguous.
const fuzzyTieMargin = 0.01

// similarity is 1 - levenshtein(a,b)/max(len) counted in runes.
func similarity(a, b string) float64 {
	if a == b {
		return 1
	}
	n := max(utf8.RuneCountInString(a), utf8.RuneCountInString(b))
	return 1 - float64(levenshtein.ComputeDistance(a, b))/float64(n)
}

// windows scores every window of n consecutive lines (all lines if the content
// is shorter) against the search lines. Scoring is two-stage: a byte-histogram
// bound (one edit changes the histogram's L1 distance by at most 2 for ASCII,
// 8 otherwise) discards a window cheaply when its best possible similarity is
// below floor(); survivors get the exact Levenshtein similarity.
type windows struct {
	li     *lineIndex
	n      int    // lines per window
	target string // search lines, trimmed right, joined by "\n"
}

func newWindows(li *lineIndex, sl []string) *windows {
	return &windows{li: li, n: min(len(sl), li.n()), target: strings.Join(sl, "\n")}
}

// text returns window i as compared: lines trimmed right, joined by "\n".
func (w *windows) text(i int) string {
	var b strings.Builder
	for k := 0; k < w.n; k++ {
		if k > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(trimRight(w.li.text(i + k)))
	}
	return b.String()
}

// scan calls visit(i, sim) for each window whose similarity may reach floor().
func (w *windows) scan(floor func() float64, visit func(i int, sim float64)) {
	if w.n == 0 {
		return
	}
	var th, wh [256]int32
	for i := 0; i < len(w.target); i++ {
		th[w.target[i]]++
	}
	th['\n']++ // every window line is counted with a '\n'
	wlen := -1
	add := func(line int, d int32) {
		t := trimRight(w.li.text(line))
		for i := 0; i < len(t); i++ {
			wh[t[i]] += d
		}
		wh['\n'] += d
		wlen += int(d) * (len(t) + 1)
	}
	for k := 0; k < w.n-1; k++ {
		add(k, 1)
	}
	for i := 0; i+w.n <= w.li.n(); i++ {
		add(i+w.n-1, 1)
		if i > 0 {
			add(i-1, -1)
		}
		var l1, high int32
		for c := range wh {
			d := wh[c] - th[c]
			if d < 0 {
				d = -d
			}
			l1 += d
			if c >= 0x80 {
				high += wh[c] + th[c]
			}
		}
		f := float64(2)
		if high > 0 {
			f = 8
		}
		bound := 1 - float64(l1)/f/float64(max(wlen, len(w.target), 1))
		if bound < floor() {
			continue
		}
		visit(i, similarity(w.text(i), w.target))
	}
}

type scored struct {
	i   int
	sim float64
}

// pickApart sorts hits best first and greedily keeps up to k windows of n
// lines that do not overlap each other and score at least floor.
func pickApart(hits []scored, n, k int, floor float64) []scored {
	sort.Slice(hits, func(a, b int) bool {
		if hits[a].sim != hits[b].sim {
			return hits[a].sim > hits[b].sim
		}
		return hits[a].i < hits[b].i
	})
	var out []scored
	for _, h := range hits {
		if len(out) == k || h.sim < floor {
			break
		}
		apart := true
		for _, o := range out {
			if h.i < o.i+n && o.i < h.i+n {
				apart = false
				break
			}
		}
		if apart {
			out = append(out, h)
		}
	}
	return out
}

// nearest returns up to k non-overlapping windows most similar to the search
// lines. It keeps the best pool windows seen so far and uses the worst of
// them as the pruning floor.
func nearest(li *lineIndex, sl []string, k int) (*windows, []scored) {
	const pool = 32
	w := newWindows(li, sl)
	var best []scored // sorted by sim descending, at most pool long
	floor := func() float64 {
		if len(best) < pool {
			return 0
		}
		return best[len(best)-1].sim
	}
	w.scan(floor, func(i int, sim float64) {
		at := sort.Search(len(best), func(j int) bool { return best[j].sim < sim })
		if at >= pool {
			return
		}
		best = append(best, scored{})
		copy(best[at+1:], best[at:])
		best[at] = scored{i, sim}
		if len(best) > pool {
			best = best[:pool]
		}
	})
	return w, pickApart(best, w.n, k, 0)
}
