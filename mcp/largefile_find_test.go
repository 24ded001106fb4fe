package mcp

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/journalfs/journal/ops/match"
	"github.com/journalfs/journal/replay"
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

// TestLargefileExactFirst checks that the exact-only scan of a large text in
// memory resolves changes exactly as match.Locate does, and declines (so
// match.Locate decides) whatever is not a clean exact match.
func TestLargefileExactFirst(t *testing.T) {
	for _, eol := range []string{"\n", "\r\n"} {
		var b strings.Builder
		for i := 0; b.Len() < 2*exactFirstMin; i++ {
			fmt.Fprintf(&b, "%07d\tfunc f%d() { return %d }%s", i, i%500, i, eol)
		}
		text := b.String()
		data := []byte(text)
		tx := &ltext{v: &replay.View{Strategy: replay.StrategyMemory}, data: data, body: bytes.NewReader(data), size: int64(len(data))}
		ch := func(search, replace string, occ int, all bool) match.Change {
			return match.Change{Search: search, Replace: replace, Options: match.Options{Occurrence: occ, ReplaceAll: all, Fuzzy: true}}
		}
		ok := [][]match.Change{
			{ch("0000010\tfunc f10()", "X", 0, false)},
			{ch("0030000\tfunc f0() { return 30000 }"+eol, "a"+eol+"b"+eol, 0, false), ch("0000001\t", "#", 0, false)},
			{ch("func f7() { return 7 }", "Y", 0, false), ch("func f499() { return 40499 }", "Z"+eol+"Z", 0, false)},
			{ch("func f3() { return ", "R", 2, false)},
			{ch("func f250() { return ", "S", 0, true)},
		}
		for _, changes := range ok {
			got, err := tx.streamLocate(changes, true)
			if err != nil {
				t.Fatalf("%+v: exact-first declined: %v", changes, err)
			}
			want, err := match.Locate(text, changes)
			if err != nil {
				t.Fatal(err)
			}
			// what a match knows of the text around it for judging
			// look-alikes by class (match.Locate's whole text) a window
			// cannot know: the streamed path writes a large file's
			// look-alikes as sent (README, large files)
			if g, w := withoutLooks(got), withoutLooks(want); g != w {
				t.Fatalf("%+v:\nexact-first %s\nmatch.Locate %s", changes, g, w)
			}
		}
		declined := [][]match.Change{
			{ch("func f3() { return ", "R", 0, false)},                    // ambiguous
			{ch("0000010  func f10()", "X", 0, false)},                    // whitespace level
			{ch("nowhere", "X", 0, false)},                                // miss
			{ch("func f1()", "X", 0, false), ch("f1() {", "Y", 0, false)}, // overlap (and ambiguous)
			{ch("return", "X", 0, true)},                                  // more than scanLimit
			{ch("func f3() { return ", "R", 9999, false)},                 // occurrence out of range
			{ch("0000010", "X", 1, true)},                                 // invalid options
		}
		for _, changes := range declined {
			if edits, err := tx.streamLocate(changes, true); err == nil {
				t.Fatalf("%+v: exact-first resolved %+v", changes, edits)
			}
		}
	}
}

// looksField is the part of a match's printed form about look-alikes.
var looksField = regexp.MustCompile(`(?s)looks:\{path:.*? on:(true|false)\}`)

// withoutLooks prints es with every match's look-alike context left out.
func withoutLooks(es []match.Edit) string {
	return looksField.ReplaceAllString(fmt.Sprintf("%+v", es), "looks:{}")
}
