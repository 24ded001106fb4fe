package setup

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// A settings file is edited as a tree that keeps the user's bytes: every
// value remembers the text it was read from, and only the objects and
// arrays init changes are printed again (in the file's own indentation);
// everything else — the user's hooks, permissions, key order, number
// spellings, string escapes — is written back as it was read.

// node is one JSON value.
type node struct {
	kind  byte   // '{', '[' or 0 for a scalar
	raw   []byte // the text it was read from (nil: made by init)
	dirty bool   // changed since it was read: printed again
	keys  []string
	vals  []*node // object members (in order, with keys) or array elements
}

// doc is a parsed file: its root and the text around it.
type doc struct {
	lead, trail []byte
	root        *node
	indent      string // one level, as the file indents ("  " by default)
}

// ErrNotJSON: a settings file that is not plain JSON (comments, trailing
// commas): init does not edit it.
var ErrNotJSON = errors.New("setup: not plain JSON")

func parseDoc(b []byte) (*doc, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return &doc{root: newObject(), indent: "  ", trail: []byte("\n")}, nil
	}
	if !json.Valid(b) {
		return nil, ErrNotJSON
	}
	p := &parser{b: b}
	p.ws()
	d := &doc{lead: b[:p.i]}
	root, err := p.value()
	if err != nil {
		return nil, err
	}
	d.root, d.trail = root, b[p.i:]
	d.indent = detectIndent(b)
	return d, nil
}

// detectIndent is the whitespace before the first indented line.
func detectIndent(b []byte) string {
	for _, l := range strings.Split(string(b), "\n")[1:] {
		t := strings.TrimLeft(l, " \t")
		if t != "" && len(t) < len(l) {
			return l[:len(l)-len(t)]
		}
	}
	return "  "
}

type parser struct {
	b []byte
	i int
}

func (p *parser) ws() {
	for p.i < len(p.b) && strings.IndexByte(" \t\r\n", p.b[p.i]) >= 0 {
		p.i++
	}
}

// value reads one value at p.i (the text is valid JSON: json.Valid said so).
func (p *parser) value() (*node, error) {
	start := p.i
	n := &node{}
	switch c := p.b[p.i]; c {
	case '{', '[':
		n.kind = c
		p.i++
		p.ws()
		end := byte('}')
		if c == '[' {
			end = ']'
		}
		for p.b[p.i] != end {
			if c == '{' {
				k, err := p.str()
				if err != nil {
					return nil, err
				}
				p.ws()
				p.i++ // ':'
				p.ws()
				n.keys = append(n.keys, k)
			}
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			n.vals = append(n.vals, v)
			p.ws()
			if p.b[p.i] == ',' {
				p.i++
				p.ws()
			}
		}
		p.i++
	case '"':
		if _, err := p.str(); err != nil {
			return nil, err
		}
	default:
		for p.i < len(p.b) && strings.IndexByte(",]} \t\r\n", p.b[p.i]) < 0 {
			p.i++
		}
	}
	n.raw = p.b[start:p.i]
	return n, nil
}

// str reads a string's token and returns its value.
func (p *parser) str() (string, error) {
	start := p.i
	p.i++
	for p.b[p.i] != '"' {
		if p.b[p.i] == '\\' {
			p.i++
		}
		p.i++
	}
	p.i++
	var s string
	err := json.Unmarshal(p.b[start:p.i], &s)
	return s, err
}

func newObject() *node { return &node{kind: '{', dirty: true} }
func newArray() *node  { return &node{kind: '[', dirty: true} }

// scalar is a value made by init from v (a string, number or bool).
func scalar(v any) *node {
	b, _ := marshalPlain(v)
	return &node{raw: b}
}

func marshalPlain(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	return bytes.TrimSpace(buf.Bytes()), err
}

// fromValue builds a tree (dirty, to be printed) from ordered pairs: an
// obj, a []any, or a scalar.
func fromValue(v any) *node {
	switch x := v.(type) {
	case obj:
		n := newObject()
		for i := 0; i < len(x); i += 2 {
			n.keys = append(n.keys, x[i].(string))
			n.vals = append(n.vals, fromValue(x[i+1]))
		}
		return n
	case []any:
		n := newArray()
		for _, e := range x {
			n.vals = append(n.vals, fromValue(e))
		}
		return n
	}
	return scalar(v)
}

// obj is an object as ordered key, value pairs.
type obj []any

// get returns the member k of object n.
func (n *node) get(k string) *node {
	if n == nil || n.kind != '{' {
		return nil
	}
	for i, key := range n.keys {
		if key == k {
			return n.vals[i]
		}
	}
	return nil
}

// set adds or replaces member k (appended last when new).
func (n *node) set(k string, v *node) {
	n.dirty = true
	for i, key := range n.keys {
		if key == k {
			n.vals[i] = v
			return
		}
	}
	n.keys = append(n.keys, k)
	n.vals = append(n.vals, v)
}

// del removes member k; it reports whether there was one.
func (n *node) del(k string) bool {
	for i, key := range n.keys {
		if key == k {
			n.keys = append(n.keys[:i:i], n.keys[i+1:]...)
			n.vals = append(n.vals[:i:i], n.vals[i+1:]...)
			n.dirty = true
			return true
		}
	}
	return false
}

func (n *node) push(v *node) {
	n.dirty = true
	n.vals = append(n.vals, v)
}

// str is a scalar string's value ("" for anything else).
func (n *node) str() string {
	var s string
	if n != nil && n.kind == 0 {
		json.Unmarshal(n.raw, &s)
	}
	return s
}

// child returns member k of object n, made (an empty object or array, by
// kind) when missing; made reports that.
func (n *node) child(k string, kind byte) (c *node, made bool, err error) {
	if c = n.get(k); c != nil {
		if c.kind != kind {
			return nil, false, fmt.Errorf("%q is not an %s", k, map[byte]string{'{': "object", '[': "array"}[kind])
		}
		return c, false, nil
	}
	c = newObject()
	if kind == '[' {
		c = newArray()
	}
	n.set(k, c)
	return c, true, nil
}

// bytes prints d.
func (d *doc) bytes() []byte {
	var b bytes.Buffer
	b.Write(d.lead)
	d.print(&b, d.root, 0)
	b.Write(d.trail)
	return b.Bytes()
}

// changed reports whether n or a value under it changed since read.
func (n *node) changed() bool {
	if n.dirty || n.raw == nil {
		return true
	}
	for _, v := range n.vals {
		if v.changed() {
			return true
		}
	}
	return false
}

func (d *doc) print(b *bytes.Buffer, n *node, depth int) {
	if !n.changed() {
		b.Write(n.raw)
		return
	}
	if n.kind == 0 {
		b.Write(n.raw)
		return
	}
	open, close := byte('{'), byte('}')
	if n.kind == '[' {
		open, close = '[', ']'
	}
	b.WriteByte(open)
	if len(n.vals) == 0 {
		b.WriteByte(close)
		return
	}
	in := strings.Repeat(d.indent, depth+1)
	for i, v := range n.vals {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
		b.WriteString(in)
		if n.kind == '{' {
			k, _ := marshalPlain(n.keys[i])
			b.Write(k)
			b.WriteString(": ")
		}
		d.print(b, v, depth+1)
	}
	b.WriteByte('\n')
	b.WriteString(strings.Repeat(d.indent, depth))
	b.WriteByte(close)
}
