package syntax

import (
	"hash/fnv"
)

// Kind classifies a symbol. The set is open; these are the kinds the
// built-in rules produce.
type Kind string

// Symbol kinds.
const (
	KindFunction  Kind = "function"
	KindMethod    Kind = "method"
	KindClass     Kind = "class"
	KindStruct    Kind = "struct"
	KindInterface Kind = "interface"
	KindTrait     Kind = "trait"
	KindImpl      Kind = "impl"
	KindEnum      Kind = "enum"
	KindType      Kind = "type"
	KindConst     Kind = "const"
	KindVar       Kind = "var"
	KindField     Kind = "field"
	KindProperty  Kind = "property"
	KindModule    Kind = "module"
	KindMacro     Kind = "macro"
	KindHeading   Kind = "heading"
	KindKey       Kind = "key"
	KindTable     Kind = "table"
	KindBlock     Kind = "block"
	KindRule      Kind = "rule"
	KindElement   Kind = "element"
	KindStage     Kind = "stage"
	KindForm      Kind = "form"
)

// Span is a region of a source: 1-based inclusive lines and a half-open byte range.
type Span struct {
	StartLine int `json:"start_line"`
	EndLine   int `json:"end_line"`
	StartByte int `json:"start_byte"`
	EndByte   int `json:"end_byte"`
}

// Contains reports whether line lies within the span.
func (s Span) Contains(line int) bool { return line >= s.StartLine && line <= s.EndLine }

// Symbol is one named declaration of an outline.
type Symbol struct {
	Name string `json:"name"`
	Kind Kind   `json:"kind"`
	// Path is the dotted path from the top of the file: "UserService.findById".
	Path string `json:"path"`
	// Receiver is the type a method is attached to outside that type's body
	// (Go receivers, C++ "Type::method", Lua "M.f"); "" otherwise.
	Receiver string `json:"receiver,omitempty"`
	// Range is the declaration itself.
	Range Span `json:"range"`
	// Full is Range extended upwards over the decorators, attributes,
	// annotations and doc comments directly above the declaration. An edit
	// that replaces Full replaces them too; one that replaces Range keeps them.
	Full     Span     `json:"full_range"`
	Children []Symbol `json:"children,omitempty"`
	// Sum fingerprints the symbol's own text: Full without the text of its
	// children, carriage returns ignored. DiffSymbols uses it to tell a body
	// change from no change, so editing a method does not change its class.
	Sum uint64 `json:"-"`
}

// FileOutline is the symbol tree of one source, as returned by Outline.
type FileOutline struct {
	// Language is the detected language, "" when unknown.
	Language string `json:"language"`
	// Supported is false when the language has no outliner; Symbols is then
	// empty and callers should fall back to line ranges.
	Supported bool     `json:"supported"`
	Lines     int      `json:"lines"`
	Symbols   []Symbol `json:"symbols"`
	// HasErrors reports that the parser recovered from syntax errors; the
	// outline is best effort (see SyntaxErrors).
	HasErrors bool `json:"has_errors,omitempty"`
}

// Outline parses src once and returns its hierarchical symbols. The language
// comes from Detect(name, src). An unknown language is not an error: the
// result has Supported false.
func Outline(name string, src []byte) (*FileOutline, error) {
	lang := Detect(name, src)
	t := newText(src)
	o := &FileOutline{Language: lang, Lines: t.lines()}
	switch {
	case lang == "json":
		o.Supported = true
		o.Symbols, o.HasErrors = outlineJSON(t)
	case lang == "markdown":
		o.Supported = true
		o.Symbols = outlineMarkdown(t)
	case grammars[lang] != nil:
		tree, err := parse(lang, src)
		if err != nil {
			return nil, err
		}
		defer tree.Close()
		root := tree.RootNode()
		o.Supported = true
		o.HasErrors = root.HasError()
		if lang == "clojure" {
			o.Symbols = outlineClojure(t, root)
		} else {
			w := &walker{t: t, lr: rules[lang]}
			o.Symbols = w.children(root, nil)
		}
	default:
		return o, nil
	}
	finish(o.Symbols, "", t)
	return o, nil
}

// finish fills Path and Sum bottom-up.
func finish(syms []Symbol, prefix string, t *text) {
	for i := range syms {
		s := &syms[i]
		s.Path = s.Name
		if s.Receiver != "" {
			s.Path = s.Receiver + "." + s.Name
		}
		if prefix != "" {
			s.Path = prefix + "." + s.Path
		}
		if s.Full == (Span{}) {
			s.Full = s.Range
		}
		finish(s.Children, s.Path, t)
		s.Sum = ownSum(s, t.src)
	}
}

// ownSum hashes src[s.Full] minus the Full ranges of s's children.
func ownSum(s *Symbol, src []byte) uint64 {
	h := fnv.New64a()
	write := func(from, to int) {
		for _, b := range src[from:to] {
			if b != '\r' {
				h.Write([]byte{b})
			}
		}
	}
	pos := s.Full.StartByte
	for _, c := range s.Children {
		if c.Full.StartByte >= pos && c.Full.EndByte <= s.Full.EndByte {
			write(pos, c.Full.StartByte)
			h.Write([]byte{0})
			pos = c.Full.EndByte
		}
	}
	write(pos, s.Full.EndByte)
	return h.Sum64()
}
