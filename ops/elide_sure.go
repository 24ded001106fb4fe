package ops

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Which old lines a marker keeps is fixed on each side by the line next to
// it. An unchanged line, or the text's start or end, says it exactly. A
// changed line does not by itself: one that resembles an old line may be
// that line's edit (the marker keeps what follows it) or a line added
// beside it (the marker keeps it too), and one that resembles nothing may
// be added or replace the first lines the marker would keep — each reading
// keeps other lines, and real edits take either. The rules below accept a
// changed neighbour only where the other readings cannot be meant, and the
// result's brackets must balance as the old text's do.

// sureEdit reports an edited line n (a key) that cannot stand beside the
// old line o it resembles, so it is o's edit, not a line added next to it:
// the same line realigned; both declare or assign the same name (`const
// res = …`, `def f(…):`, `o := …` for `var o T`; not `x = append(x, …)` or
// `n += 1`, which repeat), give the same key (`"port": …`, a table row's
// first cell), or both return (a second return after the first is dead
// code); or a near copy (most of a long line the same) of a line nobody
// adds beside its like (a statement, a comment's line, not a list's entry).
func sureEdit(o, n string, prose bool) bool {
	if o == n {
		return true
	}
	if strings.Join(strings.Fields(o), " ") == strings.Join(strings.Fields(n), " ") {
		return true // realigned: `NoMCP   bool` as `NoMCP        bool`
	}
	if a, b := lineTarget(o), lineTarget(n); a != "" && a == b {
		return true
	}
	if a, b := rowKey(o), rowKey(n); a != "" && a == b {
		return true
	}
	long := 24
	if prose {
		long = 30
	}
	return len(o) >= long && similarity(o, n) >= 0.8 && !listLike(o) && !listLike(n)
}

// listLike reports a line of a kind people add beside its like — an
// import, a case, an entry of a list, a map, a table or an enumeration, a
// block's header — so that a near copy of it may be new, not its edit.
func listLike(s string) bool {
	if strings.HasSuffix(s, ",") || strings.HasSuffix(s, ":") || strings.HasSuffix(s, ";") && strings.HasPrefix(s, "import") {
		return true
	}
	for _, p := range []string{"case ", "\"", "'", "`", "- ", "* ", "+ ", "|", "import ", "from ", "#include", "use ", "require", "<li", "<option", "<tr", "<td"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	i := strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' })
	return i > 0 && (strings.HasPrefix(s[i:], ". ") || strings.HasPrefix(s[i:], ") "))
}

// rowKey is a Markdown table row's first cell, "" if s is no row (or a
// rule row): two rows of one key do not stand together.
func rowKey(s string) string {
	if !strings.HasPrefix(s, "|") {
		return ""
	}
	cells := strings.SplitN(s[1:], "|", 2)
	if len(cells) < 2 {
		return ""
	}
	k := strings.TrimSpace(cells[0])
	if strings.Trim(k, "-: ") == "" {
		return ""
	}
	return k
}

// similarity is the share of the longer of a and b that their common
// start and end cover: a line of prose edited in a word or two is close to
// 1, and nobody adds such a near copy beside its original (short lines,
// `<p>x</p>` and `<p>y</p>`, are no prose of that kind).
func similarity(a, b string) float64 {
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	return float64(p+s) / float64(max(len(a), len(b), 1))
}

var (
	// a declaration: modifiers, a declaring keyword, an optional receiver
	// or pointer, the name
	declRE = regexp.MustCompile(`^(?:(?:export|default|pub(?:\([^)]*\))?|async|static|public|private|protected|internal|final|override|abstract|readonly|inline|extern|unsafe|local|open|sealed|data)\s+)*` +
		`(?:func|function\*?|def|fn|class|struct|enum|interface|trait|type|const|let|var|val|mod|module|macro_rules!|sub|proc|record|object)\s+(?:\([^)]*\)\s*)?[*&]?([A-Za-z_$][\w$]*)`)
	// an assignment's left side: names (with fields, indexes, types before
	// them) and the operator, not a comparison
	assignRE = regexp.MustCompile(`^([\w$.\[\]*&<>, ]+?)\s*(?::\s*[^=:]+?)?\s*(?::=|[-+*/%&|^]?=)(?:[^=>]|$)`)
	// a key of a mapping: JSON, YAML, an object literal, a CSS property
	keyRE = regexp.MustCompile(`^["']?([\w.$-]+)["']?\s*:(?:\s|$)`)
	// a statement that leaves: what follows it in its block never runs
	leaveRE = regexp.MustCompile(`^(return|raise|throw)\b`)
)

// lineTarget is what a line declares, assigns or leaves by, "" if none.
func lineTarget(s string) string {
	if m := declRE.FindStringSubmatch(s); m != nil {
		return "name " + m[1]
	}
	if m := assignRE.FindStringSubmatch(s); m != nil && !selfAssign(s, m) {
		lhs := strings.Fields(strings.NewReplacer(",", " , ").Replace(m[1]))
		if len(lhs) > 0 && !strings.HasPrefix(m[1], "&") {
			for len(lhs) > 1 && declWords[lhs[0]] {
				lhs = lhs[1:]
			}
			if len(lhs) == 1 {
				return "name " + lhs[0]
			}
			return "names " + strings.Join(lhs, " ")
		}
	}
	if m := keyRE.FindStringSubmatch(s); m != nil && !blockWords[m[1]] {
		return "key " + m[1]
	}
	if m := leaveRE.FindStringSubmatch(s); m != nil {
		return "leave " + m[1]
	}
	return ""
}

// selfAssign reports an assignment that builds on its target (an
// operator assignment, or a right side naming the target: `x = append(x,
// …)`), which lines in a row do.
func selfAssign(s string, m []string) bool {
	op := strings.TrimSpace(s[len(m[1]):len(m[0])])
	if !strings.HasSuffix(op, ":=") && !strings.HasPrefix(strings.TrimLeft(op, ": "), "=") {
		return true
	}
	rhs := s[len(m[0])-1:]
	for _, name := range strings.FieldsFunc(m[1], func(r rune) bool { return r == ',' || r == ' ' }) {
		if name != "" && !declWords[name] && namesWord(rhs, name) {
			return true
		}
	}
	return false
}

// namesWord reports name standing in s as a word of its own (not inside a
// longer name, nor as a field after a dot).
func namesWord(s, name string) bool {
	word := func(c byte) bool {
		return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	for i := 0; ; {
		j := strings.Index(s[i:], name)
		if j < 0 {
			return false
		}
		a, b := i+j, i+j+len(name)
		if (a == 0 || !word(s[a-1]) && s[a-1] != '.') && (b == len(s) || !word(s[b])) {
			return true
		}
		i = a + 1
	}
}

// declWords open a declaration before the names it assigns.
var declWords = map[string]bool{"const": true, "let": true, "var": true, "val": true, "local": true, "my": true, "our": true, "export": true, "static": true, "final": true, "readonly": true, "auto": true}

// blockWords end a line with a colon and are no key.
var blockWords = map[string]bool{"case": true, "default": true, "else": true, "try": true, "finally": true, "except": true, "do": true, "public": true, "private": true, "protected": true}

// sideOf describes the line next to group g on one side for the checks of
// sure: the new line (-1: the text's edge), whether it was added (it
// edits no old line), and the old line it edits otherwise.
type sideOf struct {
	n, old int
	added  bool
}

// sure refuses a group whose neighbour on either side leaves which old
// lines it keeps to a reading: an added line next to a marker (it may be
// added beside the lines the marker keeps or replace the first of them —
// also where the marker would keep one line: the line may then be a copy
// the diff paired elsewhere), or an edited line that may as well be added
// beside the old line it resembles. An edited line between two markers is
// what divides them, so it is read as the edit.
func (e *expander) sure(g group, sides [2]sideOf) error {
	for i, s := range sides {
		where, kin := "before", "first"
		if i == 1 {
			where, kin = "after", "last"
		}
		switch {
		case s.n < 0:
		case s.added:
			return e.refuse(g.mark, fmt.Sprintf("line %d of the new text (%q), right %s it, is a new line: it may be added %s the lines the marker keeps or replace the %s of them, and the two readings keep different lines",
				s.n+1, e.nkeys[s.n], where, where, kin))
		case e.sureLine(s) || e.betweenMarkers(s.n):
		default:
			return e.refuse(g.mark, fmt.Sprintf("line %d of the new text (%q), right %s it, may be an edit of line %d of the old text (%q) or a line added beside it, and the two readings keep different lines",
				s.n+1, e.nkeys[s.n], where, s.old+1, e.okeys[s.old]))
		}
	}
	return nil
}

// moved refuses a group that would keep an old line the new text also
// holds as a line of its own, added elsewhere (a line moved: `"regexp"`
// put before `"strconv"`, the marker after them): the text would hold it
// twice. Only lines old holds once count (a "}" may well stand twice).
func (e *expander) moved(g group) error {
	for k := g.from; k < g.to; k++ {
		key := e.okeys[k]
		if key == "" || e.inOld[key].n != 1 {
			continue
		}
		for n, nk := range e.nkeys {
			if nk == key && e.newOld[n] < 0 && !e.marker[n] {
				return e.refuse(g.mark, fmt.Sprintf("it would keep line %d of the old text (%q), which line %d of the new text adds too: the line moved, and the text would hold it twice", k+1, key, n+1))
			}
		}
	}
	return nil
}

// sureLine reports a side that fixes where the old lines next to it are:
// the text's edge, an unchanged line, or a sure edit at the old line's
// indentation (a line of another depth is another statement).
func (e *expander) sureLine(s sideOf) bool {
	switch {
	case s.n < 0:
		return true
	case s.added || s.old < 0:
		return false
	case e.okeys[s.old] == e.nkeys[s.n]:
		return true
	}
	return leading(e.olds[s.old]) == leading(e.lines[s.n]) && sureEdit(e.okeys[s.old], e.nkeys[s.n], e.prose)
}

// leading is a line's indentation.
func leading(l string) string { return l[:len(l)-len(strings.TrimLeft(l, " \t"))] }

// uniqueInNew refuses an unchanged anchor at new line j whose line, with
// its indentation, the new text holds elsewhere, unless the lines from j
// away from the marker (dir -1: backwards) tell the copies apart: the diff
// may pair either copy with the old line, and the marker would stand for
// other lines.
func (e *expander) uniqueInNew(j, dir, gi int) error {
	text := func(p int) string { return strings.TrimRight(e.lines[e.fn[p]], "\r\n") }
	jf, _ := slices.BinarySearch(e.fn, j)
	var cands []int
	for p, n := range e.fn {
		if p != jf && !e.marker[n] && text(p) == text(jf) {
			cands = append(cands, p)
		}
	}
	for m := 1; len(cands) > 0; m++ {
		a := jf + m*dir
		if a < 0 || a >= len(e.fn) || e.marker[e.fn[a]] {
			break
		}
		keep := cands[:0]
		for _, p := range cands {
			if b := p + m*dir; b >= 0 && b < len(e.fn) && !e.marker[e.fn[b]] && text(b) == text(a) {
				keep = append(keep, p)
			}
		}
		cands = keep
	}
	if len(cands) > 0 {
		return e.refuse(gi, fmt.Sprintf("the line next to it (%q, line %d of the new text) stands %d times in the new text, and so do the lines around it, so which of them is the old text's line is not known",
			e.nkeys[j], j+1, len(cands)+1))
	}
	return nil
}

// betweenMarkers reports a new line whose nearest non-blank lines on both
// sides are markers.
func (e *expander) betweenMarkers(n int) bool {
	p, q := e.prevLine(n), e.nextLine(n+1)
	return p >= 0 && q >= 0 && e.marker[p] && e.marker[q]
}

// balanced refuses an expansion whose text opens or closes brackets the
// old text does not (its own added lines' brackets balancing those of the
// old lines they replace, as a change within a block does): a marker that
// kept other lines than meant leaves a block open or closes one twice.
// Prose is not checked.
func (e *expander) balanced(out, path string, gs []group) error {
	if kindOf(path) == kindProse || len(gs) == 0 {
		return nil
	}
	hash := kindOf(path) == kindPython || kindOf(path) == kindYAML || strings.HasSuffix(path, ".sh") || strings.HasSuffix(path, ".rb") || strings.HasSuffix(path, ".pl")
	a, b := bracketDepths(strings.Join(e.olds, ""), hash), bracketDepths(out, hash)
	if a == b {
		return nil
	}
	return e.refuse(gs[0].mark, fmt.Sprintf("with the lines it would keep the text's brackets do not balance as the old text's do (%s against %s), so it would keep other lines than meant", depthString(b), depthString(a)))
}

// bracketDepths is the net depth of (), [] and {} over s's lines, outside
// strings and line comments (// always, # where hash).
func bracketDepths(s string, hash bool) [3]int {
	var d [3]int
	for _, l := range strings.Split(s, "\n") {
		var quote byte
		for i := 0; i < len(l); i++ {
			c := l[i]
			if quote != 0 {
				switch c {
				case '\\':
					i++
				case quote:
					quote = 0
				}
				continue
			}
			switch c {
			case '"', '\'', '`':
				quote = c
			case '/':
				if i+1 < len(l) && l[i+1] == '/' {
					i = len(l)
				}
			case '#':
				if hash {
					i = len(l)
				}
			case '(':
				d[0]++
			case ')':
				d[0]--
			case '[':
				d[1]++
			case ']':
				d[1]--
			case '{':
				d[2]++
			case '}':
				d[2]--
			}
		}
	}
	return d
}

func depthString(d [3]int) string {
	return fmt.Sprintf("( %+d, [ %+d, { %+d", d[0], d[1], d[2])
}
