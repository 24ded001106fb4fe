package mcp

import (
	"strings"
	"testing"

	"github.com/journalfs/journal/replay/lsp"
)

// TestOffsetMap: offsets of text that only moved map to where it is now;
// a renamed word maps to its new name; an offset inside replaced text does
// not map.
func TestOffsetMap(t *testing.T) {
	before := "import { Client } from \"./client\";\nconst c = new Client(url);\nreturn new URL(url).host;\n"
	after := "import { HttpClient } from \"./client\";\n// note\nconst c = new HttpClient(url);\nreturn new URL(url).host;\n"
	m := newOffsetMap(before, after)
	at := func(s, text string, nth int) int {
		i := -1
		for range nth + 1 {
			i += 1 + strings.Index(s[i+1:], text)
		}
		return i
	}
	for _, c := range []struct {
		name      string
		off, want int
		start, ok bool
	}{
		{"URL moved", at(before, "URL", 0), at(after, "URL", 0), true, true},
		{"URL's end", at(before, "URL", 0) + 3, at(after, "URL", 0) + 3, false, true},
		{"renamed word's start", at(before, "Client", 1), at(after, "HttpClient", 1), true, true},
		{"renamed word's end", at(before, "Client", 1) + 6, at(after, "HttpClient", 1) + 10, false, true},
		{"inside the renamed word", at(before, "Client", 1) + 2, 0, true, false},
		{"line start after an inserted line", at(before, "const", 0), at(after, "const", 0), true, true},
	} {
		got, ok := m.at(c.off, c.start)
		if ok != c.ok || ok && got != c.want {
			t.Errorf("%s: at(%d) = %d, %v; want %d, %v", c.name, c.off, got, ok, c.want, c.ok)
		}
	}
}

// TestLSPFile_ManyRenames: a rename of a name used 300 times in a large
// file, planned from the server's edits, maps every other word exactly
// (a token diff would give up on so many changes: its search is bounded).
func TestLSPFile_ManyRenames(t *testing.T) {
	var b strings.Builder
	for i := range 300 {
		b.WriteString("x := compute(value) + URL(other) // line\n")
		if i%7 == 0 {
			b.WriteString("unrelated := 1\n")
		}
	}
	before := b.String()
	var es []lsp.TextEdit
	for i := 0; ; {
		j := strings.Index(before[i:], "compute")
		if j < 0 {
			break
		}
		es = append(es, lsp.TextEdit{Start: i + j, End: i + j + len("compute"), NewText: "calculate"})
		i += j + 1
	}
	after := strings.ReplaceAll(before, "compute", "calculate")
	f := &lspFile{before: before, text: before}
	f.plan(after, editsMap(es))
	for i, j := 0, 0; ; i, j = i+3, j+3 {
		bi, aj := strings.Index(before[i:], "URL"), strings.Index(after[j:], "URL")
		if bi < 0 {
			break
		}
		i, j = i+bi, j+aj
		if got, ok := f.at(i, true); !ok || got != j {
			t.Fatalf("URL at %d: at = %d, %v; want %d", i, got, ok, j)
		}
	}
	sixth := 0 // the 6th calculate in after
	for range 6 {
		sixth += strings.Index(after[sixth:], "calculate") + 1
	}
	if got, ok := f.at(es[5].Start, true); !ok || got != sixth-1 {
		t.Fatalf("the 6th renamed call: at = %d, %v; want %d", got, ok, sixth-1)
	}
	if got, ok := f.at(es[5].End, false); !ok || got != sixth-1+len("calculate") {
		t.Fatalf("the 6th renamed call's end: at = %d, %v", got, ok)
	}
	if _, ok := f.at(es[5].Start+2, true); ok {
		t.Fatal("an offset inside a renamed word maps")
	}
}
