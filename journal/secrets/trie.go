package secrets

// trie finds which of the rules' keywords a text holds, in any ASCII case,
// in one pass: an Aho-Corasick automaton made a full DFA over the classes
// of bytes the keywords use (every other byte is one class). gitleaks runs
// a rule only on text holding one of its keywords; this is that prefilter.
type trie struct {
	class   [256]uint8
	classes int
	next    []int32 // state*classes + class → the next state's offset (see newTrie)
	out     [][]int // state → keywords ending there (through fail links too)
}

// newTrie builds the automaton over lower-case keywords.
func newTrie(keywords []string) *trie {
	t := &trie{classes: 1} // class 0: a byte no keyword has
	for _, k := range keywords {
		for i := 0; i < len(k); i++ {
			c := k[i]
			if t.class[c] == 0 {
				t.class[c] = uint8(t.classes)
				t.classes++
			}
		}
	}
	for c := 'A'; c <= 'Z'; c++ { // fold ASCII upper case onto lower
		t.class[c] = t.class[c+'a'-'A']
	}
	// the goto function as a tree
	type node struct {
		child map[uint8]int32
		out   []int
	}
	nodes := []node{{child: map[uint8]int32{}}}
	for ki, k := range keywords {
		s := int32(0)
		for i := 0; i < len(k); i++ {
			c := t.class[k[i]]
			n, ok := nodes[s].child[c]
			if !ok {
				n = int32(len(nodes))
				nodes = append(nodes, node{child: map[uint8]int32{}})
				nodes[s].child[c] = n
			}
			s = n
		}
		nodes[s].out = append(nodes[s].out, ki)
	}
	n := len(nodes)
	t.next = make([]int32, n*t.classes)
	t.out = make([][]int, n)
	fail := make([]int32, n)
	// breadth first: a state's fail state is shallower, so complete already
	queue := []int32{0}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		t.out[s] = append(t.out[s], nodes[s].out...)
		if s != 0 {
			t.out[s] = append(t.out[s], t.out[fail[s]]...)
		}
		for c := 0; c < t.classes; c++ {
			child, ok := nodes[s].child[uint8(c)]
			switch {
			case ok:
				if s != 0 {
					fail[child] = t.next[int(fail[s])*t.classes+c]
				}
				t.next[int(s)*t.classes+c] = child
				queue = append(queue, child)
			case s != 0:
				t.next[int(s)*t.classes+c] = t.next[int(fail[s])*t.classes+c]
			}
		}
	}
	// the hot loop's form: an entry is the target state's offset in next
	// (state × classes), complemented when the state has keywords ending
	for i, v := range t.next {
		off := v * int32(t.classes)
		if len(t.out[v]) > 0 {
			off = ^off
		}
		t.next[i] = off
	}
	return t
}

// hits calls fn with the end offset of each keyword occurrence in b and the
// keyword's index.
func (t *trie) hits(b []byte, fn func(end, k int)) {
	next, class := t.next, &t.class
	off := int32(0)
	for i, c := range b {
		off = next[off+int32(class[c])]
		if off < 0 {
			off = ^off
			for _, k := range t.out[off/int32(t.classes)] {
				fn(i+1, k)
			}
		}
	}
}
