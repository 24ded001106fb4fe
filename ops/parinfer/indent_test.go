package parinfer_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/journalfs/journal/ops/parinfer"
)

type testCase struct {
	line          int // of the in block in the .md file
	in, out, fail string
}

// readCases parses blocks of ```in / ```out / ```error from the Markdown file.
func readCases(t *testing.T, path string) []testCase {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cases []testCase
	lines := strings.Split(string(b), "\n")
	for i := 0; i < len(lines); i++ {
		kind, ok := strings.CutPrefix(lines[i], "```")
		if !ok || kind == "" {
			continue
		}
		start := i + 1
		for i++; i < len(lines) && lines[i] != "```"; i++ {
		}
		body := strings.Join(lines[start:i], "\n")
		switch kind {
		case "in":
			cases = append(cases, testCase{line: start})
			cases[len(cases)-1].in = body
		case "out":
			cases[len(cases)-1].out = body
		case "error":
			cases[len(cases)-1].fail = body
		}
	}
	return cases
}

func TestIndentMode_Cases(t *testing.T) {
	cases := readCases(t, "testdata/indent-mode.md")
	if len(cases) < 15 {
		t.Fatalf("only %d cases read", len(cases))
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("line%d", c.line), func(t *testing.T) {
			res := parinfer.IndentMode(c.in)
			if c.fail != "" {
				if res.Err == nil {
					t.Fatalf("want error %s, got %q", c.fail, res.Text)
				}
				got := fmt.Sprintf("%s %d %d", res.Err.Name, res.Err.LineNo, res.Err.X)
				if got != c.fail || res.Text != c.in || res.Success {
					t.Fatalf("error %q (text %q), want %q", got, res.Text, c.fail)
				}
				return
			}
			if res.Err != nil || !res.Success {
				t.Fatalf("unexpected error %v", res.Err)
			}
			if res.Text != c.out {
				t.Fatalf("in:\n%s\ngot:\n%s\nwant:\n%s", c.in, res.Text, c.out)
			}
			// Indent mode is idempotent, and its output balances.
			if again := parinfer.IndentMode(res.Text); again.Text != res.Text {
				t.Fatalf("not idempotent:\n%s\n->\n%s", res.Text, again.Text)
			}
			if err := parinfer.Balanced(res.Text); err != nil {
				t.Fatalf("output does not balance: %v", err)
			}
		})
	}
}

func TestIndentMode_CRLF(t *testing.T) {
	res := parinfer.IndentMode("(defn f\r\n  [x\r\n  x")
	if res.Text != "(defn f\r\n  [x]\r\n  x)" {
		t.Fatalf("got %q", res.Text)
	}
}

func TestBalanced(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"(defn f [x] (inc x))", ""},
		{"(def s \"(\")", ""},
		{"(def c \\()", ""},
		{"(f) ; )", ""},
		{"(defn f [x]\n  (inc x)", "unclosed-paren 0 0"},
		{"(f))", "unmatched-close-paren 0 3"},
		{"(f]", "unmatched-close-paren 0 2"},
		{"(f \"x)", "unclosed-quote 0 3"},
	}
	for _, tt := range tests {
		err := parinfer.Balanced(tt.in)
		got := ""
		if err != nil {
			got = fmt.Sprintf("%s %d %d", err.Name, err.LineNo, err.X)
		}
		if got != tt.want {
			t.Errorf("Balanced(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestTopLevel(t *testing.T) {
	src := "; head\n(ns a)\n\n#?(:clj 1)\n'(a\n  b) x\n(unclosed\n  y\n"
	got := parinfer.TopLevel(src)
	want := [][2]int{{2, 2}, {4, 4}, {5, 6}, {7, 8}}
	if len(got) != len(want) {
		t.Fatalf("forms %+v", got)
	}
	for i, f := range got {
		if f.StartLine != want[i][0] || f.EndLine != want[i][1] {
			t.Errorf("form %d: %+v, want lines %v", i, f, want[i])
		}
	}
	if s := src[got[1].StartByte:got[1].EndByte]; s != "#?(:clj 1)" {
		t.Errorf("prefix not kept: %q", s)
	}
	if s := src[got[2].StartByte:got[2].EndByte]; s != "'(a\n  b)" {
		t.Errorf("quote not kept: %q", s)
	}
}

func ExampleIndentMode() {
	res := parinfer.IndentMode("(defn greet [name\n  (str \"hi \" name")
	fmt.Println(res.Text)
	// Output:
	// (defn greet [name]
	//   (str "hi " name))
}
