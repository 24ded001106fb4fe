package web

import (
	"bytes"
	"fmt"
	"html"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/journalfs/journal/journal"
)

// apply rebuilds the new text from the old one and a diff's rows, checking
// every context and removed line against the old text at its number; it
// fails the test where the rows do not describe old → new exactly.
func apply(t *testing.T, old string, rows []diffRow) string {
	t.Helper()
	lines := strings.SplitAfter(old, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	var out strings.Builder
	next := 1 // the next old line not yet copied
	newNo := 1
	for i, r := range rows {
		text := html.UnescapeString(string(r.HTML))
		switch r.Kind {
		case "hunk", "meta":
			continue
		case "ctx", "del":
			for ; next < r.Old; next++ { // the unchanged lines between hunks
				out.WriteString(lines[next-1])
				newNo++
			}
			if r.Old != next || r.Old > len(lines) || strings.TrimRight(lines[r.Old-1], "\r\n") != text {
				t.Fatalf("row %d (%s) names old line %d %q; the old text there is %q (next %d)", i, r.Kind, r.Old, text, lines[min(r.Old, len(lines))-1], next)
			}
			if r.Kind == "ctx" {
				if r.New != newNo {
					t.Fatalf("row %d: context line numbered %d in the new text, want %d", i, r.New, newNo)
				}
				out.WriteString(lines[r.Old-1])
				newNo++
			}
			next++
		case "add":
			for ; newNo < r.New && next <= len(lines); next++ { // unchanged lines before it
				out.WriteString(lines[next-1])
				newNo++
			}
			if r.New != newNo {
				t.Fatalf("row %d: added line numbered %d, want %d", i, r.New, newNo)
			}
			end := "\n"
			if i+1 < len(rows) && rows[i+1].Kind == "meta" {
				end = "" // "\ No newline at end of file"
			}
			out.WriteString(text + end)
			newNo++
		}
	}
	for ; next <= len(lines); next++ {
		out.WriteString(lines[next-1])
	}
	return out.String()
}

// TestLineDiff_Windowed: the diff of only the changed part of two texts
// (with line numbers shifted to the whole file) describes old → new
// exactly: hand-picked edges and random edits of small alphabets, where
// the common first and last lines overlap most.
func TestLineDiff_Windowed(t *testing.T) {
	cases := [][2]string{
		{"", "a\n"},
		{"a\n", ""},
		{"a\nb\nc\n", "a\nB\nc\n"},
		{"a\nb\nc", "a\nb\nc\nd"},
		{"a\nb\nc\n", "a\nb\nc"},
		{"x\nx\n", "x\nx\nx\n"},
		{"x\nx\nx\n", "x\nx\n"},
		{"1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\nfive\n6\n7\n8\n9\n"},
		{"abc\n", "abd\n"},
		{"ab\nc\n", "a\nbc\n"},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		n := rng.IntN(12)
		var a []string
		for range n {
			a = append(a, string(rune('a'+rng.IntN(3))))
		}
		b := append([]string(nil), a...)
		for range 1 + rng.IntN(3) {
			switch i := rng.IntN(len(b) + 1); rng.IntN(3) {
			case 0:
				b = append(b[:i], append([]string{string(rune('a' + rng.IntN(3)))}, b[i:]...)...)
			case 1:
				if i < len(b) {
					b = append(b[:i], b[i+1:]...)
				}
			case 2:
				if i < len(b) {
					b[i] = string(rune('a' + rng.IntN(4)))
				}
			}
		}
		join := func(l []string) string {
			s := strings.Join(l, "\n")
			if s != "" && rng.IntN(4) != 0 {
				s += "\n"
			}
			return s
		}
		cases = append(cases, [2]string{join(a), join(b)})
	}
	for _, c := range cases {
		rows, why := lineDiff("x.txt", []byte(c[0]), []byte(c[1]), 0)
		if why != "" {
			t.Fatalf("%q → %q: %s", c[0], c[1], why)
		}
		if c[0] == c[1] {
			if len(rows) != 0 {
				t.Fatalf("%q: rows for no change", c[0])
			}
			continue
		}
		if got := apply(t, c[0], rows); got != c[1] {
			t.Fatalf("%q → %q: the rows make %q", c[0], c[1], got)
		}
	}
}

// TestLineDiff_HugeFile: a one-line edit in the middle of a 50 MB file
// diffs to that line and its context, numbered as in the file.
func TestLineDiff_HugeFile(t *testing.T) {
	a, b, line := hugeEdit(50 << 20)
	rows, why := lineDiff("big.go", a, b, 0)
	if why != "" {
		t.Fatal(why)
	}
	var got []string
	for _, r := range rows {
		got = append(got, fmt.Sprintf("%s %d %d", r.Kind, r.Old, r.New))
	}
	want := []string{fmt.Sprintf("hunk 0 0"), "ctx %d %d", "ctx %d %d", "ctx %d %d", "del %d 0", "add 0 %d", "ctx %d %d", "ctx %d %d", "ctx %d %d"}
	nums := [][]int{{}, {line - 3, line - 3}, {line - 2, line - 2}, {line - 1, line - 1}, {line}, {line}, {line + 1, line + 1}, {line + 2, line + 2}, {line + 3, line + 3}}
	for i := range want {
		args := make([]any, len(nums[i]))
		for j, n := range nums[i] {
			args[j] = n
		}
		want[i] = fmt.Sprintf(want[i], args...)
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("rows %v, want %v", got, want)
	}
	if h := string(rows[0].HTML); h != fmt.Sprintf("@@ -%d,7 +%d,7 @@", line-3, line-3) {
		t.Fatalf("hunk header %q", h)
	}
}

// hugeEdit is a Go file of about size bytes and the same with one line in
// the middle changed, and that line's number.
func hugeEdit(size int) ([]byte, []byte, int) {
	var a bytes.Buffer
	for i := 1; a.Len() < size; i++ {
		fmt.Fprintf(&a, "\tx%d := compute(%d) // line %d of a generated file\n", i, i, i)
	}
	lines := bytes.Count(a.Bytes(), []byte{'\n'})
	line := lines / 2
	old := fmt.Sprintf("\tx%d := compute(%d) // line %d of a generated file\n", line, line, line)
	b := bytes.Replace(a.Bytes(), []byte(old), []byte(fmt.Sprintf("\tx%d := compute(%d) + 1 // changed\n", line, line)), 1)
	return a.Bytes(), b, line
}

// BenchmarkEventPage_HugeFileOneLine: the diff an event page shows for a
// one-line edit of a 50 MB file (the versions already loaded).
func BenchmarkEventPage_HugeFileOneLine(b *testing.B) {
	x, y, _ := hugeEdit(50 << 20)
	b.SetBytes(int64(len(x)))
	for b.Loop() {
		if rows, why := lineDiff("big.go", x, y, 0); why != "" || len(rows) != 9 {
			b.Fatal(why, len(rows))
		}
	}
}

// TestMakeDiff_HugeFileMasksWhatItShows: a large file's diff is masked on
// its changed part only (changedPart), and shows exactly what masking both
// whole versions shows — a private key that starts lines before the edit
// and reaches into it, a token in the context lines, edits at the file's
// start, end and inside the key (both sides masked alike: no rows, and a
// summary that says the change is in a secret, not that nothing changed), a
// deletion and an insertion; lines after the key keep their numbers.
func TestMakeDiff_HugeFileMasksWhatItShows(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alnum := func(n int) string {
		const cs = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
		b := make([]byte, n)
		for i := range b {
			b[i] = cs[rng.IntN(len(cs))]
		}
		return string(b)
	}
	var lines []string
	for i := 1; i <= 60000; i++ {
		lines = append(lines, fmt.Sprintf("\tx%d := compute(%d) // line %d", i, i, i))
	}
	// made at run time: no key stands in the source
	key := []string{"-----BEGIN " + "RSA PRIVATE KEY-----"}
	for range 25 {
		key = append(key, alnum(64))
	}
	key = append(key, "-----END "+"RSA PRIVATE KEY-----")
	lines = append(lines[:30000], append(key, lines[30000:]...)...)
	lines[30030] = "\ttoken := \"ghp_" + alnum(36) + "\""
	s := &Server{}
	for _, tc := range []struct {
		name string
		edit func([]string) []string
	}{
		{"inside the key", func(l []string) []string { l[30010] = alnum(64); return l }},
		{"after the key, a token in the context", func(l []string) []string { l[30028] = "\tchanged := 1"; return l }},
		{"the first line", func(l []string) []string { l[0] = "\tfirst := 0"; return l }},
		{"the last line", func(l []string) []string { l[len(l)-1] = "\tlast := 0"; return l }},
		{"a deletion before the key", func(l []string) []string { return append(l[:29998], l[29999:]...) }},
		{"an insertion into the key", func(l []string) []string {
			return append(l[:30005], append([]string{alnum(64)}, l[30005:]...)...)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := []byte(strings.Join(lines, "\n") + "\n")
			b := []byte(strings.Join(tc.edit(append([]string(nil), lines...)), "\n") + "\n")
			if len(a)+len(b) <= maskWhole {
				t.Fatalf("%d bytes: not a large file", len(a)+len(b))
			}
			got := s.makeDiff(journal.FileChange{Path: "big.go"}, a, b)
			want, why := lineDiff("big.go", s.mask().File("big.go", a), s.mask().File("big.go", b), 0)
			if why != "" || len(got.Rows) == 0 && tc.name != "inside the key" {
				t.Fatalf("%q %q %d rows", why, got.Summary, len(got.Rows))
			}
			if tc.name == "inside the key" && !strings.Contains(got.Summary, "inside a masked secret") {
				t.Fatalf("an edit inside a key summarised as %q", got.Summary)
			}
			if len(got.Rows) != len(want) {
				t.Fatalf("%d rows, whole versions masked give %d", len(got.Rows), len(want))
			}
			for i := range want {
				if got.Rows[i] != want[i] {
					t.Fatalf("row %d: %+v, whole versions masked give %+v", i, got.Rows[i], want[i])
				}
			}
			for _, r := range got.Rows {
				if r.Kind == "hunk" && tc.name == "the last line" && !strings.Contains(r.text, fmt.Sprintf("-%d,", len(lines)-3)) {
					t.Fatalf("hunk %q: the file's last lines are %d to %d", r.text, len(lines)-3, len(lines))
				}
				if strings.Contains(r.text, "ghp_") && !strings.Contains(r.text, "[secret") || len(r.text) >= 64 && !strings.Contains(r.text, "[secret") && !strings.Contains(r.text, "line") {
					t.Fatalf("a secret shown: %q", r.text)
				}
			}
		})
	}
}
