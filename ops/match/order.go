package match

import (
	"fmt"
	"strings"
)

// inOrder makes a batch whose change i searches for text only change j
// (j < i) creates: the changes are made one after the other, each resolved
// against the content the ones before it left, as the agent wrote them.
// Every change must resolve at its turn as it would alone (unique, or its
// occurrence or replace_all); otherwise ok is false and the batch is
// refused as before, naming the change to split out. The result is one
// edit of the original content: the lines between the first and the last
// byte the changes altered, replaced by what the changes made of them
// (Splice and the diff take it as any other edit), its note naming the
// order.
func inOrder(content string, changes []Change, j, i int) ([]Edit, bool) {
	cur := content
	level := LevelExact
	for k, c := range changes {
		es, err := resolve(cur, indexLines(cur), c, k)
		if err != nil {
			return nil, false
		}
		var b strings.Builder
		prev := 0
		for _, e := range es {
			if e.Match.Start < prev {
				return nil, false
			}
			b.WriteString(cur[prev:e.Match.Start])
			b.WriteString(e.Replacement)
			prev = e.Match.End
			if e.Match.Level != LevelExact && !e.AlreadyApplied {
				level = e.Match.Level
			}
		}
		b.WriteString(cur[prev:])
		cur = b.String()
	}
	if cur == content {
		return nil, false
	}
	p := len(commonPrefix(content, cur))
	q := 0
	for q < len(content)-p && q < len(cur)-p && content[len(content)-1-q] == cur[len(cur)-1-q] {
		q++
	}
	// whole lines: from the start of the first changed line to the end of
	// the last
	start := strings.LastIndexByte(content[:p], '\n') + 1
	end := len(content) - q
	if k := strings.IndexByte(content[end:], '\n'); k >= 0 {
		end += k + 1
	} else {
		end = len(content)
	}
	tail := len(content) - end
	li := indexLines(content)
	m := Match{Start: start, End: end, Level: level, Similarity: 1, Matched: content[start:end],
		Note: fmt.Sprintf("all %d changes made in order, as one edit: change %d searched for text change %d writes, so each change was matched in the file as the changes before it left it (each unique at its turn)", len(changes), i, j)}
	m.Line, m.EndLine = li.span(start, end)
	e := Edit{Applied: Applied{Change: 0, Match: m}, Replacement: cur[start : len(cur)-tail]}
	e.NewStart, e.NewEnd = start, start+len(e.Replacement)
	e.NewLine = m.Line
	e.NewEndLine = m.Line
	if r := e.Replacement; r != "" {
		e.NewEndLine += strings.Count(r[:len(r)-1], "\n")
	}
	return []Edit{e}, true
}
