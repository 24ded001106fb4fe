package mcp

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// Input schemas are what every client that does not defer tools puts into
// the model's context on every turn, so they carry only what the model
// needs to call a tool right. The schema generated from a tool's input type
// is compacted once, at registration:
//
//   - a pointer field's ["null", T] becomes T: an omitted parameter and an
//     explicit null decode alike (nil), and a single type is the spelling
//     every client dialect maps (the OpenAPI subset of some model providers
//     rejects type lists);
//   - additionalProperties: false is dropped: the server refuses unknown
//     parameters itself, naming the valid ones (decodeArgs), so the keyword
//     only repeated a guarantee the model never needs to read;
//   - an empty required list is dropped.
//
// Schemas stay flat, without $defs or $ref: a $defs entry is only shared
// within one tool's schema, where no sub-schema repeats, while a client of
// a protocol revision older than the one that made JSON Schema 2020-12 the
// default dialect may not resolve references at all.
//
// Output schemas are left as generated: most clients do not show them to
// the model, and they validate structured results.

// inputSchema returns the compacted input schema of a tool's input type.
func inputSchema[In any]() (json.RawMessage, error) {
	s, err := jsonschema.For[In](&jsonschema.ForOptions{IgnoreInvalidTypes: true})
	if err != nil {
		return nil, fmt.Errorf("input schema of %T: %w", *new(In), err)
	}
	compact(s)
	return json.Marshal(s)
}

// withInputSchema sets a tool's input schema to raw, in place of the
// default one NewTool starts from (a tool may carry only one of the two).
func withInputSchema(raw json.RawMessage) mcpgo.ToolOption {
	return func(t *mcpgo.Tool) {
		t.InputSchema = mcpgo.ToolInputSchema{}
		t.RawInputSchema = raw
	}
}

// compact rewrites s and its sub-schemas in place as described above.
func compact(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) == 2 && slices.Contains(s.Types, "null") {
		s.Type = s.Types[0]
		if s.Type == "null" {
			s.Type = s.Types[1]
		}
		s.Types = nil
	}
	if isFalse(s.AdditionalProperties) {
		s.AdditionalProperties = nil
	}
	if len(s.Required) == 0 {
		s.Required = nil
	}
	for _, p := range s.Properties {
		compact(p)
	}
	compact(s.Items)
	compact(s.AdditionalProperties)
}

// isFalse reports whether s is the schema that accepts nothing, as the
// generator writes additionalProperties: false.
func isFalse(s *jsonschema.Schema) bool {
	if s == nil {
		return false
	}
	b, err := json.Marshal(s)
	return err == nil && (string(b) == "false" || string(b) == `{"not":{}}`)
}
