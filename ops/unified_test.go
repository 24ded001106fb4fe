package ops_test

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/journalfs/journal/ops"
)

// applyUnified rebuilds new from old and a unified diff, checking every
// hunk's numbers on both sides (an independent reader of the format).
func applyUnified(t *testing.T, old, diff string) string {
	t.Helper()
	lines := strings.SplitAfter(old, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	var out []string
	next := 1 // the next old line to copy
	prev := byte(0)
	for _, l := range strings.SplitAfter(diff, "\n") {
		kind := prev
		if l != "" && l[0] != '\\' {
			kind = l[0]
		}
		switch {
		case l == "", strings.HasPrefix(l, "---"), strings.HasPrefix(l, "+++"):
		case strings.HasPrefix(l, "@@ "):
			f := strings.Fields(l)
			num := func(s string) (int, int) {
				n, c, has := strings.Cut(s[1:], ",")
				a, _ := strconv.Atoi(n)
				k := 1
				if has {
					k, _ = strconv.Atoi(c)
				}
				return a, k
			}
			a, ac := num(f[1])
			c, cc := num(f[2])
			if ac == 0 {
				a++
			}
			for ; next < a; next++ {
				out = append(out, lines[next-1])
			}
			if cc == 0 {
				c++
			}
			if len(out)+1 != c {
				t.Fatalf("hunk %q: its new side starts at line %d, but the lines before it make %d\n%s", strings.TrimSpace(l), c, len(out), diff)
			}
		case strings.HasPrefix(l, "\\"):
			if prev != '-' { // the line before, as it is in the new text, has no end
				out[len(out)-1] = strings.TrimSuffix(out[len(out)-1], "\n")
			}
		case strings.HasPrefix(l, "+"):
			out = append(out, l[1:])
		case strings.HasPrefix(l, "-"), strings.HasPrefix(l, " "):
			if next > len(lines) || strings.TrimSuffix(lines[next-1], "\n") != strings.TrimSuffix(l[1:], "\n") {
				t.Fatalf("line %q does not match old line %d\n%s", l, next, diff)
			}
			if l[0] == ' ' {
				out = append(out, lines[next-1])
			}
			next++
		}
		prev = kind
	}
	for ; next <= len(lines); next++ {
		out = append(out, lines[next-1])
	}
	return strings.Join(out, "")
}

// TestUnified_HunkNumbers: every hunk names the lines it shows on both
// sides, also after a hunk that joins several changes (go-udiff v0.4.1
// numbered the next hunk's new side without the unchanged lines between
// them), on a hand-found case and random edits of small alphabets.
func TestUnified_HunkNumbers(t *testing.T) {
	cases := [][2]string{
		{"a\nc\nb\nc\nc\na\nb\nc\na\na\nc\n", "c\nb\nb\nc\nc\na\nb\nc\na\na\nc\na\n"},
		{"", "a\n"}, {"a\n", ""}, {"a\nb", "a\nc"},
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 5000 {
		var a []string
		for range rng.IntN(30) {
			a = append(a, string(rune('a'+rng.IntN(3))))
		}
		b := append([]string(nil), a...)
		for range 1 + rng.IntN(4) {
			i := rng.IntN(len(b) + 1)
			switch rng.IntN(3) {
			case 0:
				b = append(b[:i], append([]string{string(rune('a' + rng.IntN(3)))}, b[i:]...)...)
			case 1:
				if i < len(b) {
					b = append(b[:i], b[i+1:]...)
				}
			default:
				if i < len(b) {
					b[i] = "x"
				}
			}
		}
		join := func(l []string) string {
			if len(l) == 0 {
				return ""
			}
			return strings.Join(l, "\n") + "\n"
		}
		cases = append(cases, [2]string{join(a), join(b)})
	}
	for _, c := range cases {
		d := ops.Unified("a", "b", c[0], c[1])
		if got := applyUnified(t, c[0], d); got != c[1] {
			t.Fatalf("%q → %q: the diff makes %q\n%s", c[0], c[1], got, d)
		}
	}
}
