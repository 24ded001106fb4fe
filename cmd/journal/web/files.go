package web

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"

	"github.com/journalfs/journal/journal"
)

const (
	// filesPerPage is how many files a page lists (an event's, a
	// session's, a preview's): more are on the next pages (?from=N).
	filesPerPage = 100
	// inlineRows bounds the diff rows a page renders in place, counted
	// over its files from the first: the other files' diffs are fetched
	// as their entries are opened or scrolled into view, so a page of a
	// 10,000-file event is as small as one of a few files.
	inlineRows = 200
)

// window is the part of a page's file list it shows: files [From, To) of
// Total, with the addresses of the pages before and after ("" at an end).
type window struct {
	From, To, Total int
	Prev, Next      string
}

// Paged reports whether the list spans more than one page.
func (w window) Paged() bool { return w.Prev != "" || w.Next != "" }

// First is the 1-based number of the first file shown.
func (w window) First() int { return w.From + 1 }

// fileWindow is the window of ?from (the 0-based number of the first file
// shown; default 0) over total files.
func fileWindow(r *http.Request, total int) (window, error) {
	from := 0
	if v := r.URL.Query().Get("from"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n >= total && n > 0 {
			return window{}, fmt.Errorf("from=%q is not a file of this page: it lists %d files", v, total)
		}
		from = n
	}
	w := window{From: from, To: min(from+filesPerPage, total), Total: total}
	link := func(n int) string {
		u := *r.URL
		q := u.Query()
		q.Del("from")
		if n > 0 {
			q.Set("from", strconv.Itoa(n))
		}
		u.RawQuery = q.Encode()
		return u.RequestURI()
	}
	if from > 0 {
		w.Prev = link(max(0, from-filesPerPage))
	}
	if w.To < total {
		w.Next = link(w.To)
	}
	return w, nil
}

// windowHint is the hint of a bad ?from.
const windowHint = "the page's own links (next files, previous files) give a ?from that exists"

// inPlace returns the diffs of a page's n files: file i diffed in place
// (diff) while the page's rows stay within inlineRows and it is not large,
// else its entry (stub: the file's name and counts) with the address its
// diff is fetched from (lazy) when opened or scrolled into view. A large
// file's entry starts folded (it is fetched when opened); another's starts
// unfolded (fetched when it comes into view). The first diff made is
// always kept, so a page of one file shows it whole, as before.
func inPlace(n int, large func(i int) bool, diff func(i int) fileDiff, stub func(i int) fileDiff, lazy func(i int) string) []fileDiff {
	out := make([]fileDiff, 0, n)
	rows := 0
	for i := range n {
		big := large(i)
		if rows < inlineRows && !big {
			d := diff(i)
			if rows == 0 || rows+len(d.Rows) <= inlineRows {
				rows += max(len(d.Rows), 1)
				out = append(out, d)
				continue
			}
			rows = inlineRows // the budget is spent: the rest are fetched
		}
		d := stub(i)
		d.Lazy, d.Open = lazy(i), !big
		out = append(out, d)
	}
	return out
}

// lineCounts sums the lines files added and removed.
func lineCounts(files []journal.FileChange) (added, removed int) {
	for _, f := range files {
		added += f.Added
		removed += f.Removed
	}
	return added, removed
}

// diffSides returns a copy of page (files of ev) with each rename's
// before-side the content it carried (ev.MoveSource): what its diff is
// made from.
func diffSides(ev *journal.Event, page []journal.FileChange) []journal.FileChange {
	page = slices.Clone(page)
	for i, f := range page {
		if src, ok := ev.MoveSource(f); ok {
			page[i].Before, page[i].BeforeMode = src.Before, src.BeforeMode
		}
	}
	return page
}
