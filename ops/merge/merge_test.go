package merge_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/journalfs/journal/ops"
	"github.com/journalfs/journal/ops/merge"
)

func TestMerge3(t *testing.T) {
	tests := []struct {
		name                string
		base, ours, theirs  string
		want                string
		conflict            string // substring of the conflict message, if a conflict is expected
		conflictLine, endLn int
	}{
		{name: "disjoint", base: "a\nb\nc\nd\ne\n", ours: "a\nB\nc\nd\ne\n", theirs: "a\nb\nc\nD\ne\n", want: "a\nB\nc\nD\ne\n"},
		{name: "adjacent lines combine", base: "a\nb\nc\nd\n", ours: "a\nB\nc\nd\n", theirs: "a\nb\nC\nd\n", want: "a\nB\nC\nd\n"},
		{name: "identical change", base: "a\nb\nc\n", ours: "a\nZ\nc\n", theirs: "a\nZ\nc\n", want: "a\nZ\nc\n"},
		{name: "identical change plus other", base: "a\nb\nc\nd\ne\n", ours: "a\nZ\nc\nd\ne\n", theirs: "a\nZ\nc\nd\nE\n", want: "a\nZ\nc\nd\nE\n"},
		{name: "conflict one line", base: "a\nb\nc\n", ours: "a\nX\nc\n", theirs: "a\nY\nc\n", conflict: "line 2 changed by both", conflictLine: 2},
		{name: "conflict range", base: "a\nb\nc\nd\ne\n", ours: "a\nB\nC\nD\ne\n", theirs: "a\nb\nQ\nd\ne\n", conflict: "lines 2-4 changed by both", conflictLine: 2, endLn: 4},
		{name: "conflict in shifted coordinates", base: "a\nb\nc\n", ours: "0\n1\n2\na\nb\nX\n", theirs: "a\nb\nY\n", conflict: "line 6 changed by both", conflictLine: 6},
		{name: "delete vs modify", base: "a\nb\nc\nd\n", ours: "a\nb\nd\n", theirs: "a\nb\nC\nd\n", conflict: "line 3 (removed since) changed by both", conflictLine: 3},
		{name: "two inserts same place", base: "a\nb\n", ours: "a\nX\nb\n", theirs: "a\nY\nb\n", conflict: "line 2 changed by both", conflictLine: 2},
		{name: "inserts different places", base: "a\nb\nc\n", ours: "X\na\nb\nc\n", theirs: "a\nb\nc\nY\n", want: "X\na\nb\nc\nY\n"},
		{name: "crlf preserved", base: "a\r\nb\r\nc\r\n", ours: "a\r\nb\r\nc\r\nd\r\n", theirs: "A\r\nb\r\nc\r\n", want: "A\r\nb\r\nc\r\nd\r\n"},
		{name: "mixed endings preserved", base: "a\nb\r\nc\n", ours: "a\nb\r\nC\n", theirs: "A\r\nb\r\nc\n", want: "A\r\nb\r\nC\n"},
		{name: "ending change is a change", base: "a\nb\nc\n", ours: "a\r\nb\nc\n", theirs: "a\nb\nC\n", want: "a\r\nb\nC\n"},
		{name: "no final newline", base: "a\nb\nc", ours: "A\nb\nc", theirs: "a\nb\nc\nd", want: "A\nb\nc\nd"},
		{name: "final newline removed", base: "a\nb\nc\n", ours: "A\nb\nc\n", theirs: "a\nb\nc", want: "A\nb\nc"},
		{name: "empty base", base: "", ours: "x\n", theirs: "y\n", conflict: "changed by both", conflictLine: 1},
		{name: "empty result", base: "a\n", ours: "a\n", theirs: "", want: ""},
		{name: "all empty", base: "", ours: "", theirs: "", want: ""},
		{name: "tabs and blanks", base: "\tx\n\n\ty\n", ours: "\tx\n\n\ty\n\tz\n", theirs: "\tX\n\n\ty\n", want: "\tX\n\n\ty\n\tz\n"},
		{name: "two conflicts", base: "a\nb\nc\nd\ne\n", ours: "A\nb\nc\nd\nE\n", theirs: "1\nb\nc\nd\n5\n", conflict: "line 1, line 5 changed by both", conflictLine: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, f := range []struct {
				name string
				fn   func(b, o, t []byte) ([]byte, error)
			}{{"Merge3", merge.Merge3}, {"full", merge.Merge3NoShortcut}} {
				got, err := f.fn([]byte(tt.base), []byte(tt.ours), []byte(tt.theirs))
				if tt.conflict == "" {
					if err != nil || string(got) != tt.want {
						t.Fatalf("%s = %q, %v; want %q", f.name, got, err, tt.want)
					}
					continue
				}
				var e *ops.Error
				if !errors.Is(err, ops.ErrConflict) || !errors.As(err, &e) {
					t.Fatalf("%s err = %v, want ErrConflict", f.name, err)
				}
				if !strings.Contains(e.Msg, tt.conflict) || len(e.Candidates) == 0 ||
					e.Candidates[0].Line != tt.conflictLine || e.Candidates[0].EndLine != tt.endLn {
					t.Fatalf("%s conflict = %q %+v; want %q at %d-%d", f.name, e.Msg, e.Candidates, tt.conflict, tt.conflictLine, tt.endLn)
				}
			}
		})
	}
}

func TestMerge3_RevertScenario(t *testing.T) {
	before := "package p\n\nfunc A() int { return 1 }\n\nfunc B() int { return 2 }\n"
	after := strings.Replace(before, "return 1", "return 10", 1) // event N
	current := strings.Replace(after, "return 2", "return 20", 1) + "\nfunc C() {}\n"
	reverted, err := merge.Merge3([]byte(after), []byte(current), []byte(before))
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(before, "return 2", "return 20", 1) + "\nfunc C() {}\n"
	if string(reverted) != want {
		t.Fatalf("revert = %q, want %q", reverted, want)
	}
	// reverting the revert re-applies event N and keeps the later work
	again, err := merge.Merge3(reverted, reverted, []byte(current))
	if err != nil || string(again) != current {
		t.Fatalf("revert of revert = %q, %v", again, err)
	}
}

// uniqueLines returns n distinct lines tagged with tag.
func uniqueLines(tag string, n int) []string {
	ls := make([]string, n)
	for i := range ls {
		ls[i] = fmt.Sprintf("%s%d\n", tag, i)
	}
	return ls
}

func join(parts ...[]string) []byte {
	var b bytes.Buffer
	for _, p := range parts {
		b.WriteString(strings.Join(p, ""))
	}
	return b.Bytes()
}

// TestMerge3_DisjointProperty: two edits separated by an untouched line
// always combine, and taking one of them back out leaves the other.
func TestMerge3_DisjointProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for iter := range 500 {
		n := 2 + r.IntN(40)
		base := uniqueLines("b", n)
		// region1 = [a0,a1), region2 = [c0,c1) with a1 < c0 (one line apart)
		a0 := r.IntN(n - 1)
		a1 := a0 + r.IntN(n-1-a0)
		c0 := a1 + 1 + r.IntN(n-a1-1)
		c1 := c0 + r.IntN(n-c0+1)
		x, y := uniqueLines("x", r.IntN(4)), uniqueLines("y", r.IntN(4))
		ours := join(base[:a0], x, base[a1:])
		theirs := join(base[:c0], y, base[c1:])
		want := join(base[:a0], x, base[a1:c0], y, base[c1:])
		got, err := merge.Merge3(join(base), ours, theirs)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("iter %d: merge = %q, %v; want %q", iter, got, err, want)
		}
		back, err := merge.Merge3(theirs, got, join(base))
		if err != nil || !bytes.Equal(back, ours) {
			t.Fatalf("iter %d: revert = %q, %v; want %q", iter, back, err, ours)
		}
	}
}

func checkIdentities(t *testing.T, b, o, th []byte) {
	t.Helper()
	for _, c := range []struct {
		name          string
		base, ours, t []byte
		want          []byte
	}{
		{"Merge3(b,b,t)==t", b, b, th, th},
		{"Merge3(b,o,b)==o", b, o, b, o},
		{"Merge3(b,o,o)==o", b, o, o, o},
	} {
		got, err := merge.Merge3NoShortcut(c.base, c.ours, c.t)
		if err != nil || !bytes.Equal(got, c.want) {
			t.Fatalf("%s: got %q, %v; want %q (b=%q o=%q t=%q)", c.name, got, err, c.want, b, o, th)
		}
	}
	_, _ = merge.Merge3(b, o, th) // must not panic
}

func TestMerge3_Identities(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	alphabet := []string{"a\n", "b\n", "c\r\n", "\n", "d", "a\n"}
	gen := func() []byte {
		var b bytes.Buffer
		for range r.IntN(30) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		return b.Bytes()
	}
	for range 2000 {
		checkIdentities(t, gen(), gen(), gen())
	}
}

func FuzzMerge3(f *testing.F) {
	f.Add([]byte("a\nb\nc\n"), []byte("a\nB\nc\n"), []byte("a\nb\nC\n"))
	f.Add([]byte("a\r\nb"), []byte("b"), []byte("a\r\n"))
	f.Add([]byte(""), []byte("x\n"), []byte("y"))
	f.Add([]byte("x\nx\nx\n"), []byte("x\n"), []byte("x\ny\nx\n"))
	f.Fuzz(func(t *testing.T, b, o, th []byte) {
		checkIdentities(t, b, o, th)
	})
}

func BenchmarkMerge3_10kLines(b *testing.B) {
	base := uniqueLines("line ", 10000)
	ours := append([]string(nil), base...)
	theirs := append([]string(nil), base...)
	for i := 0; i < 10000; i += 50 {
		ours[i] = "ours " + ours[i]
		theirs[i+25] = "theirs " + theirs[i+25]
	}
	bb, ob, tb := join(base), join(ours), join(theirs)
	b.SetBytes(int64(len(bb)))
	for b.Loop() {
		if _, err := merge.Merge3(bb, ob, tb); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMerge3_10kLinesRewritten(b *testing.B) {
	base := uniqueLines("line ", 10000)
	ours := uniqueLines("other ", 10000)
	bb, ob := join(base), join(ours)
	for b.Loop() {
		if _, err := merge.Merge3NoShortcut(bb, ob, ob); err != nil {
			b.Fatal(err)
		}
	}
}
