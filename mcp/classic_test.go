package mcp_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	jmcp "github.com/journalfs/journal/mcp"
)

const goSrc = "package svc\n\n// UserService finds users.\ntype UserService struct{}\n\n// FindByID returns a user.\nfunc (s *UserService) FindByID(id int) string {\n\treturn \"user\"\n}\n\nfunc helper() {}\n"

func TestEditFile_Seed001(t *testing.T) {
	e := newEnv(t, jmcp.Options{}, "src/utils.py", "import os\n\ndef old():\n    pass\n")
	var out jmcp.EditFileOut
	e.ok("ai_code_editing.edit_file", map[string]any{"target_file": "src/utils.py", "edit_instruction": "add greet",
		"code_block": "def greet(name):\n    print(f\"Hello, {name}!\")\n"}, &out)
	if out.Status != "success" || !strings.Contains(out.Diff, "+def greet(name):") || out.Event != 1 {
		t.Fatalf("%+v", out)
	}
	e.ok("ai_code_editing.edit_file", map[string]any{"target_file": "src/utils.py", "edit_instruction": "replace old",
		"start_line": 3, "end_line": 4, "code_block": "def new():\n    return 1\n"}, &out)
	e.ok("ai_code_editing.edit_file", map[string]any{"target_file": "src/utils.py", "edit_instruction": "drop import",
		"start_line": 1, "end_line": 1, "edit_type": "delete"}, &out)
	if got := e.read("src/utils.py"); strings.Contains(got, "import os") || !strings.Contains(got, "def new():") {
		t.Fatalf("got %q", got)
	}
	e.fail("ai_code_editing.edit_file", map[string]any{"target_file": "nope.py", "edit_instruction": "x", "code_block": "y"}, jmcp.CodeFileNotFound)
	e.fail("ai_code_editing.edit_file", map[string]any{"target_file": "src/utils.py", "edit_instruction": "x", "start_line": 0, "code_block": "y"}, jmcp.CodeInvalidInput)
	e.fail("ai_code_editing.edit_file", map[string]any{"target_file": "src/utils.py", "edit_instruction": "x", "code_block": "y", "expected_version": "000000000000"}, jmcp.CodeEditConflict)
	// No code_block and a client without sampling: INVALID_INPUT saying what to send.
	te := e.fail("ai_code_editing.edit_file", map[string]any{"target_file": "src/utils.py", "edit_instruction": "add a main function"}, jmcp.CodeInvalidInput)
	if !strings.Contains(te.Hint, "code_block") {
		t.Fatalf("hint %q", te.Hint)
	}
}

type sampler struct{ prompts []string }

func (s *sampler) CreateMessage(ctx context.Context, req mcpgo.CreateMessageRequest) (*mcpgo.CreateMessageResult, error) {
	for _, m := range req.Messages {
		if tc, ok := m.Content.(mcpgo.TextContent); ok {
			s.prompts = append(s.prompts, tc.Text)
		}
	}
	return &mcpgo.CreateMessageResult{Model: "test-model", SamplingMessage: mcpgo.SamplingMessage{Role: mcpgo.RoleAssistant,
		Content: mcpgo.NewTextContent("```python\ndef main():\n    greet(\"world\")\n```")}}, nil
}

func TestEditFile_SamplingWhenCodeMissing(t *testing.T) {
	e := newEnv(t, jmcp.Options{}, "app.py", "def greet(n):\n    print(n)\n")
	sm := &sampler{}
	c := connect(t, e.srv, sm)
	res := e.call(c, "ai_code_editing.edit_file", map[string]any{"target_file": "app.py", "edit_instruction": "add a main that greets the world"})
	if res.IsError {
		t.Fatal(text(res))
	}
	if got := e.read("app.py"); !strings.HasSuffix(got, "def main():\n    greet(\"world\")\n") || strings.Contains(got, "```") {
		t.Fatalf("got %q", got)
	}
	if len(sm.prompts) != 1 || !strings.Contains(sm.prompts[0], "add a main that greets the world") {
		t.Fatalf("prompts %q", sm.prompts)
	}
}

func TestGetCodeContext(t *testing.T) {
	var big strings.Builder
	for i := 1; i <= 5000; i++ {
		fmt.Fprintf(&big, "line %d %s\n", i, strings.Repeat("x", 40))
	}
	e := newEnv(t, jmcp.Options{ResultCap: 8000}, "svc/user.go", goSrc, "big.txt", big.String())
	var out jmcp.CodeContextOut
	txt := e.ok("ai_get_code_context", map[string]any{"file_path": "svc/user.go", "symbol": "UserService.FindByID"}, &out)
	if out.Symbol == nil || out.StartLine != 6 || out.EndLine != 9 || !strings.Contains(txt, "7: func (s *UserService) FindByID") || len(out.Version) != 12 {
		t.Fatalf("%+v\n%s", out, txt)
	}
	if len(out.Outline) < 3 || out.Language != "go" {
		t.Fatalf("outline %+v", out.Outline)
	}
	// Paging under the result cap.
	txt = e.ok("ai_get_code_context", map[string]any{"file_path": "big.txt", "start_line": 10, "end_line": 4000}, &out)
	if len(txt) > 8000 || out.More == "" || out.EndLine >= 4000 || !strings.Contains(txt, "10: line 10 ") {
		t.Fatalf("paging: end %d more %q len %d", out.EndLine, out.More, len(txt))
	}
	e.fail("ai_get_code_context", map[string]any{"file_path": "svc/user.go", "symbol": "Nope"}, jmcp.CodeNoMatch)
	e.fail("ai_get_code_context", map[string]any{"file_path": "svc/user.go", "start_line": 99}, jmcp.CodeInvalidInput)
}
