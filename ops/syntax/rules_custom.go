package syntax

import (
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

// Rules that need more than a fixed kind and a name field.

func jsField(n *sitter.Node, src []byte) (symInfo, bool) {
	name := fieldText(n, "property", src)
	if name == "" {
		name = defaultName(n, src)
	}
	return symInfo{kind: KindField, name: name}, true
}

// jsVariable makes "const f = () => ..." a function and other declarators
// constants or variables; destructuring patterns are skipped.
func jsVariable(n *sitter.Node, src []byte) (symInfo, bool) {
	name := n.ChildByFieldName("name")
	if name == nil || name.Type() != "identifier" {
		return symInfo{}, false
	}
	info := symInfo{kind: KindVar, name: name.Content(src)}
	if v := n.ChildByFieldName("value"); v != nil {
		switch v.Type() {
		case "arrow_function", "function", "function_expression", "generator_function":
			info.kind = KindFunction
			return info, true
		case "class":
			info.kind = KindClass
			return info, true
		}
	}
	if p := n.Parent(); p != nil && hasToken(p, "const") {
		info.kind = KindConst
	}
	return info, true
}

func goMethod(n *sitter.Node, src []byte) (symInfo, bool) {
	info := symInfo{kind: KindMethod, name: fieldText(n, "name", src)}
	if recv := n.ChildByFieldName("receiver"); recv != nil {
		if p := childOfType(recv, "parameter_declaration"); p != nil {
			t := fieldText(p, "type", src)
			t = strings.TrimLeft(t, "*")
			if i := strings.IndexByte(t, '['); i >= 0 {
				t = t[:i]
			}
			info.receiver = t
		}
	}
	return info, true
}

func goType(n *sitter.Node, src []byte) (symInfo, bool) {
	info := symInfo{kind: KindType, name: fieldText(n, "name", src)}
	if t := n.ChildByFieldName("type"); t != nil {
		switch t.Type() {
		case "struct_type":
			info.kind = KindStruct
		case "interface_type":
			info.kind = KindInterface
		}
	}
	return info, true
}

// pyAssignment outlines "NAME = value" at module and class level.
func pyAssignment(n *sitter.Node, src []byte) (symInfo, bool) {
	left := n.ChildByFieldName("left")
	if left == nil || left.Type() != "identifier" {
		return symInfo{}, false
	}
	if p := n.Parent(); p == nil || p.Type() != "expression_statement" {
		return symInfo{}, false
	}
	name := left.Content(src)
	if isUpperIdent(name) {
		return symInfo{kind: KindConst, name: name}, true
	}
	return symInfo{kind: KindVar, name: name}, true
}

// rustImpl names "impl<T> Trait for Point<T>" after its type, "Point".
func rustImpl(n *sitter.Node, src []byte) (symInfo, bool) {
	t := n.ChildByFieldName("type")
	if t == nil {
		return symInfo{}, false
	}
	if t.Type() == "generic_type" {
		if inner := t.ChildByFieldName("type"); inner != nil {
			t = inner
		}
	}
	return symInfo{kind: KindImpl, name: t.Content(src)}, true
}

func cFunction(n *sitter.Node, src []byte) (symInfo, bool) {
	name, recv := declName(n.ChildByFieldName("declarator"), src)
	return symInfo{kind: KindFunction, name: name, receiver: recv}, true
}

// cTag outlines struct/union/enum/class specifiers that have a body (not
// mere references like "struct point *p").
func cTag(k Kind) rule {
	return func(n *sitter.Node, src []byte) (symInfo, bool) {
		if n.ChildByFieldName("body") == nil {
			return symInfo{}, false
		}
		return symInfo{kind: k, name: fieldText(n, "name", src)}, true
	}
}

// cField is a member: a method when its declarator is a function declarator.
func cField(n *sitter.Node, src []byte) (symInfo, bool) {
	d := n.ChildByFieldName("declarator")
	if d == nil {
		return symInfo{}, false
	}
	name, _ := declName(d, src)
	if d.Type() == "function_declarator" {
		return symInfo{kind: KindMethod, name: name}, true
	}
	return symInfo{kind: KindField, name: name}, true
}

func kotlinClass(n *sitter.Node, src []byte) (symInfo, bool) {
	info := symInfo{kind: KindClass, name: firstIdent(n, src)}
	if hasToken(n, "interface") {
		info.kind = KindInterface
	}
	return info, true
}

func kotlinProperty(n *sitter.Node, src []byte) (symInfo, bool) {
	if v := childOfType(n, "variable_declaration"); v != nil {
		return symInfo{kind: KindProperty, name: firstIdent(v, src)}, true
	}
	return symInfo{}, false
}

// swiftClass covers class, struct, enum, actor and extension declarations,
// which the Swift grammar parses as one node type.
func swiftClass(n *sitter.Node, src []byte) (symInfo, bool) {
	info := symInfo{kind: KindClass, name: defaultName(n, src)}
	switch {
	case hasToken(n, "struct"):
		info.kind = KindStruct
	case hasToken(n, "enum"):
		info.kind = KindEnum
	case hasToken(n, "extension"):
		info.kind = KindImpl
	}
	return info, true
}

func swiftProperty(n *sitter.Node, src []byte) (symInfo, bool) {
	if p := n.ChildByFieldName("name"); p != nil {
		return symInfo{kind: KindProperty, name: oneLine(p.Content(src))}, true
	}
	if p := childOfType(n, "pattern"); p != nil {
		return symInfo{kind: KindProperty, name: oneLine(p.Content(src))}, true
	}
	return symInfo{}, false
}

// luaFunction splits "function M.find()" / "function M:save()" into receiver and name.
func luaFunction(n *sitter.Node, src []byte) (symInfo, bool) {
	full := fieldText(n, "name", src)
	if full == "" {
		full = firstIdent(n, src)
	}
	recv, name := splitQualified(full)
	return symInfo{kind: KindFunction, name: name, receiver: recv}, true
}

var elixirKinds = map[string]Kind{
	"defmodule": KindModule, "defprotocol": KindInterface, "defimpl": KindImpl,
	"def": KindFunction, "defp": KindFunction, "defmacro": KindMacro, "defmacrop": KindMacro,
	"defguard": KindFunction, "defdelegate": KindFunction,
}

// elixirCall outlines defmodule/def/defp/defmacro calls.
func elixirCall(n *sitter.Node, src []byte) (symInfo, bool) {
	target := n.ChildByFieldName("target")
	if target == nil || target.Type() != "identifier" {
		return symInfo{}, false
	}
	k, ok := elixirKinds[target.Content(src)]
	if !ok {
		return symInfo{}, false
	}
	args := childOfType(n, "arguments")
	if args == nil || args.NamedChildCount() == 0 {
		return symInfo{}, false
	}
	head := args.NamedChild(0)
	for head != nil && head.Type() == "binary_operator" { // def f(x) when guard
		head = head.ChildByFieldName("left")
	}
	if head == nil {
		return symInfo{}, false
	}
	if head.Type() == "call" {
		if t := head.ChildByFieldName("target"); t != nil {
			return symInfo{kind: k, name: t.Content(src)}, true
		}
	}
	return symInfo{kind: k, name: oneLine(head.Content(src))}, true
}

func ocamlLet(n *sitter.Node, src []byte) (symInfo, bool) {
	p := n.ChildByFieldName("pattern")
	if p == nil || p.Type() != "value_name" {
		return symInfo{}, false
	}
	info := symInfo{kind: KindVar, name: p.Content(src)}
	if childOfType(n, "parameter") != nil {
		info.kind = KindFunction
	} else if b := n.ChildByFieldName("body"); b != nil && (b.Type() == "fun_expression" || b.Type() == "function_expression") {
		info.kind = KindFunction
	}
	return info, true
}

// hclBlock names `resource "aws_instance" "web" {` as "resource aws_instance web".
func hclBlock(n *sitter.Node, src []byte) (symInfo, bool) {
	var parts []string
	count := int(n.NamedChildCount())
	for i := 0; i < count; i++ {
		c := n.NamedChild(i)
		if c == nil {
			continue
		}
		switch c.Type() {
		case "identifier":
			parts = append(parts, c.Content(src))
			continue
		case "string_lit":
			parts = append(parts, unquote(c.Content(src)))
			continue
		}
		break
	}
	return symInfo{kind: KindBlock, name: strings.Join(parts, " ")}, len(parts) > 0
}

// htmlElement outlines elements that have an id or child elements, named
// "tag" or "tag#id"; leaf elements without an id are left out.
func htmlElement(n *sitter.Node, src []byte) (symInfo, bool) {
	start := childOfType(n, "start_tag", "self_closing_tag")
	if start == nil {
		return symInfo{}, false
	}
	tag := childOfType(start, "tag_name")
	if tag == nil {
		return symInfo{}, false
	}
	name := tag.Content(src)
	id := ""
	count := int(start.NamedChildCount())
	for i := 0; i < count; i++ {
		a := start.NamedChild(i)
		if a == nil || a.Type() != "attribute" {
			continue
		}
		if an := childOfType(a, "attribute_name"); an != nil && an.Content(src) == "id" {
			if v := childOfType(a, "quoted_attribute_value", "attribute_value"); v != nil {
				id = unquote(v.Content(src))
			}
		}
	}
	if id != "" {
		name += "#" + id
	} else if n.Type() == "element" && childOfType(n, "element", "script_element", "style_element") == nil {
		return symInfo{}, false
	}
	return symInfo{kind: KindElement, name: name}, true
}
