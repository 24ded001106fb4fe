// Package merge is a line-based three-way merge (diff3), used to revert an
// old event onto a file that changed since. It is pure: bytes in, bytes out.
//
// # Roles
//
// For a revert of event N: base is N's after-content, ours the file's current
// content, theirs N's before-content (the target). Merge3 keeps every change
// ours made since base and applies the change base→theirs where it does not
// collide with ours.
//
// # Lines
//
// Content is split into lines that keep their terminators ("\n" or "\r\n"; a
// final line may have none), and lines compare byte for byte, so line endings,
// a missing final newline and any other byte survive exactly.
//
// # Algorithm
//
// Both sides are diffed against base with Myers' O(ND) algorithm in linear
// space (the middle-snake divide and conquer), after trimming the common
// prefix and suffix. The resulting hunks (base ranges each side replaced) are
// grouped while they overlap; a group changed by one side takes that side's
// lines, a group changed by both takes them if both sides agree and is a
// conflict otherwise. Two hunks overlap when their base ranges share a line,
// when two insertions fall at the same place, or when an insertion falls
// strictly inside the other side's range; changes that merely touch combine.
//
// A conflict is an *ops.Error wrapping ops.ErrConflict whose Candidates give
// the conflicting ranges in ours' line numbers.
package merge
