package match_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/journalfs/journal/ops"
	"github.com/journalfs/journal/ops/match"
)

func TestSearch(t *testing.T) {
	content := "alpha beta\r\nbeta\n\ngamma beta beta\ndelta\nlast beta"
	type hit struct {
		line int
		text string
		subs []match.Span
	}
	tests := []struct {
		name    string
		pattern string
		opt     match.SearchOptions
		want    []hit
		more    bool
	}{
		{"exact", "beta", match.SearchOptions{}, []hit{
			{1, "alpha beta", []match.Span{{6, 10}}}, {2, "beta", []match.Span{{0, 4}}},
			{4, "gamma beta beta", []match.Span{{6, 10}, {11, 15}}}, {6, "last beta", []match.Span{{5, 9}}}}, false},
		{"max results", "beta", match.SearchOptions{MaxResults: 2}, []hit{
			{1, "alpha beta", []match.Span{{6, 10}}}, {2, "beta", []match.Span{{0, 4}}}}, true},
		{"regex", `^(beta|delta)$`, match.SearchOptions{Regex: true}, []hit{
			{2, "beta", []match.Span{{0, 4}}}, {5, "delta", []match.Span{{0, 5}}}}, false},
		{"regex no anchor", `a b`, match.SearchOptions{Regex: true}, []hit{
			{1, "alpha beta", []match.Span{{4, 7}}}, {4, "gamma beta beta", []match.Span{{4, 7}, {9, 12}}}}, false},
		{"fuzzy ranked", "delts", match.SearchOptions{Fuzzy: true, Threshold: 0.6}, []hit{
			{5, "delta", []match.Span{{0, 4}}}}, false},
		{"fuzzy exact first", "beta", match.SearchOptions{Fuzzy: true, Threshold: 0.7, MaxResults: 5}, []hit{
			{1, "alpha beta", []match.Span{{6, 10}}}, {2, "beta", []match.Span{{0, 4}}},
			{4, "gamma beta beta", []match.Span{{6, 10}, {11, 15}}}, {6, "last beta", []match.Span{{5, 9}}}}, false},
		{"none", "omega", match.SearchOptions{}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, mode := range []string{"bytes", "reader"} {
				var res match.Results
				var err error
				if mode == "bytes" {
					res, err = match.Search([]byte(content), tt.pattern, tt.opt)
				} else {
					res, err = match.SearchReader(iotest.OneByteReader(strings.NewReader(content)), tt.pattern, tt.opt)
				}
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Hits) != len(tt.want) || res.More != tt.more {
					t.Fatalf("%s: hits %+v more %v; want %d more %v", mode, res.Hits, res.More, len(tt.want), tt.more)
				}
				for i, w := range tt.want {
					h := res.Hits[i]
					if h.Line != w.line || h.Text != w.text || !equalSpans(h.Submatches, w.subs) {
						t.Fatalf("%s: hit %d = %+v; want %+v", mode, i, h, w)
					}
					if !strings.HasPrefix(content[h.Offset:], h.Text) {
						t.Fatalf("%s: offset %d wrong", mode, h.Offset)
					}
				}
			}
		})
	}
}

func equalSpans(a, b []match.Span) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestSearch_Context(t *testing.T) {
	content := "1\n2\n3 x\n4\n5\n6 x"
	for _, mode := range []string{"bytes", "reader"} {
		var res match.Results
		if mode == "bytes" {
			res, _ = match.Search([]byte(content), "x", match.SearchOptions{ContextLines: 2})
		} else {
			res, _ = match.SearchReader(iotest.HalfReader(strings.NewReader(content)), "x", match.SearchOptions{ContextLines: 2})
		}
		if len(res.Hits) != 2 {
			t.Fatalf("%s: %+v", mode, res)
		}
		h0, h1 := res.Hits[0], res.Hits[1]
		if strings.Join(h0.Before, ",") != "1,2" || strings.Join(h0.After, ",") != "4,5" ||
			strings.Join(h1.Before, ",") != "4,5" || len(h1.After) != 0 {
			t.Fatalf("%s: context %+v", mode, res.Hits)
		}
	}
}

func TestSearch_LongLine(t *testing.T) {
	line := strings.Repeat("a", 5000) + "NEEDLE" + strings.Repeat("é", 3000)
	res, err := match.Search([]byte("x\n"+line+"\n"), "NEEDLE", match.SearchOptions{MaxLineLen: 100})
	if err != nil || len(res.Hits) != 1 {
		t.Fatal(res, err)
	}
	h := res.Hits[0]
	if !h.Truncated || len(h.Text) > 100 || !strings.Contains(h.Text, "NEEDLE") || line[h.Col:h.Col+len(h.Text)] != h.Text {
		t.Fatalf("hit %+v", h)
	}
	if h.Submatches[0] != (match.Span{Start: 5000, End: 5006}) {
		t.Fatalf("submatch %+v", h.Submatches)
	}
}

func TestSearch_Errors(t *testing.T) {
	for _, tt := range []struct {
		name, pattern string
		opt           match.SearchOptions
	}{
		{"empty", "", match.SearchOptions{}},
		{"multi-line", "a\nb", match.SearchOptions{}},
		{"bad regex", "(", match.SearchOptions{Regex: true}},
		{"regex and fuzzy", "a", match.SearchOptions{Regex: true, Fuzzy: true}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := match.Search([]byte("a\n"), tt.pattern, tt.opt)
			opsErr(t, err, ops.ErrInvalidInput)
		})
	}
}

// TestSearchReader_Blocks crosses several read blocks and compares with Search.
func TestSearchReader_Blocks(t *testing.T) {
	var b bytes.Buffer
	for i := 0; b.Len() < 10<<20; i++ {
		if i%9973 == 0 {
			b.WriteString("here is the needle\n")
		} else {
			b.WriteString("just some ordinary text of a line\r\n")
		}
	}
	opt := match.SearchOptions{MaxResults: 1000, ContextLines: 3}
	want, _ := match.Search(b.Bytes(), "needle", opt)
	got, err := match.SearchReader(io.MultiReader(bytes.NewReader(b.Bytes())), "needle", opt)
	if err != nil || len(got.Hits) != len(want.Hits) || len(want.Hits) < 20 {
		t.Fatalf("got %d hits, want %d (%v)", len(got.Hits), len(want.Hits), err)
	}
	for i := range want.Hits {
		g, w := got.Hits[i], want.Hits[i]
		if g.Line != w.Line || g.Offset != w.Offset || strings.Join(g.Before, "|") != strings.Join(w.Before, "|") || strings.Join(g.After, "|") != strings.Join(w.After, "|") {
			t.Fatalf("hit %d: %+v vs %+v", i, g, w)
		}
	}
}

// TestSearch_Progress: with Progress set, a search of 10 MiB reports its
// advance in increasing steps and finds exactly what it finds without; an
// error from Progress ends it.
func TestSearch_Progress(t *testing.T) {
	var b strings.Builder
	for i := 0; b.Len() < 10<<20; i++ {
		fmt.Fprintf(&b, "line %d: some text %d\n", i, i%1000)
	}
	data := b.String()
	for _, o := range []match.SearchOptions{{MaxResults: 100000}, {Regex: true, MaxResults: 100000}, {Fuzzy: true, MaxResults: 50}} {
		pattern := "text 999"
		if o.Regex {
			pattern = `text 99\d$`
		}
		want, err := match.Search([]byte(data), pattern, o)
		if err != nil {
			t.Fatal(err)
		}
		for _, reader := range []bool{false, true} {
			var steps []int64
			p := o
			p.Progress = func(n int64) error { steps = append(steps, n); return nil }
			var got match.Results
			if reader {
				got, err = match.SearchReader(strings.NewReader(data), pattern, p)
			} else {
				got, err = match.Search([]byte(data), pattern, p)
			}
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("%+v reader=%v: %d hits, want %d (%v)", o, reader, len(got.Hits), len(want.Hits), err)
			}
			if len(steps) < 2 || steps[len(steps)-1] != int64(len(data)) || !slices.IsSorted(steps) {
				t.Fatalf("%+v reader=%v: progress %v", o, reader, steps)
			}
		}
	}
	stop := errors.New("cancelled")
	o := match.SearchOptions{Progress: func(int64) error { return stop }}
	if _, err := match.Search([]byte(data), "nowhere", o); err != stop {
		t.Fatalf("a stopped search: %v", err)
	}
}
