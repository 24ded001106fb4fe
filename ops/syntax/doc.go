// Package syntax gives the edit tools a structural view of source files,
// built on tree-sitter (github.com/smacker/go-tree-sitter, cgo) plus
// Clojure from go-sitter-forest. It is pure: it takes bytes, does no I/O
// and imports nothing of the project but the error types of package ops.
//
// # What it offers
//
//   - Detect and CommentPrefix: a language from a file name or shebang, and
//     its line-comment prefix.
//   - Outline: the hierarchical symbols of a file (get_overview, read by
//     symbol). Each Symbol has a Range (the declaration) and a Full range
//     that also covers the decorators, attributes, annotations and doc
//     comments directly above it, so an edit can keep or replace them
//     deliberately.
//   - Resolve: a dotted path ("UserService.findById") to one symbol, or an
//     *ops.Error wrapping ops.ErrAmbiguousMatch (overloads, duplicates; the
//     candidates are listed, "path@LINE" picks one) or ops.ErrNoMatch.
//   - Enclosing: the innermost symbol around a line (search_content's
//     semantic_context, read_content mode=semantic).
//   - SyntaxErrors: the ERROR and MISSING nodes of a parse, located.
//   - TopLevelForms and FormAt: top-level forms; in Clojure the forms of a
//     rich comment "(comment ...)" count as top level.
//   - DiffSymbols: seed 000's three-pass intent detection (body_change,
//     rename, add, delete) between two outlines.
//
// # Languages
//
// Grammars: Bash, C, C++, C#, Clojure, CSS, CUE, Dockerfile, Elixir, Elm,
// Go, Groovy, HCL/Terraform, HTML, Java, JavaScript/JSX, Kotlin, Lua, OCaml,
// PHP, Protobuf, Python, Ruby, Rust, Scala, SQL, Svelte, Swift, TOML, TSX,
// TypeScript, YAML. Scanners: JSON (keys; smacker bundles no JSON grammar)
// and Markdown (ATX and setext headings). Any other file gets an outline
// with Supported false, and callers fall back to line ranges.
//
// # Conventions
//
// Lines are 1-based and inclusive, byte ranges half-open, columns 0-based
// bytes. Ranges are trimmed of surrounding whitespace (some grammars let a
// node begin in the blank lines before it). CRLF input is handled as is:
// byte ranges cut at the same places, lines count "\n".
//
// # Performance
//
// Each call parses its source once. Parsers are pooled per language with a
// sync.Pool because a tree-sitter parser is not safe for concurrent use;
// trees are closed before a call returns, so results hold no C memory.
//
// # Adding a language
//
// Add its grammar to grammars.go, its extensions and comment prefix to
// lang.go, and a node type → rule table to rules.go (rules_custom.go for
// rules that need code). A rule turns a node into a kind and a name; nodes
// without a rule are walked through, so nesting comes from the tree.
package syntax
