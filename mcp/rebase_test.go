package mcp_test

import (
	"strings"
	"testing"

	jmcp "github.com/journalfs/journal/mcp"
)

// TestRebase_RetryKeepsLongArguments: the retry of an ambiguous line-based
// edit carries the call's arguments as sent, not as journaled (where long
// strings are shrunk to a hash).
func TestRebase_RetryKeepsLongArguments(t *testing.T) {
	e := newEnv(t, jmcp.Options{}, "f.txt", "a\nb\nc\nd\n")
	e.ok("read_content", map[string]any{"absolute_file_path": "f.txt"}, nil)
	e.ok("file_insert_text", map[string]any{"ops": []map[string]any{{"path": "f.txt", "content": "top", "at": "bof"}}}, nil)
	long := strings.Repeat("x", 400)
	te := e.fail("file_replace", map[string]any{"ops": []map[string]any{{"path": "f.txt", "content": long, "start_line": 3}}}, jmcp.CodeEditConflict)
	if te.Retry == nil {
		t.Fatalf("no retry: %+v", te)
	}
	e.ok(te.Retry.Tool, te.Retry.Arguments, nil)
	if got := e.read("f.txt"); got != "top\na\nb\n"+long+"\nd\n" {
		t.Fatalf("retry wrote %q", got)
	}
}
