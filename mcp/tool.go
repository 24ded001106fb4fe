package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// ToolInfo describes a registered tool (for the README table and inventory tests).
type ToolInfo struct {
	Name        string
	Toolset     string
	Description string
	ReadOnly    bool
	Destructive bool
	Idempotent  bool
}

// def is a tool's static description.
type def struct {
	name, toolset, title, desc        string
	readOnly, destructive, idempotent bool
}

// reply is what a handler returns: structured content and the concise text the model reads.
type reply struct {
	data any
	text string
}

// addTool registers a typed tool. The handler decodes nothing and maps no
// errors itself: arguments are decoded strictly here (unknown parameters are
// INVALID_INPUT naming the valid ones; another seed's name of the path
// argument is renamed first, alias.go) and every error goes through toolError.
func addTool[In any, Out any](s *Server, d def, fn func(ctx context.Context, c *call, in *In) (*Out, string, error)) {
	if !s.enabled(d.toolset, d.name) || (s.opts.ReadOnly && !d.readOnly) {
		return
	}
	schema, err := inputSchema[In]()
	if err != nil {
		panic(fmt.Sprintf("tool %s: %v", d.name, err)) // a type no schema can describe: a programming error
	}
	tool := mcpgo.NewTool(d.name,
		mcpgo.WithDescription(d.desc),
		withInputSchema(schema),
		mcpgo.WithOutputSchema[Out](),
		mcpgo.WithTitleAnnotation(d.title),
		mcpgo.WithReadOnlyHintAnnotation(d.readOnly),
		mcpgo.WithDestructiveHintAnnotation(d.destructive),
		mcpgo.WithIdempotentHintAnnotation(d.idempotent),
		mcpgo.WithOpenWorldHintAnnotation(false),
	)
	aliases := aliasesFor(reflect.TypeFor[In]())
	s.tools = append(s.tools, ToolInfo{Name: d.name, Toolset: d.toolset, Description: d.desc,
		ReadOnly: d.readOnly, Destructive: d.destructive, Idempotent: d.idempotent})
	s.srv.AddTool(tool, func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		raw := req.GetRawArguments()
		var spilled map[string]string
		if b, ok := raw.(json.RawMessage); ok {
			spilled = s.spill.claim(b)
		}
		in := new(In)
		args, err := aliases.rename(raw)
		if err != nil {
			return toolError(d.name, nil, err)
		}
		if err := decodeArgs(args, in); err != nil {
			return toolError(d.name, nil, err)
		}
		fill(in, spilled)
		c := s.newCall(ctx, d.name, raw, spilled)
		if a, ok := any(in).(readOnlyAllower); ok {
			c.allowReadOnly = a.allowsReadOnly()
		}
		c.progress = s.newProgress(ctx, req.Params.Meta)
		out, text, err := fn(ctx, c, in)
		if err != nil {
			return toolError(d.name, c, err)
		}
		if ctx.Err() != nil && !d.readOnly {
			// cancelled past the commit point: the change is whole
			text = "note: the client cancelled this call after its commit point; the change was completed, not torn\n" + text
		}
		return mcpgo.NewToolResultStructured(out, s.capText(text, out)), nil
	})
}

// decodeArgs decodes tool arguments strictly.
func decodeArgs(raw any, into any) error {
	var b []byte
	switch v := raw.(type) {
	case nil:
		b = []byte("{}")
	case json.RawMessage:
		b = v
	case []byte:
		b = v
	default:
		var err error
		if b, err = json.Marshal(v); err != nil {
			return invalid("send the arguments as a JSON object", "arguments: %v", err)
		}
	}
	if len(bytes.TrimSpace(b)) == 0 || string(bytes.TrimSpace(b)) == "null" {
		b = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		msg := err.Error()
		msg = strings.TrimPrefix(msg, "json: ")
		return invalid("check the parameter names and types against the tool's input schema", "arguments: %s", msg)
	}
	return nil
}

// capText keeps a text result under the configured cap. What it leaves out
// is said to be in the structured result out only when it is there.
func (s *Server) capText(text string, out any) string {
	if len(text) <= s.opts.ResultCap {
		return text
	}
	cut := strings.LastIndexByte(text[:s.opts.ResultCap], '\n')
	if cut < s.opts.ResultCap/2 {
		cut = s.opts.ResultCap
	}
	for cut > 0 && cut < len(text) && !utf8.RuneStart(text[cut]) {
		cut--
	}
	where := "read a narrower range"
	switch {
	case holds(out, text[cut:]):
		where = "the structured result has the rest, or read a narrower range"
	case out != nil:
		where = "the structured result does not have them either: read a narrower range"
	}
	return text[:cut] + fmt.Sprintf("\n[... %d more bytes not shown; %s]", len(text)-cut, where)
}

// holds reports whether the structured result out carries the text rest
// (its first and last 100 bytes, as JSON strings inside it).
func holds(out any, rest string) bool {
	rest = strings.TrimSpace(rest)
	if out == nil || rest == "" {
		return false
	}
	b, err := json.Marshal(out)
	if err != nil {
		return false
	}
	for _, part := range []string{rest[:min(len(rest), 100)], rest[max(0, len(rest)-100):]} {
		p := strings.ToValidUTF8(part, "")
		q, _ := json.Marshal(p)
		if !bytes.Contains(b, bytes.Trim(q, `"`)) {
			return false
		}
	}
	return true
}
