package match

import (
	"slices"
	"strings"
)

// Look-alikes the caller typed. A search that matched only at the
// normalized level because it has a curly quote, a dash or a no-break
// space where the file has ASCII shows the caller's text substitutes that
// look-alike for the file's character: its replacement does the same.
// The lines a change writes are in the file's characters (the promise of
// every tolerant match: only the lines changed, in the file's style), so
// before the change is carried those look-alikes are written as the ASCII
// they stand for, in search and replacement alike (the diff between them
// is unchanged): each look-alike the search has where the matched lines
// do not (any search of the call showing it, for the texts of one call come
// through one channel), and every curly quote once the call shows any
// look-alike typed (smart punctuation curls both kinds of quote).
// Other look-alikes of the replacement are its own (an en dash in
// "200–950 ms", an ellipsis, an em dash in a message), and those the file
// has are its style. Only the look-alikes nobody can see, a no-break or
// other look-alike space and a zero-width character the matched lines do
// not have, are never meant and always mapped, an exact match included.

// asFileChars returns search and replace with the look-alikes the caller
// substitutes (above) mapped to their ASCII; typed holds the look-alikes
// the other searches of the call show typed (withTyped).
func asFileChars(matched, search, replace, typed string, file fileLooks) (string, string) {
	foreign := func(r rune) bool {
		_, ok := lookalike(r)
		return ok && !strings.ContainsRune(matched, r)
	}
	quote := func(m string) bool { return m == "'" || m == `"` }
	shown := map[rune]bool{}
	for _, r := range search + typed {
		if foreign(r) {
			shown[r] = true
		}
	}
	// a channel that typed any look-alike for the file's ASCII has smart
	// quotes on: every curly quote of the call is one of its
	quotes := len(shown) > 0
	mapped := func(r rune) (string, bool) {
		if !foreign(r) {
			return "", false
		}
		m, _ := lookalike(r)
		return m, shown[r] || (quotes && quote(m)) || m == " " || m == ""
	}
	ascii := func(s string) string {
		if strings.IndexFunc(s, func(r rune) bool { _, ok := mapped(r); return ok }) < 0 {
			return s
		}
		var b strings.Builder
		b.Grow(len(s))
		for _, r := range s {
			if m, ok := mapped(r); ok {
				b.WriteString(m)
				continue
			}
			b.WriteRune(r)
		}
		return b.String()
	}
	return ascii(search), file.replacement(replace, mapped, len(shown) > 0)
}

// withTyped returns the changes of one call, each knowing the look-alikes
// any of the call's searches has that the file has nowhere: typed by the
// caller's channel for ASCII, so its replacements' look-alikes of those
// kinds are written as ASCII, in every change of the call; and the
// look-alikes the file has (its style, lookalike_class.go).
func withTyped(content string, changes []Change) []Change {
	var typed []rune
	for _, c := range changes {
		for _, r := range c.Search {
			if _, ok := lookalike(r); ok && !slices.Contains(typed, r) && !strings.ContainsRune(content, r) {
				typed = append(typed, r)
			}
		}
	}
	uses := fileUses(content)
	if len(typed) == 0 && uses == "" {
		return changes
	}
	out := slices.Clone(changes)
	for i := range out {
		out[i].typed, out[i].uses = string(typed), uses
	}
	return out
}
