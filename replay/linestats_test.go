package replay

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/aymanbagabas/go-udiff/lcs"
)

// lineStatsFull is lineStats without trimming: the whole texts diffed.
func lineStatsFull(before, after []byte) (added, removed int) {
	for _, d := range lcs.DiffLines(splitLines(string(before)), splitLines(string(after))) {
		removed += d.End - d.Start
		added += d.ReplEnd - d.ReplStart
	}
	return added, removed
}

// TestLineStats_MatchesFullDiff checks that trimming the common lines gives
// the counts of diffing the whole texts, for edits of a few lines anywhere
// (with and without a final newline, lines repeated, lines split and joined).
func TestLineStats_MatchesFullDiff(t *testing.T) {
	cases := [][2]string{
		{"", ""}, {"", "a"}, {"a", ""}, {"a\n", "a"}, {"a", "a\n"}, {"x", "xy"}, {"x\ny", "x\nz\ny"},
		{"a\nb\n", "c\nb\n"}, {"a\na\na\n", "a\na\n"}, {"ab\n", "a\nb\n"}, {"a\nb\n", "ab\n"},
		{"a\nb\nc", "a\nB\nc"}, {"\n\n\n", "\n\n"}, {"abc", "abd"}, {"x\nabc", "x\nabd"},
	}
	for _, c := range cases {
		ga, gr := lineStats([]byte(c[0]), []byte(c[1]))
		wa, wr := lineStatsFull([]byte(c[0]), []byte(c[1]))
		if ga != wa || gr != wr {
			t.Errorf("lineStats(%q, %q) = +%d -%d, want +%d -%d", c[0], c[1], ga, gr, wa, wr)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"a", "b", "c", "", "a b", "\t}"}
	for i := 0; i < 3000; i++ {
		var lines []string
		for n := rng.IntN(200); n > 0; n-- {
			lines = append(lines, words[rng.IntN(len(words))])
		}
		before := strings.Join(lines, "\n")
		if rng.IntN(2) == 0 {
			before += "\n"
		}
		b := []byte(before)
		after := []byte(before)
		for k := rng.IntN(4); k >= 0; k-- {
			p := 0
			if len(after) > 0 {
				p = rng.IntN(len(after) + 1)
			}
			switch rng.IntN(3) {
			case 0: // insert
				ins := words[rng.IntN(len(words))] + "\n"
				after = append(after[:p:p], append([]byte(ins), after[p:]...)...)
			case 1: // delete a few bytes
				q := min(len(after), p+rng.IntN(8))
				after = append(after[:p:p], after[q:]...)
			default: // replace a byte
				if p < len(after) {
					after[p] = "ab\n"[rng.IntN(3)]
				}
			}
		}
		ga, gr := lineStats(b, after)
		wa, wr := lineStatsFull(b, after)
		if ga != wa || gr != wr {
			t.Fatalf("lineStats(%q, %q) = +%d -%d, want +%d -%d", b, after, ga, gr, wa, wr)
		}
	}
}
