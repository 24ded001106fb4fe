package syntax

import (
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

// symInfo is what a rule extracts from a node.
type symInfo struct {
	kind     Kind
	name     string
	receiver string
}

// rule decides whether a node is a symbol and names it.
type rule func(n *sitter.Node, src []byte) (symInfo, bool)

// wrapKind says how a wrapping node extends the symbol it wraps.
type wrapKind int

const (
	wrapRange wrapKind = iota // the wrapper is part of the declaration (export, const (...), template<>)
	wrapFull                  // the wrapper only adds decorators (Python decorated_definition)
)

// simple is a rule of a fixed kind named by defaultName.
func simple(k Kind) rule {
	return func(n *sitter.Node, src []byte) (symInfo, bool) {
		return symInfo{kind: k, name: defaultName(n, src)}, true
	}
}

// named is a rule of a fixed kind named by the text of a field.
func named(k Kind, field string) rule {
	return func(n *sitter.Node, src []byte) (symInfo, bool) {
		return symInfo{kind: k, name: fieldText(n, field, src)}, true
	}
}

func fieldText(n *sitter.Node, field string, src []byte) string {
	if c := n.ChildByFieldName(field); c != nil {
		return oneLine(c.Content(src))
	}
	return ""
}

// oneLine collapses runs of whitespace so names spanning lines read well.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\n\r\t") && !strings.Contains(s, "  ") {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// identLike reports node types that hold a plain name.
func identLike(typ string) bool {
	switch typ {
	case "identifier", "type_identifier", "simple_identifier", "constant", "property_identifier",
		"field_identifier", "word", "name", "type_constructor", "value_name", "module_name",
		"upper_case_identifier", "lower_case_identifier", "namespace_identifier", "scope_resolution":
		return true
	}
	return strings.HasSuffix(typ, "_name") && typ != "tag_name"
}

// defaultName tries the "name" field, then the C-style declarator chain, then
// the first identifier-like child.
func defaultName(n *sitter.Node, src []byte) string {
	if c := n.ChildByFieldName("name"); c != nil {
		return oneLine(c.Content(src))
	}
	if d := n.ChildByFieldName("declarator"); d != nil {
		name, _ := declName(d, src)
		return name
	}
	return firstIdent(n, src)
}

func firstIdent(n *sitter.Node, src []byte) string {
	count := int(n.NamedChildCount())
	for i := 0; i < count; i++ {
		c := n.NamedChild(i)
		if c != nil && identLike(c.Type()) {
			return oneLine(c.Content(src))
		}
	}
	return ""
}

// declName follows C/C++ declarators (pointer, function, array, reference)
// down to the declared identifier. A qualified name "Shape::area" yields the
// name "area" and the receiver "Shape".
func declName(d *sitter.Node, src []byte) (name, receiver string) {
	for depth := 0; d != nil && depth < 16; depth++ {
		switch d.Type() {
		case "identifier", "field_identifier", "type_identifier", "destructor_name", "operator_name", "primitive_type":
			return d.Content(src), ""
		case "qualified_identifier":
			full := oneLine(d.Content(src))
			if i := strings.LastIndex(full, "::"); i >= 0 {
				return full[i+2:], full[:i]
			}
			return full, ""
		}
		next := d.ChildByFieldName("declarator")
		if next == nil {
			next = firstNamed(d)
		}
		d = next
	}
	return "", ""
}

func firstNamed(n *sitter.Node) *sitter.Node {
	if n.NamedChildCount() == 0 {
		return nil
	}
	return n.NamedChild(0)
}

// childOfType returns the first named child of n whose type is one of types.
func childOfType(n *sitter.Node, types ...string) *sitter.Node {
	count := int(n.NamedChildCount())
	for i := 0; i < count; i++ {
		c := n.NamedChild(i)
		if c == nil {
			continue
		}
		for _, t := range types {
			if c.Type() == t {
				return c
			}
		}
	}
	return nil
}

// hasToken reports whether n has a direct anonymous child spelled tok.
func hasToken(n *sitter.Node, tok string) bool {
	count := int(n.ChildCount())
	for i := 0; i < count; i++ {
		if c := n.Child(i); c != nil && !c.IsNamed() && c.Type() == tok {
			return true
		}
	}
	return false
}

// header is the text of n before its first "{", on one line: CSS selectors,
// "@media (max-width: 600px)".
func header(n *sitter.Node, src []byte) string {
	s := n.Content(src)
	if i := strings.IndexByte(s, '{'); i >= 0 {
		s = s[:i]
	}
	return strings.Join(strings.Fields(s), " ")
}

// splitQualified splits "M.find" or "M:save" into receiver and name.
func splitQualified(s string) (receiver, name string) {
	if i := strings.LastIndexAny(s, ".:"); i > 0 {
		return s[:i], s[i+1:]
	}
	return "", s
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}

func isUpperIdent(s string) bool {
	hasLetter := false
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z':
			return false
		case r >= 'A' && r <= 'Z':
			hasLetter = true
		}
	}
	return hasLetter
}
