// Package parinfer is a Go port of the indent mode of parinfer.js
// (https://github.com/parinfer/parinfer.js, Shaun Lebron, MIT license):
// it infers the close-parens of Lisp code from its indentation, so a form
// whose brackets an agent got wrong can be offered back balanced.
//
// # What is ported
//
// Indent mode without a cursor (the options cursorX, cursorLine, changes,
// smart and forceBalance of parinfer.js are not supported):
//
//   - Close-parens at the end of a line (the "paren trail") are removed and
//     re-inferred: every open-paren whose column is at or right of the
//     indentation of the next code line is closed at the end of the previous
//     code line; at the end of the text every open-paren is closed.
//   - Close-parens at the start of a line are removed.
//   - A close-paren that matches nothing is removed when it is in a paren
//     trail; anywhere else it is the error "unmatched-close-paren".
//   - Strings ("..."), line comments (;) and escapes (\x, so \( is a
//     character, not a paren) are understood; blank lines and comment lines
//     do not count as indentation.
//   - Tabs in code become two spaces, as in parinfer.js.
//   - Errors as in parinfer.js: "unclosed-quote", "quote-danger" (an odd
//     number of quotes inside comments), "eol-backslash",
//     "unmatched-close-paren"; on error the text is returned unchanged.
//
// Balanced reports, without changing anything, whether a text's brackets
// and strings balance (the check parinfer's paren mode makes first).
// TopLevel finds the top-level forms of a Lisp text by its brackets, for
// dialects without a tree-sitter grammar.
//
// # Coordinates
//
// As in parinfer.js, Error.LineNo and Error.X are 0-based (line index and
// character index within the line).
//
// # Tests
//
// parinfer.js publishes its test cases as Markdown (test/cases/indent-mode.md)
// in which each case is an "in" block and an "out" block. That file could not
// be fetched when this port was written, so testdata/indent-mode.md holds
// cases written in the same format from parinfer's documented behaviour (the
// README and the rules in doc/code.md of parinfer.js); the test reads every
// case from it.
package parinfer
