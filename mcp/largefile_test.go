package mcp_test

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	jmcp "github.com/journalfs/journal/mcp"
)

// testdataFiles copies testdata/largefile into name/content pairs for newEnv.
func testdataFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	ents, err := os.ReadDir("../testdata/largefile")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ents {
		b, err := os.ReadFile(filepath.Join("../testdata/largefile", d.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, d.Name(), string(b))
	}
	return files
}

func outlinePaths(items []jmcp.OutlineItem) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.Kind+" "+it.Path)
	}
	return out
}

func TestLargefile_Overview_Testdata(t *testing.T) {
	e := newEnv(t, jmcp.Options{}, testdataFiles(t)...)
	cases := []struct {
		file, lang string
		want       []string
	}{
		{"service.go", "go", []string{"struct UserService", "method UserService.findById", "function helper"}},
		{"service.py", "python", []string{"class UserService", "method UserService.find_by_id", "function helper"}},
		{"README.md", "markdown", []string{"heading Title", "heading Title.Install"}},
		{"config.json", "json", []string{"key name", "key server", "key server.port"}},
		{"ci.yaml", "yaml", []string{"key jobs"}},
	}
	for _, c := range cases {
		var ov jmcp.OverviewOut
		txt := e.ok("get_overview", map[string]any{"absolute_file_path": filepath.Join(e.dir, c.file)}, &ov)
		got := outlinePaths(ov.Outline)
		for _, w := range c.want {
			if !slices.Contains(got, w) {
				t.Errorf("%s: outline lacks %q: %v", c.file, w, got)
			}
		}
		if ov.Language != c.lang || ov.Version == "" || ov.Access != "memory" || ov.Encoding != "utf-8" || len(ov.SearchHints) == 0 {
			t.Errorf("%s: %+v", c.file, ov)
		}
		if !strings.Contains(txt, "outline") || !strings.Contains(txt, ov.Version) {
			t.Errorf("%s: text %s", c.file, txt)
		}
	}
}

func TestLargefile_Overview_FileKinds(t *testing.T) {
	utf16 := "\xff\xfe" + "h\x00i\x00\r\x00\n\x00y\x00o\x00\r\x00\n\x00"
	long := "short\n" + strings.Repeat("x", 1500) + "\n"
	e := newEnv(t, jmcp.Options{},
		"crlf.txt", "a\r\nb\r\n", "bom.txt", "\xef\xbb\xbfone\ntwo", "u16.txt", utf16, "tabs.log", "\tx\n\ty\n",
		"empty.txt", "", "long.txt", long, "mixed.txt", "a\nb\r\n", "bin.dat", "\x00\x01\x02binary\x00")
	cases := []struct {
		file, enc, eol string
		bom, finalNL   bool
		lines          int
	}{
		{"crlf.txt", "utf-8", "crlf", false, true, 2},
		{"bom.txt", "utf-8", "lf", true, false, 2},
		{"u16.txt", "utf-16le", "crlf", true, true, 2},
		{"tabs.log", "utf-8", "lf", false, true, 2},
		{"empty.txt", "utf-8", "none", false, false, 0},
		{"mixed.txt", "utf-8", "mixed", false, true, 2},
	}
	for _, c := range cases {
		var ov jmcp.OverviewOut
		e.ok("get_overview", map[string]any{"absolute_file_path": c.file}, &ov)
		if ov.Encoding != c.enc || ov.LineEndings != c.eol || ov.BOM != c.bom || ov.FinalNewline != c.finalNL || ov.LineCount != c.lines {
			t.Errorf("%s: %+v", c.file, ov)
		}
	}
	var ov jmcp.OverviewOut
	e.ok("get_overview", map[string]any{"absolute_file_path": "long.txt"}, &ov)
	if !ov.HasLongLines || ov.LongLines != 1 || ov.MaxLineLength != 1500 || len(ov.Summary) != 2 {
		t.Errorf("long: %+v", ov)
	}
	for _, tool := range []string{"get_overview", "search_content", "read_content", "edit_content"} {
		args := map[string]any{"absolute_file_path": "bin.dat", "pattern": "binary", "search_text": "binary", "replace_text": "x"}
		switch tool {
		case "get_overview", "read_content":
			args = map[string]any{"absolute_file_path": "bin.dat"}
		case "search_content":
			delete(args, "search_text")
			delete(args, "replace_text")
		default:
			delete(args, "pattern")
		}
		e.fail(tool, args, jmcp.CodeBinaryFile)
	}
	e.fail("get_overview", map[string]any{"absolute_file_path": "nope.txt"}, jmcp.CodeFileNotFound)
	e.fail("get_overview", map[string]any{"absolute_file_path": "../outside.txt"}, jmcp.CodeOutsideRoot)
}

const lfGoSrc = `package demo

import "fmt"

// Greeter greets.
type Greeter struct {
	name string
}

// Hello says hello.
func (g *Greeter) Hello() string {
	msg := fmt.Sprintf("hello %s", g.name)
	return msg
}

func helper() int {
	return 42
}
`

func TestLargefile_Search(t *testing.T) {
	long := strings.Repeat("a", 3000) + "NEEDLE" + strings.Repeat("b", 3000) + "\n"
	e := newEnv(t, jmcp.Options{}, "demo.go", lfGoSrc, "long.txt", long, "crlf.txt", "alpha\r\nbeta\r\ngamma\r\n")
	var out jmcp.SearchOut
	txt := e.ok("search_content", map[string]any{"absolute_file_path": "demo.go", "pattern": "Sprintf"}, &out)
	if out.Mode != "exact" || len(out.Results) != 1 {
		t.Fatalf("exact: %+v", out)
	}
	r := out.Results[0]
	if r.LineNumber != 12 || r.SemanticContext != "method Greeter.Hello" || len(r.ContextBefore) != 2 || len(r.ContextAfter) != 2 ||
		r.SimilarityScore != 1 || len(r.Submatches) != 1 || r.Match[r.Submatches[0].Start:r.Submatches[0].End] != "Sprintf" {
		t.Fatalf("exact hit: %+v", r)
	}
	if !strings.Contains(txt, "12: ") || !strings.Contains(txt, "Greeter.Hello") || out.Version == "" {
		t.Fatalf("text: %s", txt)
	}
	// fuzzy is the default when nothing matches exactly
	out = jmcp.SearchOut{}
	e.ok("search_content", map[string]any{"absolute_file_path": "demo.go", "pattern": "retrn 42"}, &out)
	if out.Mode != "fuzzy" || len(out.Results) == 0 || out.Results[0].LineNumber != 17 || out.Results[0].SimilarityScore >= 1 {
		t.Fatalf("fuzzy: %+v", out)
	}
	out = jmcp.SearchOut{}
	e.ok("search_content", map[string]any{"absolute_file_path": "demo.go", "pattern": "retrn 42", "fuzzy": false}, &out)
	if len(out.Results) != 0 {
		t.Fatalf("fuzzy off: %+v", out)
	}
	out = jmcp.SearchOut{}
	e.ok("search_content", map[string]any{"absolute_file_path": "demo.go", "pattern": `func \w+\(`, "regex": true, "context_lines": 0}, &out)
	if out.Mode != "regex" || len(out.Results) != 1 || out.Results[0].LineNumber != 16 || len(out.Results[0].ContextBefore) != 0 {
		t.Fatalf("regex: %+v", out)
	}
	out = jmcp.SearchOut{}
	e.ok("search_content", map[string]any{"absolute_file_path": "long.txt", "pattern": "NEEDLE"}, &out)
	if r := out.Results[0]; !r.Truncated || len(r.Match) > 1100 || !strings.Contains(r.Match, "NEEDLE") || r.Submatches[0].Start != 3000 {
		t.Fatalf("long line: %+v", out.Results[0].Submatches)
	}
	out = jmcp.SearchOut{}
	e.ok("search_content", map[string]any{"absolute_file_path": "crlf.txt", "pattern": "beta"}, &out)
	if out.Results[0].Match != "beta" || out.Results[0].ContextAfter[0] != "gamma" {
		t.Fatalf("crlf: %+v", out.Results[0])
	}
	// paging: max_results, then start_line
	out = jmcp.SearchOut{}
	e.ok("search_content", map[string]any{"absolute_file_path": "demo.go", "pattern": "g", "max_results": 2, "fuzzy": false}, &out)
	if !out.More || out.NextStartLine == 0 || len(out.Results) != 2 {
		t.Fatalf("page 1: %+v", out)
	}
	first, next := out.Results[1].LineNumber, out.NextStartLine
	out = jmcp.SearchOut{}
	e.ok("search_content", map[string]any{"absolute_file_path": "demo.go", "pattern": "g", "max_results": 2, "start_line": next, "fuzzy": false}, &out)
	if len(out.Results) == 0 || out.Results[0].LineNumber <= first {
		t.Fatalf("page 2: %+v", out)
	}
	e.fail("search_content", map[string]any{"absolute_file_path": "demo.go", "pattern": ""}, jmcp.CodeInvalidInput)
	e.fail("search_content", map[string]any{"absolute_file_path": "demo.go", "pattern": "(", "regex": true}, jmcp.CodeInvalidInput)
	e.fail("search_content", map[string]any{"absolute_file_path": "demo.go", "pattern": "x", "bogus": 1}, jmcp.CodeInvalidInput)
}

func TestLargefile_Read(t *testing.T) {
	var lines []string
	for i := 1; i <= 500; i++ {
		lines = append(lines, "line "+strconv.Itoa(i))
	}
	e := newEnv(t, jmcp.Options{}, "demo.go", lfGoSrc, "big.txt", strings.Join(lines, "\n"), "u16.txt", "\xff\xfea\x00\n\x00b\x00\n\x00")
	var out jmcp.ReadOut
	txt := e.ok("read_content", map[string]any{"absolute_file_path": "big.txt", "target": 250, "max_lines": 3}, &out)
	if out.StartLine != 250 || out.EndLine != 252 || out.TotalLines != 500 || !strings.Contains(txt, "250: line 250\n251: line 251\n252: line 252\n") || !strings.Contains(out.More, "target=253") {
		t.Fatalf("lines: %+v\n%s", out, txt)
	}
	out = jmcp.ReadOut{}
	txt = e.ok("read_content", map[string]any{"absolute_file_path": "big.txt", "target": "line 499", "max_lines": 5}, &out)
	if out.StartLine != 499 || out.EndLine != 500 || out.More != "" || !strings.HasSuffix(txt, "500: line 500\n") {
		t.Fatalf("pattern target: %+v\n%s", out, txt)
	}
	out = jmcp.ReadOut{}
	txt = e.ok("read_content", map[string]any{"absolute_file_path": "big.txt", "target": 3, "mode": "tail"}, &out)
	if out.StartLine != 498 || out.EndLine != 500 || !strings.Contains(txt, "498: line 498\n499: line 499\n500: line 500\n") {
		t.Fatalf("tail: %+v\n%s", out, txt)
	}
	out = jmcp.ReadOut{}
	txt = e.ok("read_content", map[string]any{"absolute_file_path": "demo.go", "target": "Greeter.Hello"}, &out)
	if out.Symbol == nil || out.StartLine != 10 || out.EndLine != 14 || !strings.Contains(txt, "14: }") {
		t.Fatalf("symbol: %+v\n%s", out, txt)
	}
	out = jmcp.ReadOut{}
	txt = e.ok("read_content", map[string]any{"absolute_file_path": "demo.go", "target": 12, "mode": "semantic"}, &out)
	if out.Symbol == nil || out.Symbol.Path != "Greeter.Hello" || out.StartLine != 10 || out.EndLine != 14 {
		t.Fatalf("semantic: %+v\n%s", out, txt)
	}
	out = jmcp.ReadOut{}
	txt = e.ok("read_content", map[string]any{"absolute_file_path": "demo.go", "target": 3, "mode": "semantic"}, &out)
	if out.Symbol != nil || out.Note == "" || out.StartLine != 3 {
		t.Fatalf("semantic outside a symbol: %+v", out)
	}
	out = jmcp.ReadOut{}
	txt = e.ok("read_content", map[string]any{"absolute_file_path": "u16.txt", "target": 2}, &out)
	if !strings.Contains(txt, "2: b\n") {
		t.Fatalf("utf-16: %s", txt)
	}
	te := e.fail("read_content", map[string]any{"absolute_file_path": "demo.go", "target": "retrn 42"}, jmcp.CodeNoMatch)
	if len(te.Candidates) == 0 || te.Candidates[0].Line != 17 {
		t.Fatalf("candidates: %+v", te)
	}
	e.fail("read_content", map[string]any{"absolute_file_path": "demo.go", "target": 99}, jmcp.CodeInvalidInput)
	e.fail("read_content", map[string]any{"absolute_file_path": "demo.go", "mode": "chunks"}, jmcp.CodeInvalidInput)
	// the result cap pages a long read
	small := newEnv(t, jmcp.Options{ResultCap: 2000}, "big.txt", strings.Join(lines, "\n"))
	txt = small.ok("read_content", map[string]any{"absolute_file_path": "big.txt", "target": 1, "max_lines": 500}, &out)
	if out.EndLine >= 500 || !strings.Contains(out.More, "result cap") || len(txt) > 2000 {
		t.Fatalf("cap: %+v (%d bytes)", out, len(txt))
	}
}
