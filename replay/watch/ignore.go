package watch

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/journalfs/journal/journal"
)

// IgnoreFile is the name of the file, beside or instead of a .gitignore,
// whose patterns (gitignore syntax) say what the watcher leaves alone; they
// take precedence over every .gitignore, so `!build/` in it brings back a
// directory a .gitignore or the defaults leave out.
const IgnoreFile = ".journalignore"

// DefaultIgnores are left out unless a .journalignore brings them back:
// dependency trees and caches that an install or a build rewrites by the
// thousand, and editors' swap files. (.git and the journal's directory are
// always left out.)
var DefaultIgnores = []string{
	"node_modules/", "bower_components/", ".venv/", "venv/", "__pycache__/", "*.pyc",
	".tox/", ".mypy_cache/", ".pytest_cache/", ".ruff_cache/", ".gradle/", ".next/", ".nuxt/",
	".cache/", ".parcel-cache/", ".turbo/", ".terraform/", ".idea/", ".DS_Store",
	"*.swp", "*.swx", "*~", ".#*", "#*#",
}

// always are directories never watched, whatever the rules say.
var always = map[string]bool{".git": true, ".hg": true, ".svn": true, journal.DirName: true}

// Rules decide which paths of one root the watcher leaves alone: the
// defaults, then the .gitignore files of the tree (a deeper one after its
// parents, as git reads them), then its .journalignore files the same way.
// A directory left out is not descended into, so nothing under it can be
// brought back by a deeper pattern (git's rule too). Rules grow as a walk
// enters directories (Enter); they are not safe for concurrent use.
type Rules struct {
	defaults, git, jour []gitignore.Pattern
	m                   gitignore.Matcher
}

// NewRules returns the defaults alone, for a walk to extend with Enter.
func NewRules() *Rules {
	r := &Rules{}
	for _, p := range DefaultIgnores {
		r.defaults = append(r.defaults, gitignore.ParsePattern(p, nil))
	}
	r.rebuild()
	return r
}

func (r *Rules) rebuild() {
	all := make([]gitignore.Pattern, 0, len(r.defaults)+len(r.git)+len(r.jour))
	r.m = gitignore.NewMatcher(append(append(append(all, r.defaults...), r.git...), r.jour...))
}

// Enter reads the ignore files of the directory abs (rel, slash-separated,
// relative to the root; "." for the root itself), if it has any. A walk
// calls it before it looks at the directory's entries.
func (r *Rules) Enter(abs, rel string) {
	var domain []string
	if rel != "." && rel != "" {
		domain = split(rel)
	}
	changed := false
	if ps := readPatterns(filepath.Join(abs, ".gitignore"), domain); len(ps) > 0 {
		r.git = append(r.git, ps...)
		changed = true
	}
	if ps := readPatterns(filepath.Join(abs, IgnoreFile), domain); len(ps) > 0 {
		r.jour = append(r.jour, ps...)
		changed = true
	}
	if changed {
		r.rebuild()
	}
}

func readPatterns(file string, domain []string) []gitignore.Pattern {
	f, err := os.Open(file)
	if err != nil {
		return nil
	}
	defer f.Close()
	var ps []gitignore.Pattern
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, domain))
	}
	return ps
}

// Ignored reports whether rel (slash-separated, relative to the root) is
// left alone: it or one of its parent directories is matched.
func (r *Rules) Ignored(rel string, isDir bool) bool {
	parts := split(rel)
	for _, p := range parts {
		if always[p] {
			return true
		}
	}
	if isTempName(parts[len(parts)-1]) {
		return true
	}
	for i := 1; i < len(parts); i++ {
		if r.m.Match(parts[:i], true) {
			return true
		}
	}
	return r.m.Match(parts, isDir)
}

func split(rel string) []string { return strings.Split(rel, "/") }

// isTempName reports whether a name is one of the engine's temporary files
// (".<name>.jtmp-<n>"): they exist only while a batch applies.
func isTempName(name string) bool {
	i := strings.LastIndex(name, ".jtmp-")
	return i > 0 && strings.HasPrefix(name, ".")
}
