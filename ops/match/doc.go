// Package match finds search text in file content and turns a batch of
// search/replace changes into one new content. It also implements the line
// search behind search_content. The package is pure: strings and byte slices
// in, values out; no disk I/O.
//
// # The cascade
//
// [Find] tries four levels in order and stops at the first level that matches
// at least once:
//
//   - exact: the search text occurs byte for byte.
//   - line_endings: the search text occurs once both sides are read with LF
//     line endings (search text written with LF against a CRLF file, or the
//     reverse; mixed files work too).
//   - whitespace: whole lines match once trailing whitespace is ignored and the
//     indentation differs by one uniform prefix. The replacement is re-indented
//     by the same prefix.
//   - fuzzy: only with [Options.Fuzzy]. A window of as many lines as the search
//     text whose Levenshtein similarity is at least [Options.Threshold]
//     (default [DefaultThreshold]). Only a unique best window is accepted.
//
// More than one match at the winning level is refused with
// ops.ErrAmbiguousMatch (listing every position) unless the call names an
// [Options.Occurrence] or sets [Options.ReplaceAll]. A miss is refused with
// ops.ErrNoMatch carrying the three nearest windows (line, similarity, short
// diff), and says so when the replacement text is already present.
//
// # Replacements
//
// [Match.Rewrite] adapts replacement text to the file: line endings become
// those of the matched line (LF or CRLF; mixed files stay mixed) and, at the
// whitespace and fuzzy levels, indentation is shifted like the match.
// [Apply] resolves every change of a batch against the ORIGINAL content,
// refuses overlaps (ops.ErrOverlap) and is all-or-nothing.
//
// # Line search
//
// [Search] and [SearchReader] report matching lines (exact, regular
// expression or fuzzy), with submatch byte ranges, context lines and long
// lines cut around the match. The exact path scans with bytes.Index over
// large blocks rather than line by line, so it runs at memory speed;
// SearchReader streams an io.Reader in fixed-size blocks.
//
// # Glossary
//
// Lines are 1-based, byte offsets and columns 0-based. Similarity is in [0,1]:
// 1 - levenshtein(a, b) / max(len(a), len(b)), counted in runes.
//
// Errors are *ops.Error values with Op "match" and Index -1 (Apply sets Index
// to the failing change); callers fill in Op and Path.
package match
