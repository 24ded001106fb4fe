package mcp_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	jmcp "github.com/journalfs/journal/mcp"
)

// toolBytes is what a client that does not defer tools puts into the
// model's context for one tool: its name, description and input schema
// (compact JSON, as JSON.stringify writes it), in UTF-8 bytes.
type toolBytes struct {
	name         string
	desc, schema int
}

func (b toolBytes) total() int { return len(b.name) + b.desc + b.schema }

// footprint is the model-facing part of initialize and tools/list.
type footprint struct {
	tools        []toolBytes
	instructions int
}

func (f footprint) total() int {
	n := f.instructions
	for _, t := range f.tools {
		n += t.total()
	}
	return n
}

// sums returns the bytes of the descriptions and of the input schemas.
func (f footprint) sums() (desc, schema int) {
	for _, t := range f.tools {
		desc += t.desc
		schema += t.schema
	}
	return desc, schema
}

// measure counts the model-facing bytes of a server's initialize and
// tools/list responses as they go on the wire.
func measure(t *testing.T, o jmcp.Options) footprint {
	t.Helper()
	e := newEnv(t, o)
	var init struct {
		Result struct{ Instructions string }
	}
	rpc(t, e.srv, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"footprint","version":"1"}}}`, &init)
	var list struct {
		Result struct {
			Tools []struct {
				Name        string
				Description string
				InputSchema any
			}
		}
	}
	rpc(t, e.srv, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, &list)
	f := footprint{instructions: len(init.Result.Instructions)}
	for _, tool := range list.Result.Tools {
		f.tools = append(f.tools, toolBytes{tool.Name, len(tool.Description), len(stringify(t, tool.InputSchema))})
	}
	if len(f.tools) == 0 {
		t.Fatal("tools/list listed no tool")
	}
	return f
}

// rpc sends one JSON-RPC message to the server and decodes its response.
func rpc(t *testing.T, srv *jmcp.Server, msg string, into any) {
	t.Helper()
	b, err := json.Marshal(srv.MCP().HandleMessage(ctx, json.RawMessage(msg)))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, into); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
}

// stringify writes v as JSON.stringify does: compact, '<', '>' and '&'
// unescaped.
func stringify(t *testing.T, v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// TestToolBudget holds each preset to its budget of model-facing bytes
// (jmcp.PresetBudgets) and keeps the tables of BENCHMARKS.md and README.md
// that report them current; -update rewrites them.
func TestToolBudget(t *testing.T) {
	var presets, readme strings.Builder
	presets.WriteString("| preset | tools | descriptions | input schemas | instructions | model-facing total | budget |\n|---|--:|--:|--:|--:|--:|--:|\n")
	readme.WriteString("| preset | tools | model-facing bytes |\n|---|---|--:|\n")
	var full footprint
	for _, name := range jmcp.Presets {
		f := measure(t, jmcp.Options{Preset: name})
		desc, schema := f.sums()
		budget := jmcp.PresetBudgets[name]
		if f.total() > budget {
			t.Errorf("preset %s: %d model-facing bytes, over its budget of %d", name, f.total(), budget)
		}
		fmt.Fprintf(&presets, "| %s | %d | %d | %d | %d | **%d** | %d |\n", name, len(f.tools), desc, schema, f.instructions, f.total(), budget)
		var names []string
		for _, tl := range f.tools {
			names = append(names, "`"+tl.name+"`")
		}
		list := strings.Join(names, ", ")
		if name == jmcp.PresetFull {
			list = fmt.Sprintf("all %d", len(f.tools))
			full = f
		}
		fmt.Fprintf(&readme, "| `--preset %s` | %s | %d |\n", name, list, f.total())
	}
	var tools strings.Builder
	tools.WriteString("| tool | description | input schema | total (with the name) |\n|---|--:|--:|--:|\n")
	for _, tl := range full.tools {
		fmt.Fprintf(&tools, "| `%s` | %d | %d | %d |\n", tl.name, tl.desc, tl.schema, tl.total())
	}
	fmt.Fprintf(&tools, "| instructions | %d | | %d |\n", full.instructions, full.instructions)
	regenerate(t, "BENCHMARKS.md", "footprint", presets.String()+"\n"+tools.String())
	regenerate(t, "README.md", "presets", readme.String())
}

// regenerate checks (or with -update rewrites) the text between a file's
// <!-- key:begin --> and <!-- key:end --> markers.
func regenerate(t *testing.T, file, key, text string) {
	t.Helper()
	path := filepath.Join("..", file)
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	begin, end := "<!-- "+key+":begin -->\n", "<!-- "+key+":end -->"
	i, j := bytes.Index(doc, []byte(begin)), bytes.Index(doc, []byte(end))
	if i < 0 || j < i {
		t.Fatalf("%s has no %s markers", file, key)
	}
	want := string(doc[:i+len(begin)]) + text + string(doc[j:])
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if want != string(doc) {
		t.Errorf("%s's %s table is stale: run go test ./mcp -run 'TestToolBudget|TestReadmeTools' -update", file, key)
	}
}
