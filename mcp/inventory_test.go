package mcp_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	jmcp "github.com/journalfs/journal/mcp"
)

var update = flag.Bool("update", false, "rewrite the tool schema snapshots and the README tool table")

func listTools(t *testing.T, o jmcp.Options) []mcpgo.Tool {
	t.Helper()
	e := newEnv(t, o)
	res, err := e.c.ListTools(ctx, mcpgo.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	return res.Tools
}

// TestToolSchemas snapshots every tool's schema under testdata/mcp/schemas:
// a change to a tool's interface shows up in review. Run with -update to accept.
func TestToolSchemas(t *testing.T) {
	dir := filepath.Join("..", "testdata", "mcp", "schemas")
	seen := map[string]bool{}
	for _, tool := range listTools(t, jmcp.Options{}) {
		b, err := json.MarshalIndent(tool, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		b = append(b, '\n')
		name := filepath.Join(dir, tool.Name+".json")
		seen[tool.Name+".json"] = true
		if *update {
			os.MkdirAll(dir, 0o755)
			if err := os.WriteFile(name, b, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(name)
		if err != nil {
			t.Errorf("%s: no snapshot (run go test ./mcp -run TestToolSchemas -update): %v", tool.Name, err)
			continue
		}
		if !bytes.Equal(want, b) {
			t.Errorf("%s: schema changed; if intended, run go test ./mcp -run TestToolSchemas -update", tool.Name)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !seen[e.Name()] && !*update {
			t.Errorf("snapshot %s has no tool", e.Name())
		} else if !seen[e.Name()] {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// TestInventory checks every tool: a description, all four annotations set
// honestly (read-only tools are not destructive; nothing is open-world), an
// input schema of type object and an output schema.
func TestInventory(t *testing.T) {
	tools := listTools(t, jmcp.Options{})
	if len(tools) < 12 {
		t.Fatalf("only %d tools", len(tools))
	}
	for _, tool := range tools {
		a := tool.Annotations
		switch {
		case len(tool.Description) < 40:
			t.Errorf("%s: description too short", tool.Name)
		case a.ReadOnlyHint == nil || a.DestructiveHint == nil || a.IdempotentHint == nil || a.OpenWorldHint == nil:
			t.Errorf("%s: an annotation is not set: %+v", tool.Name, a)
		case *a.OpenWorldHint:
			t.Errorf("%s: openWorldHint must be false", tool.Name)
		case *a.ReadOnlyHint && *a.DestructiveHint:
			t.Errorf("%s: read-only and destructive", tool.Name)
		case a.Title == "":
			t.Errorf("%s: no title", tool.Name)
		}
		var doc struct {
			In map[string]any `json:"inputSchema"`
		}
		b, _ := json.Marshal(tool)
		json.Unmarshal(b, &doc)
		if doc.In["type"] != "object" {
			t.Errorf("%s: input schema type %v", tool.Name, doc.In["type"])
		}
		if tool.OutputSchema.Type != "object" || len(tool.OutputSchema.Properties) == 0 {
			t.Errorf("%s: no output schema", tool.Name)
		}
	}
}

// TestToolsets checks --toolsets and --read-only.
func TestToolsets(t *testing.T) {
	for _, tool := range listTools(t, jmcp.Options{ReadOnly: true}) {
		if !*tool.Annotations.ReadOnlyHint {
			t.Errorf("--read-only lists %s", tool.Name)
		}
	}
	tools := listTools(t, jmcp.Options{Toolsets: []string{jmcp.ToolsetHistory}})
	for _, tool := range tools {
		if !strings.Contains("revert_edit undo redo journal_log journal_status", tool.Name) {
			t.Errorf("history toolset lists %s", tool.Name)
		}
	}
	if len(tools) != 5 {
		t.Errorf("history toolset has %d tools", len(tools))
	}
}

// TestPresets checks that a preset lists its tools, and that --toolsets and
// --read-only narrow it further.
func TestPresets(t *testing.T) {
	names := func(o jmcp.Options) []string {
		var out []string
		for _, tool := range listTools(t, o) {
			out = append(out, tool.Name)
		}
		slices.Sort(out)
		return out
	}
	minimal := jmcp.PresetTools(jmcp.PresetMinimal)
	slices.Sort(minimal)
	for _, c := range []struct {
		o    jmcp.Options
		want []string
	}{
		{jmcp.Options{Preset: jmcp.PresetMinimal}, minimal},
		{jmcp.Options{Preset: jmcp.PresetMinimal, ReadOnly: true}, []string{"read_content", "search_content"}},
		{jmcp.Options{Preset: jmcp.PresetMinimal, Toolsets: []string{jmcp.ToolsetHistory}}, []string{"undo"}},
	} {
		if got := names(c.o); !slices.Equal(got, c.want) {
			t.Errorf("%+v lists %v, want %v", c.o, got, c.want)
		}
	}
	if full, all := names(jmcp.Options{Preset: jmcp.PresetFull}), names(jmcp.Options{}); !slices.Equal(full, all) || len(all) != 23 {
		t.Errorf("--preset full lists %d tools, the default %d", len(full), len(all))
	}
	if err := jmcp.CheckPreset("tiny"); err == nil || !strings.Contains(err.Error(), "minimal, full") {
		t.Errorf("CheckPreset(tiny) = %v, want an error naming the presets", err)
	}
}

// TestInputSchemasPortable checks that every input schema is flat and
// single-typed: no $ref or $defs (clients before 2025-11-25 may not resolve
// them), no type lists (the OpenAPI subset some model providers map tool
// schemas onto has one type per schema), and no additionalProperties:
// false, which the server enforces itself (unknown parameters are refused
// naming the valid ones).
func TestInputSchemasPortable(t *testing.T) {
	var list struct {
		Result struct {
			Tools []struct {
				Name        string
				InputSchema json.RawMessage
			}
		}
	}
	rpc(t, newEnv(t, jmcp.Options{}).srv, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, &list)
	if len(list.Result.Tools) != 23 {
		t.Fatalf("%d tools", len(list.Result.Tools))
	}
	for _, tool := range list.Result.Tools {
		var compact bytes.Buffer
		if err := json.Compact(&compact, tool.InputSchema); err != nil {
			t.Fatal(err)
		}
		for _, bad := range []string{`"$ref"`, `"$defs"`, `"type":[`, `"additionalProperties":false`} {
			if bytes.Contains(compact.Bytes(), []byte(bad)) {
				t.Errorf("%s: input schema has %s: %s", tool.Name, bad, compact.Bytes())
			}
		}
	}
}

// TestReadmeTools checks that README.md's tool table is the registry's; -update rewrites it.
func TestReadmeTools(t *testing.T) {
	e := newEnv(t, jmcp.Options{})
	var b strings.Builder
	b.WriteString("| tool | toolset | read-only | destructive | idempotent | what it does |\n|---|---|---|---|---|---|\n")
	yes := map[bool]string{true: "yes", false: "no"}
	for _, tool := range e.srv.Tools() {
		desc := tool.Description
		if i := strings.Index(desc, ". "); i > 0 {
			desc = desc[:i+1]
		}
		b.WriteString("| `" + tool.Name + "` | " + tool.Toolset + " | " + yes[tool.ReadOnly] + " | " + yes[tool.Destructive] +
			" | " + yes[tool.Idempotent] + " | " + strings.ReplaceAll(desc, "|", "\\|") + " |\n")
	}
	regenerate(t, "README.md", "tools", b.String())
}
