package syntax

import (
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

// InText reports, for each byte offset of offsets in src (a file, or a
// fragment of one, in language lang), whether it stands inside a comment or
// a string, character or rune literal — text a person may write anything
// in — rather than where the language's syntax takes it (an operator, a
// delimiter, a name). An interpolation inside a string (`${…}`, `{…}` of
// an f-string) is syntax again. ok is false when lang has no grammar, or
// is a markup language (Markdown, HTML), where all of it is text; the
// caller then knows nothing of the offsets.
func InText(lang string, src []byte, offsets []int) (in []bool, ok bool) {
	return within(lang, src, offsets, textNode)
}

// InComment is InText for comments alone: a comment's characters mean
// nothing to the language (a backslash there escapes nothing), where a
// string's may.
func InComment(lang string, src []byte, offsets []int) (in []bool, ok bool) {
	return within(lang, src, offsets, func(t string) bool { return strings.Contains(t, "comment") })
}

// within reports, for each offset, whether a node of a type kind accepts
// encloses it, an interpolation between them breaking the enclosure.
func within(lang string, src []byte, offsets []int, kind func(string) bool) (in []bool, ok bool) {
	switch lang {
	case "", "markdown", "html":
		return nil, false
	}
	tree, err := parse(lang, src)
	if err != nil {
		return nil, false
	}
	defer tree.Close()
	root := tree.RootNode()
	t := newText(src)
	in = make([]bool, len(offsets))
	for i, off := range offsets {
		p := sitter.Point{Row: uint32(t.line(off) - 1), Column: uint32(t.column(off))}
		n := root.NamedDescendantForPointRange(p, sitter.Point{Row: p.Row, Column: p.Column + 1})
		for ; n != nil; n = n.Parent() {
			if t := n.Type(); kind(t) {
				in[i] = true
				break
			} else if interpolation(t) {
				break
			}
		}
	}
	return in, true
}

// textNode reports a node type whose bytes are text: comments and string,
// character and rune literals in the grammars of grammars.go.
func textNode(t string) bool {
	for _, k := range []string{"comment", "string", "char", "rune", "heredoc"} {
		if strings.Contains(t, k) {
			return true
		}
	}
	return false
}

// interpolation reports a node type that puts syntax inside a string.
func interpolation(t string) bool {
	return strings.Contains(t, "interpolation") || strings.Contains(t, "substitution")
}

// ErrorBytes measures how badly src (in language lang) parses: the bytes
// under ERROR nodes (outermost) plus one per MISSING node; ok is false
// when lang has no grammar. Two readings of a text compare by it: the one
// with fewer is the one the language takes.
func ErrorBytes(lang string, src []byte) (n int, ok bool) {
	if grammarFor(lang) == nil {
		return 0, false
	}
	tree, err := parse(lang, src)
	if err != nil {
		return 0, false
	}
	defer tree.Close()
	var walk func(nd *sitter.Node)
	walk = func(nd *sitter.Node) {
		switch {
		case nd.IsError():
			n += int(nd.EndByte() - nd.StartByte())
			return
		case nd.IsMissing():
			n++
			return
		case !nd.HasError():
			return
		}
		for i := range int(nd.ChildCount()) {
			if c := nd.Child(i); c != nil {
				walk(c)
			}
		}
	}
	walk(tree.RootNode())
	return n, true
}
