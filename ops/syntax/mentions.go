package syntax

import (
	"bytes"

	sitter "github.com/smacker/go-tree-sitter"
)

// Mentions returns the lines of src, in order and without repeats, on which
// ident occurs as an identifier node (not inside a string or a comment, and
// not as part of a longer name). Clojure symbols match by their name part,
// so "str/join" mentions "join". ok is false when the language of name has no
// grammar, so nothing can be said; a source that does not contain ident as
// bytes is not parsed.
func Mentions(name string, src []byte, ident string) (lines []int, ok bool, err error) {
	lang := Detect(name, src)
	if grammars[lang] == nil || ident == "" {
		return nil, false, nil
	}
	if !bytes.Contains(src, []byte(ident)) {
		return nil, true, nil
	}
	tree, err := parse(lang, src)
	if err != nil {
		return nil, false, err
	}
	defer tree.Close()
	t := newText(src)
	last := 0
	var walk func(n *sitter.Node)
	walk = func(n *sitter.Node) {
		if int(n.EndByte())-int(n.StartByte()) < len(ident) {
			return
		}
		typ := n.Type()
		if typ == "comment" || typ == "line_comment" || typ == "block_comment" || typ == "string" || typ == "string_literal" {
			return
		}
		if mentionNode(n, typ, src, ident) {
			if l := t.line(int(n.StartByte())); l != last {
				lines = append(lines, l)
				last = l
			}
			return
		}
		count := int(n.NamedChildCount())
		for i := 0; i < count; i++ {
			if c := n.NamedChild(i); c != nil {
				walk(c)
			}
		}
	}
	walk(tree.RootNode())
	return lines, true, nil
}

// mentionNode reports whether n is a name node spelled ident.
func mentionNode(n *sitter.Node, typ string, src []byte, ident string) bool {
	switch typ {
	case "sym_lit":
		return cljSymName(n, src) == ident || symTail(n.Content(src)) == ident
	case "scope_resolution", "qualified_identifier", "scoped_identifier", "scoped_type_identifier", "member_expression", "field_expression", "selector_expression":
		return false // compound: their parts are visited
	}
	if n.NamedChildCount() > 0 && typ != "name" && typ != "constant" {
		return false
	}
	if !identLike(typ) && !bytes.Contains([]byte(typ), []byte("identifier")) && typ != "name" && typ != "constant" && typ != "variable_name" {
		return false
	}
	return n.Content(src) == ident
}

func symTail(s string) string {
	if i := bytes.LastIndexByte([]byte(s), '/'); i >= 0 && i < len(s)-1 {
		return s[i+1:]
	}
	return s
}
