package match

import (
	"errors"
	"io"
)

// blockSize is how much SearchReader reads at a time.
const blockSize = 4 << 20

// progressBlock is how much a search with Progress searches between two
// calls of it, exact or by regex (fuzzyBlock fuzzily, which is some
// hundred times slower): a cancelled search stops within one.
const (
	progressBlock = 1 << 20
	fuzzyBlock    = 64 << 10
)

// Search finds the lines of data matching pattern. data may be a memory-mapped
// file: it is only read, never copied as a whole.
func Search(data []byte, pattern string, o SearchOptions) (Results, error) {
	s, err := newSearcher(pattern, o)
	if err != nil {
		return Results{}, err
	}
	s.cntLine = 1
	if o.Progress == nil {
		s.region(data, 0, len(data))
		return s.results(), nil
	}
	// in blocks ending at line ends (a match lies within one line)
	step := progressBlock
	if s.fz != nil {
		step = fuzzyBlock
	}
	for from := 0; from < len(data) && !s.stop; {
		to := len(data)
		if from+step < to {
			to = nextLine(data, from+step)
		}
		s.region(data, from, to)
		if err := o.Progress(int64(to)); err != nil {
			return s.results(), err
		}
		from = to
	}
	return s.results(), nil
}

// SearchReader is Search over a stream, read in blocks of a few MiB. Memory
// stays bounded by the block size unless a single line (with its context
// lines) is longer. Exact and regex searches stop reading once MaxResults+1
// hits are found.
func SearchReader(r io.Reader, pattern string, o SearchOptions) (Results, error) {
	s, err := newSearcher(pattern, o)
	if err != nil {
		return Results{}, err
	}
	c := s.o.ContextLines
	size := blockSize
	if o.Progress != nil && s.fz != nil {
		size = 4 * fuzzyBlock
	}
	buf := make([]byte, 0, size)
	base := 1 // line number of buf[0]
	done := 0 // lines before done were searched
	eof := false
	for !s.stop {
		for !eof && len(buf) < cap(buf) {
			n, err := r.Read(buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+n]
			if errors.Is(err, io.EOF) {
				eof = true
			} else if err != nil {
				return s.results(), err
			}
		}
		limit := len(buf)
		if !eof {
			// search complete lines only, keeping c of them back as after-context
			limit = linesBack(buf, lastNL(buf)+1, c)
			if limit <= done {
				grown := make([]byte, len(buf), 2*cap(buf))
				copy(grown, buf)
				buf = grown
				continue
			}
		}
		s.cntPos, s.cntLine = 0, base
		s.region(buf, done, limit)
		if o.Progress != nil {
			if err := o.Progress(s.baseOff + int64(limit)); err != nil {
				return s.results(), err
			}
		}
		if eof {
			break
		}
		keep := linesBack(buf, limit, c) // before-context for the next block
		base += countNL(buf[:keep])
		s.baseOff += int64(keep)
		buf = buf[:copy(buf, buf[keep:])]
		done = limit - keep
	}
	return s.results(), nil
}

// linesBack returns the start of the k-th line before line start p (0 if
// there are fewer lines).
func linesBack(buf []byte, p, k int) int {
	for ; k > 0 && p > 0; k-- {
		p = lastNL(buf[:p-1]) + 1
	}
	return p
}
