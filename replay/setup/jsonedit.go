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
// arrays init changes are printed again; everything else — the user's
// hooks, permissions, key order, number spellings, string escapes — is
// written back as it was read.
//
// A file may be JSON with comments (JSONC: Gemini CLI's settings.json,
// VS Code's and Cursor's files): // and /* */ comments and trailing commas
// are read as the space between values. An object or array printed again
// keeps the text around each of its members as read — the comments before
// a member, between its key and value, after it, and before the closing
// bracket — so a comment goes only with a member taken out (init --undo
// taking out journal's own). A member init adds goes last, on a line of its
// own in the file's indentation; the comma after a member is written right
// after its value (never into a comment that follows it).

// node is one JSON value.
type node struct {
	kind  byte   // '{', '[' or 0 for a scalar
	raw   []byte // the text it was read from (nil: made by init)
	dirty bool   // changed since it was read: printed again
	keys  []string
	vals  []*node // object members (in order, with keys) or array elements

	// A member read from the file keeps the text around it in its
	// container (nil for one init made): pre before it (after the
	// container's opening bracket or the comma before), key its key as
	// written, sep between the key and the value, post after the value
	// up to its comma (for the last member, up to the space before the
	// closing bracket).
	pre, key, sep, post []byte
	// after is a comment after the member's comma on its line (with the
	// space before it): the member's, though the comma comes first.
	after []byte
	// A container read from the file: tail is the text before its
	// closing bracket (after its last member, or its comma); comma that a
	// comma followed its last member (JSONC).
	tail  []byte
	comma bool
}

// doc is a parsed file: its root and the text around it.
type doc struct {
	lead, trail []byte
	root        *node
	indent      string // one level, as the file indents ("  " by default)
}

// ErrNotJSON: a settings file that is neither JSON nor JSON with comments
// and trailing commas: init does not edit it.
var ErrNotJSON = errors.New("setup: not JSON (nor JSON with comments)")

func parseDoc(b []byte) (*doc, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return &doc{root: newObject(), indent: "  ", trail: []byte("\n")}, nil
	}
	if !json.Valid(plainJSON(b)) {
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

// plainJSON is b with its comments and trailing commas blanked (each byte
// a space, newlines kept): what json.Valid checks.
func plainJSON(b []byte) []byte {
	out := bytes.Clone(b)
	var prev byte // the last byte of JSON before i (comments and space aside)
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
		case c == '/':
			j := skipSpace(b, i)
			if j == i {
				return b // a lone '/', or an unclosed comment: not valid
			}
			for k := i; k < j; k++ {
				if out[k] != '\n' {
					out[k] = ' '
				}
			}
			i = j - 1
		case c == ',' && prev != '{' && prev != '[' && prev != ',' && prev != 0: // after a value
			if j := skipSpace(b, i+1); j < len(b) && (b[j] == '}' || b[j] == ']') {
				out[i] = ' '
			}
		}
		if c != '/' && strings.IndexByte(" \t\r\n", c) < 0 {
			prev = c
		}
	}
	return out
}

// skipSpace is where the whitespace and comments from i end (i itself
// when an unclosed comment starts there).
func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch {
		case strings.IndexByte(" \t\r\n", b[i]) >= 0:
			i++
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '/':
			for i < len(b) && b[i] != '\n' {
				i++
			}
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '*':
			k := bytes.Index(b[i+2:], []byte("*/"))
			if k < 0 {
				return i
			}
			i += 2 + k + 2
		default:
			return i
		}
	}
	return i
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

// ws skips whitespace and comments (the text is valid: plainJSON said so).
func (p *parser) ws() { p.i = skipSpace(p.b, p.i) }

// lineComment reads a // comment that follows at p.i on the same line,
// with the space before it (nil, nothing read, when none does).
func (p *parser) lineComment() []byte {
	q := p.i
	for q < len(p.b) && (p.b[q] == ' ' || p.b[q] == '\t') {
		q++
	}
	if !bytes.HasPrefix(p.b[q:], []byte("//")) {
		return nil
	}
	for q < len(p.b) && p.b[q] != '\n' {
		q++
	}
	c := p.b[p.i:q]
	p.i = q
	return c
}

// value reads one value at p.i, and for a container the text around each
// of its members.
func (p *parser) value() (*node, error) {
	start := p.i
	n := &node{}
	switch c := p.b[p.i]; c {
	case '{', '[':
		n.kind = c
		p.i++
		end := byte('}')
		if c == '[' {
			end = ']'
		}
		for {
			from := p.i
			p.ws()
			if p.b[p.i] == end { // no member, or a comma after the last
				n.tail, n.comma = p.b[from:p.i], len(n.vals) > 0
				break
			}
			pre := p.b[from:p.i]
			var key, sep []byte
			if c == '{' {
				ks := p.i
				k, err := p.str()
				if err != nil {
					return nil, err
				}
				key = p.b[ks:p.i]
				ss := p.i
				p.ws()
				p.i++ // ':'
				p.ws()
				sep = p.b[ss:p.i]
				n.keys = append(n.keys, k)
			}
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			v.pre, v.key, v.sep = pre, key, sep
			n.vals = append(n.vals, v)
			ps := p.i
			p.ws()
			if p.b[p.i] == ',' {
				v.post = p.b[ps:p.i]
				p.i++
				v.after = p.lineComment()
				continue
			}
			text := p.b[ps:p.i] // the last member: the closing bracket follows
			cut := len(bytes.TrimRight(text, " \t\r\n"))
			v.post, n.tail = text[:cut], text[cut:]
			break
		}
		p.i++
	case '"':
		if _, err := p.str(); err != nil {
			return nil, err
		}
	default:
		for p.i < len(p.b) && strings.IndexByte(",]} \t\r\n/", p.b[p.i]) < 0 {
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

// set adds or replaces member k (appended last when new; a replaced one's
// place and the text around it kept).
func (n *node) set(k string, v *node) {
	n.dirty = true
	for i, key := range n.keys {
		if key == k {
			old := n.vals[i]
			v.pre, v.key, v.sep, v.post, v.after = old.pre, old.key, old.sep, old.post, old.after
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
	if !n.changed() || n.kind == 0 {
		b.Write(n.raw)
		return
	}
	open, close := byte('{'), byte('}')
	if n.kind == '[' {
		open, close = '[', ']'
	}
	b.WriteByte(open)
	in := strings.Repeat(d.indent, depth+1)
	added := false
	for i, v := range n.vals {
		if v.pre != nil {
			b.Write(v.pre)
		} else {
			b.WriteString("\n" + in)
			added = true
		}
		if n.kind == '{' {
			if v.key != nil {
				b.Write(v.key)
				b.Write(v.sep)
			} else {
				k, _ := marshalPlain(n.keys[i])
				b.Write(k)
				b.WriteString(": ")
			}
		}
		d.print(b, v, depth+1)
		if i < len(n.vals)-1 || n.comma {
			b.WriteByte(',')
		}
		b.Write(v.post)
		b.Write(v.after)
	}
	tail := n.tail
	if n.raw == nil || added && !bytes.Contains(tail, []byte("\n")) {
		if len(n.vals) > 0 {
			b.WriteString("\n" + strings.Repeat(d.indent, depth))
		}
		tail = bytes.TrimLeft(tail, " \t")
	}
	b.Write(tail)
	b.WriteByte(close)
}
