package mcp_test

import (
	"encoding/json"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	jmcp "github.com/journalfs/journal/mcp"
)

var knownCodes = map[string]bool{jmcp.CodeFileNotFound: true, jmcp.CodeFileExists: true, jmcp.CodePermissionDenied: true,
	jmcp.CodeOutsideRoot: true, jmcp.CodeInvalidInput: true, jmcp.CodeNoMatch: true, jmcp.CodeAmbiguousMatch: true,
	jmcp.CodeEditConflict: true, jmcp.CodeRevertConflict: true, jmcp.CodeSyntaxError: true, jmcp.CodeBinaryFile: true,
	jmcp.CodeTooLarge: true, jmcp.CodeNothingToDo: true, jmcp.CodeNoSpace: true, jmcp.CodeBusy: true, jmcp.CodeReadOnly: true}

// FuzzToolArgs sends arbitrary JSON arguments to every tool (decoding,
// validation, path resolution and the handlers behind them) over a small
// workspace: no panic, no protocol error, and every refusal carries a known
// code, a message and a hint.
func FuzzToolArgs(f *testing.F) {
	seeds := []string{`{}`, `null`, `[]`, `{"ops":[]}`, `{"ops":[{"path":"a.go","content":"x"}]}`, `{"ops":[{"path":"../x","content":"x"}]}`,
		`{"ops":[{"path":"a.go","content":"x","at":"after_line","line":-5,"col":99}]}`, `{"file":"a.go","target":"main"}`,
		`{"file_path":"a.go","start_line":0,"end_line":-1}`, `{"absolute_file_path":"a.go","search_text":"x","replace_text":"y","preview":false}`,
		`{"absolute_file_path":"a.go","target":{"x":1},"mode":"tail"}`, `{"target_file":"a.go","edit_instruction":"x","start_line":1e99}`,
		`{"ops":[{"source_path":"a.go","source_start_line":3,"source_end_line":1,"target_path":"b.txt","target_line":-1}]}`,
		`{"unknown":true}`, `{"ops":"notalist"}`, `{"absolute_file_path":"a.go","pattern":"(","regex":true}`, `{"backup_id":"999"}`,
		`{"path":"\u0000","limit":-1}`, `{"ops":[{"path":"a.go","content":"x","start_line":2,"end_line":1}],"expected_versions":{"a.go":"zz"}}`}
	for i, s := range seeds {
		f.Add(uint8(i), s)
	}
	e := newEnv(f, jmcp.Options{}, "a.go", "package main\n\nfunc main() {}\n", "b.txt", "one\ntwo\n")
	var tools []string
	for _, ti := range e.srv.Tools() {
		tools = append(tools, ti.Name)
	}
	f.Fuzz(func(t *testing.T, which uint8, args string) {
		if len(args) > 4096 {
			args = args[:4096]
		}
		req := mcpgo.CallToolRequest{}
		req.Params.Name = tools[int(which)%len(tools)]
		req.Params.Arguments = jsonRaw(args)
		res, err := e.c.CallTool(ctx, req)
		if err != nil {
			t.Fatalf("%s %s: protocol error %v", req.Params.Name, args, err)
		}
		if res.IsError {
			te, ok := jmcp.ParseToolError(text(res))
			if !ok || !knownCodes[te.Code] || te.Message == "" || te.Hint == "" {
				t.Fatalf("%s %s: bad error result %q", req.Params.Name, args, text(res))
			}
		}
	})
}

// jsonRaw passes arguments through as raw JSON (valid or not).
func jsonRaw(s string) any {
	return rawJSON(s)
}

type rawJSON string

func (r rawJSON) MarshalJSON() ([]byte, error) {
	if json.Valid([]byte(r)) {
		return []byte(r), nil
	}
	return json.Marshal(string(r)) // not JSON: send it as a string, which the tool must refuse
}
