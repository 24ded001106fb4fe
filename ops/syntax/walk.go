package syntax

import (
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

// walker turns a tree into symbols using one language's rules.
type walker struct {
	t  *text
	lr langRules
}

// children collects the symbols below n. parent is the innermost enclosing
// symbol (nil at the top).
func (w *walker) children(n *sitter.Node, parent *Symbol) []Symbol {
	var out []Symbol
	count := int(n.NamedChildCount())
	for i := 0; i < count; i++ {
		c := n.NamedChild(i)
		if c == nil {
			continue
		}
		if s, ok := w.symbol(c, parent); ok {
			out = append(out, s)
			continue
		}
		out = append(out, w.children(c, parent)...)
	}
	return out
}

// symbol builds the symbol of n when a rule matches and yields a name.
func (w *walker) symbol(n *sitter.Node, parent *Symbol) (Symbol, bool) {
	r, ok := w.lr.symbols[n.Type()]
	if !ok {
		return Symbol{}, false
	}
	info, ok := r(n, w.t.src)
	if !ok || info.name == "" {
		return Symbol{}, false
	}
	inFunc := parent != nil && (parent.Kind == KindFunction || parent.Kind == KindMethod)
	switch info.kind {
	case KindVar, KindConst, KindField, KindProperty, KindKey:
		if inFunc {
			return Symbol{}, false // locals are not part of an outline
		}
	case KindFunction:
		if parent != nil && isTypeKind(parent.Kind) {
			info.kind = KindMethod
		}
	}
	s := Symbol{Name: info.name, Kind: info.kind, Receiver: info.receiver}
	if s.Receiver != "" && s.Kind == KindFunction {
		s.Kind = KindMethod
	}
	outer, fullOnly := w.wrapper(n)
	rangeNode := n
	if !fullOnly {
		rangeNode = outer
	}
	s.Range = w.t.span(headStart(rangeNode), int(rangeNode.EndByte()))
	s.Full = w.t.nodeSpan(outer)
	s.Full.EndLine, s.Full.EndByte = s.Range.EndLine, s.Range.EndByte
	if start, ok := w.leading(outer); ok {
		s.Full = w.t.span(start, s.Full.EndByte)
	}
	s.Children = w.children(n, &s)
	return s, true
}

func isTypeKind(k Kind) bool {
	switch k {
	case KindClass, KindStruct, KindInterface, KindTrait, KindImpl, KindEnum:
		return true
	}
	return false
}

// wrapper climbs from n through nodes that only wrap it (export statements,
// declaration lists of one spec, decorated definitions, templates) and returns
// the outermost. fullOnly reports that the wrapper adds decorators only, so
// the symbol's Range stays n.
func (w *walker) wrapper(n *sitter.Node) (outer *sitter.Node, fullOnly bool) {
	outer = n
	for {
		p := outer.Parent()
		if p == nil {
			return outer, fullOnly
		}
		kind, ok := w.lr.wrap[p.Type()]
		if !ok || w.otherSymbols(p, outer) {
			return outer, fullOnly
		}
		if kind == wrapFull {
			fullOnly = true
		}
		outer = p
	}
}

// otherSymbols reports whether p has a named child besides n that a rule matches.
func (w *walker) otherSymbols(p, n *sitter.Node) bool {
	count := int(p.NamedChildCount())
	for i := 0; i < count; i++ {
		c := p.NamedChild(i)
		if c == nil || c.Equal(n) {
			continue
		}
		if _, ok := w.lr.symbols[c.Type()]; ok {
			return true
		}
	}
	return false
}

// leading returns the start of the comments and attributes directly above n:
// previous siblings without a blank line between them, not trailing another
// statement's line.
func (w *walker) leading(n *sitter.Node) (int, bool) {
	start, found := int(n.StartByte()), false
	cur := w.t.span(start, int(n.EndByte()))
	// A declaration that opens its parent's body (Ruby's body_statement)
	// has its comments before the parent.
	for n.PrevNamedSibling() == nil && n.Parent() != nil && n.Parent().Parent() != nil && n.Parent().StartByte() == n.StartByte() {
		n = n.Parent()
	}
	for prev := n.PrevNamedSibling(); prev != nil; prev = prev.PrevNamedSibling() {
		if !isAttached(prev.Type()) {
			break
		}
		ps := w.t.nodeSpan(prev)
		if ps.StartByte == 0 && strings.HasPrefix(string(w.t.src[:min(2, len(w.t.src))]), "#!") {
			break // a shebang is not documentation
		}
		if ps.EndLine < cur.StartLine-1 {
			break
		}
		if before := prev.PrevNamedSibling(); before != nil && w.t.nodeSpan(before).EndLine == ps.StartLine && !isAttached(before.Type()) {
			break // a trailing comment of the statement before
		}
		start, found, cur = ps.StartByte, true, ps
	}
	return start, found
}

// isAttached reports node types that belong to the declaration below them.
func isAttached(typ string) bool {
	switch typ {
	case "decorator", "annotation", "marker_annotation", "attribute_list", "attribute_item", "type_annotation":
		return true
	}
	return strings.Contains(typ, "comment")
}

// headStart skips decorators, annotations and comments at the head of n
// (also inside a leading "modifiers" node), so that Range starts at the
// declaration proper.
func headStart(n *sitter.Node) int {
	if off, ok := firstProper(n); ok {
		return off
	}
	return int(n.StartByte())
}

func firstProper(n *sitter.Node) (int, bool) {
	count := int(n.ChildCount())
	for i := 0; i < count; i++ {
		c := n.Child(i)
		if c == nil || (c.IsNamed() && isAttached(c.Type())) {
			continue
		}
		if c.Type() == "modifiers" {
			if off, ok := firstProper(c); ok {
				return off, true
			}
			continue
		}
		return int(c.StartByte()), true
	}
	return 0, false
}
