// Package match finds search text in file content and turns a batch of
// search/replace changes into one new content. It also implements the line
// search behind search_content. The package is pure: strings and byte slices
// in, values out; no disk I/O.
//
// # The cascade
//
// [Find] tries the levels in order and stops at the first level that matches
// at least once:
//
//   - exact: the search text occurs byte for byte.
//   - line_endings: the search text occurs once both sides are read with LF
//     line endings (mixed files work too).
//   - whitespace: whole lines are equal but for indentation and trailing
//     whitespace, one for one.
//   - normalized: only with [Options.Fuzzy]. Whole lines are equal once
//     folded (fold.go): NFC, look-alike punctuation (curly quotes, dashes,
//     no-break spaces, the ellipsis), zero-width characters, whitespace
//     between non-word characters; blank lines may differ in number.
//
// Identity before similarity: no level lets two texts differ in an
// identifier, a number or the words of a string. A window that is merely
// similar (Levenshtein, [DefaultThreshold]) is never applied — it is a
// candidate of the refusal, and when it differs from the search only in how
// names are written on lines the change keeps (userId for UserId) or in
// closing brackets the search left off its last line, the refusal carries a
// corrected search/replace pair (ops.Error.Retry) for the caller to send.
//
// # Where an exact match may lie (bounds.go)
//
// An exact (or line-ending) occurrence must start and end on a token
// boundary: a number is never cut ("100" is not in "1000"), a word only at
// a sub-word boundary (an underscore, a lower-to-upper hump, an acronym's
// end). Occurrences that cut are dropped; a search that occurs only so is
// refused with their lines. [Options.Substring] keeps plain substrings.
//
// More than one match at the winning level is refused with
// ops.ErrAmbiguousMatch (listing every position) unless the call names an
// [Options.Occurrence] or sets [Options.ReplaceAll]. A miss is refused with
// ops.ErrNoMatch carrying the three nearest windows (line, similarity, a
// short diff with tabs, CRs, no-break spaces and combining marks made
// visible).
//
// # Before and after the cascade (resolve.go)
//
// With Fuzzy and no match, agent artefacts are tried: line-number prefixes
// as read tools print them, text escaped twice, one cut-marker line ("...",
// "…", "[truncated]") standing for lines the search left out; each only on a
// unique match, named in [Match.Note], never written into the file. Text
// that stands in several places is taken where its line-number prefixes say
// (exactly that occurrence's first and last lines), else refused as
// ambiguous with what was removed. A line tool's content, which has no
// search text, is judged against the lines it replaces (lines.go,
// [LineContent]).
//
// Unless [Options.AllowRepeat], a change that is applied already succeeds
// as a no-op (Applied.AlreadyApplied), on evidence only (applied.go): its
// replacement present once where the search would match — a kept line the
// file holds once, or the search resembling those lines most — no other
// window resembling the search with the change's kept lines, or present at
// the line the caller's evidence names ([Options.MadeAt]); its search found
// and already followed (preceded) by the substantial lines the replacement
// adds; its text already grown as the replacement grows it
// ("thre"→"three"), to a token's end. The replacement present elsewhere is
// no evidence: the miss says where it stands. Added lines too short to tell
// a retry from a second copy ("pass", "}") found beside the search are
// refused (ErrMaybeRepeat) unless MadeAt names them, and so is a search
// found only inside its own replacement. No evidence: the replacement
// found with other blank lines, or at a level blind to the change, or with
// a line the change removes still standing beside it. A tolerant match
// whose carried change leaves the lines as they are is applied already
// when they are the replacement, else refused.
//
// # Replacements: the change, not the text
//
// [Match.Rewrite] writes the replacement as sent at the exact level (but
// for look-alike spaces and zero-width characters the matched lines lack,
// written as ASCII; and at every level the look-alikes the search shows
// typed for the file's ASCII: lookalike.go). At the
// other levels it carries the change onto the file (carry.go): search and
// replace are diffed line by line (ops/merge's Myers diff); lines the caller
// did not change keep the file's bytes (indentation, trailing whitespace,
// look-alikes, line ending); changed and added lines take the file's line
// endings and an indentation translated by a rule learned from the aligned
// lines (indent.go: the same string, a uniform offset, or levels of the
// caller's unit mapped to the file's — tabs or N spaces); a line whose
// indentation no rule explains is refused. A replacement already in the
// file's indentation is not translated a second time (reading.go: its kept
// lines say which style it is in; refused with both readings when they
// disagree or say nothing and the readings differ). An exact match that
// starts after its line's indentation and is replaced by several lines is
// carried onto the whole line, so every line lands at that indentation. A
// changed line's trailing whitespace is the caller's. Before that, the
// replacement's elision markers ("// ... existing code ...") are expanded
// against the search text or refused ([Match.RewriteExpanded],
// ops.ExpandMarkers): the lines a marker stands for are the search's, so
// they keep the file's bytes like every line the caller did not change. Within a changed line only the
// span the caller changed is taken from the replacement; the rest keeps the
// file's characters. [Apply] and [Locate] resolve every change of a batch
// against the ORIGINAL content, refuse overlaps (ops.ErrOverlap), and are
// all-or-nothing. When a change's search text exists only in an earlier
// change's replacement, the batch is made in order instead (order.go),
// each change unique at its turn; otherwise the error says which change to
// split out.
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
