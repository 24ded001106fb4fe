package mcp_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	jmcp "github.com/journalfs/journal/mcp"
)

// TestLargefileEdit_WholeLines: a search and a replacement whose ends
// disagree about lines (a final line break on one side only, a search
// starting or ending inside a line while the replacement holds the whole
// line) are read as the whole lines the agent meant — in memory, mapped and
// streamed alike — and refused where a change inside the line is as
// plausible (issue 59 §5: nl-drop-*, partial-search, trunc-search-mid); a
// batch writes every change's new lines in one indentation style
// (indent-restyle).
func TestLargefileEdit_WholeLines(t *testing.T) {
	var rows strings.Builder
	for i := 1; i <= 300; i++ {
		fmt.Fprintf(&rows, "row %06d %s\n", i, strings.Repeat("x", 40))
	}
	fn := "func f() {\n\tctx := context.Background()\n\treturn ctx\n}\n"
	type change struct{ search, replace string }
	cases := []struct {
		name, tail string
		changes    []change
		want       string // the tail after the edit; "" for a refusal
		crlf       bool
	}{
		{"search without its final newline", fn, []change{{"\tctx := context.Background()", "\tctx := context.TODO()\n"}},
			"func f() {\n\tctx := context.TODO()\n\treturn ctx\n}\n", false},
		{"search of several lines without its final newline", fn, []change{{"func f() {\n\tctx := context.Background()", "func f() {\n\tctx := context.TODO()\n"}},
			"func f() {\n\tctx := context.TODO()\n\treturn ctx\n}\n", false},
		{"replacement without its final newline", fn, []change{{"\treturn ctx\n", "\treturn nil"}},
			"func f() {\n\tctx := context.Background()\n\treturn nil\n}\n", false},
		{"search from inside the line, whole line replaced", fn, []change{{":= context.Background()\n", "\tctx := context.TODO()\n"}},
			"func f() {\n\tctx := context.TODO()\n\treturn ctx\n}\n", false},
		{"search cut inside the line, whole line replaced", fn, []change{{"func f() ", "func f() error {\n"}},
			"func f() error {\n\tctx := context.Background()\n\treturn ctx\n}\n", false},
		{"search of several lines cut inside the last", fn, []change{{"\tctx := context.Background()\n\treturn ", "\tctx := context.TODO()\n\treturn ctx\n"}},
			"func f() {\n\tctx := context.TODO()\n\treturn ctx\n}\n", false},
		{"whole line deleted", fn, []change{{"\treturn ctx", ""}},
			"func f() {\n\tctx := context.Background()\n}\n", false},
		{"last line without a final newline", "last line", []change{{"last line", "final line\n"}},
			"final line", false},
		{"CRLF file", fn, []change{{"\tctx := context.Background()", "\tctx := context.TODO()\n"}},
			"func f() {\r\n\tctx := context.TODO()\r\n\treturn ctx\r\n}\r\n", true},
		{"batch", fn, []change{{"\tctx := context.Background()", "\tctx := context.TODO()\n"}, {"\treturn ctx\n", "\treturn nil"}},
			"func f() {\n\tctx := context.TODO()\n\treturn nil\n}\n", false},
		// indent-restyle: one change of the batch shows the caller's 4
		// spaces for the file's tab, so the exactly matched one's new lines
		// take the tab too
		{"batch in the caller's indentation", fn, []change{{"func f() {\n", "func f() {\n    defer trace()\n"}, {"    return ctx\n", "    return nil\n"}},
			"func f() {\n\tdefer trace()\n\tctx := context.Background()\n\treturn nil\n}\n", false},
		{"inline change stays literal", fn, []change{{"context.Background()", "context.TODO()"}},
			"func f() {\n\tctx := context.TODO()\n\treturn ctx\n}\n", false},
		{"rest of the line would be split off", fn, []change{{"func f() ", "func g() {}\n"}}, "", false},
		{"text before the search repeated without indentation", fn, []change{{":= context.Background()", "ctx := context.TODO()"}}, "", false},
	}
	for _, c := range cases {
		content := rows.String() + c.tail
		want := rows.String() + c.want
		if c.crlf {
			content = strings.ReplaceAll(content, "\n", "\r\n")
			want = strings.ReplaceAll(rows.String(), "\n", "\r\n") + c.want
		}
		for _, access := range []string{"memory", "mmap", "stream"} {
			t.Run(c.name+"/"+access, func(t *testing.T) {
				e, path := accessEnv(t, "f.go", content, access)
				args := map[string]any{"absolute_file_path": path, "preview": false}
				if len(c.changes) == 1 {
					args["search_text"], args["replace_text"] = c.changes[0].search, c.changes[0].replace
				} else {
					var cs []map[string]any
					for _, ch := range c.changes {
						cs = append(cs, map[string]any{"search_text": ch.search, "replace_text": ch.replace})
					}
					args["changes"] = cs
				}
				if c.want == "" {
					te := e.fail("edit_content", args, jmcp.CodeInvalidInput)
					if te.Hint == "" || len(te.Candidates) != 1 || !strings.Contains(te.Candidates[0].SearchText, "func f() {") && !strings.Contains(te.Candidates[0].SearchText, "\tctx := ") {
						t.Fatalf("refusal %+v", te)
					}
					if e.read("f.go") != content {
						t.Fatal("a refusal wrote the file")
					}
					return
				}
				out, txt := e.apply(args)
				if got := e.read("f.go"); got != want {
					t.Fatalf("wrote %q, want %q\n%s", got[len(got)-min(len(got), 120):], c.want, txt)
				}
				if out.Status != "applied" || out.ChangesMade != len(c.changes) {
					t.Fatalf("out %+v", out)
				}
			})
		}
	}
}

// accessEnv serves content as name in a new workspace where the large-file
// tools read it with the given access ("memory", "mmap" or "stream"),
// checked with get_overview, and returns the file's absolute path.
func accessEnv(t *testing.T, name, content, access string) (*env, string) {
	t.Helper()
	dir := t.TempDir()
	write(t, dir, name, content)
	path := filepath.Join(dir, name)
	threshold := int64(1)
	if access == "memory" {
		threshold = 1 << 30
	}
	if access == "stream" {
		t.Cleanup(jmcp.SetLargefileMmapLimit(1))
	}
	e := newThresholdEnv(t, dir, threshold)
	var ov jmcp.OverviewOut
	e.ok("get_overview", map[string]any{"absolute_file_path": path}, &ov)
	if ov.Access != access {
		t.Fatalf("access %s, want %s", ov.Access, access)
	}
	return e, path
}
