package syntax

import (
	sitter "github.com/smacker/go-tree-sitter"
)

// clojureKinds maps defining macros to symbol kinds. Other top-level forms
// are outlined as KindForm named after their head symbol.
var clojureKinds = map[string]Kind{
	"ns": KindModule, "def": KindVar, "defonce": KindVar, "def-": KindVar,
	"defn": KindFunction, "defn-": KindFunction, "defmulti": KindFunction, "defmethod": KindFunction,
	"deftest": KindFunction, "defmacro": KindMacro, "defprotocol": KindInterface,
	"definterface": KindInterface, "defrecord": KindStruct, "deftype": KindStruct,
	"defstruct": KindStruct, "defschema": KindType, "s/def": KindType,
}

// cljValues returns the forms inside a Clojure collection, skipping
// comments, discarded forms (#_) and metadata.
func cljValues(n *sitter.Node) []*sitter.Node {
	var out []*sitter.Node
	count := int(n.NamedChildCount())
	for i := 0; i < count; i++ {
		c := n.NamedChild(i)
		if c == nil {
			continue
		}
		switch c.Type() {
		case "comment", "dis_expr", "meta_lit", "old_meta_lit":
			continue
		}
		out = append(out, c)
	}
	return out
}

// cljSymName is the name of a symbol literal without namespace metadata.
func cljSymName(n *sitter.Node, src []byte) string {
	if n == nil || n.Type() != "sym_lit" {
		return ""
	}
	if name := n.ChildByFieldName("name"); name != nil {
		if ns := n.ChildByFieldName("namespace"); ns != nil {
			return ns.Content(src) + "/" + name.Content(src)
		}
		return name.Content(src)
	}
	return n.Content(src)
}

// cljHead returns the head symbol of a list form and its values.
func cljHead(n *sitter.Node, src []byte) (string, []*sitter.Node) {
	if n.Type() != "list_lit" {
		return "", nil
	}
	vals := cljValues(n)
	if len(vals) == 0 {
		return "", nil
	}
	return cljSymName(vals[0], src), vals
}

// outlineClojure outlines the top-level forms of a Clojure source. A rich
// comment form "(comment ...)" becomes a KindForm symbol named "comment"
// whose children are the forms inside it.
func outlineClojure(t *text, root *sitter.Node) []Symbol {
	w := &walker{t: t}
	return cljForms(w, cljValues(root))
}

func cljForms(w *walker, forms []*sitter.Node) []Symbol {
	var out []Symbol
	for _, n := range forms {
		head, vals := cljHead(n, w.t.src)
		if head == "" {
			continue
		}
		s := Symbol{Kind: KindForm, Name: head, Range: w.t.nodeSpan(n)}
		if k, ok := clojureKinds[head]; ok && len(vals) > 1 {
			if name := cljSymName(vals[1], w.t.src); name != "" {
				s.Kind, s.Name = k, name
			}
		}
		s.Full = s.Range
		if start, ok := w.leading(n); ok {
			s.Full = w.t.span(start, s.Range.EndByte)
		}
		if head == "comment" {
			s.Children = cljForms(w, vals[1:])
		}
		out = append(out, s)
	}
	return out
}
