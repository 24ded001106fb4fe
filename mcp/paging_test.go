package mcp_test

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	jmcp "github.com/journalfs/journal/mcp"
)

// TestPaging_LongLinesAdvance drives every paging read tool over a file
// whose first line, and a middle one, are longer than a whole result
// (issue 59 §4): following each answer's own "call again with ..." must
// advance — never the same call again — until the file is read, and a cut
// line says how to read the rest of it.
func TestPaging_LongLinesAdvance(t *testing.T) {
	const total = 40
	var src strings.Builder
	for n := 1; n <= total; n++ {
		switch n {
		case 1:
			src.WriteString("a" + strings.Repeat("x", 12000) + "\n")
		case 20:
			src.WriteString("m" + strings.Repeat("y", 12000) + "\n")
		default:
			fmt.Fprintf(&src, "line %d\n", n)
		}
	}
	e := newEnv(t, jmcp.Options{ResultCap: 5000}, "long.txt", src.String())
	// follow pages: next parses an answer's "more" into the next call's
	// arguments (nil: done); every line 1..total must be shown on the way
	follow := func(tool string, first map[string]any, next func(more string) map[string]any, shown func(txt string, out map[string]any) []int) {
		t.Helper()
		seen := map[int]bool{}
		args, calls := first, map[string]bool{}
		for i := 0; args != nil; i++ {
			key := fmt.Sprint(args)
			if calls[key] || i == 60 {
				t.Fatalf("%s: the answer tells to call again with the same arguments %v", tool, args)
			}
			calls[key] = true
			var out map[string]any
			txt := e.ok(tool, args, &out)
			for _, n := range shown(txt, out) {
				seen[n] = true
			}
			more, _ := out["more"].(string)
			if b, ok := out["more"].(bool); ok && b {
				more = txt // search_content says how in its text
			}
			args = next(more)
		}
		for n := 1; n <= total; n++ {
			if !seen[n] {
				t.Fatalf("%s: line %d never shown", tool, n)
			}
		}
	}
	numbered := regexp.MustCompile(`(?m)^(\d+): `)
	lines := func(txt string, _ map[string]any) []int {
		var ns []int
		for _, m := range numbered.FindAllStringSubmatch(txt, -1) {
			n, _ := strconv.Atoi(m[1])
			ns = append(ns, n)
		}
		return ns
	}
	arg := func(more, name string) (int, bool) {
		m := regexp.MustCompile(name+`=(\d+)`).FindAllStringSubmatch(more, -1)
		if len(m) == 0 {
			return 0, false
		}
		n, _ := strconv.Atoi(m[len(m)-1][1])
		return n, true
	}
	readOn := func(more string) {
		t.Helper()
		// a cut line names read_content's target and column: the rest of it
		re := regexp.MustCompile(`read_content with target=(\d+) and column=(\d+)`)
		m := re.FindStringSubmatch(more)
		if m == nil {
			return
		}
		var out jmcp.ReadOut
		n, _ := strconv.Atoi(m[1])
		c, _ := strconv.Atoi(m[2])
		e.ok("read_content", map[string]any{"absolute_file_path": "long.txt", "target": n, "column": c}, &out)
		if out.Column != c || out.Column == 0 || out.StartLine != n {
			t.Fatalf("read_content column %s: %+v", m[2], out)
		}
	}
	// onLine reads on where the answer's name=N says: args(N); a cut line's
	// rest is read with read_content on the way
	onLine := func(name string, args func(n int) map[string]any) func(string) map[string]any {
		return func(more string) map[string]any {
			readOn(more)
			if n, ok := arg(more, name); ok {
				return args(n)
			}
			return nil
		}
	}
	context := func(n int) map[string]any {
		return map[string]any{"file_path": "long.txt", "start_line": n, "include_outline": false}
	}
	follow("ai_get_code_context", context(1), onLine("start_line", context), lines)
	fileRead := func(n int) map[string]any {
		return map[string]any{"file": "long.txt", "startLine": n, "endLine": total}
	}
	follow("file_read", fileRead(1), onLine("startLine", fileRead),
		func(_ string, out map[string]any) []int {
			// file_read's code is not numbered: its range says which lines
			r, _ := out["range"].(map[string]any)
			a, _ := r["startLine"].(float64)
			b, _ := r["endLine"].(float64)
			var ns []int
			for n := int(a); n >= 1 && n <= int(b); n++ {
				ns = append(ns, n)
			}
			return ns
		})
	follow("read_content", map[string]any{"absolute_file_path": "long.txt", "target": 1, "max_lines": total},
		func(more string) map[string]any {
			n, ok := arg(more, "target")
			if !ok {
				return nil
			}
			a := map[string]any{"absolute_file_path": "long.txt", "target": n, "max_lines": total}
			if c, ok := arg(more, "column"); ok && strings.Contains(more, fmt.Sprintf("target=%d and column", n)) {
				a["column"] = c
			}
			return a
		}, lines)
	search := func(n int) map[string]any {
		return map[string]any{"absolute_file_path": "long.txt", "pattern": ".", "regex": true, "context_lines": 0, "max_results": 100, "start_line": n}
	}
	follow("search_content", search(1), onLine("call again with start_line", search), lines)
}
