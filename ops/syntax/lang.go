package syntax

import (
	"bytes"
	"path/filepath"
	"sort"
	"strings"
)

// langInfo is what the package knows about one language besides its grammar.
type langInfo struct {
	comment string   // line-comment prefix, "" if the language has none
	exts    []string // lower-case extensions with the dot
	files   []string // exact lower-case base names (Dockerfile, Makefile-like)
	interp  []string // shebang interpreters
}

// langs is the language table; grammars (grammars.go) and symbol rules (rules.go)
// are keyed by the same names.
var langs = map[string]langInfo{
	"bash":       {"#", []string{".sh", ".bash", ".zsh", ".ksh"}, []string{".bashrc", ".bash_profile", ".profile", ".zshrc"}, []string{"sh", "bash", "zsh", "ksh", "dash"}},
	"c":          {"//", []string{".c", ".h"}, nil, nil},
	"clojure":    {";;", []string{".clj", ".cljs", ".cljc", ".edn", ".bb"}, nil, []string{"bb", "clojure", "clj"}},
	"cpp":        {"//", []string{".cc", ".cpp", ".cxx", ".c++", ".hh", ".hpp", ".hxx", ".h++", ".ipp", ".tpp"}, nil, nil},
	"csharp":     {"//", []string{".cs", ".csx"}, nil, nil},
	"css":        {"", []string{".css"}, nil, nil},
	"cue":        {"//", []string{".cue"}, nil, nil},
	"dockerfile": {"#", []string{".dockerfile"}, []string{"dockerfile", "containerfile"}, nil},
	"elixir":     {"#", []string{".ex", ".exs"}, nil, []string{"elixir"}},
	"elm":        {"--", []string{".elm"}, nil, nil},
	"go":         {"//", []string{".go"}, nil, nil},
	"groovy":     {"//", []string{".groovy", ".gradle", ".gvy"}, []string{"jenkinsfile"}, []string{"groovy"}},
	"hcl":        {"#", []string{".hcl", ".tf", ".tfvars", ".nomad"}, nil, nil},
	"html":       {"", []string{".html", ".htm", ".xhtml"}, nil, nil},
	"java":       {"//", []string{".java"}, nil, nil},
	"javascript": {"//", []string{".js", ".mjs", ".cjs", ".jsx"}, nil, []string{"node", "nodejs", "deno", "bun"}},
	"json":       {"", []string{".json", ".jsonc", ".geojson", ".webmanifest"}, []string{".babelrc", ".eslintrc"}, nil},
	"kotlin":     {"//", []string{".kt", ".kts"}, nil, nil},
	"lua":        {"--", []string{".lua"}, nil, []string{"lua", "luajit"}},
	"markdown":   {"", []string{".md", ".markdown", ".mdown", ".mkd"}, nil, nil},
	"ocaml":      {"", []string{".ml"}, nil, []string{"ocaml"}},
	"php":        {"//", []string{".php", ".phtml"}, nil, []string{"php"}},
	"protobuf":   {"//", []string{".proto"}, nil, nil},
	"python":     {"#", []string{".py", ".pyi", ".pyw"}, []string{"sconstruct", "sconscript"}, []string{"python", "python2", "python3"}},
	"ruby":       {"#", []string{".rb", ".rake", ".gemspec", ".ru"}, []string{"rakefile", "gemfile", "guardfile", "vagrantfile"}, []string{"ruby"}},
	"rust":       {"//", []string{".rs"}, nil, nil},
	"scala":      {"//", []string{".scala", ".sc", ".sbt"}, nil, []string{"scala"}},
	"sql":        {"--", []string{".sql"}, nil, nil},
	"svelte":     {"", []string{".svelte"}, nil, nil},
	"swift":      {"//", []string{".swift"}, nil, nil},
	"toml":       {"#", []string{".toml"}, []string{"cargo.lock", "poetry.lock"}, nil},
	"tsx":        {"//", []string{".tsx"}, nil, nil},
	"typescript": {"//", []string{".ts", ".mts", ".cts"}, nil, []string{"ts-node", "tsx"}},
	"yaml":       {"#", []string{".yaml", ".yml"}, nil, nil},
}

// Languages returns the names of every language the package recognises, sorted.
func Languages() []string {
	out := make([]string, 0, len(langs))
	for name := range langs {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// Detect names the language of a file from its name and, failing that, from a
// shebang on the first line of src (src may be nil). It returns "" when the
// language is not recognised.
func Detect(name string, src []byte) string {
	base := strings.ToLower(filepath.Base(filepath.ToSlash(name)))
	ext := filepath.Ext(base)
	for lang, info := range langs {
		for _, f := range info.files {
			if base == f {
				return lang
			}
		}
	}
	if strings.HasPrefix(base, "dockerfile.") || strings.HasSuffix(base, ".dockerfile") {
		return "dockerfile"
	}
	if ext != "" {
		for lang, info := range langs {
			for _, e := range info.exts {
				if ext == e {
					return lang
				}
			}
		}
	}
	return detectShebang(src)
}

// detectShebang maps "#!/usr/bin/env python3 -u" or "#!/bin/bash" to a language.
func detectShebang(src []byte) string {
	if !bytes.HasPrefix(src, []byte("#!")) {
		return ""
	}
	line := src[2:]
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	fields := strings.Fields(string(line))
	if len(fields) == 0 {
		return ""
	}
	prog := filepath.Base(fields[0])
	if prog == "env" {
		prog = ""
		for _, f := range fields[1:] {
			if !strings.HasPrefix(f, "-") && !strings.Contains(f, "=") {
				prog = f
				break
			}
		}
	}
	prog = strings.TrimRight(prog, "0123456789.")
	for lang, info := range langs {
		for _, p := range info.interp {
			if prog == strings.TrimRight(p, "0123456789.") {
				return lang
			}
		}
	}
	return ""
}

// CommentPrefix returns the line-comment prefix of a language ("//", "#", "--",
// ";;", ...), or "" when the language is unknown or has only block comments
// (CSS, HTML, Markdown, OCaml) or none (JSON).
func CommentPrefix(lang string) string {
	return langs[lang].comment
}
