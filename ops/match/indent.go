package match

import "strings"

// indenter translates the indentation of the caller's lines into the file's,
// learned from the pairs (caller's indentation, file's indentation) of the
// lines a tolerant match aligned. It answers only when the pairs agree on a
// rule; otherwise the line is refused rather than indented by a guess.
type indenter struct {
	seen     map[string]string // caller indentation → file indentation, when every pair agreed
	conflict map[string]bool   // caller indentations seen with two file indentations
	identity bool              // every pair was equal
	add, del string            // uniform offset: file = add+caller, or caller = del+file
	offsetOK bool
	su, fu   int  // indentation units (columns; tabs count 1 when the side uses tabs only)
	sTab     bool // the caller indents with tabs
	fTab     bool // the file indents with tabs
	k        int  // file level = caller level + k
	levelOK  bool
}

// newIndenter learns from pairs of (caller, file) indentation strings of
// aligned non-blank lines. callerAll lists every indentation the caller used
// (search and replacement), fileStyle the indentation of the file's lines
// around the match (for the unit when the pairs show one level only).
func newIndenter(pairs [][2]string, callerAll, fileStyle []string) *indenter {
	in := &indenter{seen: map[string]string{}, conflict: map[string]bool{}, identity: true, offsetOK: true}
	first := true
	for _, p := range pairs {
		s, f := p[0], p[1]
		if v, ok := in.seen[s]; ok && v != f {
			in.conflict[s] = true
		}
		in.seen[s] = f
		if s != f {
			in.identity = false
		}
		var add, del string
		switch {
		case strings.HasSuffix(f, s):
			add = f[:len(f)-len(s)]
		case strings.HasSuffix(s, f):
			del = s[:len(s)-len(f)]
		default:
			in.offsetOK = false
		}
		if first {
			in.add, in.del, first = add, del, false
		} else if add != in.add || del != in.del {
			in.offsetOK = false
		}
	}
	if len(pairs) == 0 {
		in.offsetOK = false
	}
	var ok1, ok2 bool
	in.su, in.sTab, ok1 = unitOf(callerAll)
	fIndents := make([]string, 0, len(pairs)+len(fileStyle))
	for _, p := range pairs {
		fIndents = append(fIndents, p[1])
	}
	in.fu, in.fTab, ok2 = unitOf(fIndents)
	if !ok2 || in.fu == 0 {
		in.fu, in.fTab, ok2 = unitOf(append(fIndents, fileStyle...))
	}
	if ok1 && ok2 && in.su > 0 && in.fu > 0 {
		if w, ok := oneWidth(pairs); ok && !in.fTab {
			// one width seen, the caller's several levels deep: those are
			// the file's levels too (two tabs for 8 spaces make 4 a tab,
			// and a third tab goes 4 deeper, not 8)
			if ls, ok := level(w[0], in.su, in.sTab); ok && ls > 1 && len(w[1])%ls == 0 {
				in.fu = len(w[1]) / ls
			}
		}
		in.levelOK = true
		kSet := false
		for _, p := range pairs {
			ls, ok := level(p[0], in.su, in.sTab)
			lf, ok2 := level(p[1], in.fu, in.fTab)
			if !ok || !ok2 {
				in.levelOK = false
				break
			}
			if !kSet {
				in.k, kSet = lf-ls, true
			} else if lf-ls != in.k {
				in.levelOK = false
				break
			}
		}
		if !kSet {
			in.levelOK = false
		}
	}
	return in
}

// translate returns the file's indentation for a caller's line indented by s.
func (in *indenter) translate(s string) (string, bool) {
	if f, ok := in.seen[s]; ok && !in.conflict[s] {
		return f, true
	}
	// an offset that would mix tabs and spaces in one indentation gives
	// way to the level rule when there is one (a tab-indented line and the
	// caller's spaces under it)
	mixed := func(w string) bool {
		return in.levelOK && strings.ContainsRune(w, ' ') && strings.ContainsRune(w, '\t')
	}
	switch {
	case in.identity && len(in.seen) > 0:
		return s, true
	case in.offsetOK && in.add != "" && !mixed(in.add+s):
		return in.add + s, true
	case in.offsetOK && in.del != "":
		if strings.HasPrefix(s, in.del) {
			return s[len(in.del):], true
		}
	}
	if !in.levelOK {
		return "", false
	}
	l, ok := level(s, in.su, in.sTab)
	if !ok || l+in.k < 0 {
		return "", false
	}
	if in.fTab {
		return strings.Repeat("\t", l+in.k), true
	}
	return strings.Repeat(" ", (l+in.k)*in.fu), true
}

// unitOf returns the indentation unit of a set of indentation strings: tabs
// (unit 1) when every non-empty one is tabs only, else the greatest common
// divisor of the widths when every one is spaces only. Mixed sets fail.
func unitOf(ws []string) (unit int, tabs, ok bool) {
	sawTab, sawSpace := false, false
	g := 0
	for _, w := range ws {
		if w == "" {
			continue
		}
		t := strings.Count(w, "\t")
		switch {
		case t == len(w):
			sawTab = true
		case t == 0:
			sawSpace = true
			g = gcd(g, len(w))
		default:
			return 0, false, false
		}
	}
	switch {
	case sawTab && sawSpace:
		return 0, false, false
	case sawTab:
		return 1, true, true
	case sawSpace:
		return g, false, true
	}
	return 0, false, true
}

// oneWidth returns the one (caller, file) pair of non-empty indentations
// every pair repeats, if they do.
func oneWidth(pairs [][2]string) ([2]string, bool) {
	var first [2]string
	for _, p := range pairs {
		switch {
		case p[1] == "":
			return first, false
		case first[1] == "":
			first = p
		case p != first:
			return first, false
		}
	}
	return first, first[1] != ""
}

// level is the indentation depth of w in units.
func level(w string, unit int, tabs bool) (int, bool) {
	if w == "" {
		return 0, true
	}
	if tabs {
		if strings.Count(w, "\t") != len(w) {
			return 0, false
		}
		return len(w), true
	}
	if strings.Count(w, " ") != len(w) || len(w)%unit != 0 {
		return 0, false
	}
	return len(w) / unit, true
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
