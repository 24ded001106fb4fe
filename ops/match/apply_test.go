package match_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/journalfs/journal/ops"
	"github.com/journalfs/journal/ops/match"
)

func TestApply(t *testing.T) {
	tests := []struct {
		name, content string
		changes       []match.Change
		want          string
		newLines      [][2]int // NewLine, NewEndLine per applied replacement
	}{
		{"single", "a\nb\nc\n", []match.Change{{Search: "b", Replace: "B"}}, "a\nB\nc\n", [][2]int{{2, 2}}},
		{"batch against original", "a\nb\nc\n", []match.Change{{Search: "c", Replace: "c1\nc2"}, {Search: "a", Replace: "a1\na2"}}, "a1\na2\nb\nc1\nc2\n", [][2]int{{4, 5}, {1, 2}}},
		{"second change sees original", "x\ny\n", []match.Change{{Search: "x", Replace: "y"}, {Search: "y", Replace: "z"}}, "y\nz\n", [][2]int{{1, 1}, {2, 2}}},
		{"crlf preserved", "a\r\nb\r\n", []match.Change{{Search: "a\nb\n", Replace: "a\nnew\nb\n"}}, "a\r\nnew\r\nb\r\n", [][2]int{{1, 3}}},
		{"tabs reindented", "func f() {\n\tx := 1\n\treturn x\n}\n", []match.Change{{Search: "x := 1\nreturn x", Replace: "x := 2\nreturn x * 2"}}, "func f() {\n\tx := 2\n\treturn x * 2\n}\n", [][2]int{{2, 3}}},
		{"no final newline kept", "a\nb", []match.Change{{Search: "b", Replace: "c"}}, "a\nc", [][2]int{{2, 2}}},
		{"delete lines", "a\nb\nc\n", []match.Change{{Search: "b\n", Replace: ""}}, "a\nc\n", [][2]int{{2, 2}}},
		{"replace all", "x x\nx\n", []match.Change{{Search: "x", Replace: "y", Options: match.Options{ReplaceAll: true}}}, "y y\ny\n", [][2]int{{1, 1}, {1, 1}, {2, 2}}},
		{"adjacent changes", "a+b", []match.Change{{Search: "a+", Replace: "1"}, {Search: "b", Replace: "2"}}, "12", [][2]int{{1, 1}, {1, 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, applied, err := match.Apply(tt.content, tt.changes)
			if err != nil || got != tt.want {
				t.Fatalf("Apply = %q, %v; want %q", got, err, tt.want)
			}
			if len(applied) != len(tt.newLines) {
				t.Fatalf("applied %+v", applied)
			}
			for i, a := range applied {
				if a.NewLine != tt.newLines[i][0] || a.NewEndLine != tt.newLines[i][1] {
					t.Fatalf("applied[%d] lines %d-%d, want %v", i, a.NewLine, a.NewEndLine, tt.newLines[i])
				}
				if r, err := a.Match.Rewrite(tt.changes[a.Change].Replace); err != nil || got[a.NewStart:a.NewEnd] != r {
					t.Fatalf("applied[%d] range %d-%d = %q", i, a.NewStart, a.NewEnd, got[a.NewStart:a.NewEnd])
				}
			}
		})
	}
}

func TestApply_Errors(t *testing.T) {
	content := "one\ntwo\nthree\n"
	tests := []struct {
		name     string
		changes  []match.Change
		sentinel error
		index    int
		msg      string
	}{
		{"empty batch", nil, ops.ErrInvalidInput, -1, "no changes"},
		{"overlap", []match.Change{{Search: "one\ntwo", Replace: "x"}, {Search: "two\nthree", Replace: "y"}}, ops.ErrOverlap, 1, "overlaps"},
		{"same text twice", []match.Change{{Search: "two", Replace: "x"}, {Search: "two", Replace: "y"}}, ops.ErrOverlap, 1, "overlaps"},
		{"miss names change", []match.Change{{Search: "one", Replace: "1"}, {Search: "four", Replace: "4"}}, ops.ErrNoMatch, 1, "not found"},
		{"replacement elsewhere", []match.Change{{Search: "zero", Replace: "three"}}, ops.ErrNoMatch, 0, "replacement text is present at line 3"},
		{"nothing alike", []match.Change{{Search: "qqq", Replace: "x"}}, ops.ErrNoMatch, 0, "no similar text in the file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, applied, err := match.Apply(content, tt.changes)
			e := opsErr(t, err, tt.sentinel)
			if got != content || applied != nil {
				t.Fatalf("Apply changed content on error: %q", got)
			}
			if e.Index != tt.index || !strings.Contains(e.Msg, tt.msg) {
				t.Fatalf("error %+v; want index %d msg ~%q", e, tt.index, tt.msg)
			}
			for _, c := range e.Candidates {
				if tt.name == "nothing alike" {
					t.Fatalf("a candidate that shares nothing: %+v", c)
				}
			}
		})
	}
}

func ExampleApply() {
	content := "\tif ok {\r\n\t\treturn 1\r\n\t}\r\n"
	out, applied, err := match.Apply(content, []match.Change{{
		Search:  "if ok {\n\treturn 1\n}\n",
		Replace: "if ok {\n\tx := 1\n\treturn x\n}\n",
	}})
	if err != nil {
		panic(err)
	}
	a := applied[0]
	fmt.Printf("%q\n%s lines %d-%d\n", out, a.Match.Level, a.NewLine, a.NewEndLine)
	// Output:
	// "\tif ok {\r\n\t\tx := 1\r\n\t\treturn x\r\n\t}\r\n"
	// whitespace lines 1-4
}
