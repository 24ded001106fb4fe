package syntax

import (
	"context"
	"fmt"
	"sort"
	"sync"

	sitter "github.com/smacker/go-tree-sitter"
)

// grammar is a lazily built language with a pool of parsers. Tree-sitter
// parsers are not safe for concurrent use, so each parse takes one from the
// pool and puts it back; parsers dropped by the pool are freed by the
// finalizer go-tree-sitter sets.
type grammar struct {
	once sync.Once
	lang *sitter.Language
	pool sync.Pool
}

var (
	poolsMu sync.Mutex // guards pools
	pools   = map[string]*grammar{}
)

// grammarFor returns the grammar of lang, or nil when lang has none.
func grammarFor(lang string) *grammar {
	ctor, ok := grammars[lang]
	if !ok {
		return nil
	}
	poolsMu.Lock()
	g, ok := pools[lang]
	if !ok {
		g = &grammar{}
		pools[lang] = g
	}
	poolsMu.Unlock()
	g.once.Do(func() {
		g.lang = ctor()
		g.pool.New = func() any {
			p := sitter.NewParser()
			p.SetLanguage(g.lang)
			return p
		}
	})
	return g
}

// parse parses src once with a pooled parser. The caller must Close the tree.
func parse(lang string, src []byte) (*sitter.Tree, error) {
	g := grammarFor(lang)
	if g == nil {
		return nil, fmt.Errorf("syntax: no grammar for %q", lang)
	}
	p := g.pool.Get().(*sitter.Parser)
	tree, err := p.ParseCtx(context.Background(), nil, src)
	if err != nil {
		p.Reset()
		return nil, fmt.Errorf("syntax: parse %s: %w", lang, err)
	}
	g.pool.Put(p)
	if tree == nil {
		return nil, fmt.Errorf("syntax: parse %s: no tree", lang)
	}
	return tree, nil
}

// text is a source with its line index: byte offsets → 1-based lines.
type text struct {
	src    []byte
	starts []int // byte offset of the start of each line
}

func newText(src []byte) *text {
	starts := make([]int, 1, 64)
	for i, b := range src {
		if b == '\n' {
			starts = append(starts, i+1)
		}
	}
	return &text{src: src, starts: starts}
}

// lines is the number of lines (a final newline does not start a new line).
func (t *text) lines() int {
	n := len(t.starts)
	if n > 1 && t.starts[n-1] == len(t.src) {
		n--
	}
	if len(t.src) == 0 {
		return 0
	}
	return n
}

// line returns the 1-based line of byte offset off.
func (t *text) line(off int) int {
	return sort.Search(len(t.starts), func(i int) bool { return t.starts[i] > off })
}

// column returns the 0-based byte column of offset off.
func (t *text) column(off int) int {
	return off - t.starts[t.line(off)-1]
}

func isSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\r' || b == '\n' || b == '\f' || b == '\v'
}

// span trims surrounding whitespace from [start,end) (some grammars, Lua's and
// TOML's among them, let nodes begin or end in blank space) and returns it as a Span.
func (t *text) span(start, end int) Span {
	if end > len(t.src) {
		end = len(t.src)
	}
	for start < end && isSpace(t.src[start]) {
		start++
	}
	for end > start && isSpace(t.src[end-1]) {
		end--
	}
	last := end - 1
	if last < start {
		last = start
	}
	return Span{StartLine: t.line(start), EndLine: t.line(last), StartByte: start, EndByte: end}
}

// nodeSpan is span over a node's byte range.
func (t *text) nodeSpan(n *sitter.Node) Span {
	return t.span(int(n.StartByte()), int(n.EndByte()))
}
