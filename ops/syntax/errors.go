package syntax

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

// SyntaxError is one place where the parser had to recover.
type SyntaxError struct {
	Line    int    `json:"line"`   // 1-based
	Column  int    `json:"column"` // 0-based byte column
	Message string `json:"message"`
}

// maxSyntaxErrors bounds the list; a badly broken file has errors everywhere.
const maxSyntaxErrors = 50

// SyntaxErrors parses src once and lists its ERROR and MISSING nodes in
// source order (JSON is checked with encoding/json instead). ok is false when
// the language has no parser, so nothing can be said.
func SyntaxErrors(name string, src []byte) (errs []SyntaxError, ok bool, err error) {
	lang := Detect(name, src)
	t := newText(src)
	if lang == "json" {
		return jsonErrors(t), true, nil
	}
	if grammars[lang] == nil {
		return nil, false, nil
	}
	tree, err := parse(lang, src)
	if err != nil {
		return nil, false, err
	}
	defer tree.Close()
	root := tree.RootNode()
	if !root.HasError() {
		return nil, true, nil
	}
	collectErrors(root, t, &errs)
	if len(errs) == 0 { // HasError without a visible node: report the root
		errs = append(errs, SyntaxError{Line: 1, Message: "syntax error"})
	}
	return errs, true, nil
}

func collectErrors(n *sitter.Node, t *text, out *[]SyntaxError) {
	if len(*out) >= maxSyntaxErrors {
		return
	}
	switch {
	case n.IsMissing():
		off := int(n.StartByte())
		*out = append(*out, SyntaxError{Line: t.line(off), Column: t.column(off), Message: fmt.Sprintf("missing %s", n.Type())})
		return
	case n.IsError():
		off := int(n.StartByte())
		msg := "syntax error"
		if snippet := oneLine(n.Content(t.src)); snippet != "" {
			if len(snippet) > 40 {
				snippet = snippet[:40] + "..."
			}
			msg = fmt.Sprintf("unexpected %q", snippet)
		}
		if p := n.Parent(); p != nil && p.Parent() != nil {
			msg += " in " + strings.ReplaceAll(p.Type(), "_", " ")
		}
		*out = append(*out, SyntaxError{Line: t.line(off), Column: t.column(off), Message: msg})
		return
	}
	count := int(n.ChildCount())
	for i := 0; i < count; i++ {
		if c := n.Child(i); c != nil && (c.HasError() || c.IsMissing()) {
			collectErrors(c, t, out)
		}
	}
}

func jsonErrors(t *text) []SyntaxError {
	dec := json.NewDecoder(strings.NewReader(string(t.src)))
	var v any
	err := dec.Decode(&v)
	if err == nil {
		if _, err2 := dec.Token(); err2 == nil {
			off := int(dec.InputOffset())
			return []SyntaxError{{Line: t.line(off), Column: t.column(off), Message: "unexpected data after the top-level value"}}
		}
		return nil
	}
	off := len(t.src)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off = int(se.Offset)
		if off > 0 {
			off-- // Offset is just past the offending byte
		}
	}
	if off > len(t.src) {
		off = len(t.src)
	}
	return []SyntaxError{{Line: max(t.line(off), 1), Column: t.column(off), Message: err.Error()}}
}
