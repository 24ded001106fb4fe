package mcp

import "bytes"

// finder finds a pattern by its rarest byte. bytes.Index skips ahead with
// IndexByte on the pattern's first byte, which in code and prose is often a
// space or a letter that occurs every few bytes, and then compares at nearly
// every position. finder instead jumps with IndexByte (SIMD) to the places
// where the byte of the pattern that is least frequent in a sample of the
// text sits, and compares only there; if that byte turns out to be common
// after all, it hands the rest of the block to bytes.Index. For an
// indented line of code it is about ten times as fast (BENCHMARKS.md).
type finder struct {
	pat  []byte
	rare int // index in pat of its least frequent byte in the sample
}

// sampleBytes is how much of the text newFinder counts bytes in.
const sampleBytes = 64 << 10

// newFinder picks pat's rarest byte by counting the bytes of sample (the
// start of the text; a sample that is not representative costs speed, never
// correctness).
func newFinder(pat, sample []byte) finder {
	var freq [256]int
	for _, c := range sample[:min(len(sample), sampleBytes)] {
		freq[c]++
	}
	rare := 0
	for i, c := range pat {
		if freq[c] < freq[pat[rare]] {
			rare = i
		}
	}
	return finder{pat: pat, rare: rare}
}

// index returns the offset of the first occurrence of the pattern in s, or -1.
func (f finder) index(s []byte) int {
	n := len(f.pat)
	if n < 2 || len(s) < n {
		return bytes.Index(s, f.pat)
	}
	b, last := f.pat[f.rare], len(s)-n // last: the last possible start
	fails := 0
	for i := 0; i <= last; {
		j := bytes.IndexByte(s[i+f.rare:last+f.rare+1], b)
		if j < 0 {
			return -1
		}
		i += j
		if bytes.Equal(s[i:i+n], f.pat) {
			return i
		}
		i++
		// More than about one false candidate per 32 bytes: the byte is
		// not rare in this text, and bytes.Index's SIMD compare is faster.
		if fails++; fails > 16+i/32 {
			if k := bytes.Index(s[i:], f.pat); k >= 0 {
				return i + k
			}
			return -1
		}
	}
	return -1
}
