package syntax

// Form is one top-level form or declaration of a source.
type Form struct {
	// Kind is the grammar's node type ("function_declaration", "list_lit"),
	// or for Clojure the head symbol ("defn", "comment").
	Kind string `json:"kind"`
	// Name is the declared name when there is one.
	Name string `json:"name,omitempty"`
	Span
	// InComment marks the forms of a Clojure rich comment "(comment ...)",
	// which count as top level.
	InComment bool `json:"in_comment,omitempty"`
}

// TopLevelForms returns the top-level forms of src in order, without
// comments. For Clojure the forms inside a top-level (comment ...) follow
// that form, marked InComment. For JSON and Markdown the forms are the
// top-level symbols. ok is false when the language is not supported.
func TopLevelForms(name string, src []byte) (forms []Form, ok bool, err error) {
	lang := Detect(name, src)
	if grammars[lang] == nil {
		o, err := Outline(name, src)
		if err != nil || !o.Supported {
			return nil, false, err
		}
		for _, s := range o.Symbols {
			forms = append(forms, Form{Kind: string(s.Kind), Name: s.Name, Span: s.Full})
		}
		return forms, true, nil
	}
	tree, err := parse(lang, src)
	if err != nil {
		return nil, false, err
	}
	defer tree.Close()
	t := newText(src)
	root := tree.RootNode()
	if lang == "clojure" {
		for _, n := range cljValues(root) {
			head, vals := cljHead(n, src)
			f := Form{Kind: head, Span: t.nodeSpan(n)}
			if f.Kind == "" {
				f.Kind = n.Type()
			}
			if len(vals) > 1 {
				f.Name = cljSymName(vals[1], src)
			}
			forms = append(forms, f)
			if head == "comment" {
				for _, c := range vals[1:] {
					ch, cv := cljHead(c, src)
					cf := Form{Kind: ch, Span: t.nodeSpan(c), InComment: true}
					if cf.Kind == "" {
						cf.Kind = c.Type()
					}
					if len(cv) > 1 {
						cf.Name = cljSymName(cv[1], src)
					}
					forms = append(forms, cf)
				}
			}
		}
		return forms, true, nil
	}
	w := &walker{t: t, lr: rules[lang]}
	count := int(root.NamedChildCount())
	for i := 0; i < count; i++ {
		c := root.NamedChild(i)
		if c == nil || isAttached(c.Type()) {
			continue
		}
		f := Form{Kind: c.Type(), Span: t.nodeSpan(c)}
		if f.Span.EndByte <= f.Span.StartByte {
			continue
		}
		if s, ok := w.symbol(c, nil); ok {
			f.Name = s.Name
		} else if syms := w.children(c, nil); len(syms) == 1 {
			f.Name = syms[0].Name
		}
		forms = append(forms, f)
	}
	return forms, true, nil
}

// FormAt returns the innermost form containing line (a form inside a rich
// comment wins over the comment form), or nil.
func FormAt(forms []Form, line int) *Form {
	var best *Form
	for i := range forms {
		f := &forms[i]
		if f.Contains(line) && (best == nil || f.StartByte >= best.StartByte && f.EndByte <= best.EndByte) {
			best = f
		}
	}
	return best
}
