package syntax

import (
	"fmt"
)

// IntentType is what an edit did to a symbol.
type IntentType string

// Intent types, as in seed 000's safety layer.
const (
	IntentRename     IntentType = "rename"
	IntentDelete     IntentType = "delete"
	IntentAdd        IntentType = "add"
	IntentBodyChange IntentType = "body_change"
)

// Intent is one detected change of a symbol between two outlines.
type Intent struct {
	Type IntentType `json:"type"`
	Kind Kind       `json:"kind"`
	// Name is the symbol's path after the edit (before it, for a delete).
	Name string `json:"name"`
	// OldName is the path before a rename.
	OldName string `json:"old_name,omitempty"`
	// Line and EndLine locate the symbol after the edit (before it, for a delete).
	Line    int    `json:"line"`
	EndLine int    `json:"end_line"`
	Details string `json:"details,omitempty"`
}

// DiffSymbols compares the symbols of a scope before and after an edit with
// the three passes of seed 000:
//
//  1. match by name (Path): same symbol — body_change when its text
//     (Symbol.Sum) differs, nothing when it is identical;
//  2. match the rest by position: a new symbol whose line range overlaps an
//     old one's is a rename of it (same kind preferred, then the largest
//     overlap). A pair whose own name is unchanged was moved with a renamed
//     parent and is reported as a body_change only if its text changed;
//  3. old symbols still unmatched are deletes, new ones adds.
//
// Pass Flatten(outline.Symbols) to diff whole trees; duplicates of one name
// (overloads) pair up in source order.
func DiffSymbols(before, after []Symbol) []Intent {
	oldByName := map[string][]int{}
	for i, s := range before {
		oldByName[s.Path] = append(oldByName[s.Path], i)
	}
	oldUsed := make([]bool, len(before))
	newUsed := make([]bool, len(after))
	var out []Intent

	// Pass 1: by name.
	for j, s := range after {
		idx := oldByName[s.Path]
		if len(idx) == 0 {
			continue
		}
		i := idx[0]
		oldByName[s.Path] = idx[1:]
		oldUsed[i], newUsed[j] = true, true
		if before[i].Sum != s.Sum {
			out = append(out, intent(IntentBodyChange, s, "", "body changed"))
		}
	}

	// Pass 2: by position.
	for j, s := range after {
		if newUsed[j] {
			continue
		}
		best, bestScore := -1, 0
		for i, o := range before {
			if oldUsed[i] {
				continue
			}
			ov := overlap(o.Range, s.Range)
			if ov <= 0 {
				continue
			}
			score := ov
			if o.Kind == s.Kind {
				score += 1 << 20
			}
			if score > bestScore {
				best, bestScore = i, score
			}
		}
		if best < 0 {
			continue
		}
		oldUsed[best], newUsed[j] = true, true
		o := before[best]
		if o.Name == s.Name {
			if o.Sum != s.Sum {
				out = append(out, intent(IntentBodyChange, s, o.Path, "body changed (parent renamed)"))
			}
			continue
		}
		out = append(out, intent(IntentRename, s, o.Path, fmt.Sprintf("renamed %s to %s", o.Name, s.Name)))
	}

	// Pass 3: the rest.
	for i, o := range before {
		if !oldUsed[i] {
			out = append(out, intent(IntentDelete, o, "", "deleted"))
		}
	}
	for j, s := range after {
		if !newUsed[j] {
			out = append(out, intent(IntentAdd, s, "", "added"))
		}
	}
	return out
}

func intent(t IntentType, s Symbol, oldName, details string) Intent {
	return Intent{Type: t, Kind: s.Kind, Name: s.Path, OldName: oldName, Line: s.Range.StartLine, EndLine: s.Range.EndLine, Details: details}
}

// overlap is the number of lines two ranges share.
func overlap(a, b Span) int {
	lo, hi := max(a.StartLine, b.StartLine), min(a.EndLine, b.EndLine)
	return hi - lo + 1
}
