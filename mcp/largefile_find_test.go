package mcp

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestLargefileFinder checks finder.index against bytes.Index over texts
// where the rare byte is rare, common (the fallback to bytes.Index), and
// absent from the sample, with occurrences at the edges.
func TestLargefileFinder(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 9))
	texts := map[string][]byte{
		"prose":  bytes.Repeat([]byte("000000123 the quick brown fox jumps over the lazy dog\n"), 2000),
		"braces": bytes.Repeat([]byte("{}{}{}{ {}{ }\n"), 3000),
		"binary": func() []byte {
			b := make([]byte, 50000)
			for i := range b {
				b[i] = byte(r.IntN(4)) + 'a'
			}
			return b
		}(),
	}
	pats := []string{"    func middle() { return 7 }\n", "{ {}{ }", "abcd", "ab", "x", "", "dog\n000000123 the", "zz{zz"}
	for name, text := range texts {
		for _, p := range pats {
			for _, at := range []int{-1, 0, len(text) / 3, len(text) - len(p)} {
				s := bytes.Clone(text)
				if at >= 0 {
					copy(s[at:], p)
				}
				for _, sample := range [][]byte{s, []byte("{}{}{}{}")} {
					f := newFinder([]byte(p), sample)
					for from := 0; from < len(s); from += len(s)/7 + 1 {
						if got, want := f.index(s[from:]), bytes.Index(s[from:], []byte(p)); got != want {
							t.Fatalf("%s, pattern %q at %d, from %d: index %d, bytes.Index %d", name, p, at, from, got, want)
						}
					}
				}
			}
		}
	}
}
