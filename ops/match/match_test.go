package match_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/journalfs/journal/ops"
	"github.com/journalfs/journal/ops/match"
)

func TestFind_Cascade(t *testing.T) {
	tests := []struct {
		name, content, search string
		opt                   match.Options
		level                 match.Level
		line, endLine         int
		matched               string
	}{
		{"exact", "a\nfoo()\nb\n", "foo()", match.Options{}, match.LevelExact, 2, 2, "foo()"},
		{"exact multi-line", "a\nb\nc\n", "b\nc\n", match.Options{}, match.LevelExact, 2, 3, "b\nc\n"},
		{"lf search, crlf file", "a\r\nb\r\nc\r\n", "a\nb\n", match.Options{}, match.LevelLineEndings, 1, 2, "a\r\nb\r\n"},
		{"crlf search, lf file", "a\nb\nc\n", "b\r\nc", match.Options{}, match.LevelLineEndings, 2, 3, "b\nc"},
		{"mixed file", "a\nb\r\nc\n", "a\nb\nc", match.Options{}, match.LevelLineEndings, 1, 3, "a\nb\r\nc"},
		{"trailing whitespace", "x  \ny\t\nz\n", "x\ny\n", match.Options{}, match.LevelWhitespace, 1, 2, "x  \ny\t\n"},
		{"indent added", "func f() {\n\tif x {\n\t\ty()\n\t}\n}\n", "if x {\n\ty()\n}", match.Options{}, match.LevelWhitespace, 2, 4, "\tif x {\n\t\ty()\n\t}"},
		{"indent removed", "  a\n    b\n", "    a\n      b\n", match.Options{}, match.LevelWhitespace, 1, 2, "  a\n    b\n"},
		{"whitespace crlf", "  a \r\n  b\r\n", "a\nb\n", match.Options{}, match.LevelWhitespace, 1, 2, "  a \r\n  b\r\n"},
		{"fuzzy", "one\nfunc add(a, b int) int {\n\treturn a + b\n}\ntwo\n", "func add(a, b int) int {\n\treturn a+b\n}", match.Options{Fuzzy: true}, match.LevelNormalized, 2, 4, "func add(a, b int) int {\n\treturn a + b\n}"},
		{"no final newline", "a\nlast", "last", match.Options{}, match.LevelExact, 2, 2, "last"},
		{"whitespace at final line without newline", "a\n  last  ", "last\n", match.Options{}, match.LevelWhitespace, 2, 2, "  last  "},
		{"occurrence", "x\ny\nx\n", "x", match.Options{Occurrence: 2}, match.LevelExact, 3, 3, "x"},
		{"unicode", "héllo wörld\n", "wörld", match.Options{}, match.LevelExact, 1, 1, "wörld"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ms, err := match.Find(tt.content, tt.search, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			m := ms[0]
			if len(ms) != 1 || m.Level != tt.level || m.Line != tt.line || m.EndLine != tt.endLine || m.Matched != tt.matched {
				t.Fatalf("got %d matches, first %+v; want %s %d-%d %q", len(ms), m, tt.level, tt.line, tt.endLine, tt.matched)
			}
			if tt.content[m.Start:m.End] != m.Matched {
				t.Fatalf("offsets %d-%d do not hold %q", m.Start, m.End, m.Matched)
			}
			if m.Similarity != 1 {
				t.Fatalf("similarity %v at level %s", m.Similarity, m.Level)
			}
		})
	}
}

func opsErr(t *testing.T, err error, sentinel error) *ops.Error {
	t.Helper()
	var e *ops.Error
	if !errors.Is(err, sentinel) || !errors.As(err, &e) {
		t.Fatalf("err = %v, want %v", err, sentinel)
	}
	return e
}

func TestFind_Errors(t *testing.T) {
	content := "alpha\nbeta\ngamma\nbeta\n"
	tests := []struct {
		name, search string
		opt          match.Options
		sentinel     error
		lines        []int // candidate lines expected, in order
	}{
		{"empty search", "", match.Options{}, ops.ErrInvalidInput, nil},
		{"occurrence and replace_all", "beta", match.Options{Occurrence: 1, ReplaceAll: true}, ops.ErrInvalidInput, nil},
		{"negative occurrence", "beta", match.Options{Occurrence: -1}, ops.ErrInvalidInput, nil},
		{"occurrence too large", "beta", match.Options{Occurrence: 3}, ops.ErrInvalidInput, []int{2, 4}},
		{"bad threshold", "beta", match.Options{Fuzzy: true, Threshold: 2}, ops.ErrInvalidInput, nil},
		{"ambiguous", "beta", match.Options{}, ops.ErrAmbiguousMatch, []int{2, 4}},
		{"ambiguous whitespace", "  beta  ", match.Options{}, ops.ErrAmbiguousMatch, []int{2, 4}},
		{"miss", "gamma ray", match.Options{}, ops.ErrNoMatch, []int{3, 1, 2}},
		{"miss below threshold", "gamma rays", match.Options{Fuzzy: true, Threshold: 0.95}, ops.ErrNoMatch, []int{3, 1, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := match.Find(content, tt.search, tt.opt)
			e := opsErr(t, err, tt.sentinel)
			if e.Msg == "" || e.Hint == "" {
				t.Fatalf("error without message or hint: %+v", e)
			}
			var lines []int
			for _, c := range e.Candidates {
				lines = append(lines, c.Line)
			}
			if len(lines) != len(tt.lines) {
				t.Fatalf("candidates %+v, want lines %v", e.Candidates, tt.lines)
			}
			for i := range lines {
				if lines[i] != tt.lines[i] {
					t.Fatalf("candidates %+v, want lines %v", e.Candidates, tt.lines)
				}
			}
		})
	}
}

func TestFind_MissCandidates(t *testing.T) {
	content := "func a() {\n\treturn 1\n}\n\nfunc b() {\n\treturn 2\n}\n"
	_, err := match.Find(content, "func b() {\n\treturn 3\n}", match.Options{})
	e := opsErr(t, err, ops.ErrNoMatch)
	if len(e.Candidates) != 2 { // only two 3-line windows fit without overlapping
		t.Fatalf("want 2 candidates, got %+v", e.Candidates)
	}
	c := e.Candidates[0]
	if c.Line != 5 || c.EndLine != 7 || c.Similarity < 0.9 || c.Similarity >= 1 {
		t.Fatalf("nearest = %+v", c)
	}
	if !strings.Contains(c.Diff, "-→return 3") || !strings.Contains(c.Diff, "+→return 2") {
		t.Fatalf("diff = %q", c.Diff)
	}
	if !strings.Contains(e.Msg, "line 5") || !strings.Contains(e.Hint, "nearest") || e.Retry != nil {
		t.Fatalf("msg %q hint %q", e.Msg, e.Hint)
	}
}

func TestFind_NearMissNeverApplied(t *testing.T) {
	block := "func handle(x int) error {\n\tif x > 0 {\n\t\treturn nil\n\t}\n\treturn errBad\n}\n"
	search := "func handle(x int) error {\n\tif x > 0 {\n\t\treturn nil\n\t}\n\treturn errbad\n}"
	// two identical near misses: both are listed, neither is offered
	_, err := match.Find(block+"\n"+block, search, match.Options{Fuzzy: true})
	e := opsErr(t, err, ops.ErrNoMatch)
	if len(e.Candidates) < 2 || e.Candidates[0].Line != 1 || e.Candidates[1].Line != 8 || e.Retry != nil {
		t.Fatalf("candidates %+v retry %v", e.Candidates, e.Retry)
	}
	// one near miss that differs in the case of a name: offered, not applied
	_, err = match.Find(block, search, match.Options{Fuzzy: true})
	e = opsErr(t, err, ops.ErrNoMatch)
	if e.Retry == nil || e.Retry["search_text"] != strings.TrimSuffix(block, "\n") {
		t.Fatalf("retry %v", e.Retry)
	}
	// a near miss that differs in a name is never offered
	_, err = match.Find(block, strings.Replace(search, "handle", "handler", 1), match.Options{Fuzzy: true})
	if e = opsErr(t, err, ops.ErrNoMatch); e.Retry != nil {
		t.Fatalf("retry %v for another name", e.Retry)
	}
}

func TestFind_ReplaceAll(t *testing.T) {
	ms, err := match.Find("x x\nx\n", "x", match.Options{ReplaceAll: true})
	if err != nil || len(ms) != 3 || ms[2].Line != 2 {
		t.Fatalf("got %+v, %v", ms, err)
	}
}

func TestFind_EmptyContent(t *testing.T) {
	_, err := match.Find("", "x", match.Options{Fuzzy: true})
	e := opsErr(t, err, ops.ErrNoMatch)
	if len(e.Candidates) != 0 {
		t.Fatalf("candidates %+v", e.Candidates)
	}
}

func TestMatch_Rewrite(t *testing.T) {
	tests := []struct{ name, content, search, replace, want string }{
		{"crlf file gets crlf", "a\r\nb\r\n", "a\nb\n", "x\ny\n", "x\r\ny\r\n"},
		{"lf file gets lf", "a\nb\n", "a\r\nb", "x\r\ny", "x\ny"},
		{"single line in crlf file", "a\r\nb\r\n", "a", "x\ny", "x\r\ny"},
		{"reindent add tabs", "{\n\t\tfoo()\n\t\tbar()\n}\n", "foo()\nbar()\n", "foo(1)\nif z {\n\tbar()\n}\n", "\t\tfoo(1)\n\t\tif z {\n\t\t\tbar()\n\t\t}\n"},
		{"reindent remove", "a\nb\n", "    a\n    b\n", "    x\n\n      y\n", "x\n\n  y\n"},
		{"final line without newline", "a\n  last", "last\n", "new\n", "  new"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ms, err := match.Find(tt.content, tt.search, match.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got, err := ms[0].Rewrite(tt.replace); err != nil || got != tt.want {
				t.Fatalf("Rewrite = %q, want %q", got, tt.want)
			}
		})
	}
}

func FuzzFind(f *testing.F) {
	f.Add("a\r\nb\r\n  c\n", "b\nc", "x", true)
	f.Add("", "x", "", false)
	f.Add("\t\tx \n\ty\n", "x\n y", "z\n", true)
	f.Add("ééé\n\xff\xfe\n", "é\n\xfe", "q", true)
	f.Fuzz(func(t *testing.T, content, search, replace string, fuzzy bool) {
		ms, err := match.Find(content, search, match.Options{Fuzzy: fuzzy, ReplaceAll: true})
		for _, m := range ms {
			if m.Start < 0 || m.End > len(content) || m.Start > m.End || content[m.Start:m.End] != m.Matched {
				t.Fatalf("bad match %+v", m)
			}
			_, _ = m.Rewrite(replace)
		}
		if err == nil {
			_, _, _ = match.Apply(content, []match.Change{{Search: search, Replace: replace, Options: match.Options{Fuzzy: fuzzy}}})
		}
		_, _ = match.Search([]byte(content), search, match.SearchOptions{Fuzzy: fuzzy, ContextLines: 1, MaxLineLen: 3})
	})
}
