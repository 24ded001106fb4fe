package mcp_test

import (
	"strings"
	"testing"

	jmcp "github.com/journalfs/journal/mcp"
)

// TestUnknownSymbol_NamesTheNearest: an unknown symbol lists the symbols that
// exist, nearest first; a name written differently (case, underscores) is
// offered as a retry, never edited silently.
func TestUnknownSymbol_NamesTheNearest(t *testing.T) {
	src := "class UserService:\n    def find_by_id(self, id):\n        return id\n\n    def save(self, u):\n        return u\n\n\ndef helper():\n    pass\n"
	e := newEnv(t, jmcp.Options{}, "svc.py", src)
	te := e.fail("file_read", map[string]any{"file": "svc.py", "target": "UserService.nope"}, jmcp.CodeNoMatch)
	if len(te.Candidates) < 3 || !strings.Contains(te.Candidates[0].Text, "UserService.") || !strings.Contains(te.Message, "nearest:") || te.Retry != nil {
		t.Fatalf("unknown symbol: %+v", te)
	}
	te = e.fail("file_edit", map[string]any{"file": "svc.py", "target": "UserService.findById", "code": "    def find_by_id(self, id):\n        return str(id)\n"}, jmcp.CodeNoMatch)
	if te.Candidates[0].Text != "method UserService.find_by_id" || te.Retry == nil || te.Retry.Arguments["target"] != "UserService.find_by_id" {
		t.Fatalf("name written differently: %+v", te)
	}
	if e.read("svc.py") != src {
		t.Fatal("a near name was edited")
	}
	var out jmcp.FileEditResult
	e.ok(te.Retry.Tool, te.Retry.Arguments, &out)
	if got := e.read("svc.py"); !strings.Contains(got, "return str(id)") || !strings.Contains(got, "def save") {
		t.Fatalf("retry wrote %q", got)
	}
}
