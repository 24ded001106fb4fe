package mcp

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/journalfs/journal/ops/match"
	"github.com/journalfs/journal/replay"
)

// TestLargefileHunk checks the context lines of a change's hunk, in memory
// and streamed, including where a line longer than the hunk's window is cut
// by it (a cut line is left out, never shown in part).
func TestLargefileHunk(t *testing.T) {
	long := strings.Repeat("x", hunkWindow+100)
	cases := []struct {
		name          string
		lines         []string
		target        int // index of the changed line
		before, after []string
		final         bool // the text ends with a newline
	}{
		{"middle", []string{"a", "b", "c", "d", "T", "e", "f", "g", "h"}, 4, []string{"b", "c", "d"}, []string{"e", "f", "g"}, true},
		{"first", []string{"T", "e", "f"}, 0, nil, []string{"e", "f"}, true},
		{"last, no final newline", []string{"a", "b", "T"}, 2, []string{"a", "b"}, nil, false},
		{"near the end, no final newline", []string{"a", "T", "e"}, 1, []string{"a"}, []string{"e"}, false},
		{"long line before", []string{"a", long, "c", "d", "T", "e"}, 4, []string{"c", "d"}, []string{"e"}, true},
		{"long line right before", []string{"a", long, "T", "e"}, 2, nil, []string{"e"}, true},
		{"long line after", []string{"a", "T", "e", long, "g"}, 1, []string{"a"}, []string{"e"}, true},
		{"empty lines", []string{"", "", "", "", "T", "", ""}, 4, []string{"", "", ""}, []string{"", ""}, true},
	}
	for _, c := range cases {
		text := strings.Join(c.lines, "\n")
		if c.final {
			text += "\n"
		}
		start := len(strings.Join(c.lines[:c.target], "\n"))
		if c.target > 0 {
			start++
		}
		e := match.Edit{Applied: match.Applied{Match: match.Match{Start: start, End: start + 1}}, Replacement: "U"}
		data := []byte(text)
		for _, streamed := range []bool{false, true} {
			tx := &ltext{v: &replay.View{}, data: data, body: bytes.NewReader(data), size: int64(len(data))}
			if streamed {
				tx.data = nil
			}
			h, err := tx.hunk(e)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(h.before, c.before) || !slices.Equal(h.after, c.after) || !slices.Equal(h.old, []string{"T"}) || !slices.Equal(h.new, []string{"U"}) {
				t.Errorf("%s (streamed %v): before %q after %q old %q new %q; want before %q after %q",
					c.name, streamed, h.before, h.after, h.old, h.new, c.before, c.after)
			}
		}
	}
}
